//! One error type for the core; the bindings map each variant onto a class of
//! the `steer.errors` hierarchy.

use thiserror::Error as ThisError;

#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum Error {
    /// The caller handed in data that cannot be used (wrong shape, out-of-range
    /// codes, NaN where a number is required). `field` names the argument.
    #[error("{field}: {message}")]
    InvalidInput { field: String, message: String },
    /// One row of a table holds an unusable value; `row` is 0-based.
    #[error("{field}: row {row}: {message}")]
    InvalidRow {
        field: String,
        row: usize,
        message: String,
    },
    /// A solver was asked for something it cannot answer (e.g. a game with no
    /// actions).
    #[error("{0}")]
    Unsolvable(String),
    /// A size computed from the input (groups × bins, resamples × metrics, …)
    /// cannot be allocated: `requested` elements, or `None` when the size
    /// itself overflows. Returned instead of aborting the process.
    #[error("{what}: {}", too_large_text(.requested))]
    TooLarge {
        what: String,
        requested: Option<usize>,
    },
}

fn too_large_text(requested: &Option<usize>) -> String {
    match requested {
        Some(n) => format!("{n} elements are too many to allocate"),
        None => "the requested size overflows".to_string(),
    }
}

impl Error {
    /// A `TooLarge` error for `what` (`None`: the size overflowed).
    pub fn too_large(what: impl Into<String>, requested: Option<usize>) -> Self {
        Error::TooLarge {
            what: what.into(),
            requested,
        }
    }

    pub fn invalid(field: impl Into<String>, message: impl Into<String>) -> Self {
        Error::InvalidInput {
            field: field.into(),
            message: message.into(),
        }
    }

    /// Prefixes an input error's message with the item of a batch it concerns
    /// (e.g. "game 3: ..."), so batch callers learn which entry was bad.
    pub fn at_item(self, what: &str, index: usize) -> Self {
        match self {
            Error::InvalidInput { field, message } => Error::InvalidInput {
                field,
                message: format!("{what} {index}: {message}"),
            },
            other => other,
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
