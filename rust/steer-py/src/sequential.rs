//! Bindings for `steer_core::games::sequential`: pure sequential equilibria of
//! a game with imperfect information given as flat arrays.

use crate::convert::{or_minus_one, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use steer_core::games::{Assessment, ImperfectGame, NodeKind};
use steer_core::Error;

/// player -1 → terminal, -2 → chance, i ≥ 0 → decision of player i in set
/// `infoset[v]`.
fn kinds(player: &[i64], infoset: &[i64]) -> Result<Vec<NodeKind>, Error> {
    if player.len() != infoset.len() {
        return Err(Error::invalid(
            "infoset",
            format!("{} entries for {} nodes", infoset.len(), player.len()),
        ));
    }
    player
        .iter()
        .zip(infoset)
        .enumerate()
        .map(|(v, (&p, &s))| match (p, s) {
            (-1, _) => Ok(NodeKind::Terminal),
            (-2, _) => Ok(NodeKind::Chance),
            (p, s) if p >= 0 && s >= 0 => Ok(NodeKind::Decision {
                player: p as usize,
                infoset: s as usize,
            }),
            (p, _) if p >= 0 => Err(Error::invalid(
                "infoset",
                format!("decision node {v} needs an information set number, got {s}"),
            )),
            (p, _) => Err(Error::invalid(
                "player",
                format!("node {v}: {p}; use -1 for terminal, -2 for chance, or a player number"),
            )),
        })
        .collect()
}

fn parents(values: &[i64]) -> Result<Vec<Option<usize>>, Error> {
    values
        .iter()
        .enumerate()
        .map(|(v, &p)| match p {
            -1 => Ok(None),
            p if p >= 0 => Ok(Some(p as usize)),
            p => Err(Error::invalid(
                "parent",
                format!("node {v} names parent {p}; use -1 for the root"),
            )),
        })
        .collect()
}

/// Judge pure strategy profiles of an extensive game with imperfect
/// information: `parent` (n,), -1 at the root; `player` (n,): mover, -1 at
/// terminals, -2 at chance nodes; `infoset` (n,): information set of each
/// decision node (-1 elsewhere); `prob` (n,): probability of the move into a
/// node from a chance parent; `payoffs` (n, players). `profiles` (k, sets)
/// gives an action per information set; None assesses every pure profile.
/// Returns a dict of arrays: profiles, sequential, nash, failing (-1 when
/// none), margin, on_path, free (k, sets), belief (k, n), outcome (k, players).
#[pyfunction]
#[pyo3(signature = (parent, player, infoset, prob, payoffs, profiles=None))]
#[allow(clippy::too_many_arguments)]
fn sequential_assess<'py>(
    py: Python<'py>,
    parent: PyReadonlyArrayDyn<'py, i64>,
    player: PyReadonlyArrayDyn<'py, i64>,
    infoset: PyReadonlyArrayDyn<'py, i64>,
    prob: PyReadonlyArrayDyn<'py, f64>,
    payoffs: PyReadonlyArrayDyn<'py, f64>,
    profiles: Option<PyReadonlyArrayDyn<'py, i64>>,
) -> PyResult<Bound<'py, PyDict>> {
    for (field, a) in [
        ("parent", &parent),
        ("player", &player),
        ("infoset", &infoset),
    ] {
        shape(field, a, 1, "(nodes,)")?;
    }
    shape("prob", &prob, 1, "(nodes,)")?;
    let dims = shape("payoffs", &payoffs, 2, "(nodes, players)")?;
    let players = dims[1];
    let (parent, player, infoset) = (
        slice("parent", &parent)?,
        slice("player", &player)?,
        slice("infoset", &infoset)?,
    );
    let (prob, flat) = (slice("prob", &prob)?, slice("payoffs", &payoffs)?);
    let asked: Option<(Vec<usize>, Vec<i64>)> = match &profiles {
        None => None,
        Some(p) => {
            let d = shape("profiles", p, 2, "(profiles, information sets)")?;
            Some((d, slice("profiles", p)?.to_vec()))
        }
    };
    if let Some((_, values)) = &asked {
        if let Some(bad) = values.iter().find(|&&a| a < 0) {
            return Err(InputError::new_err(format!(
                "profiles: actions are numbered from 0, got {bad}"
            )));
        }
    }
    let (sets, judged) = run_detached(py, || {
        let game = ImperfectGame::new(
            &parents(parent)?,
            &kinds(player, infoset)?,
            prob,
            flat,
            players,
        )?;
        let sets = game.infosets();
        let list: Vec<Vec<usize>> = match &asked {
            None => game.profiles()?,
            Some((d, values)) => {
                if d[1] != sets {
                    return Err(Error::invalid(
                        "profiles",
                        format!("{} columns for {sets} information sets", d[1]),
                    ));
                }
                values
                    .chunks(sets.max(1))
                    .take(d[0])
                    .map(|row| row.iter().map(|&a| a as usize).collect())
                    .collect()
            }
        };
        let judged: Vec<(Vec<usize>, Assessment)> = list
            .into_iter()
            .enumerate()
            .map(|(i, p)| {
                Ok((
                    p.clone(),
                    game.assess(&p).map_err(|e| e.at_item("profile", i))?,
                ))
            })
            .collect::<Result<_, Error>>()?;
        Ok((sets, judged))
    })?;
    let k = judged.len();
    let n = parent.len();
    let flat_of = |f: &dyn Fn(&Assessment) -> Vec<f64>| -> Vec<f64> {
        judged.iter().flat_map(|(_, a)| f(a)).collect()
    };
    let flags = |f: &dyn Fn(&Assessment) -> Vec<bool>| -> Vec<bool> {
        judged.iter().flat_map(|(_, a)| f(a)).collect()
    };
    let out = PyDict::new(py);
    let chosen: Vec<i64> = judged
        .iter()
        .flat_map(|(p, _)| p.iter().map(|&a| a as i64))
        .collect();
    out.set_item("profiles", chosen.into_pyarray(py).reshape([k, sets])?)?;
    let seq: Vec<bool> = judged.iter().map(|(_, a)| a.sequential).collect();
    out.set_item("sequential", seq.into_pyarray(py))?;
    let nash: Vec<bool> = judged.iter().map(|(_, a)| a.nash).collect();
    out.set_item("nash", nash.into_pyarray(py))?;
    let failing: Vec<i64> = judged
        .iter()
        .map(|(_, a)| or_minus_one(a.failing))
        .collect();
    out.set_item("failing", failing.into_pyarray(py))?;
    out.set_item(
        "margin",
        flat_of(&|a| a.margin.clone())
            .into_pyarray(py)
            .reshape([k, sets])?,
    )?;
    out.set_item(
        "on_path",
        flags(&|a| a.on_path.clone())
            .into_pyarray(py)
            .reshape([k, sets])?,
    )?;
    out.set_item(
        "free",
        flags(&|a| a.free.clone())
            .into_pyarray(py)
            .reshape([k, sets])?,
    )?;
    out.set_item(
        "belief",
        flat_of(&|a| a.belief.clone())
            .into_pyarray(py)
            .reshape([k, n])?,
    )?;
    out.set_item(
        "outcome",
        flat_of(&|a| a.outcome.clone())
            .into_pyarray(py)
            .reshape([k, players])?,
    )?;
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sequential_assess, m)?)?;
    Ok(())
}
