//! Bindings for `steer_core::games`.

use crate::errors::{not_contiguous, run_detached};
use numpy::{
    PyArray2, PyReadonlyArray1, PyReadonlyArray3, PyReadonlyArray4, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use steer_core::games::{best_response_batch as core_batch, Bimatrix, Player};

/// Best responses of `player` (0 = row, 1 = column) to the opponent's action
/// `against` in a game of shape (rows, cols, 2).
#[pyfunction]
fn best_response(
    py: Python<'_>,
    payoffs: PyReadonlyArray3<'_, f64>,
    player: usize,
    against: usize,
) -> PyResult<Vec<usize>> {
    let shape = payoffs.shape().to_vec();
    let flat = payoffs.as_slice().map_err(|_| not_contiguous("payoffs"))?;
    if shape[2] != 2 {
        return Err(crate::errors::InputError::new_err(format!(
            "payoffs: last axis must hold the 2 players' payoffs, got {}",
            shape[2]
        )));
    }
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
    payoffs: PyReadonlyArray4<'py, f64>,
    player: usize,
    against: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let shape = payoffs.shape().to_vec();
    let flat = payoffs.as_slice().map_err(|_| not_contiguous("payoffs"))?;
    let against = against.as_slice().map_err(|_| not_contiguous("against"))?;
    if shape[3] != 2 {
        return Err(crate::errors::InputError::new_err(format!(
            "payoffs: last axis must hold the 2 players' payoffs, got {}",
            shape[3]
        )));
    }
    let (rows, cols) = (shape[1], shape[2]);
    let mask = run_detached(py, || {
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
    let (mask, k) = mask;
    let n = shape[0];
    let rows_out: Vec<Vec<bool>> = mask.chunks(k.max(1)).map(|c| c.to_vec()).collect();
    if n == 0 {
        return Ok(PyArray2::zeros(py, [0, k], false));
    }
    Ok(PyArray2::from_vec2(py, &rows_out)?)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(best_response, m)?)?;
    m.add_function(wrap_pyfunction!(best_response_batch, m)?)?;
    Ok(())
}
