//! Bindings for `steer_core::games::support_enumeration`: all (extreme) Nash
//! equilibria of bimatrix games, one at a time or in batches.

use crate::convert::{bimatrix, shape, slice};
use crate::errors::run_detached;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use steer_core::games::{support_enumeration as se, Bimatrix};

type Strategies<'py> = (Bound<'py, PyArray2<f64>>, Bound<'py, PyArray2<f64>>);

/// All extreme Nash equilibria of a (rows, cols, 2) game: (row strategies
/// (k, rows), col strategies (k, cols)).
#[pyfunction]
fn nash_equilibria<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<Strategies<'py>> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let (rows, cols) = (shape[0], shape[1]);
    let batch = run_detached(py, || se::all_equilibria_batch(rows, cols, flat))?;
    let k = batch.offsets[1];
    Ok((
        batch.row.into_pyarray(py).reshape([k, rows])?,
        batch.col.into_pyarray(py).reshape([k, cols])?,
    ))
}

type BatchArrays<'py> = (
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray2<f64>>,
);

/// Equilibria of a batch (n, rows, cols, 2): (offsets (n + 1,), row
/// strategies (total, rows), col strategies (total, cols)); game i owns
/// entries offsets[i]:offsets[i + 1].
#[pyfunction]
fn nash_equilibria_batch<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<BatchArrays<'py>> {
    let (shape, flat) = bimatrix(&payoffs, 4, "(n, rows, cols, 2)")?;
    let (rows, cols) = (shape[1], shape[2]);
    let batch = run_detached(py, || se::all_equilibria_batch(rows, cols, flat))?;
    let total = *batch.offsets.last().unwrap_or(&0);
    let offsets: Vec<i64> = batch.offsets.iter().map(|&o| o as i64).collect();
    Ok((
        offsets.into_pyarray(py),
        batch.row.into_pyarray(py).reshape([total, rows])?,
        batch.col.into_pyarray(py).reshape([total, cols])?,
    ))
}

/// (row player's, column player's) largest gain from deviating from the mixed
/// profile (row, col).
#[pyfunction]
fn nash_regret(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    row: PyReadonlyArrayDyn<'_, f64>,
    col: PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<(f64, f64)> {
    let (dims, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    shape("row", &row, 1, "(rows,)")?;
    shape("col", &col, 1, "(cols,)")?;
    let (row, col) = (slice("row", &row)?, slice("col", &col)?);
    run_detached(py, || {
        se::regret(&Bimatrix::new(dims[0], dims[1], flat)?, row, col)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(nash_equilibria, m)?)?;
    m.add_function(wrap_pyfunction!(nash_equilibria_batch, m)?)?;
    m.add_function(wrap_pyfunction!(nash_regret, m)?)?;
    Ok(())
}
