//! Consistency rules: multi-part questions graded by whether the answers
//! agree with each other rather than with a key (independence, certainty and
//! reflection effects, ambiguity aversion).
//!
//! Grammar: constraints separated by `;`, each `KIND:PAIRS` with PAIRS a
//! comma-separated list of two-digit part pairs. `same:01,12` means part 0 and
//! part 1 choose the same option index, and so do parts 1 and 2; `flip:01`
//! means part 1 chooses the mirror of part 0's choice (index n₁ − 1 − c₀, the
//! same option when part 1 lists them in reverse order).

use crate::error::{Error, Result};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Same,
    Flip,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constraint {
    pub kind: Kind,
    pub a: usize,
    pub b: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rule {
    pub constraints: Vec<Constraint>,
    /// Distinct parts the rule mentions, ascending.
    pub parts: Vec<usize>,
}

/// Largest option space enumerated to find the chance a random answer is consistent.
const MAX_ENUMERATION: usize = 1 << 20;

impl Rule {
    pub fn parse(text: &str) -> Result<Rule> {
        let bad = |why: &str| Error::invalid("consistency_rule", format!("{text:?}: {why}"));
        let mut constraints = Vec::new();
        for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
            let (kind, pairs) = clause
                .split_once(':')
                .ok_or_else(|| bad("expected KIND:PAIRS"))?;
            let kind = match kind.trim() {
                "same" => Kind::Same,
                "flip" => Kind::Flip,
                other => return Err(bad(&format!("unknown kind {other:?} (use same or flip)"))),
            };
            for pair in pairs.split(',').map(str::trim) {
                let digits: Vec<usize> = pair
                    .chars()
                    .map(|c| c.to_digit(10).map(|d| d as usize))
                    .collect::<Option<_>>()
                    .ok_or_else(|| bad(&format!("pair {pair:?} must be two part digits")))?;
                if digits.len() != 2 || digits[0] == digits[1] {
                    return Err(bad(&format!("pair {pair:?} must name two different parts")));
                }
                constraints.push(Constraint {
                    kind,
                    a: digits[0],
                    b: digits[1],
                });
            }
        }
        if constraints.is_empty() {
            return Err(bad("no constraints"));
        }
        let mut parts: Vec<usize> = constraints.iter().flat_map(|c| [c.a, c.b]).collect();
        parts.sort_unstable();
        parts.dedup();
        Ok(Rule { constraints, parts })
    }

    /// Whether choices satisfy every constraint. `choice(part)` and
    /// `options(part)` give a part's chosen index and option count.
    pub fn holds(&self, choice: impl Fn(usize) -> i32, options: impl Fn(usize) -> i32) -> bool {
        self.constraints.iter().all(|c| {
            let (x, y) = (choice(c.a), choice(c.b));
            match c.kind {
                Kind::Same => x == y,
                Kind::Flip => y == options(c.b) - 1 - x,
            }
        })
    }

    /// Chance that independent uniform answers to the mentioned parts satisfy
    /// the rule, by exact enumeration. `options[i]` belongs to `self.parts[i]`.
    pub fn p_random(&self, options: &[i32]) -> Result<f64> {
        let total: usize = options.iter().map(|&k| k.max(1) as usize).product();
        if total > MAX_ENUMERATION {
            return Err(Error::invalid(
                "consistency_rule",
                "too many option combinations to enumerate",
            ));
        }
        let index = |part: usize| self.parts.binary_search(&part).unwrap();
        let mut choice = vec![0i32; options.len()];
        let mut hits = 0usize;
        for _ in 0..total {
            if self.holds(|p| choice[index(p)], |p| options[index(p)]) {
                hits += 1;
            }
            for (slot, &k) in choice.iter_mut().zip(options) {
                *slot += 1;
                if *slot < k {
                    break;
                }
                *slot = 0;
            }
        }
        Ok(hits as f64 / total as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_evaluate() {
        let r = Rule::parse("same:01,12").unwrap();
        assert_eq!(r.parts, vec![0, 1, 2]);
        let opts = |_| 2;
        assert!(r.holds(|p| [1, 1, 1][p], opts));
        assert!(!r.holds(|p| [1, 1, 0][p], opts));
        let f = Rule::parse("flip:01").unwrap();
        assert!(f.holds(|p| [0, 1][p], opts));
        assert!(!f.holds(|p| [0, 0][p], opts));
    }

    #[test]
    fn chance_of_consistency_by_hand() {
        // Two 2-option parts must agree: 2 of 4 combinations → 1/2.
        assert_eq!(
            Rule::parse("same:01").unwrap().p_random(&[2, 2]).unwrap(),
            0.5
        );
        // Three parts all equal with 2, 3, 2 options: (0,0,0), (1,1,1) of 12.
        let r = Rule::parse("same:01,12").unwrap();
        assert!((r.p_random(&[2, 3, 2]).unwrap() - 2.0 / 12.0).abs() < 1e-15);
        // Mirror with 3 options each: 3 of 9.
        let f = Rule::parse("flip:01").unwrap();
        assert!((f.p_random(&[3, 3]).unwrap() - 1.0 / 3.0).abs() < 1e-15);
        // Mixed clauses.
        let m = Rule::parse("same:01; flip:12").unwrap();
        assert!((m.p_random(&[2, 2, 2]).unwrap() - 0.25).abs() < 1e-15);
    }

    #[test]
    fn malformed_rules() {
        for bad in [
            "", "same", "same:0", "same:00", "same:0a", "equal:01", "same:012",
        ] {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
    }
}
