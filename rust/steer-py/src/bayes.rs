//! Bindings for `steer_core::decision::bayes`: Bayes' rule.

use crate::convert::{shape, slice};
use crate::errors::run_detached;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use steer_core::decision;

/// P(H | E) from P(H) (`prior`), P(E | H) (`likelihood`) and P(E)
/// (`evidence`).
#[pyfunction]
fn bayes_rule(py: Python<'_>, prior: f64, likelihood: f64, evidence: f64) -> PyResult<f64> {
    run_detached(py, || decision::bayes_rule(prior, likelihood, evidence))
}

/// Posterior (k,) over exhaustive hypotheses from priors (k,) and
/// likelihoods P(E | h) (k,).
#[pyfunction]
fn bayes_posterior<'py>(
    py: Python<'py>,
    priors: PyReadonlyArrayDyn<'py, f64>,
    likelihoods: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    shape("priors", &priors, 1, "(hypotheses,)")?;
    shape("likelihoods", &likelihoods, 1, "(hypotheses,)")?;
    let (p, l) = (
        slice("priors", &priors)?,
        slice("likelihoods", &likelihoods)?,
    );
    let post = run_detached(py, || decision::posterior(p, l))?;
    Ok(post.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bayes_rule, m)?)?;
    m.add_function(wrap_pyfunction!(bayes_posterior, m)?)?;
    Ok(())
}
