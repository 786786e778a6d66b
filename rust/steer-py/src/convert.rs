//! Argument conversions shared by the solver bindings: numpy arrays and
//! Python ints into the plain slices and indices the core takes, with every
//! failure an `InputError` that names the argument.

use crate::errors::{not_contiguous, InputError};
use numpy::{PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use steer_core::games::Player;

/// A non-negative Python int as an index.
pub fn index(field: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| InputError::new_err(format!("{field}: must be non-negative, got {value}")))
}

/// A slice of non-negative ints as indices.
pub fn indices(field: &str, values: &[i64]) -> PyResult<Vec<usize>> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            usize::try_from(v).map_err(|_| {
                InputError::new_err(format!("{field}: entry {i} must be non-negative, got {v}"))
            })
        })
        .collect()
}

/// 0 → row player, 1 → column player.
pub fn player(value: i64) -> PyResult<Player> {
    let p = index("player", value)?;
    Player::from_index(p).map_err(|e| crate::errors::CoreError(e).into())
}

/// The shape of `array` after checking its number of axes; `expected`
/// describes the shape for the message.
pub fn shape<T: numpy::Element>(
    field: &str,
    array: &PyReadonlyArrayDyn<'_, T>,
    rank: usize,
    expected: &str,
) -> PyResult<Vec<usize>> {
    let shape = array.shape().to_vec();
    if shape.len() != rank {
        return Err(InputError::new_err(format!(
            "{field}: expected an array of shape {expected}, got {} axes",
            shape.len()
        )));
    }
    Ok(shape)
}

/// The contiguous data of `array`.
pub fn slice<'a, T: numpy::Element>(
    field: &str,
    array: &'a PyReadonlyArrayDyn<'_, T>,
) -> PyResult<&'a [T]> {
    array.as_slice().map_err(|_| not_contiguous(field))
}

/// Checks a payoff array of shape (..., rows, cols, 2) with `rank` axes and
/// returns the shape and data.
pub fn bimatrix<'a>(
    payoffs: &'a PyReadonlyArrayDyn<'_, f64>,
    rank: usize,
    expected: &str,
) -> PyResult<(Vec<usize>, &'a [f64])> {
    let shape = shape("payoffs", payoffs, rank, expected)?;
    if shape[rank - 1] != 2 {
        return Err(InputError::new_err(format!(
            "payoffs: last axis must hold the 2 players' payoffs, got {}",
            shape[rank - 1]
        )));
    }
    if shape[rank - 3] == 0 || shape[rank - 2] == 0 {
        return Err(InputError::new_err(format!(
            "payoffs: a game needs at least one action per player, got {}x{}",
            shape[rank - 3],
            shape[rank - 2]
        )));
    }
    Ok((shape, slice("payoffs", payoffs)?))
}

/// `Option<usize>` as a Python-facing int with -1 for "none" (for arrays).
pub fn or_minus_one(value: Option<usize>) -> i64 {
    value.map_or(-1, |v| v as i64)
}
