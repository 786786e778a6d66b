//! Arrow-style axioms checked by brute force on a concrete social welfare
//! function: every profile of `n` strict rankings over `m` alternatives is
//! enumerated, so a "satisfied" verdict is a proof for that `n` and `m`, and a
//! violation comes with a counterexample.
//!
//! A social welfare function maps a profile to a weak relation `R`
//! (`R[x][y]`: x is at least as good as y); `P` is its strict part.

use crate::error::{Error, Result};

/// Largest number of profiles, `(m!)^n`, the checker will enumerate.
pub const MAX_PROFILES: usize = 50_000;
/// Largest absolute point value or voter weight (keeps sums far from overflow).
pub const MAX_PARAM: i64 = 1_000_000;

/// A concrete social welfare function.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Rule {
    /// `points[k]` for place `k` (0 = first); x R y iff score(x) >= score(y).
    Scoring(Vec<i64>),
    /// x R y iff the weight of voters ranking x above y is at least the
    /// weight of those ranking y above x.
    WeightedMajority(Vec<i64>),
    /// Society copies voter `i`'s ranking.
    Dictatorship(usize),
    /// Society ranks in the reverse of voter `i`'s ranking.
    ReversedDictatorship(usize),
    /// A fixed strict ranking (best first) whatever the ballots say.
    Imposed(Vec<usize>),
    /// x strictly above y iff every voter ranks x above y; otherwise tied.
    Unanimity,
    /// Ranked by pairwise-majority wins minus losses (one vote per voter).
    Copeland,
}

/// The four axioms, in the order `check_axioms` reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Axiom {
    Pareto,
    Monotonicity,
    Transitivity,
    Nondictatorship,
}

impl Axiom {
    pub const ALL: [Axiom; 4] = [
        Axiom::Pareto,
        Axiom::Monotonicity,
        Axiom::Transitivity,
        Axiom::Nondictatorship,
    ];

    /// The axiom called `name` (as `Axiom::name` spells it).
    pub fn from_name(name: &str) -> Result<Self> {
        Axiom::ALL
            .into_iter()
            .find(|a| a.name() == name)
            .ok_or_else(|| {
                Error::invalid(
                    "axioms",
                    format!(
                        "unknown axiom {name:?} (use pareto, monotonicity, transitivity or \
                         nondictatorship)"
                    ),
                )
            })
    }

    pub fn name(self) -> &'static str {
        match self {
            Axiom::Pareto => "pareto",
            Axiom::Monotonicity => "monotonicity",
            Axiom::Transitivity => "transitivity",
            Axiom::Nondictatorship => "nondictatorship",
        }
    }
}

/// Why an axiom fails.
///
/// - Pareto: every voter ranks `alternatives[0]` above `alternatives[1]` in
///   `profile`, yet society does not strictly prefer it.
/// - Monotonicity: `voter` raises `alternatives[0]` from `profile` to the
///   ranking `raised`, and it falls against `alternatives[1]`.
/// - Transitivity: x R y and y R z but not x R z for `alternatives` = [x, y, z].
/// - Nondictatorship: `voter` is a dictator (`profile` is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counterexample {
    /// One ranking per voter, best first.
    pub profile: Vec<Vec<usize>>,
    pub voter: Option<usize>,
    pub alternatives: Vec<usize>,
    /// The raising voter's new ranking (monotonicity only).
    pub raised: Option<Vec<usize>>,
    /// Society's relation at `profile`, row-major `m x m` (empty for dictators).
    pub relation: Vec<bool>,
    /// Society's relation after the raise (monotonicity only).
    pub raised_relation: Option<Vec<bool>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AxiomReport {
    pub axiom: Axiom,
    pub satisfied: bool,
    pub counterexample: Option<Counterexample>,
}

impl Rule {
    /// Builds a rule from a name and integer parameters, checked against the
    /// numbers of voters and alternatives.
    pub fn from_parts(
        kind: &str,
        params: &[i64],
        voters: usize,
        alternatives: usize,
    ) -> Result<Self> {
        let no_params = |rule: Rule| {
            if params.is_empty() {
                Ok(rule)
            } else {
                Err(Error::invalid(
                    "params",
                    format!("{kind} takes no parameters"),
                ))
            }
        };
        let voter = || match params {
            [i] if *i >= 0 && (*i as usize) < voters => Ok(*i as usize),
            _ => Err(Error::invalid(
                "params",
                format!("{kind} needs one voter index in 0..{voters}, got {params:?}"),
            )),
        };
        let rule = match kind {
            "scoring" => Rule::Scoring(params.to_vec()),
            "weighted_majority" => Rule::WeightedMajority(params.to_vec()),
            "dictatorship" => Rule::Dictatorship(voter()?),
            "reversed_dictatorship" => Rule::ReversedDictatorship(voter()?),
            "imposed" => Rule::Imposed(
                params
                    .iter()
                    .map(|&c| usize::try_from(c).unwrap_or(usize::MAX))
                    .collect(),
            ),
            "unanimity" => no_params(Rule::Unanimity)?,
            "copeland" => no_params(Rule::Copeland)?,
            _ => {
                return Err(Error::invalid(
                    "kind",
                    format!(
                        "unknown rule {kind:?} (use scoring, weighted_majority, dictatorship, \
                         reversed_dictatorship, imposed, unanimity or copeland)"
                    ),
                ))
            }
        };
        rule.validate(voters, alternatives)?;
        Ok(rule)
    }

    fn validate(&self, voters: usize, alternatives: usize) -> Result<()> {
        let bounded = |what: &str, v: &[i64]| {
            if v.iter().any(|p| p.abs() > MAX_PARAM) {
                Err(Error::invalid(
                    "params",
                    format!("{what} must lie within ±{MAX_PARAM}"),
                ))
            } else {
                Ok(())
            }
        };
        match self {
            Rule::Scoring(points) => {
                if points.len() != alternatives {
                    return Err(Error::invalid(
                        "params",
                        format!(
                            "scoring needs one point value per place ({alternatives}), got {}",
                            points.len()
                        ),
                    ));
                }
                bounded("points", points)
            }
            Rule::WeightedMajority(weights) => {
                if weights.len() != voters {
                    return Err(Error::invalid(
                        "params",
                        format!(
                            "weighted_majority needs one weight per voter ({voters}), got {}",
                            weights.len()
                        ),
                    ));
                }
                if weights.iter().any(|&w| w < 0) || weights.iter().all(|&w| w == 0) {
                    return Err(Error::invalid(
                        "params",
                        "weights must be non-negative and not all zero",
                    ));
                }
                bounded("weights", weights)
            }
            Rule::Dictatorship(i) | Rule::ReversedDictatorship(i) if *i >= voters => Err(
                Error::invalid("params", format!("voter {i} is not in 0..{voters}")),
            ),
            Rule::Imposed(order) => {
                let mut seen = vec![false; alternatives];
                let ok = order.len() == alternatives
                    && order
                        .iter()
                        .all(|&c| c < alternatives && !std::mem::replace(&mut seen[c], true));
                if ok {
                    Ok(())
                } else {
                    Err(Error::invalid(
                        "params",
                        format!("imposed needs a ranking of all {alternatives} alternatives"),
                    ))
                }
            }
            _ => Ok(()),
        }
    }

    /// Society's relation as a bitmask (bit `a * m + b` set when a R b) from
    /// each voter's ranking index. `m <= 4` (checked by `profile_count`
    /// before any table is built), so 16 bits hold it.
    fn relation(&self, ballots: &[u8], rk: &Rankings) -> u16 {
        let m = rk.m;
        // weight (one per voter unless weighted) ranking a over b, at a * m + b.
        let pairwise = |weight: &dyn Fn(usize) -> i64| {
            let mut above = [0i64; 16];
            for (i, &b) in ballots.iter().enumerate() {
                let w = weight(i);
                for (sum, &one) in above.iter_mut().zip(&rk.above_counts[b as usize]) {
                    *sum += w * one;
                }
            }
            above
        };
        let by_score = |score: &[i64; 4]| rk.mask(|a, b| score[a] >= score[b]);
        match self {
            Rule::Scoring(points) => {
                let mut score = [0i64; 4];
                for &b in ballots {
                    for (c, s) in score.iter_mut().enumerate().take(m) {
                        *s += points[rk.positions[b as usize][c]];
                    }
                }
                by_score(&score)
            }
            Rule::WeightedMajority(weights) => {
                let above = pairwise(&|i| weights[i]);
                rk.mask(|a, b| above[a * m + b] >= above[b * m + a])
            }
            Rule::Dictatorship(i) => rk.above[ballots[*i] as usize] | rk.diagonal,
            Rule::ReversedDictatorship(i) => rk.below[ballots[*i] as usize] | rk.diagonal,
            Rule::Imposed(order) => {
                let mut place = [0; 4];
                for (k, &c) in order.iter().enumerate() {
                    place[c] = k;
                }
                rk.mask(|a, b| place[a] <= place[b])
            }
            Rule::Unanimity => {
                let above = pairwise(&|_| 1);
                let n = ballots.len() as i64;
                // Not R[a][b] only when everyone ranks b above a.
                rk.mask(|a, b| a == b || above[b * m + a] < n)
            }
            Rule::Copeland => {
                let above = pairwise(&|_| 1);
                let mut score = [0i64; 4];
                for (a, s) in score.iter_mut().enumerate().take(m) {
                    for b in 0..m {
                        *s += (above[a * m + b] - above[b * m + a]).signum();
                    }
                }
                by_score(&score)
            }
        }
    }
}

/// The strict rankings of `m` alternatives and what each says about every pair.
struct Rankings {
    m: usize,
    perms: Vec<Vec<usize>>,
    /// `positions[k][c]`: place of `c` in ranking `k`.
    positions: Vec<Vec<usize>>,
    /// `above[k]`: bit `a * m + b` set when ranking `k` puts a above b.
    above: Vec<u16>,
    /// `below[k]`: the transpose (b above a).
    below: Vec<u16>,
    /// `above[k]` as 0/1 counts, for weighted sums over voters.
    above_counts: Vec<[i64; 16]>,
    diagonal: u16,
    /// `transpose[h][byte]`: the transpose of the relation whose low (h = 0)
    /// or high (h = 1) byte is `byte` and whose other byte is zero.
    transpose: Box<[[u16; 256]; 2]>,
}

impl Rankings {
    fn new(m: usize) -> Self {
        let perms = permutations(m);
        let positions: Vec<Vec<usize>> = perms
            .iter()
            .map(|r| {
                let mut pos = vec![0; m];
                for (k, &c) in r.iter().enumerate() {
                    pos[c] = k;
                }
                pos
            })
            .collect();
        let bits = |f: &dyn Fn(usize, usize) -> bool| {
            let mut mask = 0u16;
            for a in 0..m {
                for b in 0..m {
                    if f(a, b) {
                        mask |= 1 << (a * m + b);
                    }
                }
            }
            mask
        };
        let above: Vec<u16> = positions
            .iter()
            .map(|p| bits(&|a, b| p[a] < p[b]))
            .collect();
        let below = positions
            .iter()
            .map(|p| bits(&|a, b| p[b] < p[a]))
            .collect();
        let above_counts = above
            .iter()
            .map(|&mask| std::array::from_fn(|j| i64::from(mask >> j & 1)))
            .collect();
        let mut transpose = Box::new([[0u16; 256]; 2]);
        for (h, table) in transpose.iter_mut().enumerate() {
            for (byte, out) in table.iter_mut().enumerate() {
                let r = (byte as u32) << (8 * h);
                *out = bits(&|a, b| r >> (b * m + a) & 1 == 1);
            }
        }
        Rankings {
            m,
            perms,
            positions,
            above,
            below,
            above_counts,
            diagonal: bits(&|a, b| a == b),
            transpose,
        }
    }

    fn mask(&self, f: impl Fn(usize, usize) -> bool) -> u16 {
        let mut mask = 0u16;
        for a in 0..self.m {
            for b in 0..self.m {
                if f(a, b) {
                    mask |= 1 << (a * self.m + b);
                }
            }
        }
        mask
    }

    /// Bits of row `x` (x against every alternative).
    fn row(&self, x: usize) -> u16 {
        ((1u16 << self.m) - 1) << (x * self.m)
    }

    /// The strict part of a relation: a R b and not b R a. Transposing is
    /// linear in the bits, so it is two lookups, one per byte.
    fn strict(&self, r: u16) -> u16 {
        let transposed =
            self.transpose[0][(r & 0xff) as usize] | self.transpose[1][(r >> 8) as usize];
        r & !transposed
    }

    fn unpack(&self, r: u16) -> Vec<bool> {
        (0..self.m * self.m).map(|j| r >> j & 1 == 1).collect()
    }
}

/// Every strict ranking of `m` alternatives, in lexicographic order.
fn permutations(m: usize) -> Vec<Vec<usize>> {
    let mut out: Vec<Vec<usize>> = vec![Vec::new()];
    for _ in 0..m {
        let mut next = Vec::new();
        for p in &out {
            for c in (0..m).filter(|c| !p.contains(c)) {
                let mut q = p.clone();
                q.push(c);
                next.push(q);
            }
        }
        out = next;
    }
    out
}

/// How many profiles `(m!)^n` there are, or an error beyond the budget.
fn profile_count(voters: usize, alternatives: usize) -> Result<usize> {
    if !(2..=4).contains(&alternatives) {
        return Err(Error::invalid(
            "alternatives",
            format!("must be 2-4, got {alternatives}"),
        ));
    }
    if !(1..=5).contains(&voters) {
        return Err(Error::invalid(
            "voters",
            format!("must be 1-5, got {voters}"),
        ));
    }
    let rankings: usize = (1..=alternatives).product();
    let total = (0..voters).try_fold(1usize, |acc, _| {
        acc.checked_mul(rankings).filter(|&t| t <= MAX_PROFILES)
    });
    total.ok_or_else(|| {
        Error::invalid(
            "voters",
            format!(
                "{voters} voters over {alternatives} alternatives make more than \
                 {MAX_PROFILES} profiles ({rankings}^{voters}); use fewer"
            ),
        )
    })
}

/// All profiles and society's relation at each, enumerated once. Relations
/// are bitmasks, so each axiom is a few word operations per profile.
struct Table {
    n: usize,
    rk: Rankings,
    /// Ranking index of each voter in profile `p` at `[p * n ..]` (voter 0
    /// varies fastest); at most 24 rankings, so a byte each.
    ballots: Vec<u8>,
    /// `relations[p]`: society's R at profile `p`; `strict[p]` its strict part.
    relations: Vec<u16>,
    strict: Vec<u16>,
    profiles: usize,
}

impl Table {
    fn new(rule: &Rule, n: usize, m: usize) -> Result<Self> {
        let profiles = profile_count(n, m)?;
        let rk = Rankings::new(m);
        let k = rk.perms.len();
        // Profiles in odometer order, voter 0 fastest (no divisions).
        let mut ballots = vec![0u8; profiles * n];
        let mut digits = vec![0u8; n];
        for row in ballots.chunks_mut(n) {
            row.copy_from_slice(&digits);
            for d in digits.iter_mut() {
                *d += 1;
                if usize::from(*d) < k {
                    break;
                }
                *d = 0;
            }
        }
        let relations: Vec<u16> = ballots.chunks(n).map(|b| rule.relation(b, &rk)).collect();
        let strict = relations.iter().map(|&r| rk.strict(r)).collect();
        Ok(Table {
            n,
            rk,
            ballots,
            relations,
            strict,
            profiles,
        })
    }

    fn ballots(&self, p: usize) -> &[u8] {
        &self.ballots[p * self.n..(p + 1) * self.n]
    }

    fn counterexample(&self, p: usize, alternatives: Vec<usize>) -> Counterexample {
        Counterexample {
            profile: self
                .ballots(p)
                .iter()
                .map(|&k| self.rk.perms[k as usize].clone())
                .collect(),
            voter: None,
            alternatives,
            raised: None,
            relation: self.rk.unpack(self.relations[p]),
            raised_relation: None,
        }
    }

    /// The pair at the lowest set bit: the first (a, b) in a-major order.
    fn pair(&self, bits: u16) -> (usize, usize) {
        let j = bits.trailing_zeros() as usize;
        (j / self.rk.m, j % self.rk.m)
    }

    fn pareto(&self) -> Option<Counterexample> {
        (0..self.profiles).find_map(|p| {
            let unanimous = self
                .ballots(p)
                .iter()
                .fold(u16::MAX, |acc, &k| acc & self.rk.above[k as usize]);
            let broken = unanimous & !self.strict[p];
            (broken != 0).then(|| {
                let (a, b) = self.pair(broken);
                self.counterexample(p, vec![a, b])
            })
        })
    }

    fn monotonicity(&self) -> Option<Counterexample> {
        let (m, k) = (self.rk.m, self.rk.perms.len());
        // A raise by several places is a chain of one-place raises; if no link
        // lets x fall against y, neither does the chain. So one-place raises
        // (swapping x with the alternative just above it) suffice.
        let index = |r: &[usize]| self.rk.perms.iter().position(|q| q == r).unwrap_or(0);
        // raises[k]: (x, ranking index) for each one-place raise of ranking k.
        let raises: Vec<Vec<(usize, usize)>> = self
            .rk
            .perms
            .iter()
            .map(|r| {
                (1..m)
                    .map(|from| {
                        let mut q = r.clone();
                        q.swap(from - 1, from);
                        (r[from], index(&q))
                    })
                    .collect()
            })
            .collect();
        let off_diagonal = !self.rk.diagonal;
        for p in 0..self.profiles {
            let (r, s) = (self.relations[p], self.strict[p]);
            let mut stride = 1;
            for (voter, &old) in self.ballots(p).iter().enumerate() {
                let old = old as usize;
                for &(x, new) in &raises[old] {
                    let q = p + new * stride - old * stride;
                    // x falls against y: x R y is lost, or x P y is lost.
                    let fell = ((r & !self.relations[q]) | (s & !self.strict[q]))
                        & self.rk.row(x)
                        & off_diagonal;
                    if fell != 0 {
                        let (_, y) = self.pair(fell);
                        let mut c = self.counterexample(p, vec![x, y]);
                        c.voter = Some(voter);
                        c.raised = Some(self.rk.perms[new].clone());
                        c.raised_relation = Some(self.rk.unpack(self.relations[q]));
                        return Some(c);
                    }
                }
                stride *= k;
            }
        }
        None
    }

    fn intransitive(&self, r: u16) -> Option<[usize; 3]> {
        let m = self.rk.m;
        let has = |a: usize, b: usize| r >> (a * m + b) & 1 == 1;
        for x in 0..m {
            for y in (0..m).filter(|&y| y != x) {
                for z in (0..m).filter(|&z| z != x && z != y) {
                    if has(x, y) && has(y, z) && !has(x, z) {
                        return Some([x, y, z]);
                    }
                }
            }
        }
        None
    }

    fn transitivity(&self) -> Option<Counterexample> {
        // Many profiles share a relation: decide each distinct one once.
        let mut known = vec![0u8; 1 << (self.rk.m * self.rk.m)]; // 0 unknown, 1 ok, 2 not
        (0..self.profiles).find_map(|p| {
            let r = self.relations[p];
            if known[r as usize] == 0 {
                known[r as usize] = if self.intransitive(r).is_some() { 2 } else { 1 };
            }
            (known[r as usize] == 2).then(|| {
                let triple = self.intransitive(r).unwrap_or_default();
                self.counterexample(p, triple.to_vec())
            })
        })
    }

    fn dictator(&self) -> Option<Counterexample> {
        let is_dictator = |i: usize| {
            (0..self.profiles)
                .all(|p| self.rk.above[self.ballots(p)[i] as usize] & !self.strict[p] == 0)
        };
        (0..self.n)
            .find(|&i| is_dictator(i))
            .map(|i| Counterexample {
                profile: Vec::new(),
                voter: Some(i),
                alternatives: Vec::new(),
                raised: None,
                relation: Vec::new(),
                raised_relation: None,
            })
    }
}

/// Checks every axiom in `Axiom::ALL` for `rule` with `voters` voters and
/// `alternatives` alternatives, over all `(m!)^n` profiles.
pub fn check_axioms(rule: &Rule, voters: usize, alternatives: usize) -> Result<Vec<AxiomReport>> {
    check_some_axioms(rule, voters, alternatives, &Axiom::ALL)
}

/// Like `check_axioms`, for the listed axioms only (in that order).
pub fn check_some_axioms(
    rule: &Rule,
    voters: usize,
    alternatives: usize,
    axioms: &[Axiom],
) -> Result<Vec<AxiomReport>> {
    rule.validate(voters, alternatives)?;
    let table = Table::new(rule, voters, alternatives)?;
    Ok(axioms
        .iter()
        .map(|&axiom| {
            let counterexample = match axiom {
                Axiom::Pareto => table.pareto(),
                Axiom::Monotonicity => table.monotonicity(),
                Axiom::Transitivity => table.transitivity(),
                Axiom::Nondictatorship => table.dictator(),
            };
            AxiomReport {
                axiom,
                satisfied: counterexample.is_none(),
                counterexample,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdicts(rule: Rule, n: usize, m: usize) -> [bool; 4] {
        let reports = check_axioms(&rule, n, m).unwrap();
        [0, 1, 2, 3].map(|i| reports[i].satisfied)
    }

    // [pareto, monotonicity, transitivity, nondictatorship]
    #[test]
    fn borda_and_plurality() {
        assert_eq!(verdicts(Rule::Scoring(vec![2, 1, 0]), 3, 3), [true; 4]);
        // Plurality: everyone ranks B above C in second and third place, and
        // both score zero.
        let reports = check_axioms(&Rule::Scoring(vec![1, 0, 0]), 3, 3).unwrap();
        assert!(!reports[0].satisfied && reports[1].satisfied && reports[2].satisfied);
        let c = reports[0].counterexample.as_ref().unwrap();
        let (x, y) = (c.alternatives[0], c.alternatives[1]);
        assert!(c.profile.iter().all(|r| {
            let pos = |a| r.iter().position(|&c| c == a).unwrap();
            pos(x) < pos(y) && pos(x) > 0
        }));
        assert!(c.relation[x * 3 + y] && c.relation[y * 3 + x]);
    }

    #[test]
    fn non_monotone_points_fail_monotonicity() {
        let v = verdicts(Rule::Scoring(vec![2, 3, 0]), 3, 3);
        assert_eq!(v, [false, false, true, true]);
        let r = check_axioms(&Rule::Scoring(vec![2, 3, 0]), 3, 3).unwrap();
        let c = r[1].counterexample.as_ref().unwrap();
        assert!(c.voter.is_some() && c.raised.is_some() && c.raised_relation.is_some());
    }

    #[test]
    fn weighted_majority() {
        // One voter holds more than half the weight: a transitive dictatorship.
        assert_eq!(
            verdicts(Rule::WeightedMajority(vec![3, 1, 1]), 3, 3),
            [true, true, true, false]
        );
        let r = check_axioms(&Rule::WeightedMajority(vec![1, 4, 2]), 3, 3).unwrap();
        assert_eq!(r[3].counterexample.as_ref().unwrap().voter, Some(1));
        // Equal weights: the Condorcet cycle breaks transitivity.
        let r = check_axioms(&Rule::WeightedMajority(vec![1, 1, 1]), 3, 3).unwrap();
        assert_eq!(
            [0, 1, 2, 3].map(|i| r[i].satisfied),
            [true, true, false, true]
        );
        let c = r[2].counterexample.as_ref().unwrap();
        let (x, y, z) = (c.alternatives[0], c.alternatives[1], c.alternatives[2]);
        assert!(c.relation[x * 3 + y] && c.relation[y * 3 + z] && !c.relation[x * 3 + z]);
    }

    #[test]
    fn dictatorships_and_imposed() {
        assert_eq!(
            verdicts(Rule::Dictatorship(2), 3, 3),
            [true, true, true, false]
        );
        assert_eq!(
            verdicts(Rule::ReversedDictatorship(0), 3, 3),
            [false, false, true, true]
        );
        assert_eq!(
            verdicts(Rule::Imposed(vec![2, 0, 1]), 4, 3),
            [false, true, true, true]
        );
    }

    #[test]
    fn unanimity_and_copeland() {
        assert_eq!(verdicts(Rule::Unanimity, 3, 3), [true, true, false, true]);
        assert_eq!(verdicts(Rule::Copeland, 3, 4), [true, true, true, true]);
        // With one voter, unanimity is that voter's ranking: a dictatorship.
        assert_eq!(verdicts(Rule::Unanimity, 1, 3), [true, true, true, false]);
    }

    #[test]
    fn bad_input_is_an_error() {
        let ok = |k: &str, p: &[i64]| Rule::from_parts(k, p, 3, 3);
        assert!(ok("scoring", &[2, 1, 0]).is_ok());
        assert!(ok("scoring", &[2, 1]).is_err());
        assert!(ok("scoring", &[2, 1, MAX_PARAM + 1]).is_err());
        assert!(ok("weighted_majority", &[1, -1, 1]).is_err());
        assert!(ok("weighted_majority", &[0, 0, 0]).is_err());
        assert!(ok("dictatorship", &[3]).is_err());
        assert!(ok("dictatorship", &[-1]).is_err());
        assert!(ok("reversed_dictatorship", &[]).is_err());
        assert!(ok("imposed", &[0, 0, 1]).is_err());
        assert!(ok("imposed", &[0, 1, -2]).is_err());
        assert!(ok("unanimity", &[1]).is_err());
        assert!(ok("borda", &[]).is_err());
        assert!(Axiom::from_name("fairness").is_err());
        assert_eq!(Axiom::from_name("pareto"), Ok(Axiom::Pareto));
        let some = check_some_axioms(&Rule::Copeland, 3, 3, &[Axiom::Transitivity]).unwrap();
        assert_eq!(some.len(), 1);
        assert_eq!(some[0].axiom, Axiom::Transitivity);
        let rule = Rule::Copeland;
        assert!(check_axioms(&rule, 5, 4).is_err()); // 24^5 profiles
        assert!(check_axioms(&rule, 6, 3).is_err());
        assert!(check_axioms(&rule, 0, 3).is_err());
        assert!(check_axioms(&rule, 3, 5).is_err());
        assert!(check_axioms(&rule, 3, 1).is_err());
        assert!(check_axioms(&rule, 3, 4).is_ok()); // 24^3
                                                    // A rule built for other sizes is rejected, not indexed out of bounds.
        assert!(check_axioms(&Rule::Scoring(vec![1, 0]), 3, 3).is_err());
        assert!(check_axioms(&Rule::Dictatorship(4), 3, 3).is_err());
    }
}
