//! The `steer.errors` exception classes and the mapping from core errors.
//! Python re-exports these from `steer.errors` and subclasses them there.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};

pyo3::create_exception!(
    steer.errors,
    SteerError,
    PyException,
    "Base class of every error steer raises."
);
pyo3::create_exception!(
    steer.errors,
    InputError,
    SteerError,
    "Input that steer cannot use: a bad file, column, value or id."
);
pyo3::create_exception!(
    steer.errors,
    SolverError,
    SteerError,
    "A solver could not answer the question it was given."
);
pyo3::create_exception!(
    steer.errors,
    InternalError,
    SteerError,
    "A bug in steer itself (e.g. a caught Rust panic); please report it."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("SteerError", py.get_type::<SteerError>())?;
    m.add("InputError", py.get_type::<InputError>())?;
    m.add("SolverError", py.get_type::<SolverError>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add_function(wrap_pyfunction!(_panic_for_tests, m)?)?;
    Ok(())
}

/// Wraps a core error for `?` in binding functions.
pub struct CoreError(pub steer_core::Error);

impl From<steer_core::Error> for CoreError {
    fn from(e: steer_core::Error) -> Self {
        CoreError(e)
    }
}

impl From<CoreError> for PyErr {
    fn from(e: CoreError) -> Self {
        match e.0 {
            err @ steer_core::Error::InvalidInput { .. } => InputError::new_err(err.to_string()),
            steer_core::Error::InvalidRow {
                field,
                row,
                message,
            } => {
                // The row and column travel as attributes so Python can map a
                // row of a concatenated table back to its file.
                let err = InputError::new_err(format!("{field}: row {row}: {message}"));
                Python::attach(|py| {
                    let value = err.value(py);
                    let _ = value.setattr("row", row);
                    let _ = value.setattr("field", field);
                    let _ = value.setattr("problem", message);
                });
                err
            }
            err @ steer_core::Error::Unsolvable(_) => SolverError::new_err(err.to_string()),
            // A size from the input that cannot be allocated is bad input
            // (ask for less), never an abort or an internal error.
            err @ steer_core::Error::TooLarge { .. } => InputError::new_err(format!(
                "{err}; use smaller sizes (fewer groups, bins or resamples)"
            )),
        }
    }
}

/// Runs core work without the GIL and turns a panic into `InternalError`, so
/// no Rust panic ever unwinds into Python.
pub fn run_detached<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, steer_core::Error> + Send,
{
    let outcome = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match outcome {
        Ok(result) => result.map_err(|e| CoreError(e).into()),
        Err(payload) => {
            let detail = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(InternalError::new_err(format!(
                "internal error in steer-core: {detail} (please report this)"
            )))
        }
    }
}

/// Non-contiguous or otherwise unreadable arrays become an `InputError`
/// naming the argument.
pub fn not_contiguous(field: &str) -> PyErr {
    InputError::new_err(format!("{field}: array must be C-contiguous"))
}

/// Panics inside the core on purpose, so tests can prove that a panic comes
/// back as `InternalError` instead of unwinding into Python.
#[pyfunction]
pub fn _panic_for_tests(py: Python<'_>) -> PyResult<()> {
    run_detached(py, || -> Result<(), steer_core::Error> {
        panic!("deliberate panic for tests")
    })
}
