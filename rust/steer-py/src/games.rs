//! Bindings for `steer_core::games`.
//!
//! Arguments are taken loosely (signed integers, arrays of any rank) and
//! checked here, so every mistake becomes an `InputError` naming the argument
//! rather than a pyo3 conversion error.

use crate::errors::{not_contiguous, run_detached, InputError};
use numpy::{
    IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArrayDyn,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use steer_core::games::{best_response_batch as core_batch, Bimatrix, Player};

fn index(field: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| InputError::new_err(format!("{field}: must be non-negative, got {value}")))
}

/// Checks that `payoffs` has shape (..., rows, cols, 2) with `rank` axes and
/// returns the shape.
fn game_shape(
    payoffs: &PyReadonlyArrayDyn<'_, f64>,
    rank: usize,
    expected: &str,
) -> PyResult<Vec<usize>> {
    let shape = payoffs.shape().to_vec();
    if shape.len() != rank {
        return Err(InputError::new_err(format!(
            "payoffs: expected an array of shape {expected}, got {} axes",
            shape.len()
        )));
    }
    if shape[rank - 1] != 2 {
        return Err(InputError::new_err(format!(
            "payoffs: last axis must hold the 2 players' payoffs, got {}",
            shape[rank - 1]
        )));
    }
    Ok(shape)
}

/// Best responses of `player` (0 = row, 1 = column) to the opponent's action
/// `against` in a game of shape (rows, cols, 2).
#[pyfunction]
fn best_response(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    player: i64,
    against: i64,
) -> PyResult<Vec<usize>> {
    let shape = game_shape(&payoffs, 3, "(rows, cols, 2)")?;
    let flat = payoffs.as_slice().map_err(|_| not_contiguous("payoffs"))?;
    let (player, against) = (index("player", player)?, index("against", against)?);
    run_detached(py, || {
        let player = Player::from_index(player)?;
        Bimatrix::new(shape[0], shape[1], flat)?.best_responses(player, against)
    })
}

/// Best-response mask for a batch of games of shape (n, rows, cols, 2):
/// returns a bool array (n, actions of `player`).
#[pyfunction]
fn best_response_batch<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
    player: i64,
    against: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let shape = game_shape(&payoffs, 4, "(n, rows, cols, 2)")?;
    let flat = payoffs.as_slice().map_err(|_| not_contiguous("payoffs"))?;
    let against = against.as_slice().map_err(|_| not_contiguous("against"))?;
    let player = index("player", player)?;
    let (n, rows, cols) = (shape[0], shape[1], shape[2]);
    let (mask, k) = run_detached(py, || {
        let player = Player::from_index(player)?;
        let against: Vec<usize> = against
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                usize::try_from(a).map_err(|_| {
                    steer_core::Error::invalid("against", format!("game {i}: negative action {a}"))
                })
            })
            .collect::<Result<_, _>>()?;
        let k = if player == Player::Row { rows } else { cols };
        core_batch(rows, cols, flat, player, &against).map(|m| (m, k))
    })?;
    mask.into_pyarray(py).reshape([n, k])
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(best_response, m)?)?;
    m.add_function(wrap_pyfunction!(best_response_batch, m)?)?;
    Ok(())
}
