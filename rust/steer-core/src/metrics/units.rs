//! From rows to scored questions ("units"): single-part questions, multi-part
//! questions (right only if every part is) and consistency groups.

use crate::alloc::{add, try_with_capacity, try_zeros};
use crate::error::Result;
use crate::metrics::input::{row_error, Responses, NO_ANSWER, NO_KEY};
use std::collections::HashMap;

/// How one scored question came out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub unit: u32,
    pub group: u32,
    pub answered: bool,
    /// Right (answer-graded) or consistent (consistency-graded).
    pub right: bool,
    /// Chance that uniform random answers are right / consistent.
    pub p_random: f64,
    pub consistency: bool,
}

/// Outcome of every scored unit, plus per-group counts of rows that no unit
/// scores (no key and no consistency rule). Units with nothing to score are
/// skipped.
pub fn unit_outcomes(resp: &Responses<'_>) -> Result<(Vec<Outcome>, Vec<u64>)> {
    let units = resp.units.expect("called with units");
    let n = resp.len();
    // Counting sort of rows by unit (CSR), so each unit's parts are adjacent.
    let mut start: Vec<usize> = try_zeros("n_units", add("n_units", units.n_units, 1)?)?;
    for (i, &u) in units.unit.iter().enumerate() {
        if u as usize >= units.n_units {
            return Err(row_error(
                "unit",
                i,
                format!("code {u} is not below {}", units.n_units),
            ));
        }
        start[u as usize + 1] += 1;
    }
    for u in 0..units.n_units {
        start[u + 1] += start[u];
    }
    let mut fill = try_with_capacity("n_units", start.len())?;
    fill.extend_from_slice(&start);
    let mut rows: Vec<usize> = try_zeros("rows", n)?;
    for (i, &u) in units.unit.iter().enumerate() {
        rows[fill[u as usize]] = i;
        fill[u as usize] += 1;
    }

    let mut unscored: Vec<u64> = try_zeros("n_groups", resp.n_groups)?;
    let mut outcomes = try_with_capacity("n_units", units.n_units)?;
    let mut cache: HashMap<(i32, Vec<i32>), f64> = HashMap::new();
    for u in 0..units.n_units {
        let members = &rows[start[u]..start[u + 1]];
        let Some(&first) = members.first() else {
            continue;
        };
        let group = resp.group[first];
        for &i in members {
            resp.check_row(i)?;
            if resp.group[i] != group {
                return Err(row_error(
                    "group",
                    i,
                    "parts of one question fall in different groups",
                ));
            }
        }
        let rule_id = units.rule[u];
        if rule_id >= 0 {
            let rule = units.rules.get(rule_id as usize).ok_or_else(|| {
                row_error(
                    "consistency_rule",
                    first,
                    format!("rule {rule_id} does not exist"),
                )
            })?;
            let find = |part: usize| {
                members
                    .iter()
                    .copied()
                    .find(|&i| units.part[i] as usize == part)
            };
            let mut options = Vec::with_capacity(rule.parts.len());
            let mut answered = true;
            for &p in &rule.parts {
                let i = find(p).ok_or_else(|| {
                    row_error(
                        "consistency_rule",
                        first,
                        format!("names part {p}, which this question lacks"),
                    )
                })?;
                options.push(resp.n_options[i]);
                answered &= resp.chosen[i] != NO_ANSWER;
            }
            // An off-options answer (OFF_OPTIONS) is answered but names no
            // option, so no rule can hold for it.
            let on_options = rule
                .parts
                .iter()
                .all(|&p| resp.chosen[find(p).unwrap()] >= 0);
            let right = answered
                && on_options
                && rule.holds(
                    |p| resp.chosen[find(p).unwrap()],
                    |p| resp.n_options[find(p).unwrap()],
                );
            let key = (rule_id, options);
            let p_random = match cache.get(&key) {
                Some(&p) => p,
                None => {
                    let p = rule
                        .p_random(&key.1)
                        .map_err(|e| row_error("consistency_rule", first, e))?;
                    cache.insert(key, p);
                    p
                }
            };
            outcomes.push(Outcome {
                unit: u as u32,
                group,
                answered,
                right,
                p_random,
                consistency: true,
            });
        } else {
            let keyed: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| resp.correct[i] != NO_KEY)
                .collect();
            unscored[group as usize] += (members.len() - keyed.len()) as u64;
            if keyed.is_empty() {
                continue;
            }
            let answered = keyed.iter().all(|&i| resp.chosen[i] != NO_ANSWER);
            let right = answered && keyed.iter().all(|&i| resp.chosen[i] == resp.correct[i]);
            // Multiply in a canonical order (by option count), not row order:
            // float products differ in the last bit with the order, and a
            // shuffled table must score bit for bit the same.
            let mut sizes: Vec<i32> = keyed.iter().map(|&i| resp.n_options[i]).collect();
            sizes.sort_unstable();
            let p_random = sizes.iter().map(|&k| 1.0 / k as f64).product();
            outcomes.push(Outcome {
                unit: u as u32,
                group,
                answered,
                right,
                p_random,
                consistency: false,
            });
        }
    }
    Ok((outcomes, unscored))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::input::Units;

    #[test]
    fn units_past_memory_are_an_error_not_an_abort() {
        for n_units in [1 << 60, usize::MAX] {
            let r = Responses {
                units: Some(Units {
                    unit: &[],
                    n_units,
                    part: &[],
                    rule: &[],
                    rules: &[],
                }),
                ..Responses::empty(1)
            };
            let err = unit_outcomes(&r).unwrap_err();
            assert!(matches!(err, crate::Error::TooLarge { .. }), "{err}");
        }
    }
}
