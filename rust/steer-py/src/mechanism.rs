//! Bindings for `steer_core::mechanism`: top trading cycles and sealed-bid
//! auctions.

use crate::convert::{indices, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::PyReadonlyArrayDyn;
use pyo3::prelude::*;
use steer_core::mechanism::{self, PriceRule};

/// Top trading cycles: `preferences` (n, n) ranks houses per agent (best
/// first), `endowment` (n,) is each agent's house. Returns (house per agent,
/// round in which each agent's cycle cleared).
#[pyfunction]
fn top_trading_cycles(
    py: Python<'_>,
    preferences: PyReadonlyArrayDyn<'_, i64>,
    endowment: PyReadonlyArrayDyn<'_, i64>,
) -> PyResult<(Vec<usize>, Vec<usize>)> {
    let dims = shape("preferences", &preferences, 2, "(agents, houses)")?;
    shape("endowment", &endowment, 1, "(agents,)")?;
    let prefs = indices("preferences", slice("preferences", &preferences)?)?;
    let endow = indices("endowment", slice("endowment", &endowment)?)?;
    if dims[0] != endow.len() || dims[1] != endow.len() {
        return Err(InputError::new_err(format!(
            "preferences: expected ({0}, {0}) for {0} agents, got {dims:?}",
            endow.len()
        )));
    }
    let t = run_detached(py, || mechanism::top_trading_cycles(&prefs, &endow))?;
    Ok((t.house, t.round))
}

/// Sealed-bid auction: `rule` is "first" or "second" price; bids below
/// `reserve` are ignored. Returns (winner or None, price); ties go to the
/// lowest-numbered bidder.
#[pyfunction]
#[pyo3(signature = (bids, rule, reserve = None))]
fn sealed_bid_auction(
    py: Python<'_>,
    bids: PyReadonlyArrayDyn<'_, f64>,
    rule: &str,
    reserve: Option<f64>,
) -> PyResult<(Option<usize>, f64)> {
    shape("bids", &bids, 1, "(bidders,)")?;
    let bids = slice("bids", &bids)?;
    let rule = match rule {
        "first" => PriceRule::FirstPrice,
        "second" => PriceRule::SecondPrice,
        other => {
            return Err(InputError::new_err(format!(
                "rule: must be 'first' or 'second', got {other:?}"
            )))
        }
    };
    let out = run_detached(py, || mechanism::sealed_bid(bids, rule, reserve))?;
    Ok((out.winner, out.price))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(top_trading_cycles, m)?)?;
    m.add_function(wrap_pyfunction!(sealed_bid_auction, m)?)?;
    Ok(())
}
