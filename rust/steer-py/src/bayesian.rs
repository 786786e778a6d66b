//! Bindings for `steer_core::games::bayesian`: Bayes–Nash best responses and
//! pure Bayes–Nash equilibria.

use crate::convert::{indices, player as player_of, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use steer_core::games::{BayesianGame, Player};

fn game_arrays<'a>(
    prior: &'a PyReadonlyArrayDyn<'_, f64>,
    payoffs: &'a PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<(Vec<usize>, &'a [f64], &'a [f64])> {
    let tp = shape("prior", prior, 2, "(row_types, col_types)")?;
    let dims = shape(
        "payoffs",
        payoffs,
        5,
        "(row_types, col_types, rows, cols, 2)",
    )?;
    if dims[0] != tp[0] || dims[1] != tp[1] || dims[4] != 2 {
        return Err(InputError::new_err(format!(
            "payoffs: shape {dims:?} does not match prior {tp:?} as (row_types, col_types, \
             rows, cols, 2)"
        )));
    }
    Ok((dims, slice("prior", prior)?, slice("payoffs", payoffs)?))
}

type BestResponses<'py> = (Bound<'py, PyArray2<f64>>, Vec<Vec<usize>>);

/// Best responses of every type of `player` to the opponent's pure
/// type-contingent `strategy` (one action per opponent type): (expected
/// payoffs (own types, own actions), best actions per own type).
#[pyfunction]
fn bayes_nash_best_responses<'py>(
    py: Python<'py>,
    prior: PyReadonlyArrayDyn<'py, f64>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
    player: i64,
    strategy: Vec<i64>,
) -> PyResult<BestResponses<'py>> {
    let (dims, prior, flat) = game_arrays(&prior, &payoffs)?;
    let player = player_of(player)?;
    let strategy = indices("strategy", &strategy)?;
    let br = run_detached(py, || {
        BayesianGame::new((dims[0], dims[1]), (dims[2], dims[3]), prior, flat)?
            .best_responses(player, &strategy)
    })?;
    let (types, actions) = match player {
        Player::Row => (dims[0], dims[2]),
        Player::Col => (dims[1], dims[3]),
    };
    Ok((
        br.expected.into_pyarray(py).reshape([types, actions])?,
        br.best,
    ))
}

/// All pure Bayes–Nash equilibria as (row actions by type, col actions by
/// type).
#[pyfunction]
fn pure_bayes_nash(
    py: Python<'_>,
    prior: PyReadonlyArrayDyn<'_, f64>,
    payoffs: PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<Vec<(Vec<usize>, Vec<usize>)>> {
    let (dims, prior, flat) = game_arrays(&prior, &payoffs)?;
    run_detached(py, || {
        BayesianGame::new((dims[0], dims[1]), (dims[2], dims[3]), prior, flat)?.pure_equilibria()
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bayes_nash_best_responses, m)?)?;
    m.add_function(wrap_pyfunction!(pure_bayes_nash, m)?)?;
    Ok(())
}
