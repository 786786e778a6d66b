//! The scoring pass: one read of every row, split across threads, into
//! additive [`Cells`].
//!
//! Each thread accumulates into one small struct per group (array of
//! structs), so a row touches two or three cache lines rather than one per
//! counter; the per-thread results are added at the end.

use crate::alloc::{add, mul, try_zeros};
use crate::error::{Error, Result};
use crate::metrics::calibration::{bin_of, calibrate};
use crate::metrics::cells::{wrong_penalty, Cells};
use crate::metrics::input::{row_error, Responses, NO_ANSWER, NO_KEY};
use crate::metrics::keys::KeyColumns;
use crate::metrics::units::unit_outcomes;
use rayon::prelude::*;

/// Rows per thread task below which splitting costs more than it saves.
const MIN_ROWS_PER_TASK: usize = 1 << 16;
/// Largest key space scored directly (accumulators per thread stay small).
pub const MAX_DIRECT_SPACE: usize = 1 << 20;

// One record per group, all f64 (counts stay exact below 2^53) and laid out
// contiguously: the scalars, then (n, Σconf, #top-correct) per ECE bin. A row
// touches one record, i.e. a few adjacent cache lines.
const N_ROWS: usize = 0;
const N_UNITS: usize = 1;
const N_NO_ANSWER: usize = 2;
const N_CORRECT: usize = 3;
const N_UNSCORED: usize = 4;
const N_PROB_INVALID: usize = 5;
const SUM_NORM: usize = 6;
const SUM_NORM_STRICT: usize = 7;
const SUM_P_RANDOM: usize = 8;
const SUM_P_CORRECT: usize = 9;
const SUM_BRIER: usize = 10;
const SUM_INVALID_MASS: usize = 11;
const SCALARS: usize = 12;

struct Partial {
    data: Vec<f64>,
    nbins: usize,
    stride: usize,
}

impl Partial {
    fn zeros(groups: usize, nbins: usize) -> Result<Self> {
        let what = "groups × bins";
        let stride = add(what, SCALARS, mul(what, 3, nbins)?)?;
        Ok(Partial {
            data: try_zeros(what, mul(what, groups, stride)?)?,
            nbins,
            stride,
        })
    }

    fn rows(&self, g: usize) -> f64 {
        self.data[g * self.stride + N_ROWS]
    }

    fn merge(&mut self, o: &Partial) {
        self.data.iter_mut().zip(&o.data).for_each(|(a, b)| *a += b);
    }

    /// Cells for the groups `keep` (all groups when `None`), in that order.
    fn into_cells(self, keep: Option<&[usize]>) -> Result<Cells> {
        let groups = self.data.len() / self.stride;
        let all: Vec<usize>;
        let keep = match keep {
            Some(k) => k,
            None => {
                all = (0..groups).collect();
                &all
            }
        };
        let mut c = Cells::zeros(keep.len(), self.nbins)?;
        for (out, &g) in keep.iter().enumerate() {
            let r = &self.data[g * self.stride..(g + 1) * self.stride];
            c.n_rows[out] = r[N_ROWS] as u64;
            c.n_units[out] = r[N_UNITS] as u64;
            c.n_no_answer[out] = r[N_NO_ANSWER] as u64;
            c.n_correct[out] = r[N_CORRECT] as u64;
            c.n_unscored[out] = r[N_UNSCORED] as u64;
            c.n_prob_invalid[out] = r[N_PROB_INVALID] as u64;
            c.sum_norm[out] = r[SUM_NORM];
            c.sum_norm_strict[out] = r[SUM_NORM_STRICT];
            c.sum_p_random[out] = r[SUM_P_RANDOM];
            c.sum_p_correct[out] = r[SUM_P_CORRECT];
            c.sum_brier[out] = r[SUM_BRIER];
            c.sum_invalid_mass[out] = r[SUM_INVALID_MASS];
            for b in 0..self.nbins {
                let (n, conf, acc) = (
                    r[SCALARS + 3 * b],
                    r[SCALARS + 3 * b + 1],
                    r[SCALARS + 3 * b + 2],
                );
                c.ece_n[out * self.nbins + b] = n as u64;
                c.ece_conf[out * self.nbins + b] = conf;
                c.ece_acc[out * self.nbins + b] = acc as u64;
                // Totals over bins give the calibration counts and Σconf.
                c.n_prob[out] += n as u64;
                c.sum_conf[out] += conf;
                c.n_top_correct[out] += acc as u64;
            }
        }
        Ok(c)
    }
}

/// Rows per block: each block is computed first (sequential reads), then
/// scattered into the group records with prefetching, so the cache misses of
/// the scatter overlap instead of stalling the arithmetic one by one.
const BLOCK: usize = 512;
/// How many rows ahead the scatter prefetches.
const PREFETCH: usize = 12;

/// What one row adds to its group's record (computed before the scatter).
#[derive(Clone, Copy, Default)]
struct Contribution {
    group: usize,
    /// Unit outcome: 0 none (unscored or scored by units), 1 unscored, 2 no
    /// answer, 3 right, 4 wrong.
    outcome: u8,
    p_random: f64,
    /// Calibration: 0 none, 1 unusable probabilities, 2 usable.
    calibration: u8,
    bin: usize,
    conf: f64,
    top_correct: bool,
    p_correct: f64,
    brier: f64,
    invalid_mass: f64,
}

#[inline(always)]
fn prefetch(_ptr: *const f64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; it never faults, even on invalid addresses.
    unsafe {
        core::arch::x86_64::_mm_prefetch(_ptr as *const i8, core::arch::x86_64::_MM_HINT_T0);
    }
}

/// One pass over all rows; `group_of(i)` gives row `i`'s record.
fn pass<F>(resp: &Responses<'_>, groups: usize, group_of: F, nbins: usize) -> Result<Partial>
where
    F: Fn(usize) -> Result<usize> + Sync,
{
    let n = resp.len();
    let tasks = (n / MIN_ROWS_PER_TASK).clamp(1, rayon::current_num_threads());
    let per_task = n.div_ceil(tasks).max(1);
    let score_answers = resp.units.is_none();
    let partial: Vec<Result<Partial>> = (0..tasks)
        .into_par_iter()
        .map(|t| {
            let mut p = Partial::zeros(groups, nbins)?;
            let mut block = [Contribution::default(); BLOCK];
            let (start, end) = (t * per_task, ((t + 1) * per_task).min(n));
            let mut lo = start;
            while lo < end {
                let hi = (lo + BLOCK).min(end);
                for (slot, i) in block.iter_mut().zip(lo..hi) {
                    *slot = contribution(resp, i, group_of(i)?, score_answers, nbins)?;
                }
                scatter(&mut p, &block[..hi - lo]);
                lo = hi;
            }
            Ok(p)
        })
        .collect();
    let mut iter = partial.into_iter();
    let mut total = iter
        .next()
        .unwrap_or_else(|| Partial::zeros(groups, nbins))?;
    for p in iter {
        total.merge(&p?);
    }
    Ok(total)
}

fn scatter(p: &mut Partial, block: &[Contribution]) {
    let stride = p.stride;
    for (j, c) in block.iter().enumerate() {
        if let Some(ahead) = block.get(j + PREFETCH) {
            let base = p.data.as_ptr().wrapping_add(ahead.group * stride);
            prefetch(base);
            prefetch(base.wrapping_add(SCALARS + 3 * ahead.bin));
        }
        let r = &mut p.data[c.group * stride..(c.group + 1) * stride];
        r[N_ROWS] += 1.0;
        match c.outcome {
            1 => r[N_UNSCORED] += 1.0,
            2 => {
                r[N_UNITS] += 1.0;
                r[N_NO_ANSWER] += 1.0;
                r[SUM_P_RANDOM] += c.p_random;
                r[SUM_NORM_STRICT] -= wrong_penalty(c.p_random);
            }
            3 => {
                r[N_UNITS] += 1.0;
                r[SUM_P_RANDOM] += c.p_random;
                r[N_CORRECT] += 1.0;
                r[SUM_NORM] += 1.0;
                r[SUM_NORM_STRICT] += 1.0;
            }
            4 => {
                let penalty = wrong_penalty(c.p_random);
                r[N_UNITS] += 1.0;
                r[SUM_P_RANDOM] += c.p_random;
                r[SUM_NORM] -= penalty;
                r[SUM_NORM_STRICT] -= penalty;
            }
            _ => {}
        }
        match c.calibration {
            1 => r[N_PROB_INVALID] += 1.0,
            2 => {
                r[SUM_P_CORRECT] += c.p_correct;
                r[SUM_BRIER] += c.brier;
                r[SUM_INVALID_MASS] += c.invalid_mass;
                let b = SCALARS + 3 * c.bin;
                r[b] += 1.0;
                r[b + 1] += c.conf;
                r[b + 2] += c.top_correct as u8 as f64;
            }
            _ => {}
        }
    }
}

/// Row `i`'s contribution to group `g` (validated; nothing written yet).
#[inline]
fn contribution(
    resp: &Responses<'_>,
    i: usize,
    g: usize,
    score_answers: bool,
    nbins: usize,
) -> Result<Contribution> {
    resp.check_values(i)?;
    let (k, c, o) = (resp.n_options[i], resp.correct[i], resp.chosen[i]);
    let mut out = Contribution {
        group: g,
        ..Contribution::default()
    };
    if score_answers {
        out.p_random = 1.0 / k as f64;
        out.outcome = if c == NO_KEY {
            1
        } else if o == NO_ANSWER {
            2
        } else if o == c {
            3
        } else {
            4
        };
    }
    if c == NO_KEY || o == NO_ANSWER {
        return Ok(out);
    }
    let Some(probs) = resp.probs else {
        return Ok(out);
    };
    if !probs.is_valid(i) {
        return Ok(out);
    }
    let (lo, hi) = (probs.offsets[i], probs.offsets[i + 1]);
    if lo < 0 || hi < lo || hi as usize > probs.values.len() {
        return Err(row_error(
            "option_probs",
            i,
            "list offsets are out of range",
        ));
    }
    let values = &probs.values[lo as usize..hi as usize];
    if values.len() != k as usize {
        return Err(row_error(
            "option_probs",
            i,
            format!("{} probabilities for {k} options", values.len()),
        ));
    }
    match calibrate(values, c as usize, i)? {
        None => out.calibration = 1,
        Some(cal) => {
            out.calibration = 2;
            out.bin = bin_of(cal.conf, nbins);
            out.conf = cal.conf;
            out.top_correct = cal.top_correct;
            out.p_correct = cal.p_correct;
            out.brier = cal.brier;
            out.invalid_mass = cal.invalid_mass;
        }
    }
    Ok(out)
}

fn check_bins(bins: usize) -> Result<()> {
    if bins == 0 {
        return Err(Error::invalid("bins", "need at least one ECE bin"));
    }
    Ok(())
}

/// Score a response table into per-group cells with `bins` ECE bins.
pub fn score(resp: &Responses<'_>, bins: usize) -> Result<Cells> {
    check_bins(bins)?;
    resp.check_lengths()?;
    let mut cells = pass(resp, resp.n_groups, |i| resp.group_of(i), bins)?.into_cells(None)?;
    if resp.units.is_some() {
        let (outcomes, unscored) = unit_outcomes(resp)?;
        for o in &outcomes {
            let g = o.group as usize;
            cells.add_unit(g, o.answered, o.right, o.p_random);
            if o.consistency {
                cells.n_consistency[g] += 1;
                cells.n_consistent[g] += o.right as u64;
            }
        }
        for (g, &k) in unscored.iter().enumerate() {
            cells.n_unscored[g] += k;
        }
    }
    Ok(cells)
}

/// Score single-part responses grouped by key columns directly: returns the
/// cells of the keys that occur and those combined keys (ascending). Needs a
/// key space of at most [`MAX_DIRECT_SPACE`] and no multi-part units.
pub fn score_keyed(
    resp: &Responses<'_>,
    keys: &KeyColumns<'_>,
    bins: usize,
) -> Result<(Cells, Vec<usize>)> {
    check_bins(bins)?;
    resp.check_lengths_except_group()?;
    if resp.units.is_some() {
        return Err(Error::invalid(
            "units",
            "multi-part questions need dense group codes",
        ));
    }
    if keys.space() > MAX_DIRECT_SPACE {
        return Err(Error::invalid(
            "columns",
            "key space too large to score directly",
        ));
    }
    if keys.len() != resp.len() {
        return Err(Error::invalid(
            "columns",
            format!(
                "key columns have {} rows, expected {}",
                keys.len(),
                resp.len()
            ),
        ));
    }
    let partial = pass(resp, keys.space(), |i| keys.key(i), bins)?;
    let present: Vec<usize> = (0..keys.space())
        .filter(|&g| partial.rows(g) > 0.0)
        .collect();
    Ok((partial.into_cells(Some(&present))?, present))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::consistency::Rule;
    use crate::metrics::input::{Probs, Units};

    fn plain<'a>(
        group: &'a [u32],
        k: &'a [i32],
        chosen: &'a [i32],
        correct: &'a [i32],
    ) -> Responses<'a> {
        Responses::plain(group, 2, k, chosen, correct)
    }

    #[test]
    fn single_part_rows() {
        let r = plain(
            &[0, 0, 0, 1, 1],
            &[4, 4, 4, 2, 2],
            &[2, 1, -1, 0, 1],
            &[2, 2, 2, 0, -1],
        );
        let c = score(&r, 10).unwrap();
        assert_eq!(c.n_rows, vec![3, 2]);
        assert_eq!(c.n_units, vec![3, 1]);
        assert_eq!(c.n_correct, vec![1, 1]);
        assert_eq!(c.n_no_answer, vec![1, 0]);
        assert_eq!(c.n_unscored, vec![0, 1]);
        assert!((c.sum_norm[0] - (1.0 - 1.0 / 3.0)).abs() < 1e-15);
        assert!((c.sum_norm_strict[0] - (1.0 - 2.0 / 3.0)).abs() < 1e-15);
        assert!(
            (c.sum_p_random[0] - 0.75).abs() < 1e-15,
            "unanswered counts too"
        );
        assert_eq!(
            c.n_prob,
            vec![0, 0],
            "no probabilities: calibration stays empty"
        );
    }

    #[test]
    fn off_options_is_answered_and_wrong() {
        use crate::metrics::input::OFF_OPTIONS;
        // Group 0: right, off the options, silent. Group 1: the off-options
        // row replaced by a wrong option scores the same.
        let r = plain(
            &[0, 0, 0, 1, 1, 1],
            &[4, 4, 4, 4, 4, 4],
            &[2, OFF_OPTIONS, NO_ANSWER, 2, 3, NO_ANSWER],
            &[2, 2, 2, 2, 2, 2],
        );
        let c = score(&r, 10).unwrap();
        assert_eq!(c.n_no_answer, vec![1, 1]);
        assert_eq!(c.n_correct, vec![1, 1]);
        assert_eq!(c.sum_norm[0], c.sum_norm[1]);
        assert_eq!(c.sum_norm_strict[0], c.sum_norm_strict[1]);
        assert!((c.sum_norm[0] - (1.0 - 1.0 / 3.0)).abs() < 1e-15);
        assert!(plain(&[0], &[4], &[-3], &[0]).check_values(0).is_err());
    }

    #[test]
    fn keyed_scoring_matches_codes() {
        let key_a = [1, 0, 1, -1, 0];
        let codes = [0u32, 1, 0, 2, 1];
        let k = [4, 4, 4, 2, 2];
        let chosen = [2, 1, -1, 0, 1];
        let correct = [2, 2, 2, 0, -1];
        let mut r = plain(&codes, &k, &chosen, &correct);
        r.n_groups = 3;
        let by_code = score(&r, 10).unwrap();
        let keys = KeyColumns::new(vec![&key_a], vec![2]).unwrap();
        r.group = &[];
        let (by_key, present) = score_keyed(&r, &keys, 10).unwrap();
        // Keys: null → 0, index 0 → 1, index 1 → 2; codes 2, 1, 0 respectively.
        assert_eq!(present, vec![0, 1, 2]);
        let order = [2usize, 1, 0];
        for (out, &code) in order.iter().enumerate() {
            assert_eq!(by_key.n_rows[out], by_code.n_rows[code]);
            assert_eq!(by_key.n_correct[out], by_code.n_correct[code]);
            assert_eq!(by_key.sum_norm[out], by_code.sum_norm[code]);
        }
    }

    #[test]
    fn calibration_rows() {
        let offsets = [0, 2, 4, 6];
        let values = [0.9, 0.1, 0.2, 0.8, f64::NAN, 0.5];
        let valid = [true, true, true];
        let mut r = plain(&[0, 0, 0], &[2, 2, 2], &[0, 0, 1], &[0, 0, 1]);
        r.probs = Some(Probs {
            offsets: &offsets,
            values: &values,
            valid: Some(&valid),
        });
        let c = score(&r, 10).unwrap();
        assert_eq!(c.n_prob[0], 2);
        assert_eq!(c.n_prob_invalid[0], 1);
        assert!((c.sum_conf[0] - 1.7).abs() < 1e-12);
        assert!((c.sum_p_correct[0] - 1.1).abs() < 1e-12);
        assert_eq!(c.n_top_correct[0], 1);
        // Brier: row 0 ((0.1)² + (0.1)²)/2 = 0.01; row 1 ((0.8)² + (0.8)²)/2 = 0.64.
        assert!((c.sum_brier[0] - 0.65).abs() < 1e-12);
        assert_eq!(c.ece_n[9], 1);
        assert_eq!(c.ece_n[8], 1);
        assert_eq!(c.ece_acc[9], 1);
        assert_eq!(c.ece_acc[8], 0);
    }

    #[test]
    fn multi_part_and_consistency_units() {
        // Unit 0: two answer parts, both right → right, p = 1/2 · 1/4.
        // Unit 1: two answer parts, one wrong → wrong.
        // Unit 2: consistency rule same:01 on two 2-option parts, consistent.
        let group = [0, 0, 0, 0, 1, 1];
        let k = [2, 4, 2, 2, 2, 2];
        let chosen = [1, 3, 0, 1, 1, 1];
        let correct = [1, 3, 0, 0, -1, -1];
        let unit = [0, 0, 1, 1, 2, 2];
        let part = [0, 1, 0, 1, 0, 1];
        let rules = [Rule::parse("same:01").unwrap()];
        let rule = [-1, -1, 0];
        let mut r = plain(&group, &k, &chosen, &correct);
        r.units = Some(Units {
            unit: &unit,
            n_units: 3,
            part: &part,
            rule: &rule,
            rules: &rules,
        });
        let c = score(&r, 10).unwrap();
        assert_eq!(c.n_rows, vec![4, 2]);
        assert_eq!(c.n_units, vec![2, 1]);
        assert_eq!(c.n_correct, vec![1, 1]);
        let p1 = 0.25; // unit 1: 1/2 · 1/2
        assert!((c.sum_norm[0] - (1.0 - p1 / (1.0 - p1))).abs() < 1e-15);
        assert_eq!((c.n_consistency[1], c.n_consistent[1]), (1, 1));
        assert!((c.sum_p_random[1] - 0.5).abs() < 1e-15);
    }

    #[test]
    fn bad_rows_name_row_and_column() {
        let err = score(&plain(&[0, 0], &[2, 2], &[0, 2], &[0, 0]), 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "chosen_index: row 1: 2 is not -1, -2 or an option index below 2"
        );
        let err = score(&plain(&[0, 3], &[2, 2], &[0, 0], &[0, 0]), 10).unwrap_err();
        assert!(err.to_string().starts_with("group: row 1"), "{err}");
        let offsets = [0, 2, 3];
        let values = [0.5, 0.5, 1.0];
        let valid = [true, true];
        let mut r = plain(&[0, 0], &[2, 2], &[0, 0], &[0, 0]);
        r.probs = Some(Probs {
            offsets: &offsets,
            values: &values,
            valid: Some(&valid),
        });
        let err = score(&r, 10).unwrap_err();
        assert_eq!(
            err.to_string(),
            "option_probs: row 1: 1 probabilities for 2 options"
        );
        assert!(score(&plain(&[0], &[2], &[0], &[0]), 0).is_err());
    }

    #[test]
    fn splitting_across_threads_changes_nothing() {
        let n = 300_000;
        let group: Vec<u32> = (0..n).map(|i| (i % 2) as u32).collect();
        let k: Vec<i32> = (0..n).map(|i| 2 + (i % 3) as i32).collect();
        let correct: Vec<i32> = (0..n).map(|i| (i % 2) as i32).collect();
        let chosen: Vec<i32> = (0..n)
            .map(|i| ((i / 3) % 2) as i32 - (i % 7 == 0) as i32)
            .collect();
        let r = plain(&group, &k, &chosen, &correct);
        let all = score(&r, 10).unwrap();
        let half = n / 2;
        let mut halves = score(
            &plain(
                &group[..half],
                &k[..half],
                &chosen[..half],
                &correct[..half],
            ),
            10,
        )
        .unwrap();
        halves.merge(
            &score(
                &plain(
                    &group[half..],
                    &k[half..],
                    &chosen[half..],
                    &correct[half..],
                ),
                10,
            )
            .unwrap(),
        );
        assert_eq!(all.n_correct, halves.n_correct);
        assert_eq!(all.n_no_answer, halves.n_no_answer);
        for g in 0..2 {
            assert!((all.sum_norm[g] - halves.sum_norm[g]).abs() < 1e-6);
        }
    }

    #[test]
    fn sizes_past_memory_are_errors_not_aborts() {
        use crate::error::Error;
        let too_large = |r: Result<Cells>| matches!(r, Err(Error::TooLarge { .. }));
        let mut r = plain(&[], &[], &[], &[]);
        for groups in [1 << 40, usize::MAX / 2, usize::MAX] {
            r.n_groups = groups;
            assert!(too_large(score(&r, 10)), "{groups} groups");
        }
        r.n_groups = 2;
        // Bins past memory, and bins whose record size overflows.
        assert!(too_large(score(&r, 1 << 50)));
        assert!(too_large(score(&r, usize::MAX / 2)));
        assert!(too_large(Cells::zeros(usize::MAX, 2)));
        assert!(too_large(Cells::zeros(1 << 40, 1000)));
        assert!(score(&r, 10).is_ok());
    }
}
