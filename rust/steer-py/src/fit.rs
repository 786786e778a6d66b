//! Bindings for `steer_core::fit`: prospect-theory, discounting and
//! Fehr–Schmidt fits with bootstrapped intervals, batched over groups (flat
//! observation arrays plus an int64 group id each). Each returns a dict of
//! result columns, one entry per (group, parameter); NaN in a float column
//! means "no value" (the Python side turns it into a null).

use crate::convert::{shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use steer_core::fit::{self, Bootstrap, DiscountFamily, GroupFit, Method};

/// The data of a 1-D array argument.
fn flat<'a, T: numpy::Element>(
    field: &str,
    array: &'a PyReadonlyArrayDyn<'_, T>,
) -> PyResult<&'a [T]> {
    shape(field, array, 1, "(observations,)")?;
    slice(field, array)
}

/// Result rows as a dict of columns.
fn columns<'py>(py: Python<'py>, fits: &[GroupFit]) -> PyResult<Bound<'py, PyDict>> {
    let nan = |x: Option<f64>| x.unwrap_or(f64::NAN);
    let mut group = Vec::new();
    let mut family = Vec::new();
    let mut method = Vec::new();
    let mut parameter = Vec::new();
    let (mut est, mut lo, mut hi) = (Vec::new(), Vec::new(), Vec::new());
    let mut n = Vec::new();
    let mut reason: Vec<Option<String>> = Vec::new();
    let (mut r2, mut ssr, mut aic, mut bic) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for f in fits {
        for p in &f.params {
            group.push(f.group);
            family.push(f.family);
            method.push(f.method);
            parameter.push(p.name);
            est.push(nan(p.estimate));
            lo.push(nan(p.ci_lo));
            hi.push(nan(p.ci_hi));
            n.push(p.n.unwrap_or(f.n) as i64);
            reason.push(p.reason.clone());
            r2.push(nan(f.r2));
            ssr.push(nan(f.ssr));
            aic.push(nan(f.aic));
            bic.push(nan(f.bic));
        }
    }
    let d = PyDict::new(py);
    d.set_item("group", group.into_pyarray(py))?;
    d.set_item("family", family)?;
    d.set_item("parameter", parameter)?;
    d.set_item("estimate", est.into_pyarray(py))?;
    d.set_item("ci_lo", lo.into_pyarray(py))?;
    d.set_item("ci_hi", hi.into_pyarray(py))?;
    d.set_item("n", n.into_pyarray(py))?;
    d.set_item("reason", reason)?;
    d.set_item("r2", r2.into_pyarray(py))?;
    d.set_item("ssr", ssr.into_pyarray(py))?;
    d.set_item("method", method)?;
    d.set_item("aic", aic.into_pyarray(py))?;
    d.set_item("bic", bic.into_pyarray(py))?;
    Ok(d)
}

/// Prospect theory per group (see `steer_core::fit::prospect_theory`).
#[pyfunction]
#[pyo3(signature = (group, kind, x1, p1, x2, p2, lo, hi, method = "mle", bootstrap = 1000, level = 0.95, seed = 0))]
#[allow(clippy::too_many_arguments)]
fn fit_prospect_theory<'py>(
    py: Python<'py>,
    group: PyReadonlyArrayDyn<'py, i64>,
    kind: PyReadonlyArrayDyn<'py, i64>,
    x1: PyReadonlyArrayDyn<'py, f64>,
    p1: PyReadonlyArrayDyn<'py, f64>,
    x2: PyReadonlyArrayDyn<'py, f64>,
    p2: PyReadonlyArrayDyn<'py, f64>,
    lo: PyReadonlyArrayDyn<'py, f64>,
    hi: PyReadonlyArrayDyn<'py, f64>,
    method: &str,
    bootstrap: usize,
    level: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let method = match method {
        "mle" => Method::Mle,
        "lm" => Method::Lm,
        other => {
            return Err(InputError::new_err(format!(
                "method: must be \"mle\" or \"lm\", got {other:?}"
            )))
        }
    };
    let data = fit::ProspectData {
        group: flat("group", &group)?,
        kind: flat("kind", &kind)?,
        x1: flat("x1", &x1)?,
        p1: flat("p1", &p1)?,
        x2: flat("x2", &x2)?,
        p2: flat("p2", &p2)?,
        lo: flat("lo", &lo)?,
        hi: flat("hi", &hi)?,
    };
    let boot = Bootstrap {
        resamples: bootstrap,
        level,
        seed,
    };
    let fits = run_detached(py, || fit::prospect_theory(&data, method, &boot))?;
    columns(py, &fits)
}

/// Discounting families per group (see `steer_core::fit::discounting`).
#[pyfunction]
#[pyo3(signature = (group, delay, amount, lo, hi, families, bootstrap = 1000, level = 0.95, seed = 0))]
#[allow(clippy::too_many_arguments)]
fn fit_discounting<'py>(
    py: Python<'py>,
    group: PyReadonlyArrayDyn<'py, i64>,
    delay: PyReadonlyArrayDyn<'py, f64>,
    amount: PyReadonlyArrayDyn<'py, f64>,
    lo: PyReadonlyArrayDyn<'py, f64>,
    hi: PyReadonlyArrayDyn<'py, f64>,
    families: Vec<String>,
    bootstrap: usize,
    level: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let families = families
        .iter()
        .map(|f| {
            DiscountFamily::from_name(f).ok_or_else(|| {
                InputError::new_err(format!(
                    "families: unknown family {f:?} (hyperbolic, exponential, quasi-hyperbolic)"
                ))
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let data = fit::DiscountData {
        group: flat("group", &group)?,
        delay: flat("delay", &delay)?,
        amount: flat("amount", &amount)?,
        lo: flat("lo", &lo)?,
        hi: flat("hi", &hi)?,
    };
    let boot = Bootstrap {
        resamples: bootstrap,
        level,
        seed,
    };
    let fits = run_detached(py, || fit::discounting(&data, &families, &boot))?;
    columns(py, &fits)
}

/// Fehr–Schmidt α, β and beta_offer per group (see
/// `steer_core::fit::fehr_schmidt`).
#[pyfunction]
#[pyo3(signature = (responder_group, pool, offer, accepted, allocation_group, own_a, other_a, own_b, other_b, chose_a, proposer_group, proposer_pool, proposer_offer, bootstrap = 1000, level = 0.95, seed = 0))]
#[allow(clippy::too_many_arguments)]
fn fit_fehr_schmidt<'py>(
    py: Python<'py>,
    responder_group: PyReadonlyArrayDyn<'py, i64>,
    pool: PyReadonlyArrayDyn<'py, f64>,
    offer: PyReadonlyArrayDyn<'py, f64>,
    accepted: PyReadonlyArrayDyn<'py, bool>,
    allocation_group: PyReadonlyArrayDyn<'py, i64>,
    own_a: PyReadonlyArrayDyn<'py, f64>,
    other_a: PyReadonlyArrayDyn<'py, f64>,
    own_b: PyReadonlyArrayDyn<'py, f64>,
    other_b: PyReadonlyArrayDyn<'py, f64>,
    chose_a: PyReadonlyArrayDyn<'py, bool>,
    proposer_group: PyReadonlyArrayDyn<'py, i64>,
    proposer_pool: PyReadonlyArrayDyn<'py, f64>,
    proposer_offer: PyReadonlyArrayDyn<'py, f64>,
    bootstrap: usize,
    level: f64,
    seed: u64,
) -> PyResult<Bound<'py, PyDict>> {
    let data = fit::FairnessData {
        responder_group: flat("responder_group", &responder_group)?,
        pool: flat("pool", &pool)?,
        offer: flat("offer", &offer)?,
        accepted: flat("accepted", &accepted)?,
        allocation_group: flat("allocation_group", &allocation_group)?,
        own_a: flat("own_a", &own_a)?,
        other_a: flat("other_a", &other_a)?,
        own_b: flat("own_b", &own_b)?,
        other_b: flat("other_b", &other_b)?,
        chose_a: flat("chose_a", &chose_a)?,
        proposer_group: flat("proposer_group", &proposer_group)?,
        proposer_pool: flat("proposer_pool", &proposer_pool)?,
        proposer_offer: flat("proposer_offer", &proposer_offer)?,
    };
    let boot = Bootstrap {
        resamples: bootstrap,
        level,
        seed,
    };
    let fits = run_detached(py, || fit::fehr_schmidt(&data, &boot))?;
    columns(py, &fits)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_prospect_theory, m)?)?;
    m.add_function(wrap_pyfunction!(fit_discounting, m)?)?;
    m.add_function(wrap_pyfunction!(fit_fehr_schmidt, m)?)?;
    Ok(())
}
