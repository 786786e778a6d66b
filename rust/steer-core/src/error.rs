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
}

impl Error {
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
