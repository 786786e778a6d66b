//! Additive per-group sums: the "scored cells" every rate is derived from.
//!
//! Everything here is a count or a sum, so the cells of two tables merge by
//! adding them field by field, and merging the cells of the parts of a table
//! equals scoring the whole table.

use crate::alloc::{mul, try_zeros};
use crate::error::Result;

/// Per-group sums; every `Vec` has one entry per group (ECE bins: `bins` per
/// group, group-major).
#[derive(Debug, Clone, PartialEq)]
pub struct Cells {
    pub n_groups: usize,
    pub bins: usize,
    /// Response rows (question parts).
    pub n_rows: Vec<u64>,
    /// Scored questions: multi-part questions and consistency groups count once.
    pub n_units: Vec<u64>,
    /// Questions with some part unanswered.
    pub n_no_answer: Vec<u64>,
    /// Answered questions that are right (all parts right, or consistent).
    pub n_correct: Vec<u64>,
    /// Σ normalized score: +1 right, −p/(1−p) wrong, 0 unanswered (chance),
    /// p = chance that uniform random answers are right.
    pub sum_norm: Vec<f64>,
    /// Σ normalized score with an unanswered question scored wrong.
    pub sum_norm_strict: Vec<f64>,
    /// Σ p over all scored questions, answered or not (for the `gap`
    /// variant: accuracy − p, a no-answer counting as wrong).
    pub sum_p_random: Vec<f64>,
    /// Consistency-graded questions, and how many of them were consistent.
    pub n_consistency: Vec<u64>,
    pub n_consistent: Vec<u64>,
    /// Parts without a key and outside any consistency group (not scored).
    pub n_unscored: Vec<u64>,
    /// Keyed, answered-or-not rows with usable option probabilities.
    pub n_prob: Vec<u64>,
    /// Rows whose probabilities were NaN or summed to zero (left out).
    pub n_prob_invalid: Vec<u64>,
    /// Σ max_o p(o) (confidence of the top option).
    pub sum_conf: Vec<f64>,
    /// Σ p(correct option) — expected probability on the answer (EPA).
    pub sum_p_correct: Vec<f64>,
    /// Rows whose top-probability option is the key.
    pub n_top_correct: Vec<u64>,
    /// Σ (1/|O|) Σ_o (p(o) − 1[o correct])².
    pub sum_brier: Vec<f64>,
    /// Σ (1 − Σ_o p(o)) before renormalising: probability mass off the options.
    pub sum_invalid_mass: Vec<f64>,
    /// Equal-width confidence bins: rows, Σ confidence, rows whose top option is right.
    pub ece_n: Vec<u64>,
    pub ece_conf: Vec<f64>,
    pub ece_acc: Vec<u64>,
}

impl Cells {
    /// All-zero cells; `TooLarge` when `n_groups` × `bins` cannot be held.
    pub fn zeros(n_groups: usize, bins: usize) -> Result<Self> {
        let n_bins = mul("groups × bins", n_groups, bins)?;
        Ok(Cells {
            n_groups,
            bins,
            n_rows: try_zeros("n_groups", n_groups)?,
            n_units: try_zeros("n_groups", n_groups)?,
            n_no_answer: try_zeros("n_groups", n_groups)?,
            n_correct: try_zeros("n_groups", n_groups)?,
            sum_norm: try_zeros("n_groups", n_groups)?,
            sum_norm_strict: try_zeros("n_groups", n_groups)?,
            sum_p_random: try_zeros("n_groups", n_groups)?,
            n_consistency: try_zeros("n_groups", n_groups)?,
            n_consistent: try_zeros("n_groups", n_groups)?,
            n_unscored: try_zeros("n_groups", n_groups)?,
            n_prob: try_zeros("n_groups", n_groups)?,
            n_prob_invalid: try_zeros("n_groups", n_groups)?,
            sum_conf: try_zeros("n_groups", n_groups)?,
            sum_p_correct: try_zeros("n_groups", n_groups)?,
            n_top_correct: try_zeros("n_groups", n_groups)?,
            sum_brier: try_zeros("n_groups", n_groups)?,
            sum_invalid_mass: try_zeros("n_groups", n_groups)?,
            ece_n: try_zeros("groups × bins", n_bins)?,
            ece_conf: try_zeros("groups × bins", n_bins)?,
            ece_acc: try_zeros("groups × bins", n_bins)?,
        })
    }

    /// Adds `other` (same groups and bins) into `self`.
    pub fn merge(&mut self, other: &Cells) {
        debug_assert_eq!((self.n_groups, self.bins), (other.n_groups, other.bins));
        fn add_u(a: &mut [u64], b: &[u64]) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        fn add_f(a: &mut [f64], b: &[f64]) {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
        }
        add_u(&mut self.n_rows, &other.n_rows);
        add_u(&mut self.n_units, &other.n_units);
        add_u(&mut self.n_no_answer, &other.n_no_answer);
        add_u(&mut self.n_correct, &other.n_correct);
        add_f(&mut self.sum_norm, &other.sum_norm);
        add_f(&mut self.sum_norm_strict, &other.sum_norm_strict);
        add_f(&mut self.sum_p_random, &other.sum_p_random);
        add_u(&mut self.n_consistency, &other.n_consistency);
        add_u(&mut self.n_consistent, &other.n_consistent);
        add_u(&mut self.n_unscored, &other.n_unscored);
        add_u(&mut self.n_prob, &other.n_prob);
        add_u(&mut self.n_prob_invalid, &other.n_prob_invalid);
        add_f(&mut self.sum_conf, &other.sum_conf);
        add_f(&mut self.sum_p_correct, &other.sum_p_correct);
        add_u(&mut self.n_top_correct, &other.n_top_correct);
        add_f(&mut self.sum_brier, &other.sum_brier);
        add_f(&mut self.sum_invalid_mass, &other.sum_invalid_mass);
        add_u(&mut self.ece_n, &other.ece_n);
        add_f(&mut self.ece_conf, &other.ece_conf);
        add_u(&mut self.ece_acc, &other.ece_acc);
    }

    /// Records one scored question (unit) of group `g`.
    #[inline]
    pub fn add_unit(&mut self, g: usize, answered: bool, right: bool, p_random: f64) {
        self.n_units[g] += 1;
        self.sum_p_random[g] += p_random;
        let penalty = wrong_penalty(p_random);
        if !answered {
            self.n_no_answer[g] += 1;
            self.sum_norm_strict[g] -= penalty;
            return;
        }
        if right {
            self.n_correct[g] += 1;
            self.sum_norm[g] += 1.0;
            self.sum_norm_strict[g] += 1.0;
        } else {
            self.sum_norm[g] -= penalty;
            self.sum_norm_strict[g] -= penalty;
        }
    }
}

/// Cost of a wrong answer, p/(1−p), so that random guessing scores 0 in
/// expectation. With p = 1/n this is the familiar 1/(n−1). A question random
/// answers cannot get wrong (p = 1) costs the full point when unanswered.
#[inline]
pub fn wrong_penalty(p_random: f64) -> f64 {
    if p_random < 1.0 {
        p_random / (1.0 - p_random)
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn penalty_matches_one_over_n_minus_one() {
        for n in 2..8 {
            let p = 1.0 / n as f64;
            assert!((wrong_penalty(p) - 1.0 / (n - 1) as f64).abs() < 1e-15);
        }
        assert_eq!(wrong_penalty(1.0), 1.0);
    }

    #[test]
    fn units_accumulate_and_merge() {
        let mut a = Cells::zeros(2, 3).unwrap();
        a.add_unit(0, true, true, 0.25);
        a.add_unit(0, true, false, 0.25);
        a.add_unit(0, false, false, 0.25);
        assert_eq!((a.n_units[0], a.n_correct[0], a.n_no_answer[0]), (3, 1, 1));
        assert!((a.sum_norm[0] - (1.0 - 1.0 / 3.0)).abs() < 1e-15);
        assert!((a.sum_norm_strict[0] - (1.0 - 2.0 / 3.0)).abs() < 1e-15);
        assert!((a.sum_p_random[0] - 0.75).abs() < 1e-15);
        let mut b = Cells::zeros(2, 3).unwrap();
        b.add_unit(1, true, true, 0.5);
        b.ece_n[4] = 2;
        a.merge(&b);
        assert_eq!(a.n_units, vec![3, 1]);
        assert_eq!(a.ece_n[4], 2);
    }
}
