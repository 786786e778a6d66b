//! Bindings for `steer_core::games::repeated`: feasibility, minmax,
//! enforceability and grim trigger in infinitely repeated 2-player games.

use crate::convert::{bimatrix, index};
use crate::errors::run_detached;
use numpy::PyReadonlyArrayDyn;
use pyo3::prelude::*;
use steer_core::games::{repeated, Bimatrix};

/// Whether the average payoff pair `point` lies in the convex hull of the
/// stage game's payoffs (rows, cols, 2).
#[pyfunction]
fn is_feasible(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    point: (f64, f64),
) -> PyResult<bool> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    run_detached(py, || {
        repeated::is_feasible(&Bimatrix::new(shape[0], shape[1], flat)?, point)
    })
}

/// Whether `point` is feasible and at least each player's pure minmax value.
#[pyfunction]
fn is_enforceable(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    point: (f64, f64),
) -> PyResult<bool> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    run_detached(py, || {
        repeated::is_enforceable(&Bimatrix::new(shape[0], shape[1], flat)?, point)
    })
}

/// Pure minmax values: (row value, col value, column action punishing the
/// row player, row action punishing the column player).
#[pyfunction]
fn pure_minmax(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<(f64, f64, usize, usize)> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let mm = run_detached(py, || {
        Ok(repeated::pure_minmax(&Bimatrix::new(
            shape[0], shape[1], flat,
        )?))
    })?;
    Ok((mm.row, mm.col, mm.row_punished_by, mm.col_punished_by))
}

/// Grim trigger sustaining `target` = (row, col) with reversion to
/// `punishment`: (critical discount factor or None if no δ < 1 works,
/// whether the punishment is a stage Nash equilibrium).
#[pyfunction]
fn grim_trigger(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    target: (i64, i64),
    punishment: (i64, i64),
) -> PyResult<(Option<f64>, bool)> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let target = (index("target", target.0)?, index("target", target.1)?);
    let punishment = (
        index("punishment", punishment.0)?,
        index("punishment", punishment.1)?,
    );
    let gt = run_detached(py, || {
        repeated::grim_trigger(
            &Bimatrix::new(shape[0], shape[1], flat)?,
            target,
            punishment,
        )
    })?;
    Ok((gt.critical_delta, gt.punishment_is_stage_nash))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(is_feasible, m)?)?;
    m.add_function(wrap_pyfunction!(is_enforceable, m)?)?;
    m.add_function(wrap_pyfunction!(pure_minmax, m)?)?;
    m.add_function(wrap_pyfunction!(grim_trigger, m)?)?;
    Ok(())
}
