//! steer-core: the exact, fast parts of steer in plain Rust.
//!
//! No Python here: the `steer-py` crate converts arrays and errors at the
//! boundary. Everything takes plain slices so it can be tested with `cargo test`
//! and reused outside Python.

pub mod alloc;
pub mod decision;
pub mod draws;
pub mod error;
pub mod fit;
pub mod games;
pub mod mechanism;
pub mod metrics;
pub mod options;
pub mod parse;
pub mod pyjson;
pub mod revealed;
pub mod social;

pub use error::{Error, Result};
