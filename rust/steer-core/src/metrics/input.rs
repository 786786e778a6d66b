//! The columns a scoring pass reads, borrowed straight from Arrow buffers.

use crate::error::{Error, Result};

/// `chosen` value: the agent gave no usable answer.
pub const NO_ANSWER: i32 = -1;
/// `chosen` value: the agent answered, but with no listed option (a free-text
/// number that matches neither the key nor a distractor). It counts as
/// answered and wrong, never as a no-answer.
pub const OFF_OPTIONS: i32 = -2;
/// `correct` value: the part has no key (it is graded by consistency).
pub const NO_KEY: i32 = -1;

/// Option probabilities as an Arrow list column: row `i` owns
/// `values[offsets[i]..offsets[i + 1]]` unless `valid` says the list is null
/// (no `valid` means no row is null).
#[derive(Debug, Clone, Copy)]
pub struct Probs<'a> {
    pub offsets: &'a [i32],
    pub values: &'a [f64],
    pub valid: Option<&'a [bool]>,
}

impl Probs<'_> {
    #[inline]
    pub fn is_valid(&self, i: usize) -> bool {
        self.valid.is_none_or(|v| v[i])
    }
}

/// Multi-part questions and consistency groups: rows sharing a `unit` are the
/// parts of one question, scored once. `rule[u]` is the consistency rule of
/// unit `u` (an index into `rules`) or -1 for answer-graded units.
#[derive(Debug, Clone, Copy)]
pub struct Units<'a> {
    pub unit: &'a [u32],
    pub n_units: usize,
    pub part: &'a [i32],
    pub rule: &'a [i32],
    pub rules: &'a [crate::metrics::Rule],
}

/// One response table, column by column.
#[derive(Debug, Clone, Copy)]
pub struct Responses<'a> {
    /// Dense group code per row (`< n_groups`).
    pub group: &'a [u32],
    pub n_groups: usize,
    pub n_options: &'a [i32],
    pub chosen: &'a [i32],
    pub correct: &'a [i32],
    pub probs: Option<Probs<'a>>,
    pub units: Option<Units<'a>>,
}

/// Test tables: plain columns, no probabilities and no units.
#[cfg(test)]
impl<'a> Responses<'a> {
    pub(crate) fn plain(
        group: &'a [u32],
        n_groups: usize,
        n_options: &'a [i32],
        chosen: &'a [i32],
        correct: &'a [i32],
    ) -> Self {
        Responses {
            group,
            n_groups,
            n_options,
            chosen,
            correct,
            probs: None,
            units: None,
        }
    }

    /// No rows but `n_groups` groups: for the size checks.
    pub(crate) fn empty(n_groups: usize) -> Self {
        Responses::plain(&[], n_groups, &[], &[], &[])
    }
}

/// An error about one row, naming the column.
pub fn row_error(field: &str, row: usize, message: impl std::fmt::Display) -> Error {
    Error::InvalidRow {
        field: field.to_string(),
        row,
        message: message.to_string(),
    }
}

impl<'a> Responses<'a> {
    pub fn len(&self) -> usize {
        self.n_options.len()
    }

    pub fn is_empty(&self) -> bool {
        self.n_options.is_empty()
    }

    /// Checks lengths once; row values are checked during the pass.
    pub fn check_lengths(&self) -> Result<()> {
        if self.group.len() != self.len() {
            return Err(Error::invalid(
                "group",
                format!("has {} rows, expected {}", self.group.len(), self.len()),
            ));
        }
        self.check_lengths_except_group()
    }

    /// Like `check_lengths`, for passes that take groups from key columns.
    pub fn check_lengths_except_group(&self) -> Result<()> {
        let n = self.len();
        let mut lengths = vec![
            ("chosen_index", self.chosen.len()),
            ("correct_index", self.correct.len()),
        ];
        if let Some(p) = &self.probs {
            if let Some(v) = p.valid {
                lengths.push(("option_probs", v.len()));
            }
            if p.offsets.len() != n + 1 {
                return Err(Error::invalid(
                    "option_probs",
                    format!("{} offsets for {n} rows", p.offsets.len()),
                ));
            }
        }
        if let Some(u) = &self.units {
            lengths.push(("unit", u.unit.len()));
            lengths.push(("part", u.part.len()));
            if u.rule.len() != u.n_units {
                return Err(Error::invalid(
                    "rule",
                    format!("{} rules for {} units", u.rule.len(), u.n_units),
                ));
            }
        }
        for (name, len) in lengths {
            if len != n {
                return Err(Error::invalid(
                    name,
                    format!("has {len} rows, expected {n}"),
                ));
            }
        }
        Ok(())
    }

    /// Validates row `i`'s group, option count, key and choice.
    #[inline]
    pub fn check_row(&self, i: usize) -> Result<()> {
        self.group_of(i)?;
        self.check_values(i)
    }

    /// Row `i`'s group code, checked.
    #[inline]
    pub fn group_of(&self, i: usize) -> Result<usize> {
        let g = self.group[i];
        if g as usize >= self.n_groups {
            return Err(row_error(
                "group",
                i,
                format!("code {g} is not below {}", self.n_groups),
            ));
        }
        Ok(g as usize)
    }

    /// Validates row `i`'s option count, key and choice.
    #[inline]
    pub fn check_values(&self, i: usize) -> Result<()> {
        let (k, c, o) = (self.n_options[i], self.correct[i], self.chosen[i]);
        if k < 1 {
            return Err(row_error(
                "n_options",
                i,
                format!("{k} options (need at least 1)"),
            ));
        }
        if c < NO_KEY || c >= k {
            return Err(row_error(
                "correct_index",
                i,
                format!("{c} is not an option index below {k}"),
            ));
        }
        if o < OFF_OPTIONS || o >= k {
            return Err(row_error(
                "chosen_index",
                i,
                format!("{o} is not -1, -2 or an option index below {k}"),
            ));
        }
        Ok(())
    }
}
