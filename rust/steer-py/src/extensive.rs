//! Bindings for `steer_core::games::extensive`: backward induction on a
//! perfect-information tree given as flat arrays.

use crate::convert::{or_minus_one, shape, slice};
use crate::errors::run_detached;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use steer_core::games::GameTree;
use steer_core::Error;

/// -1 → None, other negatives rejected with the argument's name.
fn optional(field: &str, values: &[i64]) -> Result<Vec<Option<usize>>, Error> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| match v {
            -1 => Ok(None),
            v if v >= 0 => Ok(Some(v as usize)),
            v => Err(Error::invalid(
                field,
                format!("entry {i} is {v}; use -1 for none"),
            )),
        })
        .collect()
}

type Solution<'py> = (
    Bound<'py, PyArray2<f64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<bool>>,
    Vec<usize>,
);

/// Backward induction. `parent` (n,): parent node, -1 for the root (node 0);
/// `player` (n,): mover at decision nodes, -1 at terminals; `payoffs`
/// (n, players), read at terminals. Returns (values (n, players), choice (n,)
/// with -1 at terminals, tied (n,), equilibrium path).
#[pyfunction]
fn backward_induction<'py>(
    py: Python<'py>,
    parent: PyReadonlyArrayDyn<'py, i64>,
    player: PyReadonlyArrayDyn<'py, i64>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<Solution<'py>> {
    shape("parent", &parent, 1, "(nodes,)")?;
    shape("player", &player, 1, "(nodes,)")?;
    let dims = shape("payoffs", &payoffs, 2, "(nodes, players)")?;
    let (parent, player) = (slice("parent", &parent)?, slice("player", &player)?);
    let flat = slice("payoffs", &payoffs)?;
    let players = dims[1];
    let solved = run_detached(py, || {
        let parent = optional("parent", parent)?;
        let mover = optional("player", player)?;
        let tree = GameTree::new(&parent, &mover, flat, players)?;
        Ok(tree.backward_induction())
    })?;
    let n = solved.choice.len();
    let choice: Vec<i64> = solved.choice.into_iter().map(or_minus_one).collect();
    Ok((
        solved.values.into_pyarray(py).reshape([n, players])?,
        choice.into_pyarray(py),
        solved.tied.into_pyarray(py),
        solved.path,
    ))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(backward_induction, m)?)?;
    Ok(())
}
