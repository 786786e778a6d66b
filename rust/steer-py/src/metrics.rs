//! Bindings for `steer_core::metrics`.

use crate::errors::{not_contiguous, run_detached};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use steer_core::metrics::accuracy_by_group as core_accuracy;

/// Per-group accuracy sums. Every array has one entry per response row;
/// returns a dict of numpy arrays of length `n_groups`.
#[pyfunction]
fn accuracy_by_group<'py>(
    py: Python<'py>,
    group: PyReadonlyArray1<'py, u32>,
    n_groups: usize,
    chosen: PyReadonlyArray1<'py, i64>,
    correct: PyReadonlyArray1<'py, i64>,
    n_options: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let group = group.as_slice().map_err(|_| not_contiguous("group"))?;
    let chosen = chosen.as_slice().map_err(|_| not_contiguous("chosen"))?;
    let correct = correct.as_slice().map_err(|_| not_contiguous("correct"))?;
    let n_options = n_options
        .as_slice()
        .map_err(|_| not_contiguous("n_options"))?;
    let cells = run_detached(py, || {
        core_accuracy(group, n_groups, chosen, correct, n_options)
    })?;
    let out = PyDict::new(py);
    out.set_item("n_rows", cells.n_rows.into_pyarray(py))?;
    out.set_item("n_no_answer", cells.n_no_answer.into_pyarray(py))?;
    out.set_item("n_correct", cells.n_correct.into_pyarray(py))?;
    out.set_item("sum_norm", cells.sum_norm.into_pyarray(py))?;
    out.set_item("sum_norm_strict", cells.sum_norm_strict.into_pyarray(py))?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(accuracy_by_group, m)?)?;
    Ok(())
}
