//! Bindings for `steer_core::decision`.

use crate::errors::{not_contiguous, run_detached};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use steer_core::decision;

fn offsets_of(offsets: &[i64]) -> PyResult<Vec<usize>> {
    offsets
        .iter()
        .map(|&o| {
            usize::try_from(o).map_err(|_| {
                crate::errors::InputError::new_err(format!("offsets: negative offset {o}"))
            })
        })
        .collect()
}

/// Σ p·x of one lottery.
#[pyfunction]
fn expected_value(
    py: Python<'_>,
    values: PyReadonlyArray1<'_, f64>,
    probs: PyReadonlyArray1<'_, f64>,
) -> PyResult<f64> {
    let values = values.as_slice().map_err(|_| not_contiguous("values"))?;
    let probs = probs.as_slice().map_err(|_| not_contiguous("probs"))?;
    run_detached(py, || decision::expected_value(values, probs))
}

/// Expected values of lotteries stored back to back (CSR-style `offsets`).
#[pyfunction]
fn expected_values<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, f64>,
    probs: PyReadonlyArray1<'py, f64>,
    offsets: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let values = values.as_slice().map_err(|_| not_contiguous("values"))?;
    let probs = probs.as_slice().map_err(|_| not_contiguous("probs"))?;
    let offsets = offsets_of(offsets.as_slice().map_err(|_| not_contiguous("offsets"))?)?;
    let evs = run_detached(py, || decision::expected_values(values, probs, &offsets))?;
    Ok(evs.into_pyarray(py))
}

/// Indices of the lotteries with the highest expected value (all ties).
#[pyfunction]
fn argmax_expected_value(
    py: Python<'_>,
    values: PyReadonlyArray1<'_, f64>,
    probs: PyReadonlyArray1<'_, f64>,
    offsets: PyReadonlyArray1<'_, i64>,
) -> PyResult<Vec<usize>> {
    let values = values.as_slice().map_err(|_| not_contiguous("values"))?;
    let probs = probs.as_slice().map_err(|_| not_contiguous("probs"))?;
    let offsets = offsets_of(offsets.as_slice().map_err(|_| not_contiguous("offsets"))?)?;
    run_detached(py, || {
        decision::argmax_expected_value(values, probs, &offsets)
    })
}

/// `(argmax_expected_value, expected_values)` in one call on plain lists: the
/// generator ranks a handful of two- or three-outcome lotteries per question,
/// where building numpy arrays and calling twice cost more than the sums.
#[pyfunction]
fn rank_expected_values(
    py: Python<'_>,
    values: Vec<f64>,
    probs: Vec<f64>,
    offsets: Vec<i64>,
) -> PyResult<(Vec<usize>, Vec<f64>)> {
    let offsets = offsets_of(&offsets)?;
    run_detached(py, || {
        let evs = decision::expected_values(&values, &probs, &offsets)?;
        let best = decision::argmax_expected_value(&values, &probs, &offsets)?;
        Ok((best, evs))
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(expected_value, m)?)?;
    m.add_function(wrap_pyfunction!(expected_values, m)?)?;
    m.add_function(wrap_pyfunction!(argmax_expected_value, m)?)?;
    m.add_function(wrap_pyfunction!(rank_expected_values, m)?)?;
    Ok(())
}
