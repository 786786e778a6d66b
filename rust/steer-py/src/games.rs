//! Bindings for `steer_core::games`: normal-form concepts (best responses,
//! dominance, IRDS, pure Nash equilibria).
//!
//! Arguments are taken loosely (signed integers, arrays of any rank) and
//! checked here, so every mistake becomes an `InputError` naming the argument
//! rather than a pyo3 conversion error.

use crate::errors::{not_contiguous, run_detached, InputError};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArray3, PyArrayMethods, PyReadonlyArray1,
    PyReadonlyArrayDyn, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use steer_core::games::{
    best_response_batch as core_batch, dominance, irds, pure_nash as core_pure_nash, Bimatrix,
    Player, Strength,
};

use crate::convert::{bimatrix, or_minus_one, player as player_of};

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

fn strength(strict: bool) -> Strength {
    if strict {
        Strength::Strict
    } else {
        Strength::Weak
    }
}

/// For each strategy of `player`, the lowest-numbered pure strategy that
/// dominates it (strictly or weakly), or None.
#[pyfunction]
#[pyo3(signature = (payoffs, player, strict = true))]
fn dominators(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    player: i64,
    strict: bool,
) -> PyResult<Vec<Option<usize>>> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let player = player_of(player)?;
    run_detached(py, || {
        let game = Bimatrix::new(shape[0], shape[1], flat)?;
        Ok(dominance::dominators(&game, player, strength(strict)))
    })
}

/// The strategy of `player` that dominates all others, or None.
#[pyfunction]
#[pyo3(signature = (payoffs, player, strict = true))]
fn dominant_strategy(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
    player: i64,
    strict: bool,
) -> PyResult<Option<usize>> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let player = player_of(player)?;
    run_detached(py, || {
        let game = Bimatrix::new(shape[0], shape[1], flat)?;
        Ok(dominance::dominant_strategy(
            &game,
            player,
            strength(strict),
        ))
    })
}

type DominanceArrays<'py> = (Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<i64>>);

/// Dominance over a batch (n, rows, cols, 2): returns (dominators (n, k),
/// dominant (n,)) as int64 arrays with -1 for "none".
#[pyfunction]
#[pyo3(signature = (payoffs, player, strict = true))]
fn dominance_batch<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
    player: i64,
    strict: bool,
) -> PyResult<DominanceArrays<'py>> {
    let (shape, flat) = bimatrix(&payoffs, 4, "(n, rows, cols, 2)")?;
    let player = player_of(player)?;
    let (n, rows, cols) = (shape[0], shape[1], shape[2]);
    let k = if player == Player::Row { rows } else { cols };
    let batch = run_detached(py, || {
        dominance::dominance_batch(rows, cols, flat, player, strength(strict))
    })?;
    let table: Vec<i64> = batch.dominators.into_iter().map(or_minus_one).collect();
    let dominant: Vec<i64> = batch.dominant.into_iter().map(or_minus_one).collect();
    Ok((
        table.into_pyarray(py).reshape([n, k])?,
        dominant.into_pyarray(py),
    ))
}

/// IRDS by pure strategies: (surviving rows, surviving cols, eliminations as
/// (round, player, strategy, dominated_by)).
#[pyfunction]
fn iterated_dominance(py: Python<'_>, payoffs: PyReadonlyArrayDyn<'_, f64>) -> PyResult<IrdsTuple> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    let result = run_detached(py, || {
        let game = Bimatrix::new(shape[0], shape[1], flat)?;
        Ok(irds::iterated_strict_dominance(&game))
    })?;
    let order = result
        .order
        .iter()
        .map(|e| (e.round, e.player as usize, e.strategy, e.dominated_by))
        .collect();
    Ok((result.rows, result.cols, order))
}

type IrdsTuple = (Vec<usize>, Vec<usize>, Vec<(usize, usize, usize, usize)>);

type IrdsArrays<'py> = (
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray2<bool>>,
    Bound<'py, PyArray1<i64>>,
);

/// IRDS over a batch (n, rows, cols, 2): (row survivors (n, rows) bool, col
/// survivors (n, cols) bool, rounds that removed something (n,) int64).
#[pyfunction]
fn iterated_dominance_batch<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<IrdsArrays<'py>> {
    let (shape, flat) = bimatrix(&payoffs, 4, "(n, rows, cols, 2)")?;
    let (n, rows, cols) = (shape[0], shape[1], shape[2]);
    let (rm, cm, rounds) = run_detached(py, || irds::irds_batch(rows, cols, flat))?;
    let rounds: Vec<i64> = rounds.into_iter().map(|r| r as i64).collect();
    Ok((
        rm.into_pyarray(py).reshape([n, rows])?,
        cm.into_pyarray(py).reshape([n, cols])?,
        rounds.into_pyarray(py),
    ))
}

/// Pure Nash equilibria of one game as (row, col) pairs, row-major order.
#[pyfunction]
fn pure_nash(
    py: Python<'_>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<Vec<(usize, usize)>> {
    let (shape, flat) = bimatrix(&payoffs, 3, "(rows, cols, 2)")?;
    run_detached(py, || {
        Ok(core_pure_nash::pure_nash(&Bimatrix::new(
            shape[0], shape[1], flat,
        )?))
    })
}

/// Pure Nash mask (n, rows, cols) for a batch (n, rows, cols, 2).
#[pyfunction]
fn pure_nash_batch<'py>(
    py: Python<'py>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<Bound<'py, PyArray3<bool>>> {
    let (shape, flat) = bimatrix(&payoffs, 4, "(n, rows, cols, 2)")?;
    let (n, rows, cols) = (shape[0], shape[1], shape[2]);
    let mask = run_detached(py, || core_pure_nash::pure_nash_batch(rows, cols, flat))?;
    mask.into_pyarray(py).reshape([n, rows, cols])
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(best_response, m)?)?;
    m.add_function(wrap_pyfunction!(best_response_batch, m)?)?;
    m.add_function(wrap_pyfunction!(dominators, m)?)?;
    m.add_function(wrap_pyfunction!(dominant_strategy, m)?)?;
    m.add_function(wrap_pyfunction!(dominance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(iterated_dominance, m)?)?;
    m.add_function(wrap_pyfunction!(iterated_dominance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(pure_nash, m)?)?;
    m.add_function(wrap_pyfunction!(pure_nash_batch, m)?)?;
    Ok(())
}
