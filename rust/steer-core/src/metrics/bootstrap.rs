//! Percentile bootstrap over questions, per group, in parallel.
//!
//! Each group's scored questions are resampled with replacement (same size),
//! every metric is recomputed on the resample, and the interval is read off
//! the replicates' percentiles (linear interpolation, as numpy's default).
//!
//! Two exact paths, chosen per metric:
//! - *count metrics* (exact match, normalized accuracy and its strict
//!   variant, gap, no-answer rate, consistency) are means of a per-question
//!   value taken from a handful of distinct outcomes, so a resample is one
//!   multinomial draw over the group's distinct outcomes
//!   ([`crate::metrics::resample`]): O(distinct outcomes) per replicate;
//! - *calibration metrics* (ECE, equal-mass ECE, Brier, EPA) resample
//!   questions one by one: O(questions) per replicate.
//!
//! Reproducibility: replicate `b` of a group draws from the stream
//! (seed, hash of the group's key, b, path), and a group's questions are put
//! in a canonical order (sorted by their outcome, then by their calibration
//! rows) before drawing. So a group's interval depends only on its own
//! questions and key: not on row order, threads, or the other groups.

use crate::error::{Error, Result};
use crate::metrics::calibration::{bin_of, calibrate, ece_equal_mass, CalibrationRow};
use crate::metrics::cells::wrong_penalty;
use crate::metrics::input::{Responses, NO_ANSWER, NO_KEY};
use crate::metrics::resample::Categories;
use crate::metrics::rng::{splitmix64, Xoshiro256pp};
use crate::metrics::units::unit_outcomes;
use rayon::prelude::*;
use std::cmp::Ordering;

/// Metrics the bootstrap can resample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    ExactMatch,
    NormalizedAccuracy,
    NormalizedAccuracyStrict,
    Gap,
    NoAnswerRate,
    Consistency,
    Ece,
    EceEqualMass,
    Brier,
    Epa,
}

impl Metric {
    pub const ALL: [Metric; 10] = [
        Metric::ExactMatch,
        Metric::NormalizedAccuracy,
        Metric::NormalizedAccuracyStrict,
        Metric::Gap,
        Metric::NoAnswerRate,
        Metric::Consistency,
        Metric::Ece,
        Metric::EceEqualMass,
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
            Metric::Consistency => "consistency",
            Metric::Ece => "ece",
            Metric::EceEqualMass => "ece_equal_mass",
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

    pub fn uses_calibration(self) -> bool {
        matches!(
            self,
            Metric::Ece | Metric::EceEqualMass | Metric::Brier | Metric::Epa
        )
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
    /// Per group, a stable hash of its key values (see
    /// [`crate::metrics::resample::key_hash`]) that seeds its stream; `None`
    /// hashes the group code (streams then follow code order).
    pub group_keys: Option<Vec<u64>>,
}

#[derive(Debug, Clone)]
pub struct BootstrapResult {
    /// `lo[m * n_groups + g]`: lower bound of metric `m` for group `g`.
    pub lo: Vec<f64>,
    pub hi: Vec<f64>,
    pub replicates: Option<Vec<f64>>,
}

/// A scored question's outcome as the count metrics see it; ordered so a
/// group's distinct outcomes come in a canonical order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
struct Outcome {
    /// 1 answered, 2 right (or consistent), 4 consistency-graded.
    flags: u8,
    p_bits: u64,
}

impl Outcome {
    fn new(answered: bool, right: bool, consistency: bool, p_random: f64) -> Self {
        Outcome {
            flags: answered as u8 | (right as u8) << 1 | (consistency as u8) << 2,
            p_bits: p_random.to_bits(),
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Cal {
    conf: f64,
    p_correct: f64,
    brier: f64,
    bin: u32,
    top_correct: bool,
}

impl Cal {
    fn cmp_key(&self, o: &Cal) -> Ordering {
        self.conf
            .total_cmp(&o.conf)
            .then(self.top_correct.cmp(&o.top_correct))
            .then(self.p_correct.total_cmp(&o.p_correct))
            .then(self.brier.total_cmp(&o.brier))
    }
}

/// One group, ready to resample.
struct Group {
    /// Distinct outcomes (sorted) and how many questions have each.
    outcomes: Vec<Outcome>,
    categories: Categories,
    /// Calibration rows of every question, questions in canonical order:
    /// question `q` owns `cal[cal_start[q]..cal_start[q + 1]]`.
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

/// Every scored question: (group, outcome, rows it is made of).
struct Questions {
    group: Vec<u32>,
    outcome: Vec<Outcome>,
    /// Rows of question j (CSR); only filled when calibration is needed.
    row_start: Vec<usize>,
    rows: Vec<usize>,
}

fn questions(resp: &Responses<'_>, with_cal: bool) -> Result<Questions> {
    let mut q = Questions {
        group: Vec::new(),
        outcome: Vec::new(),
        row_start: vec![0],
        rows: Vec::new(),
    };
    if let Some(units) = resp.units {
        let (outcomes, _) = unit_outcomes(resp)?;
        let mut members: Vec<Vec<usize>> = Vec::new();
        if with_cal {
            members = vec![Vec::new(); units.n_units];
            for (i, &u) in units.unit.iter().enumerate() {
                members[u as usize].push(i);
            }
        }
        for o in outcomes {
            q.group.push(o.group);
            q.outcome
                .push(Outcome::new(o.answered, o.right, o.consistency, o.p_random));
            if with_cal {
                q.rows.extend_from_slice(&members[o.unit as usize]);
                q.row_start.push(q.rows.len());
            }
        }
    } else {
        for i in 0..resp.len() {
            resp.check_row(i)?;
            let (k, c, o) = (resp.n_options[i], resp.correct[i], resp.chosen[i]);
            if c == NO_KEY {
                continue;
            }
            q.group.push(resp.group[i]);
            q.outcome
                .push(Outcome::new(o != NO_ANSWER, o == c, false, 1.0 / k as f64));
            if with_cal {
                q.rows.push(i);
                q.row_start.push(q.rows.len());
            }
        }
    }
    Ok(q)
}

fn build_groups(resp: &Responses<'_>, bins: usize, with_cal: bool) -> Result<Vec<Group>> {
    let q = questions(resp, with_cal)?;
    // Counting sort of questions by group.
    let mut start = vec![0usize; resp.n_groups + 1];
    for &g in &q.group {
        start[g as usize + 1] += 1;
    }
    for g in 0..resp.n_groups {
        start[g + 1] += start[g];
    }
    let mut order = vec![0usize; q.group.len()];
    let mut fill = start.clone();
    for (j, &g) in q.group.iter().enumerate() {
        order[fill[g as usize]] = j;
        fill[g as usize] += 1;
    }
    (0..resp.n_groups)
        .into_par_iter()
        .map(|g| {
            let members = &order[start[g]..start[g + 1]];
            let mut outs: Vec<Outcome> = members.iter().map(|&j| q.outcome[j]).collect();
            outs.sort_unstable();
            let mut outcomes: Vec<Outcome> = Vec::new();
            let mut counts: Vec<u64> = Vec::new();
            for o in outs {
                if outcomes.last() == Some(&o) {
                    *counts.last_mut().expect("pushed with the outcome") += 1;
                } else {
                    outcomes.push(o);
                    counts.push(1);
                }
            }
            let (mut cal_start, mut cal) = (vec![0], Vec::new());
            if with_cal {
                // Each question's rows, sorted; then questions sorted by them.
                let mut per: Vec<Vec<Cal>> = Vec::with_capacity(members.len());
                for &j in members {
                    let mut rows = Vec::new();
                    for &i in &q.rows[q.row_start[j]..q.row_start[j + 1]] {
                        if let Some(c) = row_calibration(resp, i, bins)? {
                            rows.push(c);
                        }
                    }
                    rows.sort_by(Cal::cmp_key);
                    per.push(rows);
                }
                per.sort_by(|a, b| {
                    a.iter()
                        .zip(b)
                        .map(|(x, y)| x.cmp_key(y))
                        .find(|o| o.is_ne())
                        .unwrap_or(a.len().cmp(&b.len()))
                });
                for rows in per {
                    cal.extend(rows);
                    cal_start.push(cal.len());
                }
            }
            Ok(Group {
                outcomes,
                categories: Categories::new(counts),
                cal_start,
                cal,
            })
        })
        .collect()
}

/// Count metrics of one resample from how many questions drew each outcome.
fn count_metrics(outcomes: &[Outcome], drawn: &[u64], metrics: &[Metric], out: &mut [f64]) {
    let (mut n, mut right, mut no_answer, mut cons, mut consistent) =
        (0u64, 0u64, 0u64, 0u64, 0u64);
    let (mut norm, mut strict, mut p_sum) = (0.0, 0.0, 0.0);
    for (o, &c) in outcomes.iter().zip(drawn) {
        if c == 0 {
            continue;
        }
        let (answered, is_right) = (o.flags & 1 != 0, o.flags & 2 != 0);
        let p = f64::from_bits(o.p_bits);
        let cf = c as f64;
        n += c;
        p_sum += p * cf;
        if o.flags & 4 != 0 {
            cons += c;
            consistent += c * is_right as u64;
        }
        if is_right {
            right += c;
            norm += cf;
            strict += cf;
        } else {
            let pen = wrong_penalty(p) * cf;
            strict -= pen;
            if answered {
                norm -= pen;
            } else {
                no_answer += c;
            }
        }
    }
    let nf = n as f64;
    for (slot, m) in out.iter_mut().zip(metrics) {
        // Over every question asked: a no-answer is wrong for exact match,
        // gap and the strict variant, chance (0) for normalized accuracy.
        let value = match m {
            Metric::ExactMatch => right as f64 / nf,
            Metric::NormalizedAccuracy => norm / nf,
            Metric::NormalizedAccuracyStrict => strict / nf,
            Metric::Gap => (right as f64 - p_sum) / nf,
            Metric::NoAnswerRate => no_answer as f64 / nf,
            Metric::Consistency => consistent as f64 / cons as f64,
            _ => continue,
        };
        *slot = value;
    }
}

/// Calibration metrics of one resample, drawing questions one by one.
fn calibration_metrics(
    grp: &Group,
    rng: &mut Xoshiro256pp,
    metrics: &[Metric],
    bins: usize,
    out: &mut [f64],
) {
    let n = grp.cal_start.len() - 1;
    let (mut n_prob, mut p_correct, mut brier) = (0u64, 0.0, 0.0);
    let mut bin_conf = vec![0.0; bins];
    let mut bin_acc = vec![0u64; bins];
    let equal_mass = metrics.contains(&Metric::EceEqualMass);
    let (mut confs, mut tops) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let j = rng.below(n);
        for c in &grp.cal[grp.cal_start[j]..grp.cal_start[j + 1]] {
            n_prob += 1;
            p_correct += c.p_correct;
            brier += c.brier;
            bin_conf[c.bin as usize] += c.conf;
            bin_acc[c.bin as usize] += c.top_correct as u64;
            if equal_mass {
                confs.push(c.conf);
                tops.push(c.top_correct);
            }
        }
    }
    let np = n_prob as f64;
    for (slot, m) in out.iter_mut().zip(metrics) {
        *slot = match m {
            Metric::Ece => {
                let gap: f64 = bin_conf
                    .iter()
                    .zip(&bin_acc)
                    .map(|(c, &k)| (k as f64 - c).abs())
                    .sum();
                gap / np
            }
            Metric::EceEqualMass => ece_equal_mass(&confs, &tops, bins),
            Metric::Brier => brier / np,
            Metric::Epa => p_correct / np,
            _ => continue,
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
    if let Some(keys) = &opts.group_keys {
        if keys.len() != resp.n_groups {
            return Err(Error::invalid(
                "group_keys",
                format!("{} keys for {} groups", keys.len(), resp.n_groups),
            ));
        }
    }
    let (m, b_count, groups) = (metrics.len(), opts.resamples, resp.n_groups);
    // Fail cleanly (not abort) when the replicates cannot be held.
    let per_group = b_count
        .checked_mul(m)
        .filter(|&x| x <= isize::MAX as usize / 8)
        .ok_or_else(|| Error::invalid("bootstrap", format!("{b_count} resamples is too many")))?;
    let mut probe: Vec<f64> = Vec::new();
    probe
        .try_reserve_exact(per_group.saturating_mul(if opts.keep_replicates {
            groups.max(1)
        } else {
            rayon::current_num_threads()
        }))
        .map_err(|_| Error::invalid("bootstrap", format!("{b_count} resamples is too many")))?;
    drop(probe);
    let with_cal = metrics.iter().any(|m| m.uses_calibration());
    let with_counts = metrics.iter().any(|m| !m.uses_calibration());
    let built = build_groups(resp, opts.bins, with_cal)?;
    let tail = (1.0 - opts.level) / 2.0;
    // Per group: all replicates (b-major) → per-metric percentiles.
    let per_group: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = built
        .par_iter()
        .enumerate()
        .map(|(g, grp)| {
            let key = match &opts.group_keys {
                Some(keys) => keys[g],
                None => splitmix64(g as u64),
            };
            let mut reps = vec![f64::NAN; b_count * m];
            if grp.categories.total() > 0 {
                reps.par_chunks_mut(m).enumerate().for_each_init(
                    || vec![0u64; grp.outcomes.len()],
                    |drawn, (b, out)| {
                        if with_counts {
                            let mut rng = Xoshiro256pp::for_stream(&[opts.seed, key, b as u64, 0]);
                            grp.categories.draw(&mut rng, drawn);
                            count_metrics(&grp.outcomes, drawn, metrics, out);
                        }
                        if with_cal {
                            let mut rng = Xoshiro256pp::for_stream(&[opts.seed, key, b as u64, 1]);
                            calibration_metrics(grp, &mut rng, metrics, opts.bins, out);
                        }
                    },
                );
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
            group_keys: None,
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
