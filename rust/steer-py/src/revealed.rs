//! Bindings for `steer_core::revealed`: GARP, CCEI, Houtman–Maks and the
//! money-pump index for many subjects, their budget choices stacked as
//! (rows, goods) price and quantity arrays delimited by `offsets`.

use crate::convert::{indices, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use steer_core::revealed::{self, Panel};

/// Checked (prices, quantities, goods, offsets) of a panel.
fn panel_parts(
    prices: &PyReadonlyArrayDyn<'_, f64>,
    quantities: &PyReadonlyArrayDyn<'_, f64>,
    offsets: &PyReadonlyArrayDyn<'_, i64>,
) -> PyResult<(usize, Vec<usize>)> {
    let p = shape("prices", prices, 2, "(rows, goods)")?;
    let q = shape("quantities", quantities, 2, "(rows, goods)")?;
    if p != q {
        return Err(InputError::new_err(format!(
            "quantities: shape {q:?} differs from the prices' {p:?}"
        )));
    }
    shape("offsets", offsets, 1, "(subjects + 1,)")?;
    let offsets = indices("offsets", slice("offsets", offsets)?)?;
    if offsets.is_empty() {
        return Err(InputError::new_err(
            "offsets: need at least one entry (0)".to_string(),
        ));
    }
    Ok((p[1], offsets))
}

type Arr<'py, T> = Bound<'py, PyArray1<T>>;

/// GARP per subject: (consistent (S,), violating pairs (S,), CCEI (S,) or
/// None when `ccei` is false).
#[pyfunction]
#[pyo3(signature = (prices, quantities, offsets, ccei = true))]
#[allow(clippy::type_complexity)]
fn revealed_garp<'py>(
    py: Python<'py>,
    prices: PyReadonlyArrayDyn<'py, f64>,
    quantities: PyReadonlyArrayDyn<'py, f64>,
    offsets: PyReadonlyArrayDyn<'py, i64>,
    ccei: bool,
) -> PyResult<(Arr<'py, bool>, Arr<'py, i64>, Option<Arr<'py, f64>>)> {
    let (goods, offsets) = panel_parts(&prices, &quantities, &offsets)?;
    let (p, q) = (slice("prices", &prices)?, slice("quantities", &quantities)?);
    let out = run_detached(py, || {
        let panel = Panel::new(p, q, goods, &offsets)?;
        revealed::garp_ccei_batch(&panel, ccei)
    })?;
    let consistent: Vec<bool> = out.iter().map(|(g, _)| g.consistent).collect();
    let violations: Vec<i64> = out.iter().map(|(g, _)| g.violations as i64).collect();
    let index = ccei.then(|| {
        out.iter()
            .map(|(_, c)| c.unwrap_or(1.0))
            .collect::<Vec<f64>>()
            .into_pyarray(py)
    });
    Ok((
        consistent.into_pyarray(py),
        violations.into_pyarray(py),
        index,
    ))
}

/// Houtman–Maks per subject: (size (S,), upper bound (S,), exact (S,)).
#[pyfunction]
#[pyo3(signature = (prices, quantities, offsets, node_budget = revealed::HM_NODE_BUDGET))]
#[allow(clippy::type_complexity)]
fn revealed_houtman_maks<'py>(
    py: Python<'py>,
    prices: PyReadonlyArrayDyn<'py, f64>,
    quantities: PyReadonlyArrayDyn<'py, f64>,
    offsets: PyReadonlyArrayDyn<'py, i64>,
    node_budget: usize,
) -> PyResult<(Arr<'py, i64>, Arr<'py, i64>, Arr<'py, bool>)> {
    let (goods, offsets) = panel_parts(&prices, &quantities, &offsets)?;
    let (p, q) = (slice("prices", &prices)?, slice("quantities", &quantities)?);
    let out = run_detached(py, || {
        let panel = Panel::new(p, q, goods, &offsets)?;
        revealed::houtman_maks_batch(&panel, node_budget)
    })?;
    let size: Vec<i64> = out.iter().map(|h| h.size as i64).collect();
    let upper: Vec<i64> = out.iter().map(|h| h.upper as i64).collect();
    let exact: Vec<bool> = out.iter().map(|h| h.exact).collect();
    Ok((
        size.into_pyarray(py),
        upper.into_pyarray(py),
        exact.into_pyarray(py),
    ))
}

/// Money-pump index per subject: (mean (S,), max (S,), cycles (S,),
/// exact (S,)).
#[pyfunction]
#[pyo3(signature = (prices, quantities, offsets, step_budget = revealed::MPI_STEP_BUDGET))]
#[allow(clippy::type_complexity)]
fn revealed_money_pump<'py>(
    py: Python<'py>,
    prices: PyReadonlyArrayDyn<'py, f64>,
    quantities: PyReadonlyArrayDyn<'py, f64>,
    offsets: PyReadonlyArrayDyn<'py, i64>,
    step_budget: usize,
) -> PyResult<(Arr<'py, f64>, Arr<'py, f64>, Arr<'py, i64>, Arr<'py, bool>)> {
    let (goods, offsets) = panel_parts(&prices, &quantities, &offsets)?;
    let (p, q) = (slice("prices", &prices)?, slice("quantities", &quantities)?);
    let out = run_detached(py, || {
        let panel = Panel::new(p, q, goods, &offsets)?;
        revealed::money_pump_batch(&panel, step_budget)
    })?;
    let mean: Vec<f64> = out.iter().map(|m| m.mean).collect();
    let max: Vec<f64> = out.iter().map(|m| m.max).collect();
    let cycles: Vec<i64> = out.iter().map(|m| m.cycles as i64).collect();
    let exact: Vec<bool> = out.iter().map(|m| m.exact).collect();
    Ok((
        mean.into_pyarray(py),
        max.into_pyarray(py),
        cycles.into_pyarray(py),
        exact.into_pyarray(py),
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(revealed_garp, m)?)?;
    m.add_function(wrap_pyfunction!(revealed_houtman_maks, m)?)?;
    m.add_function(wrap_pyfunction!(revealed_money_pump, m)?)?;
    Ok(())
}
