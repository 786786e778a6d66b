//! Pure-strategy Nash equilibria of bimatrix games, built for large batches.
//!
//! A cell is an equilibrium when its row is a best response to its column and
//! vice versa, with the same tie rule as [`Bimatrix::best_responses`]. The
//! batch kernel makes one pass for the column maxima of the row player's
//! payoffs and one for the row maxima of the column player's, then marks the
//! cells: O(rows·cols) per game, no allocation per game, and rayon over games.

use super::normal_form::{Bimatrix, TIE_TOLERANCE};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Games per rayon task: large enough that scheduling costs vanish next to a
/// few nanoseconds of work per game.
const GAMES_PER_TASK: usize = 2048;

/// Marks the pure equilibria of one game (`game` = `rows * cols * 2` payoffs)
/// in `out` (`rows * cols`, row-major). `best` is scratch of length at least
/// `rows + cols`.
fn mark(cols: usize, game: &[f64], out: &mut [bool], best: &mut [f64]) {
    let (col_best, row_best) = best.split_at_mut(cols);
    col_best.fill(f64::NEG_INFINITY);
    for (row, row_max) in game.chunks_exact(cols * 2).zip(row_best.iter_mut()) {
        *row_max = f64::NEG_INFINITY;
        for (cell, col_max) in row.chunks_exact(2).zip(col_best.iter_mut()) {
            *col_max = col_max.max(cell[0]);
            *row_max = row_max.max(cell[1]);
        }
    }
    // Turn maxima into thresholds once, rather than per cell.
    for b in col_best.iter_mut().chain(row_best.iter_mut()) {
        *b -= TIE_TOLERANCE * b.abs().max(1.0);
    }
    for ((row, marks), &row_max) in game
        .chunks_exact(cols * 2)
        .zip(out.chunks_exact_mut(cols))
        .zip(row_best.iter())
    {
        for ((cell, mark), &col_max) in row.chunks_exact(2).zip(marks).zip(col_best.iter()) {
            *mark = cell[0] >= col_max && cell[1] >= row_max;
        }
    }
}

/// All pure Nash equilibria of one game as (row, col) pairs in row-major order.
pub fn pure_nash(game: &Bimatrix) -> Vec<(usize, usize)> {
    let (rows, cols) = (game.rows(), game.cols());
    let mut mask = vec![false; rows * cols];
    let mut best = vec![0.0; rows + cols];
    mark(cols, game.as_slice(), &mut mask, &mut best);
    (0..rows * cols)
        .filter(|&k| mask[k])
        .map(|k| (k / cols, k % cols))
        .collect()
}

/// Whether (row, col) is a pure Nash equilibrium of `game`.
pub fn is_pure_nash(game: &Bimatrix, row: usize, col: usize) -> bool {
    pure_nash(game).contains(&(row, col))
}

/// Pure equilibria of many games of one shape, stored back to back as
/// `[game][row][col][player]`. Returns a row-major mask of length
/// `n * rows * cols`, true at each equilibrium cell.
pub fn pure_nash_batch(rows: usize, cols: usize, payoffs: &[f64]) -> Result<Vec<bool>> {
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
    // One vectorisable pass for NaN/inf instead of a check per game.
    if !payoffs.iter().all(|p| p.is_finite()) {
        let pos = payoffs.iter().position(|p| !p.is_finite()).unwrap_or(0);
        return Err(Error::invalid(
            "payoffs",
            format!(
                "game {}: payoff {} is not finite ({})",
                pos / per_game,
                pos % per_game,
                payoffs[pos]
            ),
        ));
    }
    let cells = rows * cols;
    let mut mask = vec![false; payoffs.len() / 2];
    mask.par_chunks_mut(cells * GAMES_PER_TASK)
        .zip(payoffs.par_chunks(per_game * GAMES_PER_TASK))
        .for_each(|(out, games)| {
            let mut best = vec![0.0; rows + cols];
            for (o, g) in out
                .chunks_exact_mut(cells)
                .zip(games.chunks_exact(per_game))
            {
                mark(cols, g, o, &mut best);
            }
        });
    Ok(mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(c: &[(f64, f64)]) -> Vec<f64> {
        c.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    #[test]
    fn coordination_example_from_the_paper() {
        // Both Left or both Right pay 20 each, mismatches -20 each.
        let p = cells(&[(20., 20.), (-20., -20.), (-20., -20.), (20., 20.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(pure_nash(&g), vec![(0, 0), (1, 1)]);
        assert!(is_pure_nash(&g, 1, 1) && !is_pure_nash(&g, 0, 1));
    }

    #[test]
    fn matching_pennies_has_none_and_ties_count() {
        let p = cells(&[(1., -1.), (-1., 1.), (-1., 1.), (1., -1.)]);
        assert!(pure_nash(&Bimatrix::new(2, 2, &p).unwrap()).is_empty());
        let flat = [0.0; 8];
        assert_eq!(pure_nash(&Bimatrix::new(2, 2, &flat).unwrap()).len(), 4);
        let noisy = cells(&[(0.1 + 0.2, 0.), (0.3, 0.)]);
        assert_eq!(pure_nash(&Bimatrix::new(2, 1, &noisy).unwrap()).len(), 2);
    }

    #[test]
    fn prisoners_dilemma_and_rectangular_games() {
        let pd = cells(&[(3., 3.), (0., 5.), (5., 0.), (1., 1.)]);
        assert_eq!(pure_nash(&Bimatrix::new(2, 2, &pd).unwrap()), vec![(1, 1)]);
        // 1x3: the row player has no choice; column picks its best.
        let p = cells(&[(0., 1.), (9., 4.), (0., 2.)]);
        assert_eq!(pure_nash(&Bimatrix::new(1, 3, &p).unwrap()), vec![(0, 1)]);
    }

    #[test]
    fn batch_matches_one_at_a_time_across_task_boundaries() {
        // Enough games to span several rayon tasks, with a simple LCG.
        let (rows, cols, n) = (3, 4, GAMES_PER_TASK * 2 + 17);
        let mut state = 12345u64;
        let payoffs: Vec<f64> = (0..n * rows * cols * 2)
            .map(|_| {
                state = state
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((state >> 33) % 5) as f64
            })
            .collect();
        let mask = pure_nash_batch(rows, cols, &payoffs).unwrap();
        for (i, game) in payoffs.chunks(rows * cols * 2).enumerate() {
            let g = Bimatrix::new(rows, cols, game).unwrap();
            let expect: Vec<bool> = (0..rows * cols)
                .map(|k| pure_nash(&g).contains(&(k / cols, k % cols)))
                .collect();
            assert_eq!(
                &mask[i * rows * cols..(i + 1) * rows * cols],
                &expect[..],
                "game {i}"
            );
        }
    }

    #[test]
    fn batch_rejects_bad_input() {
        assert!(pure_nash_batch(2, 2, &[0.0; 7]).is_err());
        assert!(pure_nash_batch(0, 2, &[]).is_err());
        let mut p = vec![0.0; 16];
        p[11] = f64::INFINITY;
        let err = pure_nash_batch(2, 2, &p).unwrap_err();
        assert!(err.to_string().contains("game 1: payoff 3"), "{err}");
        assert_eq!(pure_nash_batch(2, 2, &[]).unwrap(), Vec::<bool>::new());
    }
}
