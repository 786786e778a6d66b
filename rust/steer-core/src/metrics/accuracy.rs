//! Exact match and normalized accuracy, grouped.
//!
//! Normalized accuracy scores +1 for a correct answer and −1/(n−1) for a wrong
//! one among n options, so a uniform random guesser scores 0 in expectation and
//! a perfect agent 1.

use crate::error::{Error, Result};

/// `chosen` value meaning the agent gave no usable answer.
pub const NO_ANSWER: i64 = -1;

/// Additive per-group sums. Index `g` holds group `g`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AccuracyCells {
    /// Rows in the group.
    pub n_rows: Vec<u64>,
    /// Rows whose `chosen` is [`NO_ANSWER`].
    pub n_no_answer: Vec<u64>,
    /// Answered rows that chose the correct option.
    pub n_correct: Vec<u64>,
    /// Σ normalized score over answered rows.
    pub sum_norm: Vec<f64>,
    /// Σ normalized score over all rows, a missing answer scored as wrong.
    pub sum_norm_strict: Vec<f64>,
}

impl AccuracyCells {
    fn zeros(n_groups: usize) -> Self {
        AccuracyCells {
            n_rows: vec![0; n_groups],
            n_no_answer: vec![0; n_groups],
            n_correct: vec![0; n_groups],
            sum_norm: vec![0.0; n_groups],
            sum_norm_strict: vec![0.0; n_groups],
        }
    }

    /// Answered rows of group `g`.
    pub fn n_answered(&self, g: usize) -> u64 {
        self.n_rows[g] - self.n_no_answer[g]
    }

    /// Exact match of group `g` over answered rows (NaN when none answered).
    pub fn exact_match(&self, g: usize) -> f64 {
        self.n_correct[g] as f64 / self.n_answered(g) as f64
    }

    /// Normalized accuracy of group `g` over answered rows (NaN when none).
    pub fn normalized_accuracy(&self, g: usize) -> f64 {
        self.sum_norm[g] / self.n_answered(g) as f64
    }
}

/// Penalty for a wrong answer among `n_options`: 1/(n−1). A one-option
/// question can only be "wrong" by not answering, which costs the full point.
fn wrong_penalty(n_options: i64) -> f64 {
    if n_options >= 2 {
        1.0 / (n_options - 1) as f64
    } else {
        1.0
    }
}

/// Accumulate exact-match and normalized-accuracy sums per group in one pass.
///
/// All slices have one entry per response row. `group[i] < n_groups` is the
/// row's group code, `chosen[i]` the chosen option index or [`NO_ANSWER`],
/// `correct[i]` the key's index and `n_options[i]` the number of options.
pub fn accuracy_by_group(
    group: &[u32],
    n_groups: usize,
    chosen: &[i64],
    correct: &[i64],
    n_options: &[i64],
) -> Result<AccuracyCells> {
    let n = group.len();
    for (name, len) in [
        ("chosen", chosen.len()),
        ("correct", correct.len()),
        ("n_options", n_options.len()),
    ] {
        if len != n {
            return Err(Error::invalid(
                name,
                format!("has {len} rows but group has {n}"),
            ));
        }
    }
    let mut cells = AccuracyCells::zeros(n_groups);
    for i in 0..n {
        let g = group[i] as usize;
        let (k, c, o) = (n_options[i], correct[i], chosen[i]);
        if g >= n_groups {
            return Err(Error::invalid(
                "group",
                format!("row {i}: code {g} is not below n_groups={n_groups}"),
            ));
        }
        if k < 1 {
            return Err(Error::invalid(
                "n_options",
                format!("row {i}: {k} options (need at least 1)"),
            ));
        }
        if c < 0 || c >= k {
            return Err(Error::invalid(
                "correct_index",
                format!("row {i}: {c} is outside 0..{k}"),
            ));
        }
        if o < NO_ANSWER || o >= k {
            return Err(Error::invalid(
                "chosen_index",
                format!("row {i}: {o} is outside -1..{k}"),
            ));
        }
        cells.n_rows[g] += 1;
        if o == NO_ANSWER {
            cells.n_no_answer[g] += 1;
            cells.sum_norm_strict[g] -= wrong_penalty(k);
        } else if o == c {
            cells.n_correct[g] += 1;
            cells.sum_norm[g] += 1.0;
            cells.sum_norm_strict[g] += 1.0;
        } else {
            let p = wrong_penalty(k);
            cells.sum_norm[g] -= p;
            cells.sum_norm_strict[g] -= p;
        }
    }
    Ok(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_computed_cells() {
        // Group 0: 4 options, one right, one wrong, one unanswered.
        // Group 1: 2 options, one right, one wrong.
        let cells = accuracy_by_group(
            &[0, 0, 0, 1, 1],
            3,
            &[2, 1, -1, 0, 1],
            &[2, 2, 2, 0, 0],
            &[4, 4, 4, 2, 2],
        )
        .unwrap();
        assert_eq!(cells.n_rows, vec![3, 2, 0]);
        assert_eq!(cells.n_no_answer, vec![1, 0, 0]);
        assert_eq!(cells.n_correct, vec![1, 1, 0]);
        assert!((cells.sum_norm[0] - (1.0 - 1.0 / 3.0)).abs() < 1e-15);
        assert!((cells.sum_norm_strict[0] - (1.0 - 2.0 / 3.0)).abs() < 1e-15);
        assert_eq!(cells.sum_norm[1], 0.0);
        assert_eq!(cells.exact_match(0), 0.5);
        assert_eq!(cells.exact_match(1), 0.5);
        assert!((cells.normalized_accuracy(0) - 1.0 / 3.0).abs() < 1e-15);
        assert!(cells.exact_match(2).is_nan());
    }

    #[test]
    fn uniform_guessing_scores_zero_in_expectation() {
        // Every option chosen exactly once among 5: expected normalized score 0.
        let k = 5;
        let chosen: Vec<i64> = (0..k).collect();
        let cells = accuracy_by_group(&[0; 5], 1, &chosen, &[3; 5], &[k; 5]).unwrap();
        assert!(cells.normalized_accuracy(0).abs() < 1e-15);
    }

    #[test]
    fn out_of_range_values_name_row_and_field() {
        let err = accuracy_by_group(&[0, 0], 1, &[0, 4], &[0, 0], &[4, 4]).unwrap_err();
        assert_eq!(err.to_string(), "chosen_index: row 1: 4 is outside -1..4");
        let err = accuracy_by_group(&[0, 1], 1, &[0, 0], &[0, 0], &[4, 4]).unwrap_err();
        assert!(err.to_string().starts_with("group: row 1"), "{err}");
        let err = accuracy_by_group(&[0], 1, &[0], &[5], &[4]).unwrap_err();
        assert!(err.to_string().starts_with("correct_index"), "{err}");
        let err = accuracy_by_group(&[0], 1, &[0], &[0], &[0]).unwrap_err();
        assert!(err.to_string().starts_with("n_options"), "{err}");
        assert!(accuracy_by_group(&[0], 1, &[0, 1], &[0], &[2]).is_err());
    }
}
