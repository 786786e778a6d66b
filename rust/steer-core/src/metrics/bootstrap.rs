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
//! (seed, hash of the group's key, b, count metric or calibration path), and
//! a group's questions are put in a canonical order (distinct values sorted
//! by count then bits; calibration questions by their rows) before drawing.
//! So a group's interval of a metric depends only on its own questions, its
//! key and the seed: not on row order, threads, the other groups or the
//! other metrics asked for.

use crate::alloc::{add, check_room, mul, try_vec, try_with_capacity, try_zeros};
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
    InvalidMass,
}

impl Metric {
    pub const ALL: [Metric; 11] = [
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
        Metric::InvalidMass,
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
            Metric::InvalidMass => "invalid_mass",
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
            Metric::Ece | Metric::EceEqualMass | Metric::Brier | Metric::Epa | Metric::InvalidMass
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
    invalid_mass: f64,
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
            .then(self.invalid_mass.total_cmp(&o.invalid_mass))
    }
}

/// One group, ready to resample.
struct Group {
    /// Distinct outcomes (sorted) and how many questions have each.
    outcomes: Vec<Outcome>,
    counts: Vec<u64>,
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
            invalid_mass: r.invalid_mass,
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
            members = try_vec("n_units", units.n_units, Vec::new())?;
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

/// Single-part rows and count metrics only: a question's outcome is
/// (option count, silent / wrong / right), so per-group counts go straight
/// into a small dense table, one pass over the rows split across threads.
fn count_single_part(resp: &Responses<'_>) -> Result<Option<Vec<Group>>> {
    const MAX_OPTIONS: usize = 64;
    const MAX_CELLS: usize = 1 << 22;
    let max_k = resp.n_options.iter().copied().max().unwrap_or(1).max(1) as usize;
    let stride = (max_k + 1) * 3;
    if resp.units.is_some()
        || max_k > MAX_OPTIONS
        || resp.n_groups.saturating_mul(stride) > MAX_CELLS
    {
        return Ok(None);
    }
    const ROWS_PER_TASK: usize = 1 << 16;
    let n = resp.len();
    let table = (0..n.div_ceil(ROWS_PER_TASK))
        .into_par_iter()
        .map(|t| -> Result<Vec<u64>> {
            let mut counts = vec![0u64; resp.n_groups * stride];
            for i in t * ROWS_PER_TASK..((t + 1) * ROWS_PER_TASK).min(n) {
                resp.check_row(i)?;
                let (k, c, o) = (resp.n_options[i], resp.correct[i], resp.chosen[i]);
                if c == NO_KEY {
                    continue;
                }
                let outcome = if o == NO_ANSWER {
                    0
                } else if o == c {
                    2
                } else {
                    1
                };
                counts[resp.group[i] as usize * stride + k as usize * 3 + outcome] += 1;
            }
            Ok(counts)
        })
        .try_reduce(
            || vec![0u64; resp.n_groups * stride],
            |mut a, b| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                Ok(a)
            },
        )?;
    let groups = table
        .chunks_exact(stride)
        .map(|cells| {
            let mut pairs: Vec<(Outcome, u64)> = cells
                .iter()
                .enumerate()
                .filter(|(_, &c)| c > 0)
                .map(|(j, &c)| {
                    let (k, outcome) = (j / 3, j % 3);
                    (
                        Outcome::new(outcome > 0, outcome == 2, false, 1.0 / k as f64),
                        c,
                    )
                })
                .collect();
            pairs.sort_unstable();
            Group {
                outcomes: pairs.iter().map(|p| p.0).collect(),
                counts: pairs.iter().map(|p| p.1).collect(),
                cal_start: vec![0],
                cal: Vec::new(),
            }
        })
        .collect();
    Ok(Some(groups))
}

fn build_groups(resp: &Responses<'_>, bins: usize, with_cal: bool) -> Result<Vec<Group>> {
    if !with_cal {
        if let Some(groups) = count_single_part(resp)? {
            return Ok(groups);
        }
    }
    let q = questions(resp, with_cal)?;
    // Counting sort of questions by group.
    let mut start: Vec<usize> = try_zeros("n_groups", add("n_groups", resp.n_groups, 1)?)?;
    for &g in &q.group {
        start[g as usize + 1] += 1;
    }
    for g in 0..resp.n_groups {
        start[g + 1] += start[g];
    }
    let mut order: Vec<usize> = try_zeros("questions", q.group.len())?;
    let mut fill = try_with_capacity("n_groups", start.len())?;
    fill.extend_from_slice(&start);
    check_room::<Group>("n_groups", resp.n_groups)?;
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
                counts,
                cal_start,
                cal,
            })
        })
        .collect()
}

/// What each count metric adds up per question, over the questions asked: a
/// no-answer is wrong for exact match, gap and the strict variant, and
/// chance (0) for normalized accuracy. Consistency is a ratio of two sums
/// (consistent, consistency-graded); every other metric is a sum over n.
fn columns_of(metric: Metric, o: Outcome) -> (f64, Option<f64>) {
    let (answered, right, consistency) = (o.flags & 1 != 0, o.flags & 2 != 0, o.flags & 4 != 0);
    let p = f64::from_bits(o.p_bits);
    let pen = wrong_penalty(p);
    let score = |silent: f64| {
        if right {
            1.0
        } else if answered {
            -pen
        } else {
            silent
        }
    };
    match metric {
        Metric::ExactMatch => (right as u8 as f64, None),
        Metric::NormalizedAccuracy => (score(0.0), None),
        Metric::NormalizedAccuracyStrict => (score(-pen), None),
        Metric::Gap => (right as u8 as f64 - p, None),
        Metric::NoAnswerRate => (!answered as u8 as f64, None),
        Metric::Consistency => (
            (consistency && right) as u8 as f64,
            Some(consistency as u8 as f64),
        ),
        _ => unreachable!("calibration metrics are not count metrics"),
    }
}

/// A group's distinct per-question value rows for the requested count
/// metrics (outcomes with equal rows merged, rows sorted by their bits) and
/// how many questions have each: the categories of the multinomial draw.
struct CountTable {
    width: usize,
    values: Vec<f64>,
    categories: Categories,
    /// Per requested metric: its sum column and, for ratios, the denominator's.
    slots: Vec<Option<(usize, Option<usize>)>>,
}

impl CountTable {
    fn new(outcomes: &[Outcome], counts: &[u64], metrics: &[Metric]) -> Self {
        let mut slots = Vec::with_capacity(metrics.len());
        let mut width = 0;
        for m in metrics {
            if m.uses_calibration() {
                slots.push(None);
            } else if *m == Metric::Consistency {
                slots.push(Some((width, Some(width + 1))));
                width += 2;
            } else {
                slots.push(Some((width, None)));
                width += 1;
            }
        }
        let mut rows: Vec<(Vec<u64>, u64)> = outcomes
            .iter()
            .zip(counts)
            .map(|(&o, &c)| {
                let mut row = Vec::with_capacity(width);
                for m in metrics.iter().filter(|m| !m.uses_calibration()) {
                    let (num, den) = columns_of(*m, o);
                    row.push(num.to_bits());
                    if let Some(d) = den {
                        row.push(d.to_bits());
                    }
                }
                (row, c)
            })
            .collect();
        rows.sort_unstable();
        // Merge equal rows; then order categories by (count, row bits): still
        // canonical, and the largest comes last, where the multinomial draw
        // takes it as the remainder for free.
        let mut merged_rows: Vec<(Vec<u64>, u64)> = Vec::with_capacity(rows.len());
        for (row, c) in rows {
            match merged_rows.last_mut() {
                Some(last) if last.0 == row => last.1 += c,
                _ => merged_rows.push((row, c)),
            }
        }
        merged_rows.sort_unstable_by(|a, b| a.1.cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        let mut values = Vec::with_capacity(merged_rows.len() * width);
        let mut merged: Vec<u64> = Vec::with_capacity(merged_rows.len());
        for (row, c) in merged_rows {
            values.extend(row.iter().map(|&b| f64::from_bits(b)));
            merged.push(c);
        }
        CountTable {
            width,
            values,
            categories: Categories::new(merged),
            slots,
        }
    }

    /// Count metrics of one resample from how many questions drew each row.
    fn metrics(&self, drawn: &[u64], sums: &mut Vec<f64>, out: &mut [f64]) {
        sums.clear();
        sums.resize(self.width, 0.0);
        let mut n = 0u64;
        for (row, &c) in self.values.chunks_exact(self.width).zip(drawn) {
            if c == 0 {
                continue;
            }
            n += c;
            let cf = c as f64;
            for (s, v) in sums.iter_mut().zip(row) {
                *s += v * cf;
            }
        }
        for (slot, place) in out.iter_mut().zip(&self.slots) {
            match place {
                Some((num, None)) => *slot = sums[*num] / n as f64,
                Some((num, Some(den))) => *slot = sums[*num] / sums[*den],
                None => {}
            }
        }
    }
}

/// Calibration metrics of one resample, drawing questions one by one.
fn calibration_metrics(
    grp: &Group,
    rng: &mut Xoshiro256pp,
    metrics: &[Metric],
    bins: usize,
    out: &mut [f64],
) -> Result<()> {
    let n = grp.cal_start.len() - 1;
    let (mut n_prob, mut p_correct, mut brier, mut invalid) = (0u64, 0.0, 0.0, 0.0);
    let mut bin_conf: Vec<f64> = try_zeros("bins", bins)?;
    let mut bin_acc: Vec<u64> = try_zeros("bins", bins)?;
    let equal_mass = metrics.contains(&Metric::EceEqualMass);
    let (mut confs, mut tops) = (Vec::new(), Vec::new());
    for _ in 0..n {
        let j = rng.below(n);
        for c in &grp.cal[grp.cal_start[j]..grp.cal_start[j + 1]] {
            n_prob += 1;
            p_correct += c.p_correct;
            invalid += c.invalid_mass;
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
            Metric::InvalidMass => invalid / np,
            _ => continue,
        };
    }
    Ok(())
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

fn check_options(resp: &Responses<'_>, opts: &BootstrapOptions) -> Result<()> {
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
    Ok(())
}

fn group_key(opts: &BootstrapOptions, g: usize) -> u64 {
    match &opts.group_keys {
        Some(keys) => keys[g],
        None => splitmix64(g as u64),
    }
}

/// The stream tag of a count metric (its place in [`Metric::ALL`], past the
/// calibration path's tag 1).
fn stream_of(metric: Metric) -> u64 {
    2 + Metric::ALL.iter().position(|&x| x == metric).unwrap_or(0) as u64
}

/// Bootstrap bounds of the minimum of a count metric over groups: fine group
/// `g` belongs to parent `parent[g]` (`u32::MAX`: to none), and replicate `b`
/// of a parent is the minimum over its fine groups of their replicate `b`
/// (groups where the metric is undefined left out), each fine group drawn
/// from exactly the stream [`bootstrap`] gives it. Returns (lo, hi) per
/// parent. This is the interval of robustness (worst domain, type, …):
/// questions are resampled within each cell, so every cell keeps its size.
pub fn bootstrap_min(
    resp: &Responses<'_>,
    metric: Metric,
    opts: &BootstrapOptions,
    parent: &[u32],
    n_parents: usize,
) -> Result<(Vec<f64>, Vec<f64>)> {
    check_options(resp, opts)?;
    if metric.uses_calibration() {
        return Err(Error::invalid(
            "metrics",
            format!("{} is not a mean over questions", metric.name()),
        ));
    }
    if parent.len() != resp.n_groups {
        return Err(Error::invalid(
            "parent",
            format!("{} parents for {} groups", parent.len(), resp.n_groups),
        ));
    }
    if let Some(&p) = parent
        .iter()
        .find(|&&p| p != u32::MAX && p as usize >= n_parents)
    {
        return Err(Error::invalid(
            "parent",
            format!("{p} is not below {n_parents}"),
        ));
    }
    let b_count = opts.resamples;
    let what = "bootstrap resamples";
    check_room::<f64>(what, mul(what, b_count, rayon::current_num_threads())?)?;
    let mut children: Vec<Vec<usize>> = try_vec("n_parents", n_parents, Vec::new())?;
    check_room::<(f64, f64)>("n_parents", n_parents)?;
    let built = build_groups(resp, opts.bins, false)?;
    for (g, &p) in parent.iter().enumerate() {
        if p != u32::MAX {
            children[p as usize].push(g);
        }
    }
    let tail = (1.0 - opts.level) / 2.0;
    let stream = stream_of(metric);
    let bounds: Vec<(f64, f64)> = children
        .par_iter()
        .map(|kids| -> Result<(f64, f64)> {
            let mut worst = try_vec(what, b_count, f64::NAN)?;
            let (mut drawn, mut sums, mut out) = (Vec::new(), Vec::new(), [f64::NAN]);
            for &g in kids {
                let grp = &built[g];
                if grp.counts.iter().sum::<u64>() == 0 {
                    continue;
                }
                let table = CountTable::new(&grp.outcomes, &grp.counts, &[metric]);
                drawn.resize(table.categories.counts.len(), 0);
                let key = group_key(opts, g);
                for (b, w) in worst.iter_mut().enumerate() {
                    let mut rng = Xoshiro256pp::for_stream(&[opts.seed, key, b as u64, stream]);
                    table.categories.draw(&mut rng, &mut drawn);
                    table.metrics(&drawn, &mut sums, &mut out);
                    *w = w.min(out[0]); // f64::min skips a NaN side
                }
            }
            let mut values: Vec<f64> = worst.into_iter().filter(|v| !v.is_nan()).collect();
            values.sort_by(f64::total_cmp);
            Ok((percentile(&values, tail), percentile(&values, 1.0 - tail)))
        })
        .collect::<Result<_>>()?;
    Ok(bounds.into_iter().unzip())
}

/// Bootstrap confidence intervals of `metrics` for every group.
pub fn bootstrap(
    resp: &Responses<'_>,
    metrics: &[Metric],
    opts: &BootstrapOptions,
) -> Result<BootstrapResult> {
    check_options(resp, opts)?;
    if metrics.is_empty() {
        return Err(Error::invalid("metrics", "need at least one metric"));
    }
    let (m, b_count, groups) = (metrics.len(), opts.resamples, resp.n_groups);
    // Fail cleanly (not abort) when the replicates cannot be held: the
    // outputs are allocated up front, and room for the per-group replicates
    // (all groups' when kept, else one per thread) is checked.
    let what = "bootstrap replicates";
    let per_group = mul(what, b_count, m)?;
    check_room::<f64>(
        what,
        mul(
            what,
            per_group,
            if opts.keep_replicates {
                groups.max(1)
            } else {
                rayon::current_num_threads()
            },
        )?,
    )?;
    let mut lo = try_vec(
        "metrics × groups",
        mul("metrics × groups", m, groups)?,
        f64::NAN,
    )?;
    let mut hi = try_vec("metrics × groups", lo.len(), f64::NAN)?;
    let mut replicates = if opts.keep_replicates {
        Some(try_vec(what, mul(what, lo.len(), b_count)?, f64::NAN)?)
    } else {
        None
    };
    check_room::<(Vec<f64>, Vec<f64>, Vec<f64>)>("n_groups", groups)?;
    let with_cal = metrics.iter().any(|m| m.uses_calibration());
    let built = build_groups(resp, opts.bins, with_cal)?;
    let tail = (1.0 - opts.level) / 2.0;
    // Per group: all replicates (b-major) → per-metric percentiles.
    let per_group: Vec<(Vec<f64>, Vec<f64>, Vec<f64>)> = built
        .par_iter()
        .enumerate()
        .map(|(g, grp)| -> Result<(Vec<f64>, Vec<f64>, Vec<f64>)> {
            let key = group_key(opts, g);
            let mut reps = try_vec(what, per_group, f64::NAN)?;
            let total: u64 = grp.counts.iter().sum();
            if total > 0 {
                // One table and one stream per count metric (keyed by the
                // metric), so a metric's interval does not depend on which
                // other metrics were asked for.
                let tables: Vec<(usize, u64, CountTable)> = metrics
                    .iter()
                    .enumerate()
                    .filter(|(_, m)| !m.uses_calibration())
                    .map(|(k, &m)| {
                        (
                            k,
                            stream_of(m),
                            CountTable::new(&grp.outcomes, &grp.counts, &[m]),
                        )
                    })
                    .collect();
                let n_cats = tables
                    .iter()
                    .map(|t| t.2.categories.counts.len())
                    .max()
                    .unwrap_or(0);
                // Replicates in chunks: enough tasks to balance, few enough that
                // scheduling costs nothing next to the draws.
                let chunk = if groups >= 4 * rayon::current_num_threads() {
                    b_count
                } else {
                    64
                };
                reps.par_chunks_mut(m * chunk).enumerate().try_for_each(
                    |(c, block)| -> Result<()> {
                        let (mut drawn, mut sums) = (vec![0u64; n_cats], Vec::new());
                        for (i, out) in block.chunks_mut(m).enumerate() {
                            let b = (c * chunk + i) as u64;
                            for (k, stream, t) in &tables {
                                let drawn = &mut drawn[..t.categories.counts.len()];
                                let mut rng =
                                    Xoshiro256pp::for_stream(&[opts.seed, key, b, *stream]);
                                t.categories.draw(&mut rng, drawn);
                                t.metrics(drawn, &mut sums, &mut out[*k..*k + 1]);
                            }
                            if with_cal {
                                let mut rng = Xoshiro256pp::for_stream(&[opts.seed, key, b, 1]);
                                calibration_metrics(grp, &mut rng, metrics, opts.bins, out)?;
                            }
                        }
                        Ok(())
                    },
                )?;
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
            Ok((
                lows,
                highs,
                if opts.keep_replicates {
                    reps
                } else {
                    Vec::new()
                },
            ))
        })
        .collect::<Result<_>>()?;
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
        let r = Responses::plain(&group, 3, &k, &chosen, &correct);
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
        let r = Responses::plain(&group, 2, &k, &all_right, &all_right);
        let res = bootstrap(&r, &[Metric::NormalizedAccuracy, Metric::Brier], &opts(0)).unwrap();
        assert_eq!((res.lo[0], res.hi[0]), (1.0, 1.0));
        assert!(res.lo[1].is_nan(), "empty group 1 has no interval");
        assert!(res.lo[2].is_nan(), "no probabilities: no Brier interval");
    }

    #[test]
    fn single_part_counting_matches_the_general_build() {
        let n = 5000;
        let group: Vec<u32> = (0..n).map(|i| ((i * 7) % 5) as u32).collect();
        let k: Vec<i32> = (0..n).map(|i| 1 + (i % 4) as i32).collect();
        let correct: Vec<i32> = (0..n).map(|i| if i % 13 == 0 { -1 } else { 0 }).collect();
        let chosen: Vec<i32> = (0..n)
            .map(|i| {
                if i % 9 == 0 {
                    -1
                } else {
                    ((i / 3) as i32) % k[i]
                }
            })
            .collect();
        let r = Responses::plain(&group, 6, &k, &chosen, &correct);
        let fast = count_single_part(&r)
            .unwrap()
            .expect("small table: fast path");
        let general = build_groups(&r, 10, true).unwrap();
        assert_eq!(fast.len(), general.len());
        for (a, b) in fast.iter().zip(&general) {
            assert_eq!(a.outcomes, b.outcomes);
            assert_eq!(a.counts, b.counts);
        }
    }

    #[test]
    fn group_keys_make_a_group_independent_of_the_others() {
        let (group, k, chosen, correct) = table(600);
        let r = Responses::plain(&group, 3, &k, &chosen, &correct);
        let mut o = opts(4);
        o.group_keys = Some(vec![10, 20, 30]);
        let all = bootstrap(&r, &[Metric::Gap, Metric::ExactMatch], &o).unwrap();
        // Group 1 alone, as group 0 of a one-group table, with the same key.
        let rows: Vec<usize> = (0..600).filter(|&i| group[i] == 1).collect();
        let pick = |v: &[i32]| rows.iter().map(|&i| v[i]).rev().collect::<Vec<i32>>();
        let (k1, chosen1, correct1) = (pick(&k), pick(&chosen), pick(&correct));
        let g1 = vec![0u32; rows.len()];
        let alone = Responses::plain(&g1, 1, &k1, &chosen1, &correct1);
        o.group_keys = Some(vec![20]);
        let one = bootstrap(&alone, &[Metric::Gap, Metric::ExactMatch], &o).unwrap();
        assert_eq!((one.lo[0], one.hi[0]), (all.lo[1], all.hi[1]));
        assert_eq!((one.lo[1], one.hi[1]), (all.lo[4], all.hi[4]));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]

        #[test]
        fn row_order_changes_no_interval(
            rows in proptest::collection::vec((0u32..3, 1i32..5, -1i32..4, 0u32..1000), 1..80),
            seed in 0u64..1000,
        ) {
            // (group, options, chosen, sort key): the sort key shuffles the rows.
            let table = |rows: &[(u32, i32, i32, u32)]| {
                let group: Vec<u32> = rows.iter().map(|r| r.0).collect();
                let k: Vec<i32> = rows.iter().map(|r| r.1).collect();
                let chosen: Vec<i32> = rows.iter().map(|r| r.2.min(r.1 - 1)).collect();
                let correct = vec![0; rows.len()];
                (group, k, chosen, correct)
            };
            let mut o = opts(seed);
            o.keep_replicates = false;
            o.resamples = 30;
            o.group_keys = Some(vec![1, 2, 3]);
            let metrics = [Metric::ExactMatch, Metric::NormalizedAccuracy, Metric::Gap];
            let (g, k, c, r) = table(&rows);
            let resp = Responses::plain(&g, 3, &k, &c, &r);
            let a = bootstrap(&resp, &metrics, &o).unwrap();
            let mut shuffled = rows.clone();
            shuffled.sort_by_key(|r| r.3);
            let (g, k, c, r) = table(&shuffled);
            let resp = Responses::plain(&g, 3, &k, &c, &r);
            let b = bootstrap(&resp, &metrics, &o).unwrap();
            proptest::prop_assert_eq!(format!("{:?}", a.lo), format!("{:?}", b.lo));
            proptest::prop_assert_eq!(format!("{:?}", a.hi), format!("{:?}", b.hi));
        }
    }

    #[test]
    fn bootstrap_min_is_the_minimum_of_the_groups_replicates() {
        let (group, k, chosen, correct) = table(900);
        let r = Responses::plain(&group, 3, &k, &chosen, &correct);
        let mut o = opts(8);
        o.group_keys = Some(vec![5, 6, 7]);
        let all = bootstrap(&r, &[Metric::NormalizedAccuracy], &o).unwrap();
        let reps = all.replicates.unwrap();
        // Parent 0 holds groups 0 and 2; parent 1 holds group 1.
        let (lo, hi) = bootstrap_min(&r, Metric::NormalizedAccuracy, &o, &[0, 1, 0], 2).unwrap();
        let b = o.resamples;
        let mut worst: Vec<f64> = (0..b).map(|i| reps[i].min(reps[2 * b + i])).collect();
        worst.sort_by(f64::total_cmp);
        assert_eq!(
            (lo[0], hi[0]),
            (percentile(&worst, 0.05), percentile(&worst, 0.95))
        );
        assert_eq!((lo[1], hi[1]), (all.lo[1], all.hi[1]));
        assert!(bootstrap_min(&r, Metric::Ece, &o, &[0, 1, 0], 2).is_err());
        assert!(bootstrap_min(&r, Metric::Gap, &o, &[0, 5, 0], 2).is_err());
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
        let r = Responses::plain(&group, 3, &k, &chosen, &correct);
        let mut o = opts(0);
        o.resamples = 0;
        assert!(bootstrap(&r, &[Metric::Gap], &o).is_err());
        let mut o = opts(0);
        o.level = 1.0;
        assert!(bootstrap(&r, &[Metric::Gap], &o).is_err());
        assert!(Metric::from_name("nope").is_err());
        assert!(
            bootstrap(&r, &[], &opts(0)).is_err(),
            "no metrics: an input error"
        );
        assert_eq!(Metric::from_name("ece").unwrap(), Metric::Ece);
    }

    fn too_large<T: std::fmt::Debug>(r: Result<T>) -> bool {
        matches!(r, Err(Error::TooLarge { .. }))
    }

    #[test]
    fn sizes_past_memory_are_errors_not_aborts() {
        let (group, k, chosen, correct) = table(30);
        let values: Vec<f64> = (0..30).flat_map(|_| [0.7, 0.1, 0.1, 0.1]).collect();
        let offsets: Vec<i32> = (0..=30).map(|i| 4 * i).collect();
        let r = Responses {
            group: &group,
            n_groups: 3,
            n_options: &k,
            chosen: &chosen,
            correct: &correct,
            probs: Some(crate::metrics::Probs {
                offsets: &offsets,
                values: &values,
                valid: None,
            }),
            units: None,
        };
        let huge = |resamples: usize, keep: bool| BootstrapOptions {
            resamples,
            keep_replicates: keep,
            ..opts(0)
        };
        let parents = [0, 0, 0];
        for keep in [false, true] {
            let o = huge(usize::MAX / 2, keep);
            assert!(too_large(bootstrap(&r, &[Metric::Gap], &o)));
            assert!(too_large(bootstrap(&r, &[Metric::Gap, Metric::Ece], &o)));
            let o = huge(1 << 45, keep);
            assert!(too_large(bootstrap(&r, &[Metric::Gap], &o)));
        }
        let o = huge(usize::MAX / 2, false);
        assert!(too_large(bootstrap_min(&r, Metric::Gap, &o, &parents, 1)));
        // Metrics × groups × resamples kept: the product overflows.
        let o = huge(usize::MAX / 4, true);
        assert!(too_large(bootstrap(&r, &[Metric::Gap; 8], &o)));
        // Parents, groups and ECE bins past memory.
        let o = opts(0);
        assert!(too_large(bootstrap_min(
            &r,
            Metric::Gap,
            &o,
            &parents,
            1 << 60
        )));
        let o = BootstrapOptions {
            bins: 1 << 60,
            ..opts(0)
        };
        assert!(too_large(bootstrap(&r, &[Metric::Ece], &o)));
        let empty = Responses::empty(1 << 60);
        for metric in [Metric::Gap, Metric::Ece] {
            let o = huge(10, false);
            assert!(too_large(bootstrap(&empty, &[metric], &o)));
        }
        let empty = Responses::empty(usize::MAX);
        assert!(too_large(bootstrap(
            &empty,
            &[Metric::Gap],
            &huge(10, false)
        )));
        // Sane sizes still work after all of that.
        assert!(bootstrap(&r, &[Metric::Gap, Metric::Ece], &opts(0)).is_ok());
    }
}
