//! Bindings for `steer_core::options`: the menus of numeric questions.

use crate::errors::run_detached;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use steer_core::options::{self, Request};

/// A menu (texts, tags, the key's index), or why the question must be drawn
/// again (a str).
#[derive(IntoPyObject)]
enum Outcome {
    Menu((Vec<String>, Vec<String>, usize)),
    Resample(String),
}

/// The options of a numeric question around the solver's `value`, from the
/// named errors (`named`: (value before rounding, tag), NaN for none), drawn
/// with `seed`, every option within [`low`, `high`]: (texts, tags, key
/// index), or a str saying why to draw again.
#[pyfunction]
#[pyo3(signature = (value, decimals, relative_gap, nonnegative, probability, unit, n, named, seed, low=f64::NEG_INFINITY, high=f64::INFINITY))]
#[allow(clippy::too_many_arguments)]
fn numeric_options(
    py: Python<'_>,
    value: f64,
    decimals: u32,
    relative_gap: f64,
    nonnegative: bool,
    probability: bool,
    unit: PyBackedStr,
    n: usize,
    named: Vec<(f64, PyBackedStr)>,
    seed: u64,
    low: f64,
    high: f64,
) -> PyResult<Outcome> {
    run_detached(py, || {
        let named: Vec<(f64, &str)> = named.iter().map(|(v, t)| (*v, &**t)).collect();
        let req = Request {
            value,
            decimals,
            relative_gap,
            nonnegative,
            probability,
            unit: &unit,
            low,
            high,
            n,
            named: &named,
            seed,
        };
        Ok(match options::numeric_options(&req)? {
            Ok(menu) => Outcome::Menu((menu.texts, menu.tags, menu.correct)),
            Err(reason) => Outcome::Resample(reason),
        })
    })
}

/// Digit slips of `key` (see `steer_core::options::numeric::digit_slips`),
/// in the order drawn with `seed`: for tests of their tags.
#[pyfunction]
fn digit_slips(
    key: f64,
    decimals: u32,
    gap: f64,
    nearest: bool,
    seed: u64,
) -> Vec<(f64, &'static str)> {
    let mut rng = options::SplitMix64::new(seed);
    options::numeric::digit_slips(&mut rng, key, decimals, gap, nearest)
}

/// Where the first value ranks among `values` by shared digits: (lowest, highest).
#[pyfunction]
fn centre_rank(values: Vec<f64>, decimals: u32) -> (usize, usize) {
    options::numeric::centre_rank(&values, decimals)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(numeric_options, m)?)?;
    m.add_function(wrap_pyfunction!(digit_slips, m)?)?;
    m.add_function(wrap_pyfunction!(centre_rank, m)?)?;
    Ok(())
}
