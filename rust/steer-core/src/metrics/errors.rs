//! Error types of wrong answers: how many wrong answers of each type every
//! group holds, as additive counts (so they merge like the other cells).
//!
//! A row's error type is a code (`error[i]`, an index into the caller's list
//! of types, −1 for none) decided outside the scorer: the tag of the option a
//! wrong answer chose, or `off_options` for an answer that named no option.
//! A row counts when it is keyed, answered (an off-options answer included)
//! and wrong; each wrong part of a multi-part question counts once.

use crate::alloc::{mul, try_zeros};
use crate::error::Result;
use crate::metrics::input::{row_error, Responses, NO_ANSWER, NO_KEY};

/// Wrong answers per (group, error type), group-major: entry
/// `g * n_types + t`. Rows without a type (−1) are not counted; a code at or
/// above `n_types` is an error naming the row.
pub fn error_counts(resp: &Responses<'_>, error: &[i32], n_types: usize) -> Result<Vec<u64>> {
    resp.check_lengths()?;
    if error.len() != resp.len() {
        return Err(crate::Error::invalid(
            "error_type",
            format!("has {} rows, expected {}", error.len(), resp.len()),
        ));
    }
    let mut counts: Vec<u64> = try_zeros(
        "groups × error types",
        mul("groups × error types", resp.n_groups, n_types)?,
    )?;
    for (i, &t) in error.iter().enumerate() {
        resp.check_row(i)?;
        if t < -1 || t >= n_types as i32 {
            return Err(row_error(
                "error_type",
                i,
                format!("code {t} is not -1 or below {n_types}"),
            ));
        }
        let (c, o) = (resp.correct[i], resp.chosen[i]);
        if t < 0 || c == NO_KEY || o == NO_ANSWER || o == c {
            continue;
        }
        counts[resp.group[i] as usize * n_types + t as usize] += 1;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::input::OFF_OPTIONS;

    #[test]
    fn counts_wrong_answers_by_type_and_merge_by_adding() {
        let group = [0, 0, 1, 1, 1, 0];
        let k = [4, 4, 4, 4, 4, 4];
        let chosen = [1, OFF_OPTIONS, 2, NO_ANSWER, 0, 0];
        let correct = [0, 0, 0, 0, 0, NO_KEY];
        // types: 0 = "swap", 1 = "off_options"; right and silent rows carry
        // a type by mistake and still do not count.
        let error = [0, 1, 0, 0, 0, 0];
        let r = Responses::plain(&group, 2, &k, &chosen, &correct);
        let all = error_counts(&r, &error, 2).unwrap();
        assert_eq!(all, vec![1, 1, 1, 0]);
        let r1 = Responses::plain(&group[..3], 2, &k[..3], &chosen[..3], &correct[..3]);
        let r2 = Responses::plain(&group[3..], 2, &k[3..], &chosen[3..], &correct[3..]);
        let a = error_counts(&r1, &error[..3], 2).unwrap();
        let b = error_counts(&r2, &error[3..], 2).unwrap();
        let merged: Vec<u64> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        assert_eq!(merged, all);
    }

    #[test]
    fn bad_codes_name_the_row() {
        let r = Responses::plain(&[0], 1, &[3], &[1], &[0]);
        let err = error_counts(&r, &[5], 2).unwrap_err().to_string();
        assert!(err.contains("error_type") && err.contains("row 0"), "{err}");
        assert!(error_counts(&r, &[0, 0], 2).is_err());
    }
}
