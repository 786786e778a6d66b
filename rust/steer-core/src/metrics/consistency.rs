//! Consistency rules: multi-part questions graded by whether the answers
//! agree with each other rather than with a key (independence, certainty and
//! reflection effects, ambiguity aversion).
//!
//! Grammar: constraints separated by `;`. Each is one of
//! - `map:AB=S0|S1|…|S(n-1)`: when part A chose option i, part B must choose
//!   an option in `Si`. `Si` is `*` (any option of B), `-` (no consistent
//!   continuation: choosing i in A is already inconsistent) or a
//!   `+`-separated list of B's option indices (decimal, may exceed 9). A
//!   choice of A beyond the listed sets fails the constraint. Example:
//!   `map:01=2|1+2` — whoever chose option 0 in part 0 must choose option 2
//!   in part 1; whoever chose option 1 may choose option 1 or 2.
//! - `same:AB,CD,…`: part B chooses the same option index as part A (sugar
//!   for `map:AB=0|1|…`).
//! - `flip:AB,…`: part B chooses the mirror of part A's choice, index
//!   n_B − 1 − c_A (the same option when part B lists them in reverse order).
//!
//! A and B are single part digits and must differ.

use crate::error::{Error, Result};

/// What part B may choose after part A chose a given option.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Allowed {
    /// Any option of part B (`*`).
    Any,
    /// No option: the choice in part A is already inconsistent (`-`).
    Nothing,
    /// One of these option indices of part B (`1+3`), ascending, distinct.
    Options(Vec<i32>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    Same,
    Flip,
    /// `sets[i]`: what part B may choose when part A chose option i.
    Map(Vec<Allowed>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
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
/// Largest option index a `map` set may name.
const MAX_INDEX: i32 = 999;

/// Two different part digits, `AB`.
fn part_pair(pair: &str) -> std::result::Result<(usize, usize), String> {
    let digits: Vec<usize> = pair
        .chars()
        .map(|c| c.to_digit(10).map(|d| d as usize))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("pair {pair:?} must be two part digits"))?;
    if digits.len() != 2 || digits[0] == digits[1] {
        return Err(format!("pair {pair:?} must name two different parts"));
    }
    Ok((digits[0], digits[1]))
}

/// One set of a `map` clause: `*`, `-` or `1+3`.
fn allowed(set: &str) -> std::result::Result<Allowed, String> {
    match set {
        "*" => Ok(Allowed::Any),
        "-" => Ok(Allowed::Nothing),
        _ => {
            let mut out = Vec::new();
            for item in set.split('+').map(str::trim) {
                let ok = !item.is_empty() && item.bytes().all(|c| c.is_ascii_digit());
                let index = if ok { item.parse::<i32>().ok() } else { None };
                match index {
                    Some(i) if i <= MAX_INDEX => out.push(i),
                    _ => {
                        return Err(format!(
                            "set {set:?} must be *, - or option indices joined by + (0 to {MAX_INDEX})"
                        ));
                    }
                }
            }
            out.sort_unstable();
            out.dedup();
            Ok(Allowed::Options(out))
        }
    }
}

impl Rule {
    pub fn parse(text: &str) -> Result<Rule> {
        let bad = |why: &str| Error::invalid("consistency_rule", format!("{text:?}: {why}"));
        let mut constraints = Vec::new();
        for clause in text.split(';').map(str::trim).filter(|c| !c.is_empty()) {
            let in_clause = |why: String| bad(&format!("in {clause:?}, {why}"));
            let (kind, rest) = clause.split_once(':').ok_or_else(|| {
                in_clause("expected KIND:PAIRS (same, flip) or map:AB=S0|S1|…".into())
            })?;
            match kind.trim() {
                "map" => {
                    let (pair, sets) = rest.split_once('=').ok_or_else(|| {
                        in_clause("map needs one part pair and its sets, map:AB=S0|S1|…".into())
                    })?;
                    let (a, b) = part_pair(pair.trim()).map_err(in_clause)?;
                    let sets = sets
                        .split('|')
                        .map(|s| allowed(s.trim()))
                        .collect::<std::result::Result<Vec<_>, _>>()
                        .map_err(in_clause)?;
                    constraints.push(Constraint {
                        kind: Kind::Map(sets),
                        a,
                        b,
                    });
                }
                k @ ("same" | "flip") => {
                    let kind = if k == "same" { Kind::Same } else { Kind::Flip };
                    for pair in rest.split(',').map(str::trim) {
                        let (a, b) = part_pair(pair).map_err(in_clause)?;
                        constraints.push(Constraint {
                            kind: kind.clone(),
                            a,
                            b,
                        });
                    }
                }
                other => {
                    return Err(in_clause(format!(
                        "unknown kind {other:?} (use same, flip or map)"
                    )));
                }
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
            match &c.kind {
                Kind::Same => x == y,
                Kind::Flip => y == options(c.b) - 1 - x,
                Kind::Map(sets) => {
                    let set = usize::try_from(x).ok().and_then(|i| sets.get(i));
                    match set {
                        Some(Allowed::Any) => 0 <= y && y < options(c.b),
                        Some(Allowed::Options(ok)) => ok.binary_search(&y).is_ok(),
                        Some(Allowed::Nothing) | None => false,
                    }
                }
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
            "",
            "same",
            "same:0",
            "same:00",
            "same:0a",
            "equal:01",
            "same:012",
            "map:01",
            "map:01=",
            "map:01=0|",
            "map:01=0||1",
            "map:01=0++1",
            "map:01=x",
            "map:01=-1",
            "map:01=1000",
            "map:00=0|1",
            "map:01,12=0|1",
            "map:0=0",
            "map01=0|1",
        ] {
            assert!(Rule::parse(bad).is_err(), "{bad}");
        }
        // The message names the clause at fault.
        let e = Rule::parse("same:01; map:12=0|x").unwrap_err().to_string();
        assert!(e.contains("map:12=0|x"), "{e}");
    }

    #[test]
    fn map_sets() {
        let r = Rule::parse(" map:01 = 2 | 1+2 ; same:12").unwrap();
        assert_eq!(r.parts, vec![0, 1, 2]);
        assert_eq!(
            r.constraints[0].kind,
            Kind::Map(vec![
                Allowed::Options(vec![2]),
                Allowed::Options(vec![1, 2])
            ])
        );
        let opts = |_| 3;
        assert!(r.holds(|p| [0, 2, 2][p], opts));
        assert!(!r.holds(|p| [0, 1, 1][p], opts));
        assert!(r.holds(|p| [1, 1, 1][p], opts));
        // A choice of A beyond the listed sets fails.
        assert!(!r.holds(|p| [2, 2, 2][p], opts));
        let any = Rule::parse("map:10=*|-|12+3").unwrap();
        let opts = |p| [13, 3][p];
        assert!(any.holds(|p| [12, 0][p], opts));
        assert!(any.holds(|p| [5, 0][p], opts));
        assert!(!any.holds(|p| [13, 0][p], opts));
        assert!(!any.holds(|p| [2, 1][p], opts));
        assert!(any.holds(|p| [12, 2][p], opts));
        assert!(any.holds(|p| [3, 2][p], opts));
        assert!(!any.holds(|p| [5, 2][p], opts));
        // Sugar: same and flip equal their map forms on every answer.
        for (sugar, map) in [("same:01", "map:01=0|1|2"), ("flip:01", "map:01=2|1|0")] {
            let (s, m) = (Rule::parse(sugar).unwrap(), Rule::parse(map).unwrap());
            for x in 0..3 {
                for y in 0..3 {
                    let c = |p: usize| [x, y][p];
                    assert_eq!(s.holds(c, |_| 3), m.holds(c, |_| 3), "{sugar} {x} {y}");
                }
            }
        }
    }

    #[test]
    fn chance_of_map_rules_by_hand() {
        // Part 0 has 2 options, part 1 has 3: 1 + 2 consistent of 6.
        let r = Rule::parse("map:01=2|1+2").unwrap();
        assert!((r.p_random(&[2, 3]).unwrap() - 0.5).abs() < 1e-15);
        // `*` counts every option of B, `-` none: (4 + 0 + 1) of 12.
        let r = Rule::parse("map:01=*|-|3").unwrap();
        assert!((r.p_random(&[3, 4]).unwrap() - 5.0 / 12.0).abs() < 1e-15);
        // Part 0's fourth option has no set: 1 + 1 + 1 + 0 of 16.
        let r = Rule::parse("map:10=1|0|3").unwrap();
        assert!((r.p_random(&[4, 4]).unwrap() - 3.0 / 16.0).abs() < 1e-15);
    }
}
