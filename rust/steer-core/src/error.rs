//! One error type for the core; the bindings map each variant onto a class of
//! the `steer.errors` hierarchy.

use thiserror::Error as ThisError;

#[derive(Debug, Clone, PartialEq, Eq, ThisError)]
pub enum Error {
    /// The caller handed in data that cannot be used (wrong shape, out-of-range
    /// codes, NaN where a number is required). `field` names the argument.
    #[error("{field}: {message}")]
    InvalidInput { field: String, message: String },
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
}

pub type Result<T> = std::result::Result<T, Error>;
