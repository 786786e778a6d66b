//! Bindings for `steer_core::social`: voting rules and Pareto checks over
//! profiles given as rankings (k, m) and counts (k,).

use crate::convert::{indices, shape, slice};
use crate::errors::{run_detached, InputError};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArrayDyn};
use pyo3::prelude::*;
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(plurality, m)?)?;
    m.add_function(wrap_pyfunction!(borda, m)?)?;
    m.add_function(wrap_pyfunction!(copeland, m)?)?;
    m.add_function(wrap_pyfunction!(majority_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(condorcet_winner, m)?)?;
    m.add_function(wrap_pyfunction!(pareto_dominance, m)?)?;
    m.add_function(wrap_pyfunction!(pareto_optimal, m)?)?;
    Ok(())
}
