//! Bindings for `steer_core::metrics`: the scoring engine.
//!
//! Columns arrive as a dict of 1-D numpy arrays (zero-copy views of Arrow
//! buffers where the types allow), are borrowed as slices while the GIL is
//! held, and the work runs with the GIL released.

use crate::errors::{not_contiguous, run_detached, InputError};
use crate::limits::{
    check_at_most, check_cells, check_replicates, check_size, MAX_BINS, MAX_CELLS, MAX_DRAWS,
    MAX_GROUPS, MAX_RESAMPLES,
};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use steer_core::metrics::{
    self, BootstrapOptions, KeyColumns, Metric, Probs, Responses, Rule, Units,
};

type ProbColumns<'py> = (
    PyReadonlyArray1<'py, i32>,
    PyReadonlyArray1<'py, f64>,
    Option<PyReadonlyArray1<'py, bool>>,
);
type UnitColumns<'py> = (
    PyReadonlyArray1<'py, u32>,
    usize,
    PyReadonlyArray1<'py, i32>,
    PyReadonlyArray1<'py, i32>,
);

/// Read-only borrows of every column, alive for the duration of one call.
struct Columns<'py> {
    group: Option<PyReadonlyArray1<'py, u32>>,
    n_groups: usize,
    n_options: PyReadonlyArray1<'py, i32>,
    chosen: PyReadonlyArray1<'py, i32>,
    correct: PyReadonlyArray1<'py, i32>,
    probs: Option<ProbColumns<'py>>,
    units: Option<UnitColumns<'py>>,
    rules: Vec<Rule>,
}

fn item<'py, T: numpy::Element>(
    d: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<PyReadonlyArray1<'py, T>>> {
    match d.get_item(key)? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => v
            .extract::<PyReadonlyArray1<'py, T>>()
            .map(Some)
            .map_err(|_| {
                InputError::new_err(format!(
                    "{key}: expected a 1-D numpy array of {}",
                    std::any::type_name::<T>()
                ))
            }),
    }
}

fn required<'py, T: numpy::Element>(
    d: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<PyReadonlyArray1<'py, T>> {
    item(d, key)?.ok_or_else(|| InputError::new_err(format!("{key}: missing")))
}

/// The table's group count (0 when absent), checked against `MAX_GROUPS`
/// before anything is allocated per group.
fn n_groups(d: &Bound<'_, PyDict>) -> PyResult<usize> {
    let groups = match d.get_item("n_groups")? {
        Some(v) => v.extract()?,
        None => 0,
    };
    check_at_most("n_groups", groups, MAX_GROUPS)?;
    Ok(groups)
}

fn count(d: &Bound<'_, PyDict>, key: &str) -> PyResult<usize> {
    d.get_item(key)?
        .ok_or_else(|| InputError::new_err(format!("{key}: missing")))?
        .extract()
}

impl<'py> Columns<'py> {
    fn extract(d: &Bound<'py, PyDict>) -> PyResult<Self> {
        let probs = match item::<f64>(d, "probs_values")? {
            None => None,
            Some(values) => Some((
                required(d, "probs_offsets")?,
                values,
                item(d, "probs_valid")?,
            )),
        };
        let units = match item::<u32>(d, "unit")? {
            None => None,
            Some(unit) => Some((
                unit,
                count(d, "n_units")?,
                required(d, "part")?,
                required(d, "unit_rule")?,
            )),
        };
        let rules = match d.get_item("rules")? {
            None => Vec::new(),
            Some(v) => v
                .extract::<Vec<String>>()?
                .iter()
                .map(|r| Rule::parse(r))
                .collect::<Result<_, _>>()
                .map_err(crate::errors::CoreError)?,
        };
        Ok(Columns {
            group: item(d, "group")?,
            n_groups: match d.get_item("n_groups")? {
                Some(v) => v.extract()?,
                None => 0,
            },
            n_options: required(d, "n_options")?,
            chosen: required(d, "chosen")?,
            correct: required(d, "correct")?,
            probs,
            units,
            rules,
        })
    }

    fn responses(&self) -> PyResult<Responses<'_>> {
        let probs = match &self.probs {
            None => None,
            Some((o, v, ok)) => Some(Probs {
                offsets: o.as_slice().map_err(|_| not_contiguous("probs_offsets"))?,
                values: v.as_slice().map_err(|_| not_contiguous("probs_values"))?,
                valid: match ok {
                    Some(ok) => Some(ok.as_slice().map_err(|_| not_contiguous("probs_valid"))?),
                    None => None,
                },
            }),
        };
        let units = match &self.units {
            None => None,
            Some((u, n, p, r)) => Some(Units {
                unit: u.as_slice().map_err(|_| not_contiguous("unit"))?,
                n_units: *n,
                part: p.as_slice().map_err(|_| not_contiguous("part"))?,
                rule: r.as_slice().map_err(|_| not_contiguous("unit_rule"))?,
                rules: &self.rules,
            }),
        };
        Ok(Responses {
            group: match &self.group {
                Some(g) => g.as_slice().map_err(|_| not_contiguous("group"))?,
                None => &[],
            },
            n_groups: self.n_groups,
            n_options: self
                .n_options
                .as_slice()
                .map_err(|_| not_contiguous("n_options"))?,
            chosen: self
                .chosen
                .as_slice()
                .map_err(|_| not_contiguous("chosen"))?,
            correct: self
                .correct
                .as_slice()
                .map_err(|_| not_contiguous("correct"))?,
            probs,
            units,
        })
    }
}

/// Dense group codes from dictionary-index columns (int32, −1 = null):
/// returns (codes: uint32 per row, first: int64 first row of each code).
#[pyfunction]
#[allow(clippy::type_complexity)]
fn encode_groups<'py>(
    py: Python<'py>,
    columns: Vec<PyReadonlyArray1<'py, i32>>,
    cardinalities: Vec<usize>,
) -> PyResult<(Bound<'py, PyArray1<u32>>, Bound<'py, PyArray1<i64>>)> {
    let slices: Vec<&[i32]> = columns
        .iter()
        .map(|c| c.as_slice().map_err(|_| not_contiguous("columns")))
        .collect::<PyResult<_>>()?;
    let (codes, first) = run_detached(py, || metrics::encode_groups(&slices, &cardinalities))?;
    let first: Vec<i64> = first.into_iter().map(|i| i as i64).collect();
    Ok((codes.into_pyarray(py), first.into_pyarray(py)))
}

/// Additive per-group cells of a response table (see steer.score).
#[pyfunction]
#[pyo3(signature = (columns, bins = 10))]
fn score_cells<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    bins: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let groups: usize = columns
        .get_item("n_groups")?
        .map_or(Ok(1), |n| n.extract())?;
    check_cells(groups, bins)?;
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    let c = run_detached(py, || metrics::score(&resp, bins))?;
    cells_dict(py, c)
}

/// Wrong answers per (group, error type) of a response table with dense
/// group codes: a (groups, n_types) uint64 array (see steer.score).
#[pyfunction]
fn error_counts<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    error: PyReadonlyArray1<'py, i32>,
    n_types: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let groups: usize = columns
        .get_item("n_groups")?
        .map_or(Ok(1), |n| n.extract())?;
    check_at_most("n_groups", groups, MAX_GROUPS)?;
    check_at_most(
        "n_groups × n_types",
        groups.saturating_mul(n_types),
        MAX_CELLS,
    )?;
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    let error = error.as_slice().map_err(|_| not_contiguous("error"))?;
    let counts = run_detached(py, || metrics::error_counts(&resp, error, n_types))?;
    counts.into_pyarray(py).reshape([groups, n_types])
}

fn cells_dict(py: Python<'_>, c: metrics::Cells) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);
    macro_rules! put {
        ($($f:ident),*) => { $( out.set_item(stringify!($f), c.$f.into_pyarray(py))?; )* };
    }
    put!(
        n_rows,
        n_units,
        n_no_answer,
        n_correct,
        sum_norm,
        sum_norm_strict,
        sum_p_random,
        n_consistency,
        n_consistent,
        n_unscored,
        n_prob,
        n_prob_invalid,
        sum_conf,
        sum_p_correct,
        n_top_correct,
        sum_brier,
        sum_invalid_mass
    );
    let shape = [c.n_groups, c.bins];
    out.set_item("ece_n", c.ece_n.into_pyarray(py).reshape(shape)?)?;
    out.set_item("ece_conf", c.ece_conf.into_pyarray(py).reshape(shape)?)?;
    out.set_item("ece_acc", c.ece_acc.into_pyarray(py).reshape(shape)?)?;
    Ok(out)
}

/// Cells grouped directly by key columns (single-part tables, small key
/// spaces): returns (cells, keys) where `keys` are the combined mixed-radix
/// keys (radix cardinality + 1, null = digit 0) of the groups that occur.
#[pyfunction]
#[pyo3(signature = (columns, keys, cardinalities, bins = 10))]
fn score_keyed<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    keys: Vec<PyReadonlyArray1<'py, i32>>,
    cardinalities: Vec<usize>,
    bins: usize,
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyArray1<i64>>)> {
    let space = cardinalities
        .iter()
        .try_fold(1usize, |acc, &c| acc.checked_mul(c.checked_add(1)?))
        .unwrap_or(usize::MAX);
    check_cells(space, bins)?;
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    let slices: Vec<&[i32]> = keys
        .iter()
        .map(|c| c.as_slice().map_err(|_| not_contiguous("keys")))
        .collect::<PyResult<_>>()?;
    let key_columns = KeyColumns::new(slices, cardinalities).map_err(crate::errors::CoreError)?;
    let (c, present) = run_detached(py, || metrics::score_keyed(&resp, &key_columns, bins))?;
    let present: Vec<i64> = present.into_iter().map(|k| k as i64).collect();
    Ok((cells_dict(py, c)?, present.into_pyarray(py)))
}

/// Equal-mass ECE per group.
#[pyfunction]
#[pyo3(signature = (columns, bins = 10))]
fn ece_equal_mass<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    bins: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    check_size("bins", bins, MAX_BINS)?;
    n_groups(columns)?;
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    Ok(run_detached(py, || metrics::ece_equal_mass_by_group(&resp, bins))?.into_pyarray(py))
}

/// Percentile-bootstrap intervals: returns {"lo": (m, g), "hi": (m, g)} and,
/// with `keep_replicates`, "replicates": (m, g, resamples). `group_keys`
/// (one canonical key string per group) seed each group's stream, so its
/// interval does not depend on row order or on the other groups.
#[pyfunction]
#[pyo3(signature = (columns, metrics, resamples = 1000, seed = 0, level = 0.95, bins = 10, keep_replicates = false, group_keys = None))]
#[allow(clippy::too_many_arguments)]
fn bootstrap_ci<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    metrics: Vec<String>,
    resamples: usize,
    seed: u64,
    level: f64,
    bins: usize,
    keep_replicates: bool,
    group_keys: Option<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    check_size("resamples", resamples, MAX_RESAMPLES)?;
    check_size("bins", bins, MAX_BINS)?;
    let groups = n_groups(columns)?;
    if keep_replicates {
        check_replicates(groups.max(1), metrics.len(), resamples)?;
    }
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    let wanted: Vec<Metric> = metrics
        .iter()
        .map(|m| Metric::from_name(m))
        .collect::<Result<_, _>>()
        .map_err(crate::errors::CoreError)?;
    let opts = BootstrapOptions {
        resamples,
        seed,
        level,
        bins,
        keep_replicates,
        group_keys: group_keys.map(|keys| {
            keys.iter()
                .map(|k| metrics::key_hash(k.as_bytes()))
                .collect()
        }),
    };
    let res = run_detached(py, || steer_core::metrics::bootstrap(&resp, &wanted, &opts))?;
    let shape = [wanted.len(), resp.n_groups];
    let out = PyDict::new(py);
    out.set_item("lo", res.lo.into_pyarray(py).reshape(shape)?)?;
    out.set_item("hi", res.hi.into_pyarray(py).reshape(shape)?)?;
    if let Some(reps) = res.replicates {
        out.set_item(
            "replicates",
            reps.into_pyarray(py)
                .reshape([shape[0], shape[1], resamples])?,
        )?;
    }
    Ok(out)
}

/// Bootstrap bounds of the minimum of a count metric over groups (robustness):
/// `parent[g]` is group g's parent (u32::MAX: none); returns (lo, hi) per
/// parent, each group drawn from the same stream `bootstrap_ci` gives it.
#[pyfunction]
#[pyo3(signature = (columns, metric, parent, n_parents, resamples = 1000, seed = 0, level = 0.95, group_keys = None))]
#[allow(clippy::too_many_arguments)]
#[allow(clippy::type_complexity)]
fn bootstrap_min<'py>(
    py: Python<'py>,
    columns: &Bound<'py, PyDict>,
    metric: &str,
    parent: PyReadonlyArray1<'py, u32>,
    n_parents: usize,
    resamples: usize,
    seed: u64,
    level: f64,
    group_keys: Option<Vec<String>>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, Bound<'py, PyArray1<f64>>)> {
    check_size("resamples", resamples, MAX_RESAMPLES)?;
    check_at_most("n_parents", n_parents, MAX_GROUPS)?;
    n_groups(columns)?;
    let cols = Columns::extract(columns)?;
    let resp = cols.responses()?;
    let metric = Metric::from_name(metric).map_err(crate::errors::CoreError)?;
    let parent = parent.as_slice().map_err(|_| not_contiguous("parent"))?;
    let opts = BootstrapOptions {
        resamples,
        seed,
        level,
        bins: 1,
        keep_replicates: false,
        group_keys: group_keys.map(|keys| {
            keys.iter()
                .map(|k| metrics::key_hash(k.as_bytes()))
                .collect()
        }),
    };
    let (lo, hi) = run_detached(py, || {
        metrics::bootstrap_min(&resp, metric, &opts, parent, n_parents)
    })?;
    Ok((lo.into_pyarray(py), hi.into_pyarray(py)))
}

/// Dependency robustness per cell (see steer_core::metrics::dependency).
#[pyfunction]
fn dependency_robustness<'py>(
    py: Python<'py>,
    score: PyReadonlyArray1<'py, f64>,
    element: PyReadonlyArray1<'py, u32>,
    context: PyReadonlyArray1<'py, u32>,
    offsets: Vec<usize>,
    prerequisites: PyReadonlyArray1<'py, u32>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let score = score.as_slice().map_err(|_| not_contiguous("score"))?;
    let element = element.as_slice().map_err(|_| not_contiguous("element"))?;
    let context = context.as_slice().map_err(|_| not_contiguous("context"))?;
    let prereq = prerequisites
        .as_slice()
        .map_err(|_| not_contiguous("prerequisites"))?;
    let out = run_detached(py, || {
        metrics::dependency_robustness(score, element, context, &offsets, prereq)
    })?;
    Ok(out.into_pyarray(py))
}

/// Paired bootstrap over questions: `a[i]`, `b[i]` are question i's values on
/// two sides (e.g. 1/0 correct for a model and its baseline). Returns a
/// (resamples, 2) array: the means of `a` and of `b` on each replicate, both
/// over the same resampled questions (their difference is column 0 − 1).
/// Exact multinomial draws over the distinct pairs; the stream is seeded by
/// (seed, `key`), so one comparison's replicates depend only on its own data.
#[pyfunction]
#[pyo3(signature = (a, b, resamples = 1000, seed = 0, key = ""))]
fn paired_bootstrap<'py>(
    py: Python<'py>,
    a: PyReadonlyArray1<'py, f64>,
    b: PyReadonlyArray1<'py, f64>,
    resamples: usize,
    seed: u64,
    key: &str,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    check_size("resamples", resamples, MAX_RESAMPLES)?;
    let a = a.as_slice().map_err(|_| not_contiguous("a"))?;
    let b = b.as_slice().map_err(|_| not_contiguous("b"))?;
    let out = run_detached(py, || {
        metrics::paired_means(a, b, resamples, seed, key.as_bytes())
    })?;
    out.into_pyarray(py).reshape([resamples, 2])
}

/// `size` draws of Binomial(n, p) from the resampling kernel's sampler (for
/// testing it against a reference distribution).
#[pyfunction]
#[pyo3(signature = (n, p, size, seed = 0))]
fn binomial_draws<'py>(
    py: Python<'py>,
    n: u64,
    p: f64,
    size: usize,
    seed: u64,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    check_at_most("size", size, MAX_DRAWS)?;
    Ok(run_detached(py, || metrics::binomial_draws(n, p, size, seed))?.into_pyarray(py))
}

/// The stable 64-bit hash that seeds a group's resampling stream.
#[pyfunction]
fn key_hash(key: &str) -> u64 {
    metrics::key_hash(key.as_bytes())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(paired_bootstrap, m)?)?;
    m.add_function(wrap_pyfunction!(bootstrap_min, m)?)?;
    m.add_function(wrap_pyfunction!(binomial_draws, m)?)?;
    m.add_function(wrap_pyfunction!(key_hash, m)?)?;
    m.add_function(wrap_pyfunction!(dependency_robustness, m)?)?;
    m.add_function(wrap_pyfunction!(encode_groups, m)?)?;
    m.add_function(wrap_pyfunction!(score_cells, m)?)?;
    m.add_function(wrap_pyfunction!(error_counts, m)?)?;
    m.add_function(wrap_pyfunction!(score_keyed, m)?)?;
    m.add_function(wrap_pyfunction!(ece_equal_mass, m)?)?;
    m.add_function(wrap_pyfunction!(bootstrap_ci, m)?)?;
    Ok(())
}
