//! Dominance between the pure strategies of a bimatrix game.
//!
//! Only domination by another *pure* strategy is checked. A strategy can be
//! strictly dominated by a mixture without being dominated by any single
//! strategy (deciding that needs a linear program); STEER's dominance questions
//! compare named actions, so the pure notion is the one whose answer a reader
//! can check by comparing rows.
//!
//! Payoffs within [`TIE_TOLERANCE`] (relative) count as equal, exactly as in
//! best responses, so "strictly better" never rests on rounding noise.

use super::normal_form::{Bimatrix, Player, TIE_TOLERANCE};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Strict: better against every opponent action. Weak: at least as good
/// against every opponent action and better against at least one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Strength {
    Strict,
    Weak,
}

/// `player`'s payoff from playing `own` against the opponent's `opp`.
pub(crate) fn own_payoff(game: &Bimatrix, player: Player, own: usize, opp: usize) -> f64 {
    match player {
        Player::Row => game.payoff(own, opp, player),
        Player::Col => game.payoff(opp, own, player),
    }
}

fn opponent_actions(game: &Bimatrix, player: Player) -> usize {
    match player {
        Player::Row => game.cols(),
        Player::Col => game.rows(),
    }
}

/// Whether `player`'s strategy `a` dominates `b` when the opponent is limited
/// to the actions where `opp_alive` is true (all of them when `None`; IRDS
/// passes the survivors). With no opponent action left nothing dominates.
pub fn dominates_among(
    game: &Bimatrix,
    player: Player,
    a: usize,
    b: usize,
    opp_alive: Option<&[bool]>,
    strength: Strength,
) -> bool {
    if a == b {
        return false;
    }
    let mut any_opponent = false;
    let mut better_somewhere = false;
    for opp in 0..opponent_actions(game, player) {
        if opp_alive.is_some_and(|alive| !alive[opp]) {
            continue;
        }
        any_opponent = true;
        let (ua, ub) = (
            own_payoff(game, player, a, opp),
            own_payoff(game, player, b, opp),
        );
        let slack = TIE_TOLERANCE * ua.abs().max(ub.abs()).max(1.0);
        let better = ua > ub + slack;
        let worse = ua < ub - slack;
        match strength {
            Strength::Strict if !better => return false,
            Strength::Weak if worse => return false,
            _ => better_somewhere |= better,
        }
    }
    any_opponent && better_somewhere
}

/// Whether `player`'s strategy `a` dominates `b` in the whole game.
pub fn dominates(game: &Bimatrix, player: Player, a: usize, b: usize, strength: Strength) -> bool {
    dominates_among(game, player, a, b, None, strength)
}

/// For each of `player`'s strategies, the lowest-numbered strategy that
/// dominates it, or `None` when no pure strategy does.
pub fn dominators(game: &Bimatrix, player: Player, strength: Strength) -> Vec<Option<usize>> {
    let n = game.actions(player);
    (0..n)
        .map(|b| (0..n).find(|&a| dominates(game, player, a, b, strength)))
        .collect()
}

/// `player`'s dominated strategies, in increasing order.
pub fn dominated_strategies(game: &Bimatrix, player: Player, strength: Strength) -> Vec<usize> {
    dominators(game, player, strength)
        .iter()
        .enumerate()
        .filter_map(|(s, by)| by.map(|_| s))
        .collect()
}

/// The strategy of `player` that dominates every other one, if any. Under
/// either strength it is unique when it exists. A player with a single action
/// has that action as a (vacuously) dominant strategy.
pub fn dominant_strategy(game: &Bimatrix, player: Player, strength: Strength) -> Option<usize> {
    let n = game.actions(player);
    (0..n).find(|&a| (0..n).all(|b| b == a || dominates(game, player, a, b, strength)))
}

/// Dominance facts for a batch of games (see [`dominance_batch`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DominanceBatch {
    /// `n x actions(player)`, row-major: [`dominators`] of each game.
    pub dominators: Vec<Option<usize>>,
    /// [`dominant_strategy`] of each game.
    pub dominant: Vec<Option<usize>>,
}

/// Dominators and dominant strategies for many games of one shape: `payoffs`
/// holds `n` games back to back.
pub fn dominance_batch(
    rows: usize,
    cols: usize,
    payoffs: &[f64],
    player: Player,
    strength: Strength,
) -> Result<DominanceBatch> {
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
    let k = match player {
        Player::Row => rows,
        Player::Col => cols,
    };
    let per: Vec<(Vec<Option<usize>>, Option<usize>)> = payoffs
        .par_chunks(per_game)
        .enumerate()
        .map(|(i, chunk)| {
            let game = Bimatrix::new(rows, cols, chunk).map_err(|e| e.at_item("game", i))?;
            Ok((
                dominators(&game, player, strength),
                dominant_strategy(&game, player, strength),
            ))
        })
        .collect::<Result<_>>()?;
    let mut table = Vec::with_capacity(per.len() * k);
    let mut dominant = Vec::with_capacity(per.len());
    for (by, best) in per {
        table.extend(by);
        dominant.push(best);
    }
    Ok(DominanceBatch {
        dominators: table,
        dominant,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(c: &[(f64, f64)]) -> Vec<f64> {
        c.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    #[test]
    fn dominant_strategy_example_from_the_paper() {
        // Columns X, Y: (5,10) (4,5) / (0,3) (8,-3): column X strictly
        // dominates column Y (10 > 5, 3 > -3).
        let p = cells(&[(5., 10.), (4., 5.), (0., 3.), (8., -3.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(
            dominant_strategy(&g, Player::Col, Strength::Strict),
            Some(0)
        );
        assert_eq!(
            dominated_strategies(&g, Player::Col, Strength::Strict),
            vec![1]
        );
        assert_eq!(dominant_strategy(&g, Player::Row, Strength::Strict), None);
        assert_eq!(dominant_strategy(&g, Player::Row, Strength::Weak), None);
    }

    #[test]
    fn dominated_strategy_example_from_the_paper() {
        // (93.08, 31.13) (74.93, 4) / (0.34, 83.31) (-75.94, 24.88): row Y is
        // strictly dominated by row X.
        let p = cells(&[(93.08, 31.13), (74.93, 4.), (0.34, 83.31), (-75.94, 24.88)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(
            dominators(&g, Player::Row, Strength::Strict),
            vec![None, Some(0)]
        );
        assert_eq!(
            dominant_strategy(&g, Player::Row, Strength::Strict),
            Some(0)
        );
        assert!(dominates(&g, Player::Row, 0, 1, Strength::Weak));
        assert!(!dominates(&g, Player::Row, 1, 0, Strength::Weak));
    }

    #[test]
    fn weak_needs_one_strict_improvement_and_ties_are_not_strict() {
        // Row 0 ties row 1 against column 0 and beats it against column 1.
        let p = cells(&[(1., 0.), (3., 0.), (1., 0.), (2., 0.), (1., 0.), (3., 0.)]);
        let g = Bimatrix::new(3, 2, &p).unwrap();
        assert!(dominates(&g, Player::Row, 0, 1, Strength::Weak));
        assert!(!dominates(&g, Player::Row, 0, 1, Strength::Strict));
        // Identical rows 0 and 2 do not dominate each other, so no row is
        // weakly dominant.
        assert!(!dominates(&g, Player::Row, 0, 2, Strength::Weak));
        assert_eq!(dominant_strategy(&g, Player::Row, Strength::Weak), None);
        assert_eq!(
            dominated_strategies(&g, Player::Row, Strength::Weak),
            vec![1]
        );
        // The column player is indifferent everywhere: nothing is dominated.
        assert!(dominated_strategies(&g, Player::Col, Strength::Weak).is_empty());
        assert!(!dominates(&g, Player::Row, 0, 0, Strength::Weak));
    }

    #[test]
    fn rounding_noise_is_a_tie() {
        let p = cells(&[(0.1 + 0.2, 0.), (0.3, 0.)]);
        let g = Bimatrix::new(2, 1, &p).unwrap();
        assert!(!dominates(&g, Player::Row, 0, 1, Strength::Strict));
        assert!(!dominates(&g, Player::Row, 0, 1, Strength::Weak));
    }

    #[test]
    fn restricted_opponents_and_single_actions() {
        let p = cells(&[(2., 0.), (0., 0.), (1., 0.), (5., 0.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert!(!dominates(&g, Player::Row, 0, 1, Strength::Strict));
        let only_first = [true, false];
        assert!(dominates_among(
            &g,
            Player::Row,
            0,
            1,
            Some(&only_first),
            Strength::Strict
        ));
        assert!(!dominates_among(
            &g,
            Player::Row,
            0,
            1,
            Some(&[false, false]),
            Strength::Weak
        ));
        let single = cells(&[(1., 0.), (2., 0.)]);
        let g = Bimatrix::new(1, 2, &single).unwrap();
        assert_eq!(
            dominant_strategy(&g, Player::Row, Strength::Strict),
            Some(0)
        );
    }

    #[test]
    fn batch_matches_one_at_a_time() {
        let a = cells(&[(5., 10.), (4., 5.), (0., 3.), (8., -3.)]);
        let b = cells(&[(93.08, 31.13), (74.93, 4.), (0.34, 83.31), (-75.94, 24.88)]);
        let both: Vec<f64> = a.iter().chain(&b).copied().collect();
        let batch = dominance_batch(2, 2, &both, Player::Row, Strength::Strict).unwrap();
        assert_eq!(batch.dominators, vec![None, None, None, Some(0)]);
        assert_eq!(batch.dominant, vec![None, Some(0)]);
        let batch = dominance_batch(2, 2, &both, Player::Col, Strength::Strict).unwrap();
        assert_eq!(batch.dominators, vec![None, Some(0), None, Some(0)]);
        assert!(dominance_batch(2, 2, &both[..7], Player::Row, Strength::Weak).is_err());
        let mut bad = both.clone();
        bad[9] = f64::NAN;
        let err = dominance_batch(2, 2, &bad, Player::Row, Strength::Weak).unwrap_err();
        assert!(err.to_string().contains("game 1"), "{err}");
    }
}
