//! Utility-parameter fits with bootstrapped percentile intervals: prospect
//! theory ([`prospect_theory`]), discounting ([`discounting`]) and
//! Fehr–Schmidt inequity aversion ([`fehr_schmidt`]).
//!
//! Every fit is batched over groups (a group = one subject or model × one
//! condition): flat slices of observations plus an `i64` group id per
//! observation. Observations of a group need not be contiguous; results come
//! back in ascending group id. Work runs in parallel over groups and, inside a
//! group, over bootstrap resamples.
//!
//! **Bootstrap.** Resample `b` of group `g` draws the group's `n` observations
//! with replacement from its own stream `(seed, g, b, family tag)`
//! ([`crate::metrics::rng::Xoshiro256pp::for_stream`]), so results do not
//! depend on the thread count or schedule. A resample is a vector of counts
//! (weights) over the observations; each resample fit starts from the
//! full-sample estimate. The interval is the `(1 − level)/2` and
//! `(1 + level)/2` percentiles of the resample estimates (linear
//! interpolation, as numpy's default); resamples whose fit fails are left out.
//!
//! **Identification.** Every parameter row carries `reason`: `None` when the
//! parameter is identified, else why not (no data for it, every answer
//! censored on the same side, too few observations, a singular Jacobian at the
//! estimate, no convergence). Unidentified parameters have no estimate and no
//! interval: no NaN or infinity is ever reported as a number.

// NaN-aware tests read `!(x > 0.0)` as "not a positive number" on purpose.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod discount;
mod fairness;
pub mod normal;
mod prospect;
pub mod solve;
#[cfg(test)]
mod tests;

pub use discount::{discounting, DiscountData, DiscountFamily};
pub use fairness::{fehr_schmidt, FairnessData};
pub use prospect::{prospect_theory, switch_value, Method, ProspectData, PT_BOUNDS, PT_MEDIANS};

use crate::error::{Error, Result};
use crate::metrics::bootstrap::percentile;
use crate::metrics::rng::Xoshiro256pp;
use rayon::prelude::*;

/// Bootstrap settings: `resamples` (0: no intervals), `level` in (0, 1),
/// `seed`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bootstrap {
    pub resamples: usize,
    pub level: f64,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 1000,
            level: 0.95,
            seed: 0,
        }
    }
}

/// Most resamples accepted.
pub const MAX_RESAMPLES: usize = 10_000_000;

impl Bootstrap {
    fn check(&self) -> Result<()> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(Error::invalid(
                "level",
                format!("must be in (0, 1), got {}", self.level),
            ));
        }
        if self.resamples > MAX_RESAMPLES {
            return Err(Error::invalid(
                "bootstrap",
                format!("at most {MAX_RESAMPLES} resamples, got {}", self.resamples),
            ));
        }
        Ok(())
    }
}

/// One parameter of one group.
#[derive(Debug, Clone, PartialEq)]
pub struct ParamFit {
    pub name: &'static str,
    pub estimate: Option<f64>,
    pub ci_lo: Option<f64>,
    pub ci_hi: Option<f64>,
    /// `None` when identified.
    pub reason: Option<String>,
    /// Observations behind this parameter when they differ from the group's
    /// `n` (Fehr–Schmidt: each parameter has its own data).
    pub n: Option<usize>,
}

impl ParamFit {
    fn unidentified(name: &'static str, reason: impl Into<String>) -> Self {
        ParamFit {
            name,
            estimate: None,
            ci_lo: None,
            ci_hi: None,
            reason: Some(reason.into()),
            n: None,
        }
    }

    fn identified(name: &'static str, estimate: f64) -> Self {
        ParamFit {
            name,
            estimate: finite(estimate),
            ci_lo: None,
            ci_hi: None,
            reason: None,
            n: None,
        }
    }

    pub fn is_identified(&self) -> bool {
        self.reason.is_none()
    }
}

/// One fit of one group: its parameters and goodness of fit.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupFit {
    pub group: i64,
    pub family: &'static str,
    pub method: &'static str,
    /// Observations used.
    pub n: usize,
    pub params: Vec<ParamFit>,
    pub r2: Option<f64>,
    pub ssr: Option<f64>,
    pub aic: Option<f64>,
    pub bic: Option<f64>,
}

/// `Some(x)` when finite.
fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// Rows of each group, ascending group id, each group's rows in input order.
/// What is wrong with an interval-censored observation's bracket [lo, hi]
/// (NaN: open on that side), as (field, message), or None: sides are finite
/// or open, not both open, and not inverted.
pub(crate) fn bracket_problem(lo: f64, hi: f64) -> Option<(&'static str, String)> {
    for (name, v) in [("lo", lo), ("hi", hi)] {
        if v.is_infinite() {
            return Some((name, format!("{v} (use NaN for an open side)")));
        }
    }
    if lo.is_nan() && hi.is_nan() {
        return Some(("lo", "lo and hi are both open (NaN): no information".into()));
    }
    if lo > hi {
        return Some(("lo", format!("lo {lo} > hi {hi}")));
    }
    None
}

pub fn group_rows(group: &[i64]) -> Vec<(i64, Vec<usize>)> {
    let mut order: Vec<usize> = (0..group.len()).collect();
    order.sort_by_key(|&i| group[i]);
    let mut out: Vec<(i64, Vec<usize>)> = Vec::new();
    for i in order {
        match out.last_mut() {
            Some((g, rows)) if *g == group[i] => rows.push(i),
            _ => out.push((group[i], vec![i])),
        }
    }
    out
}

/// Checks that every array has the length of `group`.
fn same_lengths(n: usize, arrays: &[(&str, usize)]) -> Result<()> {
    for &(name, len) in arrays {
        if len != n {
            return Err(Error::invalid(
                name,
                format!("{len} values for {n} observations (group ids)"),
            ));
        }
    }
    Ok(())
}

/// Runs `fit(weights, out)` on `boot.resamples` resamples of `n`
/// observations and returns, per parameter (`dim`), the percentile interval
/// of the finite results (`±∞` allowed: an infinite end comes back `None`).
/// `fit` returns false when the resample's fit failed.
fn bootstrap_intervals<F>(
    n: usize,
    dim: usize,
    group: i64,
    tag: u64,
    boot: &Bootstrap,
    fit: F,
) -> Vec<(Option<f64>, Option<f64>)>
where
    F: Fn(&[f64], &mut [f64]) -> bool + Sync,
{
    let b = boot.resamples;
    if b == 0 || n == 0 {
        return vec![(None, None); dim];
    }
    let results: Vec<f64> = (0..b)
        .into_par_iter()
        .map_init(
            || (vec![0.0; n], vec![0.0; dim]),
            |(weights, out), r| {
                weights.iter_mut().for_each(|w| *w = 0.0);
                let mut rng = Xoshiro256pp::for_stream(&[boot.seed, group as u64, r as u64, tag]);
                for _ in 0..n {
                    weights[rng.below(n)] += 1.0;
                }
                let ok = fit(weights, out);
                let mut row = out.clone();
                if !ok {
                    row.iter_mut().for_each(|v| *v = f64::NAN);
                }
                row
            },
        )
        .flatten_iter()
        .collect();
    let tail = (1.0 - boot.level) / 2.0;
    (0..dim)
        .map(|k| {
            let mut v: Vec<f64> = results
                .chunks_exact(dim)
                .map(|row| row[k])
                .filter(|x| !x.is_nan())
                .collect();
            if v.is_empty() {
                return (None, None);
            }
            v.sort_by(f64::total_cmp);
            (
                finite(percentile(&v, tail)),
                finite(percentile(&v, 1.0 - tail)),
            )
        })
        .collect()
}

/// Gaussian information criteria from a sum of squared residuals.
fn gaussian_ic(ssr: f64, n: usize, k: usize) -> (Option<f64>, Option<f64>) {
    if n == 0 || !(ssr > 0.0) {
        return (None, None);
    }
    let nf = n as f64;
    let base = nf * (ssr / nf).ln();
    (
        finite(base + 2.0 * k as f64),
        finite(base + k as f64 * nf.ln()),
    )
}

/// `1 − ssr / Σ (y − ȳ)²` (None when the observations do not vary).
fn r_squared(ssr: f64, ys: impl Iterator<Item = f64> + Clone) -> Option<f64> {
    let (mut n, mut s) = (0.0, 0.0);
    for y in ys.clone() {
        n += 1.0;
        s += y;
    }
    if n == 0.0 {
        return None;
    }
    let mean = s / n;
    let sst: f64 = ys.map(|y| (y - mean) * (y - mean)).sum();
    if sst > 0.0 {
        finite(1.0 - ssr / sst)
    } else {
        None
    }
}
