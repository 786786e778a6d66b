//! All Nash equilibria of a two-player game by support enumeration, made
//! exact for degenerate games.
//!
//! Textbook support enumeration pairs supports of equal size and solves the
//! indifference equations; in a degenerate game (ties, duplicated rows) that
//! misses equilibria whose supports differ in size and meets singular systems
//! whose solutions form a continuum. Instead we enumerate each player's
//! candidate strategies on their own: for every support `I` of the player and
//! every set `T` of `|I|` opponent actions, the square system "the opponent is
//! indifferent across `T`, and the probabilities on `I` sum to one" has at most
//! one solution. The feasible solutions (non-negative, and `T` among the
//! opponent's best replies) are exactly the vertices of the player's
//! best-response polyhedron; an extreme equilibrium is a pair of vertices
//! whose supports lie inside each other's best replies. The supports of the
//! two strategies in an equilibrium may therefore differ in size.
//!
//! The result is the set of *extreme* equilibria: in a nondegenerate game that
//! is every equilibrium; in a degenerate one every equilibrium is a convex
//! combination of extreme ones that belong to the same component (the same
//! set pygambit's `enummixed_solve` describes). Each returned equilibrium is
//! checked once more at the end: neither player can gain more than
//! [`REGRET_TOLERANCE`] (relative to its largest payoff) by deviating.
//!
//! Cost: C(rows + cols, rows) small linear solves per player, which is tiny
//! for the games questions use (38 for 3x3, a few microseconds) but grows
//! exponentially: around 7x7 a lexicographic vertex enumerator (gambit's
//! `enummixed_solve`) overtakes it, and beyond [`MAX_SYSTEMS`] solves we
//! refuse rather than run for minutes.

use super::normal_form::Bimatrix;
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Largest gain from deviating that an equilibrium may show, relative to the
/// player's largest absolute payoff.
pub const REGRET_TOLERANCE: f64 = 1e-8;
/// Probabilities and payoff gaps this small (payoffs scaled to at most 1 in
/// absolute value) are treated as zero.
const ZERO: f64 = 1e-10;
/// Pivots below this make a system singular: that (support, replies) pair
/// determines no single point.
const PIVOT_MIN: f64 = 1e-12;
/// Games per rayon task in a batch.
const GAMES_PER_TASK: usize = 64;
/// Refuse games whose enumeration would need more linear solves than this
/// (C(rows + cols, rows) per player): a 12x12 game needs 2.7 million.
pub const MAX_SYSTEMS: u128 = 1 << 25;

/// One equilibrium: the row player's and the column player's mixed strategies.
#[derive(Debug, Clone, PartialEq)]
pub struct MixedEquilibrium {
    pub row: Vec<f64>,
    pub col: Vec<f64>,
}

/// A feasible strategy of one player: where its probabilities start in the
/// workspace, its support and the opponent's best replies to it (bit masks).
#[derive(Debug, Clone, Copy)]
struct Vertex {
    start: usize,
    support: u64,
    replies: u64,
}

/// Scratch space reused from game to game so a batch allocates per thread,
/// not per game.
#[derive(Debug, Default)]
pub struct Workspace {
    /// Opponent's payoffs seen from each player: `[own][opp]`, scaled.
    pay_for_row: Vec<f64>,
    pay_for_col: Vec<f64>,
    subsets_own: Vec<Vec<u64>>,
    subsets_opp: Vec<Vec<u64>>,
    matrix: Vec<f64>,
    rhs: Vec<f64>,
    gains: Vec<f64>,
    probs: [Vec<f64>; 2],
    vertices: [Vec<Vertex>; 2],
}

fn check_size(rows: usize, cols: usize) -> Result<()> {
    let systems = (1..=rows as u128).fold(1u128, |acc, i| acc * (cols as u128 + i) / i);
    if rows > 64 || cols > 64 || systems > MAX_SYSTEMS {
        return Err(Error::Unsolvable(format!(
            "support enumeration of a {rows}x{cols} game needs {systems} linear solves per \
             player; the limit is {MAX_SYSTEMS}"
        )));
    }
    Ok(())
}

/// Solves the `n x n` system in place by Gaussian elimination with partial
/// pivoting; the answer is left in `rhs`. False when (numerically) singular.
fn solve(n: usize, matrix: &mut [f64], rhs: &mut [f64]) -> bool {
    for c in 0..n {
        let mut p = c;
        for r in c + 1..n {
            if matrix[r * n + c].abs() > matrix[p * n + c].abs() {
                p = r;
            }
        }
        if matrix[p * n + c].abs() < PIVOT_MIN {
            return false;
        }
        if p != c {
            for k in 0..n {
                matrix.swap(p * n + k, c * n + k);
            }
            rhs.swap(p, c);
        }
        let pivot = matrix[c * n + c];
        for r in c + 1..n {
            let f = matrix[r * n + c] / pivot;
            if f != 0.0 {
                for k in c..n {
                    matrix[r * n + k] -= f * matrix[c * n + k];
                }
                rhs[r] -= f * rhs[c];
            }
        }
    }
    for c in (0..n).rev() {
        let mut s = rhs[c];
        for k in c + 1..n {
            s -= matrix[c * n + k] * rhs[k];
        }
        rhs[c] = s / matrix[c * n + c];
    }
    true
}

/// The set bits of `mask`, lowest first.
fn bits(mut mask: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let b = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            b
        })
    })
}

fn subsets_by_size(n: usize, out: &mut Vec<Vec<u64>>) {
    out.iter_mut().for_each(Vec::clear);
    out.resize(n + 1, Vec::new());
    for mask in 1..(1u64 << n) {
        out[mask.count_ones() as usize].push(mask);
    }
}

impl Workspace {
    pub fn new() -> Self {
        Self::default()
    }

    /// Vertices of one player's best-response polyhedron. `pay[own * opp +
    /// p]` is the opponent's payoff when this player plays `own` and the
    /// opponent plays `p`.
    fn vertices(&mut self, who: usize, own: usize, opp: usize) {
        let pay = if who == 0 {
            &self.pay_for_row
        } else {
            &self.pay_for_col
        };
        subsets_by_size(own, &mut self.subsets_own);
        subsets_by_size(opp, &mut self.subsets_opp);
        let (probs, found) = (&mut self.probs[who], &mut self.vertices[who]);
        probs.clear();
        found.clear();
        let mut x = vec![0.0; own];
        for k in 1..=own.min(opp) {
            let dim = k + 1;
            for &support in &self.subsets_own[k] {
                for &replies in &self.subsets_opp[k] {
                    // Unknowns: the k probabilities on the support, then the
                    // opponent's value v. Rows: indifference on each reply,
                    // then the probabilities summing to one.
                    self.matrix.clear();
                    self.matrix.resize(dim * dim, 0.0);
                    self.rhs.clear();
                    self.rhs.resize(dim, 0.0);
                    for (r, p) in bits(replies).enumerate() {
                        for (c, o) in bits(support).enumerate() {
                            self.matrix[r * dim + c] = pay[o * opp + p];
                        }
                        self.matrix[r * dim + k] = -1.0;
                    }
                    self.matrix[k * dim..k * dim + k].fill(1.0);
                    self.rhs[k] = 1.0;
                    if !solve(dim, &mut self.matrix, &mut self.rhs) {
                        continue;
                    }
                    if self.rhs[..k].iter().any(|&q| q < -ZERO || !q.is_finite()) {
                        continue;
                    }
                    x.fill(0.0);
                    for (c, o) in bits(support).enumerate() {
                        x[o] = self.rhs[c].max(0.0);
                    }
                    let total: f64 = x.iter().sum();
                    x.iter_mut().for_each(|q| *q /= total);
                    // The opponent's payoffs against x: every action in
                    // `replies` must be a best reply.
                    self.gains.clear();
                    self.gains.extend(
                        (0..opp).map(|p| (0..own).map(|o| x[o] * pay[o * opp + p]).sum::<f64>()),
                    );
                    let best = self.gains.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let reply_mask = (0..opp)
                        .filter(|&p| self.gains[p] >= best - ZERO)
                        .fold(0u64, |m, p| m | 1 << p);
                    if replies & !reply_mask != 0 {
                        continue;
                    }
                    let support_mask = (0..own)
                        .filter(|&o| x[o] > ZERO)
                        .fold(0u64, |m, o| m | 1 << o);
                    let duplicate = found.iter().any(|v| {
                        v.support == support_mask
                            && probs[v.start..v.start + own]
                                .iter()
                                .zip(&x)
                                .all(|(a, b)| (a - b).abs() <= 1e-9)
                    });
                    if !duplicate {
                        found.push(Vertex {
                            start: probs.len(),
                            support: support_mask,
                            replies: reply_mask,
                        });
                        probs.extend_from_slice(&x);
                    }
                }
            }
        }
    }

    /// Appends the extreme equilibria of `game` to `out` as
    /// `[row strategy, col strategy]` blocks and returns how many there are.
    fn solve_into(&mut self, game: &Bimatrix, out: &mut Vec<f64>) -> usize {
        let (m, n) = (game.rows(), game.cols());
        let p = game.as_slice();
        // Scale each player's payoffs to at most 1 in absolute value: the
        // equilibria do not change and fixed tolerances become meaningful.
        let scale = |who: usize| {
            let s = (0..m * n).map(|c| p[2 * c + who].abs()).fold(0.0, f64::max);
            if s > 0.0 {
                s
            } else {
                1.0
            }
        };
        let (sa, sb) = (scale(0), scale(1));
        self.pay_for_row.clear();
        self.pay_for_row
            .extend((0..m * n).map(|c| p[2 * c + 1] / sb));
        self.pay_for_col.clear();
        self.pay_for_col
            .extend((0..n * m).map(|c| p[2 * ((c % m) * n + c / m)] / sa));
        self.vertices(0, m, n);
        self.vertices(1, n, m);
        let first = out.len();
        let mut count = 0;
        for x in &self.vertices[0] {
            for y in &self.vertices[1] {
                if x.support & !y.replies == 0 && y.support & !x.replies == 0 {
                    let (row, col) = (
                        &self.probs[0][x.start..x.start + m],
                        &self.probs[1][y.start..y.start + n],
                    );
                    let (rr, rc) = regret_unchecked(game, row, col);
                    if rr <= REGRET_TOLERANCE * sa && rc <= REGRET_TOLERANCE * sb {
                        out.extend_from_slice(row);
                        out.extend_from_slice(col);
                        count += 1;
                    }
                }
            }
        }
        sort_blocks(&mut out[first..], m + n);
        count
    }
}

/// Sorts equilibria (blocks of `width` numbers) so that more weight on earlier
/// actions comes first: a fixed order makes answers reproducible.
fn sort_blocks(flat: &mut [f64], width: usize) {
    let count = flat.len() / width;
    if count < 2 {
        return;
    }
    let mut order: Vec<usize> = (0..count).collect();
    let block = |k: usize| &flat[k * width..(k + 1) * width];
    order.sort_by(|&a, &b| {
        block(b)
            .partial_cmp(block(a))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    let sorted: Vec<f64> = order
        .iter()
        .flat_map(|&k| block(k).iter().copied())
        .collect();
    flat.copy_from_slice(&sorted);
}

fn regret_unchecked(game: &Bimatrix, row: &[f64], col: &[f64]) -> (f64, f64) {
    let (m, n, p) = (game.rows(), game.cols(), game.as_slice());
    let (mut row_best, mut row_value) = (f64::NEG_INFINITY, 0.0);
    for i in 0..m {
        let gain: f64 = (0..n).map(|j| col[j] * p[2 * (i * n + j)]).sum();
        row_best = row_best.max(gain);
        row_value += row[i] * gain;
    }
    let (mut col_best, mut col_value) = (f64::NEG_INFINITY, 0.0);
    for j in 0..n {
        let gain: f64 = (0..m).map(|i| row[i] * p[2 * (i * n + j) + 1]).sum();
        col_best = col_best.max(gain);
        col_value += col[j] * gain;
    }
    (
        (row_best - row_value).max(0.0),
        (col_best - col_value).max(0.0),
    )
}

fn check_strategy(field: &str, s: &[f64], len: usize) -> Result<()> {
    if s.len() != len {
        return Err(Error::invalid(
            field,
            format!("expected {len} probabilities, got {}", s.len()),
        ));
    }
    if s.iter().any(|q| !(q.is_finite() && *q >= 0.0)) {
        return Err(Error::invalid(
            field,
            "probabilities must be finite and >= 0",
        ));
    }
    let total: f64 = s.iter().sum();
    if (total - 1.0).abs() > 1e-9 {
        return Err(Error::invalid(
            field,
            format!("probabilities sum to {total}, not 1"),
        ));
    }
    Ok(())
}

/// How much each player could gain by deviating from the mixed profile
/// `(row, col)`: `(max_i (A y)_i − xᵀA y, max_j (xᵀB)_j − xᵀB y)`, never negative.
/// A profile is a Nash equilibrium when both are (close to) zero.
pub fn regret(game: &Bimatrix, row: &[f64], col: &[f64]) -> Result<(f64, f64)> {
    check_strategy("row", row, game.rows())?;
    check_strategy("col", col, game.cols())?;
    Ok(regret_unchecked(game, row, col))
}

/// All extreme Nash equilibria of one game (see the module notes), sorted with
/// more weight on earlier actions first.
pub fn all_equilibria(game: &Bimatrix) -> Result<Vec<MixedEquilibrium>> {
    check_size(game.rows(), game.cols())?;
    let mut flat = Vec::new();
    Workspace::new().solve_into(game, &mut flat);
    let m = game.rows();
    Ok(flat
        .chunks(m + game.cols())
        .map(|b| MixedEquilibrium {
            row: b[..m].to_vec(),
            col: b[m..].to_vec(),
        })
        .collect())
}

/// Equilibria of many games, flattened: game `i` owns equilibria
/// `offsets[i]..offsets[i + 1]`; equilibrium `e` is `row[e * rows..]` and
/// `col[e * cols..]`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct EquilibriumBatch {
    pub offsets: Vec<usize>,
    pub row: Vec<f64>,
    pub col: Vec<f64>,
}

/// [`all_equilibria`] for `n` games of one shape stored back to back.
pub fn all_equilibria_batch(rows: usize, cols: usize, payoffs: &[f64]) -> Result<EquilibriumBatch> {
    let per_game = rows * cols * 2;
    if per_game == 0 || payoffs.len() % per_game != 0 {
        return Err(Error::invalid(
            "payoffs",
            format!(
                "expected whole {rows}x{cols} games with at least one action each, got {} numbers",
                payoffs.len()
            ),
        ));
    }
    check_size(rows, cols)?;
    let chunks: Vec<(Vec<usize>, Vec<f64>)> = payoffs
        .par_chunks(per_game * GAMES_PER_TASK)
        .enumerate()
        .map_init(Workspace::new, |ws, (t, games)| {
            let mut counts = Vec::with_capacity(games.len() / per_game);
            let mut flat = Vec::new();
            for (g, game) in games.chunks(per_game).enumerate() {
                let game = Bimatrix::new(rows, cols, game)
                    .map_err(|e| e.at_item("game", t * GAMES_PER_TASK + g))?;
                counts.push(ws.solve_into(&game, &mut flat));
            }
            Ok((counts, flat))
        })
        .collect::<Result<_>>()?;
    let total: usize = chunks.iter().flat_map(|(c, _)| c).sum();
    let mut batch = EquilibriumBatch {
        offsets: Vec::with_capacity(payoffs.len() / per_game + 1),
        row: Vec::with_capacity(total * rows),
        col: Vec::with_capacity(total * cols),
    };
    batch.offsets.push(0);
    for (counts, flat) in chunks {
        for c in counts {
            batch.offsets.push(batch.offsets.last().unwrap() + c);
        }
        for block in flat.chunks(rows + cols) {
            batch.row.extend_from_slice(&block[..rows]);
            batch.col.extend_from_slice(&block[rows..]);
        }
    }
    Ok(batch)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(c: &[(f64, f64)]) -> Vec<f64> {
        c.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    fn equilibria(rows: usize, cols: usize, p: &[f64]) -> Vec<(Vec<f64>, Vec<f64>)> {
        let g = Bimatrix::new(rows, cols, p).unwrap();
        all_equilibria(&g)
            .unwrap()
            .into_iter()
            .map(|e| (e.row, e.col))
            .collect()
    }

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn matching_pennies_has_one_mixed_equilibrium() {
        let p = cells(&[(1., -1.), (-1., 1.), (-1., 1.), (1., -1.)]);
        let eq = equilibria(2, 2, &p);
        assert_eq!(eq.len(), 1);
        assert!(close(&eq[0].0, &[0.5, 0.5]) && close(&eq[0].1, &[0.5, 0.5]));
    }

    #[test]
    fn coordination_example_from_the_paper_has_two_pure_and_one_mixed() {
        let p = cells(&[(20., 20.), (-20., -20.), (-20., -20.), (20., 20.)]);
        let eq = equilibria(2, 2, &p);
        assert_eq!(eq.len(), 3);
        assert!(close(&eq[0].0, &[1., 0.]) && close(&eq[0].1, &[1., 0.]));
        assert!(close(&eq[1].0, &[0.5, 0.5]) && close(&eq[1].1, &[0.5, 0.5]));
        assert!(close(&eq[2].0, &[0., 1.]) && close(&eq[2].1, &[0., 1.]));
    }

    #[test]
    fn battle_of_the_sexes_mixed_weights() {
        // (10,7) (0,0) / (0,0) (7,10): the row player mixes to make the column
        // player indifferent: 7x = 10(1-x) -> x = 10/17.
        let p = cells(&[(10., 7.), (0., 0.), (0., 0.), (7., 10.)]);
        let eq = equilibria(2, 2, &p);
        assert_eq!(eq.len(), 3);
        assert!(close(&eq[1].0, &[10. / 17., 7. / 17.]), "{eq:?}");
        assert!(close(&eq[1].1, &[7. / 17., 10. / 17.]), "{eq:?}");
    }

    #[test]
    fn degenerate_game_with_unequal_supports() {
        // The column player is indifferent between its actions whatever the
        // row player does; the row player prefers row 0 against column 0 and
        // is indifferent against column 1. Extreme equilibria: (r0, c0),
        // (r0, c1) and (r1, c1); the whole segment between the last two is a
        // component of equilibria, represented by its two ends.
        let p = cells(&[(1., 0.), (0., 0.), (0., 0.), (0., 0.)]);
        let eq = equilibria(2, 2, &p);
        let expect = [
            (vec![1., 0.], vec![1., 0.]),
            (vec![1., 0.], vec![0., 1.]),
            (vec![0., 1.], vec![0., 1.]),
        ];
        assert_eq!(eq.len(), 3, "{eq:?}");
        for (x, y) in &expect {
            assert!(
                eq.iter().any(|(a, b)| close(a, x) && close(b, y)),
                "{x:?} {y:?}"
            );
        }
    }

    #[test]
    fn duplicated_rows_give_a_segment_of_equilibria() {
        // Rows 0 and 1 are identical: the extreme points of the segment are
        // the two pure rows; a (1,1)-support system would be singular.
        let p = cells(&[(2., 1.), (0., 0.), (2., 1.), (0., 0.), (0., 0.), (1., 2.)]);
        let eq = equilibria(3, 2, &p);
        for (x, y) in &eq {
            let g = Bimatrix::new(3, 2, &p).unwrap();
            let (a, b) = regret(&g, x, y).unwrap();
            assert!(a < 1e-9 && b < 1e-9);
        }
        assert!(eq
            .iter()
            .any(|(x, y)| close(x, &[1., 0., 0.]) && close(y, &[1., 0.])));
        assert!(eq
            .iter()
            .any(|(x, y)| close(x, &[0., 1., 0.]) && close(y, &[1., 0.])));
        assert!(eq
            .iter()
            .any(|(x, y)| close(x, &[0., 0., 1.]) && close(y, &[0., 1.])));
    }

    #[test]
    fn all_zero_game_has_every_pure_profile_as_extreme_equilibrium() {
        let p = [0.0; 12];
        assert_eq!(equilibria(2, 3, &p).len(), 6);
    }

    #[test]
    fn rock_paper_scissors_uniform() {
        let a = [[0., -1., 1.], [1., 0., -1.], [-1., 1., 0.]];
        let p: Vec<f64> = (0..9)
            .flat_map(|c| [a[c / 3][c % 3], -a[c / 3][c % 3]])
            .collect();
        let eq = equilibria(3, 3, &p);
        assert_eq!(eq.len(), 1);
        assert!(close(&eq[0].0, &[1. / 3.; 3]) && close(&eq[0].1, &[1. / 3.; 3]));
    }

    #[test]
    fn regret_and_its_validation() {
        let p = cells(&[(3., 3.), (0., 5.), (5., 0.), (1., 1.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        let (r, c) = regret(&g, &[1., 0.], &[1., 0.]).unwrap();
        assert_eq!((r, c), (2., 2.));
        assert_eq!(regret(&g, &[0., 1.], &[0., 1.]).unwrap(), (0., 0.));
        assert!(regret(&g, &[0.5], &[0., 1.]).is_err());
        assert!(regret(&g, &[0.5, 0.6], &[0., 1.]).is_err());
        assert!(regret(&g, &[1., 0.], &[f64::NAN, 1.]).is_err());
    }

    #[test]
    fn batch_matches_one_at_a_time() {
        let (rows, cols, n) = (3, 3, GAMES_PER_TASK * 3 + 5);
        let mut state = 99u64;
        let payoffs: Vec<f64> = (0..n * rows * cols * 2)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) % 7) as f64 - 3.0
            })
            .collect();
        let batch = all_equilibria_batch(rows, cols, &payoffs).unwrap();
        assert_eq!(batch.offsets.len(), n + 1);
        for (i, game) in payoffs.chunks(rows * cols * 2).enumerate() {
            let one = equilibria(rows, cols, game);
            let (lo, hi) = (batch.offsets[i], batch.offsets[i + 1]);
            assert_eq!(hi - lo, one.len(), "game {i}");
            for (e, (x, y)) in (lo..hi).zip(&one) {
                assert_eq!(&batch.row[e * rows..(e + 1) * rows], &x[..]);
                assert_eq!(&batch.col[e * cols..(e + 1) * cols], &y[..]);
            }
            assert!(!one.is_empty(), "every finite game has an equilibrium");
        }
    }

    #[test]
    fn batch_rejects_bad_input_and_huge_games() {
        assert!(all_equilibria_batch(2, 2, &[0.0; 9]).is_err());
        let mut p = vec![0.0; 16];
        p[8] = f64::NAN;
        let err = all_equilibria_batch(2, 2, &p).unwrap_err();
        assert!(err.to_string().contains("game 1"), "{err}");
        let big = vec![0.0; 20 * 20 * 2];
        let g = Bimatrix::new(20, 20, &big).unwrap();
        assert!(matches!(all_equilibria(&g), Err(Error::Unsolvable(_))));
    }

    #[test]
    fn solve_detects_singular_systems() {
        let mut m = [1.0, 2.0, 2.0, 4.0];
        let mut r = [1.0, 2.0];
        assert!(!solve(2, &mut m, &mut r));
        let mut m = [2.0, 1.0, 1.0, 3.0];
        let mut r = [3.0, 5.0];
        assert!(solve(2, &mut m, &mut r));
        assert!((r[0] - 0.8).abs() < 1e-12 && (r[1] - 1.4).abs() < 1e-12);
    }
}
