//! The scoring pass: one read of every row, split across threads, into
//! additive [`Cells`].

use crate::error::Result;
use crate::metrics::calibration::{bin_of, calibrate};
use crate::metrics::cells::Cells;
use crate::metrics::input::{row_error, Responses, NO_ANSWER, NO_KEY};
use crate::metrics::units::unit_outcomes;
use rayon::prelude::*;

/// Rows per thread task below which splitting costs more than it saves.
const MIN_ROWS_PER_TASK: usize = 1 << 16;

/// Score a response table into per-group cells with `bins` ECE bins.
pub fn score(resp: &Responses<'_>, bins: usize) -> Result<Cells> {
    if bins == 0 {
        return Err(crate::Error::invalid("bins", "need at least one ECE bin"));
    }
    resp.check_lengths()?;
    let n = resp.len();
    let tasks = (n / MIN_ROWS_PER_TASK).clamp(1, 4 * rayon::current_num_threads());
    let per_task = n.div_ceil(tasks).max(1);
    // Per-row work (validation, calibration, and for single-part tables the
    // answer itself) in `tasks` contiguous chunks, each with its own cells.
    let partial: Vec<Result<Cells>> = (0..tasks)
        .into_par_iter()
        .map(|t| {
            let mut cells = Cells::zeros(resp.n_groups, bins);
            for i in (t * per_task)..((t + 1) * per_task).min(n) {
                score_row(resp, i, &mut cells)?;
            }
            Ok(cells)
        })
        .collect();
    let mut cells = Cells::zeros(resp.n_groups, bins);
    for part in partial {
        cells.merge(&part?);
    }
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

#[inline]
fn score_row(resp: &Responses<'_>, i: usize, cells: &mut Cells) -> Result<()> {
    resp.check_row(i)?;
    let g = resp.group[i] as usize;
    let (k, c, o) = (resp.n_options[i], resp.correct[i], resp.chosen[i]);
    cells.n_rows[g] += 1;
    if resp.units.is_none() {
        if c == NO_KEY {
            cells.n_unscored[g] += 1;
        } else {
            cells.add_unit(g, o != NO_ANSWER, o == c, 1.0 / k as f64);
        }
    }
    if c == NO_KEY || o == NO_ANSWER {
        return Ok(());
    }
    let Some(p) = resp.probs else { return Ok(()) };
    if !p.valid[i] {
        return Ok(());
    }
    let (lo, hi) = (p.offsets[i], p.offsets[i + 1]);
    if lo < 0 || hi < lo || hi as usize > p.values.len() {
        return Err(row_error(
            "option_probs",
            i,
            "list offsets are out of range",
        ));
    }
    let probs = &p.values[lo as usize..hi as usize];
    if probs.len() != k as usize {
        return Err(row_error(
            "option_probs",
            i,
            format!("{} probabilities for {k} options", probs.len()),
        ));
    }
    match calibrate(probs, c as usize, i)? {
        None => cells.n_prob_invalid[g] += 1,
        Some(r) => {
            cells.n_prob[g] += 1;
            cells.sum_conf[g] += r.conf;
            cells.sum_p_correct[g] += r.p_correct;
            cells.n_top_correct[g] += r.top_correct as u64;
            cells.sum_brier[g] += r.brier;
            cells.sum_invalid_mass[g] += r.invalid_mass;
            let b = g * cells.bins + bin_of(r.conf, cells.bins);
            cells.ece_n[b] += 1;
            cells.ece_conf[b] += r.conf;
            cells.ece_acc[b] += r.top_correct as u64;
        }
    }
    Ok(())
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
        Responses {
            group,
            n_groups: 2,
            n_options: k,
            chosen,
            correct,
            probs: None,
            units: None,
        }
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
        assert!((c.sum_p_random[0] - 0.5).abs() < 1e-15);
        assert_eq!(
            c.n_prob,
            vec![0, 0],
            "no probabilities: calibration stays empty"
        );
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
            valid: &valid,
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
            "chosen_index: row 1: 2 is not -1 or an option index below 2"
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
            valid: &valid,
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
        let mut halves = score(
            &plain(
                &group[..n / 2],
                &k[..n / 2],
                &chosen[..n / 2],
                &correct[..n / 2],
            ),
            10,
        )
        .unwrap();
        halves.merge(
            &score(
                &plain(
                    &group[n / 2..],
                    &k[n / 2..],
                    &chosen[n / 2..],
                    &correct[n / 2..],
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
}
