//! Bindings for `steer_core::social`: voting rules and Pareto checks over
//! profiles given as rankings (k, m) and counts (k,).

use crate::convert::{indices, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use steer_core::social::{self, Profile};

/// Rankings (k, m) of candidate numbers (best first) and counts (k,) as
/// plain vectors, plus m.
fn profile_parts(
    rankings: &PyReadonlyArrayDyn<'_, i64>,
    counts: &PyReadonlyArrayDyn<'_, i64>,
) -> PyResult<(usize, Vec<usize>, Vec<u64>)> {
    let dims = shape("rankings", rankings, 2, "(rankings, candidates)")?;
    shape("counts", counts, 1, "(rankings,)")?;
    let ranked = indices("rankings", slice("rankings", rankings)?)?;
    let counts: Vec<u64> = indices("counts", slice("counts", counts)?)?
        .into_iter()
        .map(|c| c as u64)
        .collect();
    if counts.len() != dims[0] {
        return Err(InputError::new_err(format!(
            "counts: {} counts for {} rankings",
            counts.len(),
            dims[0]
        )));
    }
    Ok((dims[1], ranked, counts))
}

macro_rules! tally_binding {
    ($name:ident, $core:path, $t:ty, $doc:literal) => {
        #[doc = $doc]
        #[pyfunction]
        fn $name<'py>(
            py: Python<'py>,
            rankings: PyReadonlyArrayDyn<'py, i64>,
            counts: PyReadonlyArrayDyn<'py, i64>,
        ) -> PyResult<(Bound<'py, PyArray1<$t>>, Vec<usize>)> {
            let (m, ranked, counts) = profile_parts(&rankings, &counts)?;
            let tally = run_detached(py, || Ok($core(&Profile::new(m, &ranked, &counts)?)))?;
            Ok((tally.scores.into_pyarray(py), tally.winners))
        }
    };
}

tally_binding!(
    plurality,
    social::plurality,
    u64,
    "Plurality: (first-place counts (m,), winners)."
);
tally_binding!(
    borda,
    social::borda,
    u64,
    "Borda with m-1-i points for place i: (scores (m,), winners)."
);
tally_binding!(
    copeland,
    social::copeland,
    f64,
    "Copeland, 1 per pairwise win and 1/2 per tie: (scores (m,), winners)."
);

/// Pairwise majority matrix (m, m): voters ranking row above column.
#[pyfunction]
fn majority_matrix<'py>(
    py: Python<'py>,
    rankings: PyReadonlyArrayDyn<'py, i64>,
    counts: PyReadonlyArrayDyn<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let (m, ranked, counts) = profile_parts(&rankings, &counts)?;
    let n = run_detached(py, || {
        Ok(social::majority_matrix(&Profile::new(m, &ranked, &counts)?))
    })?;
    n.into_pyarray(py).reshape([m, m])
}

/// The Condorcet winner, or None.
#[pyfunction]
fn condorcet_winner(
    py: Python<'_>,
    rankings: PyReadonlyArrayDyn<'_, i64>,
    counts: PyReadonlyArrayDyn<'_, i64>,
) -> PyResult<Option<usize>> {
    let (m, ranked, counts) = profile_parts(&rankings, &counts)?;
    run_detached(py, || {
        Ok(social::condorcet_winner(&Profile::new(
            m, &ranked, &counts,
        )?))
    })
}

/// (m, m) bool: every voter ranks the row candidate above the column one.
#[pyfunction]
fn pareto_dominance<'py>(
    py: Python<'py>,
    rankings: PyReadonlyArrayDyn<'py, i64>,
    counts: PyReadonlyArrayDyn<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<bool>>> {
    let (m, ranked, counts) = profile_parts(&rankings, &counts)?;
    let d = run_detached(py, || {
        Ok(social::pareto_dominance(&Profile::new(
            m, &ranked, &counts,
        )?))
    })?;
    d.into_pyarray(py).reshape([m, m])
}

/// For utilities (outcomes, agents): whether each outcome is Pareto optimal.
#[pyfunction]
fn pareto_optimal<'py>(
    py: Python<'py>,
    utilities: PyReadonlyArrayDyn<'py, f64>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let dims = shape("utilities", &utilities, 2, "(outcomes, agents)")?;
    let flat = slice("utilities", &utilities)?;
    let out = run_detached(py, || social::pareto_optimal(flat, dims[1]))?;
    Ok(out.into_pyarray(py))
}

/// Row-major `m x m` booleans as nested lists.
fn square(flat: &[bool], m: usize) -> Vec<Vec<bool>> {
    flat.chunks(m.max(1)).map(<[bool]>::to_vec).collect()
}

/// A count given from Python as an int: negative values are input errors.
fn count(field: &str, value: i64) -> PyResult<usize> {
    usize::try_from(value)
        .map_err(|_| InputError::new_err(format!("{field}: must not be negative, got {value}")))
}

/// Pareto, monotonicity, transitivity and nondictatorship (or only the listed
/// `axioms`) of one social welfare function, checked over every profile:
/// {axiom: {"satisfied", "counterexample"}}.
#[pyfunction]
#[pyo3(signature = (kind, params, voters, alternatives, axioms = None))]
fn social_axioms<'py>(
    py: Python<'py>,
    kind: &str,
    params: Vec<i64>,
    voters: i64,
    alternatives: i64,
    axioms: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (n, m) = (
        count("voters", voters)?,
        count("alternatives", alternatives)?,
    );
    let reports = run_detached(py, || {
        let wanted = match &axioms {
            None => social::Axiom::ALL.to_vec(),
            Some(names) => names
                .iter()
                .map(|a| social::Axiom::from_name(a))
                .collect::<Result<_, _>>()?,
        };
        let rule = social::Rule::from_parts(kind, &params, n, m)?;
        social::check_some_axioms(&rule, n, m, &wanted)
    })?;
    let out = PyDict::new(py);
    for report in reports {
        let entry = PyDict::new(py);
        entry.set_item("satisfied", report.satisfied)?;
        let example = match report.counterexample {
            None => None,
            Some(c) => {
                let d = PyDict::new(py);
                d.set_item("profile", c.profile)?;
                d.set_item("voter", c.voter)?;
                d.set_item("alternatives", c.alternatives)?;
                d.set_item("raised", c.raised)?;
                d.set_item("relation", square(&c.relation, m))?;
                d.set_item("raised_relation", c.raised_relation.map(|r| square(&r, m)))?;
                Some(d)
            }
        };
        entry.set_item("counterexample", example)?;
        out.set_item(report.axiom.name(), entry)?;
    }
    Ok(out)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(social_axioms, m)?)?;
    m.add_function(wrap_pyfunction!(plurality, m)?)?;
    m.add_function(wrap_pyfunction!(borda, m)?)?;
    m.add_function(wrap_pyfunction!(copeland, m)?)?;
    m.add_function(wrap_pyfunction!(majority_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(condorcet_winner, m)?)?;
    m.add_function(wrap_pyfunction!(pareto_dominance, m)?)?;
    m.add_function(wrap_pyfunction!(pareto_optimal, m)?)?;
    Ok(())
}
