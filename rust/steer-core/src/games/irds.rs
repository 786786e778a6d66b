//! Iterated removal of strictly dominated strategies (IRDS), with the order in
//! which strategies fall.
//!
//! Domination is by pure strategies (see [`super::dominance`]). For strict
//! dominance the surviving game does not depend on the order of removal, so we
//! use the canonical one: each round removes, for both players at once, every
//! strategy strictly dominated in the game that survived the previous round.
//! Rounds make the order reproducible and let a question say "after removing
//! X, Y becomes dominated".

use super::dominance::{dominates_among, Strength};
use super::normal_form::{Bimatrix, Player};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// One removed strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Elimination {
    /// 0 for strategies dominated in the original game, 1 for those dominated
    /// only once round 0's strategies are gone, and so on.
    pub round: usize,
    pub player: Player,
    pub strategy: usize,
    /// The lowest-numbered strategy that dominates it and survives the same
    /// round (one always exists: strict dominance is transitive).
    pub dominated_by: usize,
}

/// The surviving strategies of both players and how the others fell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Irds {
    pub rows: Vec<usize>,
    pub cols: Vec<usize>,
    /// Eliminations by round, then row player before column player, then
    /// strategy number.
    pub order: Vec<Elimination>,
}

/// Runs IRDS to the end. Returns the survivors and the elimination order.
pub fn iterated_strict_dominance(game: &Bimatrix) -> Irds {
    let mut alive = [vec![true; game.rows()], vec![true; game.cols()]];
    let mut order = Vec::new();
    for round in 0.. {
        let mut removed = Vec::new();
        for player in [Player::Row, Player::Col] {
            let (own, opp) = (player as usize, 1 - player as usize);
            let dominated = |b: usize| {
                (0..alive[own].len()).any(|a| {
                    alive[own][a]
                        && dominates_among(game, player, a, b, Some(&alive[opp]), Strength::Strict)
                })
            };
            let out: Vec<usize> = (0..alive[own].len())
                .filter(|&b| alive[own][b] && dominated(b))
                .collect();
            for &b in &out {
                let by = (0..alive[own].len())
                    .find(|&a| {
                        alive[own][a]
                            && !out.contains(&a)
                            && dominates_among(
                                game,
                                player,
                                a,
                                b,
                                Some(&alive[opp]),
                                Strength::Strict,
                            )
                    })
                    .expect("strict dominance is transitive, so a surviving dominator exists");
                removed.push(Elimination {
                    round,
                    player,
                    strategy: b,
                    dominated_by: by,
                });
            }
        }
        if removed.is_empty() {
            break;
        }
        // Remove only after both players were checked against the same game.
        for e in &removed {
            alive[e.player as usize][e.strategy] = false;
        }
        order.extend(removed);
    }
    let survivors = |mask: &[bool]| (0..mask.len()).filter(|&i| mask[i]).collect();
    Irds {
        rows: survivors(&alive[0]),
        cols: survivors(&alive[1]),
        order,
    }
}

/// IRDS survivors for many games of one shape: returns masks of length
/// `n * rows` and `n * cols` (true = survives) and each game's number of
/// rounds that removed something.
pub fn irds_batch(
    rows: usize,
    cols: usize,
    payoffs: &[f64],
) -> Result<(Vec<bool>, Vec<bool>, Vec<usize>)> {
    let per_game = rows * cols * 2;
    if per_game == 0 || payoffs.len() % per_game != 0 {
        return Err(Error::invalid(
            "payoffs",
            format!(
                "expected whole {rows}x{cols} games, got {} numbers",
                payoffs.len()
            ),
        ));
    }
    let results: Vec<Irds> = payoffs
        .par_chunks(per_game)
        .enumerate()
        .map(|(i, chunk)| {
            let game = Bimatrix::new(rows, cols, chunk).map_err(|e| e.at_item("game", i))?;
            Ok(iterated_strict_dominance(&game))
        })
        .collect::<Result<_>>()?;
    let n = results.len();
    let (mut row_mask, mut col_mask) = (vec![false; n * rows], vec![false; n * cols]);
    let mut rounds = Vec::with_capacity(n);
    for (i, r) in results.iter().enumerate() {
        r.rows.iter().for_each(|&s| row_mask[i * rows + s] = true);
        r.cols.iter().for_each(|&s| col_mask[i * cols + s] = true);
        rounds.push(r.order.last().map_or(0, |e| e.round + 1));
    }
    Ok((row_mask, col_mask, rounds))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(c: &[(f64, f64)]) -> Vec<f64> {
        c.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    /// The paper's IRDS game: actions K, L, M for both players.
    fn paper_game() -> Vec<f64> {
        cells(&[
            (13., 12.),
            (5., 3.),
            (11., 1.),
            (2., 3.),
            (6., 12.),
            (15., 1.),
            (3., 2.),
            (9., 9.),
            (17., 4.),
        ])
    }

    #[test]
    fn irds_example_from_the_paper() {
        let p = paper_game();
        let g = Bimatrix::new(3, 3, &p).unwrap();
        // Column M is strictly dominated by column L in the original game.
        assert!(dominates_among(
            &g,
            Player::Col,
            1,
            2,
            None,
            Strength::Strict
        ));
        // With column M gone, row L is strictly dominated by row M.
        let no_m = [true, true, false];
        assert!(dominates_among(
            &g,
            Player::Row,
            2,
            1,
            Some(&no_m),
            Strength::Strict
        ));
        let result = iterated_strict_dominance(&g);
        assert_eq!(result.rows, vec![0, 2]); // {K, M}
        assert_eq!(result.cols, vec![0, 1]); // {K, L}
        assert_eq!(result.order.len(), 2);
        assert!(result.order.contains(&Elimination {
            round: 0,
            player: Player::Col,
            strategy: 2,
            dominated_by: 1
        }));
        assert!(result.order.contains(&Elimination {
            round: 0,
            player: Player::Row,
            strategy: 1,
            dominated_by: 2
        }));
    }

    #[test]
    fn removal_can_take_several_rounds() {
        // Row 1 is dominated only once column 1 is gone; column 1 is
        // dominated by column 0 from the start.
        let p = cells(&[(3., 2.), (0., 1.), (1., 2.), (5., 0.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        let r = iterated_strict_dominance(&g);
        assert_eq!((r.rows.clone(), r.cols.clone()), (vec![0], vec![0]));
        let rounds: Vec<(usize, Player, usize)> = r
            .order
            .iter()
            .map(|e| (e.round, e.player, e.strategy))
            .collect();
        assert_eq!(rounds, vec![(0, Player::Col, 1), (1, Player::Row, 1)]);
    }

    #[test]
    fn dominator_survives_its_round() {
        // Row 0 < row 1 < row 2 everywhere: rows 0 and 1 fall in round 0, both
        // attributed to row 2.
        let p = cells(&[(1., 0.), (2., 0.), (3., 0.)]);
        let g = Bimatrix::new(3, 1, &p).unwrap();
        let r = iterated_strict_dominance(&g);
        assert_eq!(r.rows, vec![2]);
        assert!(r.order.iter().all(|e| e.dominated_by == 2 && e.round == 0));
    }

    #[test]
    fn nothing_dominated_means_no_rounds() {
        let p = cells(&[(1., -1.), (-1., 1.), (-1., 1.), (1., -1.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        let r = iterated_strict_dominance(&g);
        assert!(r.order.is_empty());
        assert_eq!((r.rows, r.cols), (vec![0, 1], vec![0, 1]));
    }

    #[test]
    fn batch_masks_and_rounds() {
        let a = paper_game();
        let b = cells(&[
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
            (1., 0.),
        ]);
        let both: Vec<f64> = a.iter().chain(&b).copied().collect();
        let (rm, cm, rounds) = irds_batch(3, 3, &both).unwrap();
        assert_eq!(rm, vec![true, false, true, true, true, true]);
        assert_eq!(cm, vec![true, true, false, true, true, true]);
        assert_eq!(rounds, vec![1, 0]);
        assert!(irds_batch(3, 3, &both[1..]).is_err());
    }
}
