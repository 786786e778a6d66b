//! Percentile bootstrap over questions, per group, in parallel.
//!
//! Each group's scored questions are resampled with replacement (same size),
//! every metric is recomputed on the resample, and the interval is read off
//! the replicates' percentiles (linear interpolation, as numpy's default).
//! Replicate `b` of group `g` draws from its own stream of the seeded
//! generator, so results do not depend on threads or scheduling.

use crate::error::{Error, Result};
use crate::metrics::calibration::{bin_of, calibrate, CalibrationRow};
use crate::metrics::cells::wrong_penalty;
use crate::metrics::input::{Responses, NO_ANSWER, NO_KEY};
use crate::metrics::rng::Xoshiro256pp;
use crate::metrics::units::unit_outcomes;
use rayon::prelude::*;

/// Metrics the bootstrap can resample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    ExactMatch,
    NormalizedAccuracy,
    NormalizedAccuracyStrict,
    Gap,
    NoAnswerRate,
    Ece,
    Brier,
    Epa,
}

impl Metric {
    pub const ALL: [Metric; 8] = [
        Metric::ExactMatch,
        Metric::NormalizedAccuracy,
        Metric::NormalizedAccuracyStrict,
        Metric::Gap,
        Metric::NoAnswerRate,
        Metric::Ece,
        Metric::Brier,
        Metric::Epa,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::ExactMatch => "exact_match",
            Metric::NormalizedAccuracy => "normalized_accuracy",
            Metric::NormalizedAccuracyStrict => "normalized_accuracy_strict",
            Metric::Gap => "gap",
            Metric::NoAnswerRate => "no_answer_rate",
            Metric::Ece => "ece",
            Metric::Brier => "brier",
            Metric::Epa => "epa",
        }
    }

    pub fn from_name(name: &str) -> Result<Metric> {
        Metric::ALL
            .into_iter()
            .find(|m| m.name() == name)
            .ok_or_else(|| Error::invalid("metrics", format!("no bootstrap for metric {name:?}")))
    }

    fn uses_calibration(self) -> bool {
        matches!(self, Metric::Ece | Metric::Brier | Metric::Epa)
    }
}

#[derive(Debug, Clone)]
pub struct BootstrapOptions {
    pub resamples: usize,
    pub seed: u64,
    /// Confidence level, e.g. 0.95.
    pub level: f64,
    pub bins: usize,
    /// Return every replicate (metric-major, then group, then replicate).
    pub keep_replicates: bool,
}

#[derive(Debug, Clone)]
pub struct BootstrapResult {
    /// `lo[m * n_groups + g]`: lower bound of metric `m` for group `g`.
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub replicates: Option<Vec<f64>>,
}

#[derive(Clone, Copy)]
struct Cal {
    conf: f64,
    p_correct: f64,
    brier: f64,
    bin: u32,
    top_correct: bool,
}

/// Questions grouped contiguously by group, with their calibration rows.
struct Items {
    group_start: Vec<usize>,
    answered: Vec<bool>,
    right: Vec<bool>,
    p_random: Vec<f64>,
    cal_start: Vec<usize>,
    cal: Vec<Cal>,
}

fn row_calibration(resp: &Responses<'_>, i: usize, bins: usize) -> Result<Option<Cal>> {
    let (c, o) = (resp.correct[i], resp.chosen[i]);
    let Some(p) = resp.probs else { return Ok(None) };
    if c == NO_KEY || o == NO_ANSWER || !p.is_valid(i) {
        return Ok(None);
    }
    let (lo, hi) = (p.offsets[i] as usize, p.offsets[i + 1] as usize);
    Ok(
        calibrate(&p.values[lo..hi], c as usize, i)?.map(|r: CalibrationRow| Cal {
            conf: r.conf,
            p_correct: r.p_correct,
            brier: r.brier,
            bin: bin_of(r.conf, bins) as u32,
            top_correct: r.top_correct,
        }),
    )
}

fn build_items(resp: &Responses<'_>, bins: usize, with_cal: bool) -> Result<Items> {
    // (group, answered, right, p_random, rows of the item)
    let mut raw: Vec<(u32, bool, bool, f64)> = Vec::new();
    let mut rows_of: Vec<Vec<usize>> = Vec::new();
    if let Some(units) = resp.units {
        let (outcomes, _) = unit_outcomes(resp)?;
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); units.n_units];
        if with_cal {
            for (i, &u) in units.unit.iter().enumerate() {
                members[u as usize].push(i);
            }
        }
        for o in outcomes {
            raw.push((o.group, o.answered, o.right, o.p_random));
            rows_of.push(std::mem::take(&mut members[o.unit as usize]));
        }
    } else {
        for i in 0..resp.len() {
            resp.check_row(i)?;
            let (k, c, o) = (resp.n_options[i], resp.correct[i], resp.chosen[i]);
            if c == NO_KEY {
                continue;
            }
            raw.push((resp.group[i], o != NO_ANSWER, o == c, 1.0 / k as f64));
            rows_of.push(if with_cal { vec![i] } else { Vec::new() });
        }
    }
    // Counting sort by group.
    let mut group_start = vec![0usize; resp.n_groups + 1];
    for &(g, ..) in &raw {
        group_start[g as usize + 1] += 1;
    }
    for g in 0..resp.n_groups {
        group_start[g + 1] += group_start[g];
    }
    let mut order = vec![0usize; raw.len()];
    let mut fill = group_start.clone();
    for (j, &(g, ..)) in raw.iter().enumerate() {
        order[fill[g as usize]] = j;
        fill[g as usize] += 1;
    }
    let mut items = Items {
        group_start,
        answered: Vec::with_capacity(raw.len()),
        right: Vec::with_capacity(raw.len()),
        p_random: Vec::with_capacity(raw.len()),
        cal_start: vec![0],
        cal: Vec::new(),
    };
    for j in order {
        let (_, answered, right, p) = raw[j];
        items.answered.push(answered);
        items.right.push(right);
        items.p_random.push(p);
        for &i in &rows_of[j] {
            if let Some(cal) = row_calibration(resp, i, bins)? {
                items.cal.push(cal);
            }
        }
        items.cal_start.push(items.cal.len());
    }
    Ok(items)
}

/// One resample of items `lo..hi`, returning every metric in `metrics` order.
fn replicate(
    items: &Items,
    lo: usize,
    hi: usize,
    rng: &mut Xoshiro256pp,
    metrics: &[Metric],
    bins: usize,
    out: &mut [f64],
) {
    let n = hi - lo;
    let (mut answered, mut right, mut no_answer) = (0u64, 0u64, 0u64);
    let (mut norm, mut strict, mut p_sum) = (0.0, 0.0, 0.0);
    let (mut n_prob, mut p_correct, mut brier) = (0u64, 0.0, 0.0);
    let mut bin_conf = vec![0.0; bins];
    let mut bin_acc = vec![0u64; bins];
    let with_cal = metrics.iter().any(|m| m.uses_calibration());
    for _ in 0..n {
        let j = lo + rng.below(n);
        let pen = wrong_penalty(items.p_random[j]);
        if items.answered[j] {
            answered += 1;
            p_sum += items.p_random[j];
            if items.right[j] {
                right += 1;
                norm += 1.0;
                strict += 1.0;
            } else {
                norm -= pen;
                strict -= pen;
            }
        } else {
            no_answer += 1;
            strict -= pen;
        }
        if with_cal {
            for c in &items.cal[items.cal_start[j]..items.cal_start[j + 1]] {
                n_prob += 1;
                p_correct += c.p_correct;
                brier += c.brier;
                bin_conf[c.bin as usize] += c.conf;
                bin_acc[c.bin as usize] += c.top_correct as u64;
            }
        }
    }
    let (a, np) = (answered as f64, n_prob as f64);
    for (slot, m) in out.iter_mut().zip(metrics) {
        *slot = match m {
            Metric::ExactMatch => right as f64 / a,
            Metric::NormalizedAccuracy => norm / a,
            Metric::NormalizedAccuracyStrict => strict / n as f64,
            Metric::Gap => (right as f64 - p_sum) / a,
            Metric::NoAnswerRate => no_answer as f64 / n as f64,
            Metric::Ece => {
                let gap: f64 = bin_conf
                    .iter()
                    .zip(&bin_acc)
                    .map(|(c, &k)| (k as f64 - c).abs())
                    .sum();
                gap / np
            }
            Metric::Brier => brier / np,
            Metric::Epa => p_correct / np,
        };
    }
}

/// Percentile `q` (0..=1) of sorted values, linear interpolation.
pub fn percentile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(sorted.len() - 1);
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

/// Bootstrap confidence intervals of `metrics` for every group.
pub fn bootstrap(
    resp: &Responses<'_>,
    metrics: &[Metric],
    opts: &BootstrapOptions,
) -> Result<BootstrapResult> {
    if opts.resamples == 0 {
        return Err(Error::invalid("bootstrap", "need at least one resample"));
    }
    if !(opts.level > 0.0 && opts.level < 1.0) {
        return Err(Error::invalid(
            "ci",
            format!("level must be in (0, 1), got {}", opts.level),
        ));
    }
    if opts.bins == 0 {
        return Err(Error::invalid("bins", "need at least one ECE bin"));
    }
    resp.check_lengths()?;
    let with_cal = metrics.iter().any(|m| m.uses_calibration());
    let items = build_items(resp, opts.bins, with_cal)?;
    let (m, b_count, groups) = (metrics.len(), opts.resamples, resp.n_groups);
    let tail = (1.0 - opts.level) / 2.0;
    // Per group: all replicates (b-major) → per-metric percentiles.
    let per_group: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = (0..groups)
        .into_par_iter()
        .map(|g| {
            let (lo, hi) = (items.group_start[g], items.group_start[g + 1]);
            let mut reps = vec![f64::NAN; b_count * m];
            if hi > lo {
                reps.par_chunks_mut(m).enumerate().for_each(|(b, out)| {
                    let mut rng = Xoshiro256pp::for_stream(&[opts.seed, g as u64, b as u64]);
                    replicate(&items, lo, hi, &mut rng, metrics, opts.bins, out);
                });
            }
            let mut lows = Vec::with_capacity(m);
            let mut highs = Vec::with_capacity(m);
            for k in 0..m {
                let mut values: Vec<f64> = reps
                    .iter()
                    .skip(k)
                    .step_by(m)
                    .copied()
                    .filter(|v| !v.is_nan())
                    .collect();
                values.sort_by(f64::total_cmp);
                lows.push(percentile(&values, tail));
                highs.push(percentile(&values, 1.0 - tail));
            }
            (
                lows,
                highs,
                if opts.keep_replicates {
                    reps
                } else {
                    Vec::new()
                },
            )
        })
        .collect();
    let mut lo = vec![f64::NAN; m * groups];
    let mut hi = vec![f64::NAN; m * groups];
    let mut replicates = opts
        .keep_replicates
        .then(|| vec![f64::NAN; m * groups * b_count]);
    for (g, (lows, highs, reps)) in per_group.into_iter().enumerate() {
        for k in 0..m {
            lo[k * groups + g] = lows[k];
            hi[k * groups + g] = highs[k];
            if let Some(all) = replicates.as_mut() {
                for b in 0..b_count {
                    all[(k * groups + g) * b_count + b] = reps[b * m + k];
                }
            }
        }
    }
    Ok(BootstrapResult { lo, hi, replicates })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(n: usize) -> (Vec<u32>, Vec<i32>, Vec<i32>, Vec<i32>) {
        let group = (0..n).map(|i| (i % 3) as u32).collect();
        let k = vec![4; n];
        let correct = vec![0; n];
        let chosen = (0..n).map(|i| if i % 5 < 3 { 0 } else { 1 }).collect();
        (group, k, chosen, correct)
    }

    fn opts(seed: u64) -> BootstrapOptions {
        BootstrapOptions {
            resamples: 200,
            seed,
            level: 0.9,
            bins: 10,
            keep_replicates: true,
        }
    }

    #[test]
    fn deterministic_and_brackets_the_estimate() {
        let (group, k, chosen, correct) = table(600);
        let r = Responses {
            group: &group,
            n_groups: 3,
            n_options: &k,
            chosen: &chosen,
            correct: &correct,
            probs: None,
            units: None,
        };
        let a = bootstrap(&r, &[Metric::ExactMatch], &opts(1)).unwrap();
        let b = bootstrap(&r, &[Metric::ExactMatch], &opts(1)).unwrap();
        assert_eq!(a.lo, b.lo);
        assert_eq!(a.replicates, b.replicates);
        let c = bootstrap(&r, &[Metric::ExactMatch], &opts(2)).unwrap();
        assert_ne!(a.replicates, c.replicates);
        for g in 0..3 {
            assert!(a.lo[g] < 0.6 && 0.6 < a.hi[g], "{} {}", a.lo[g], a.hi[g]);
        }
    }

    #[test]
    fn a_constant_group_has_a_zero_width_interval() {
        let group = vec![0u32; 50];
        let k = vec![2; 50];
        let all_right = vec![1; 50];
        let r = Responses {
            group: &group,
            n_groups: 2,
            n_options: &k,
            chosen: &all_right,
            correct: &all_right,
            probs: None,
            units: None,
        };
        let res = bootstrap(&r, &[Metric::NormalizedAccuracy, Metric::Brier], &opts(0)).unwrap();
        assert_eq!((res.lo[0], res.hi[0]), (1.0, 1.0));
        assert!(res.lo[1].is_nan(), "empty group 1 has no interval");
        assert!(res.lo[2].is_nan(), "no probabilities: no Brier interval");
    }

    #[test]
    fn percentiles_interpolate_like_numpy() {
        let v = [1.0, 2.0, 3.0, 4.0];
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 1.0), 4.0);
        assert!((percentile(&v, 0.25) - 1.75).abs() < 1e-15);
        assert!(percentile(&[], 0.5).is_nan());
    }

    #[test]
    fn bad_options() {
        let (group, k, chosen, correct) = table(10);
        let r = Responses {
            group: &group,
            n_groups: 3,
            n_options: &k,
            chosen: &chosen,
            correct: &correct,
            probs: None,
            units: None,
        };
        let mut o = opts(0);
        o.resamples = 0;
        assert!(bootstrap(&r, &[Metric::Gap], &o).is_err());
        let mut o = opts(0);
        o.level = 1.0;
        assert!(bootstrap(&r, &[Metric::Gap], &o).is_err());
        assert!(Metric::from_name("nope").is_err());
        assert_eq!(Metric::from_name("ece").unwrap(), Metric::Ece);
    }
}
