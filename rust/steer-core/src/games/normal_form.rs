//! Two-player games in normal (bimatrix) form.
//!
//! Payoffs are stored row-major as `[row][col][player]`, i.e. a flat slice of
//! length `rows * cols * 2`, which is exactly the memory layout of a C-ordered
//! numpy array of shape `(rows, cols, 2)`.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Which player's strategies are meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Player {
    Row = 0,
    Col = 1,
}

impl Player {
    pub fn from_index(index: usize) -> Result<Self> {
        match index {
            0 => Ok(Player::Row),
            1 => Ok(Player::Col),
            other => Err(Error::invalid(
                "player",
                format!("must be 0 (row) or 1 (column), got {other}"),
            )),
        }
    }
}

/// Payoffs within this distance of the best (scaled by its magnitude) count as
/// tied, so decimal payoffs that print equal are not split by rounding noise.
pub const TIE_TOLERANCE: f64 = 1e-9;

/// A borrowed view of one bimatrix game.
#[derive(Debug, Clone, Copy)]
pub struct Bimatrix<'a> {
    rows: usize,
    cols: usize,
    payoffs: &'a [f64],
}

impl<'a> Bimatrix<'a> {
    pub fn new(rows: usize, cols: usize, payoffs: &'a [f64]) -> Result<Self> {
        if rows == 0 || cols == 0 {
            return Err(Error::invalid(
                "payoffs",
                format!("a game needs at least one action per player, got {rows}x{cols}"),
            ));
        }
        if payoffs.len() != rows * cols * 2 {
            return Err(Error::invalid(
                "payoffs",
                format!(
                    "expected {} numbers for a {rows}x{cols} game, got {}",
                    rows * cols * 2,
                    payoffs.len()
                ),
            ));
        }
        if let Some(pos) = payoffs.iter().position(|p| !p.is_finite()) {
            return Err(Error::invalid(
                "payoffs",
                format!("payoff {} is not finite ({})", pos, payoffs[pos]),
            ));
        }
        Ok(Bimatrix {
            rows,
            cols,
            payoffs,
        })
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The payoffs as stored: `[row][col][player]`, row-major.
    pub fn as_slice(&self) -> &'a [f64] {
        self.payoffs
    }

    /// Number of actions available to `player`.
    pub fn actions(&self, player: Player) -> usize {
        match player {
            Player::Row => self.rows,
            Player::Col => self.cols,
        }
    }

    /// Payoff to `player` when row plays `row` and column plays `col`.
    pub fn payoff(&self, row: usize, col: usize, player: Player) -> f64 {
        self.payoffs[(row * self.cols + col) * 2 + player as usize]
    }

    /// All best responses of `player` to the opponent's pure action `against`,
    /// in increasing action order (more than one when payoffs tie).
    pub fn best_responses(&self, player: Player, against: usize) -> Result<Vec<usize>> {
        let opponent_actions = match player {
            Player::Row => self.cols,
            Player::Col => self.rows,
        };
        if against >= opponent_actions {
            return Err(Error::invalid(
                "against",
                format!("opponent has {opponent_actions} actions, got action {against}"),
            ));
        }
        let value = |action: usize| match player {
            Player::Row => self.payoff(action, against, player),
            Player::Col => self.payoff(against, action, player),
        };
        let n = self.actions(player);
        let best = (0..n).map(value).fold(f64::NEG_INFINITY, f64::max);
        let slack = TIE_TOLERANCE * best.abs().max(1.0);
        Ok((0..n).filter(|&a| value(a) >= best - slack).collect())
    }
}

/// Best responses for many games of the same shape at once.
///
/// `payoffs` holds `n` games back to back (each `rows * cols * 2` numbers),
/// `against[i]` is the opponent's action in game `i`. Returns a row-major
/// `n x actions(player)` mask, true where the action is a best response.
pub fn best_response_batch(
    rows: usize,
    cols: usize,
    payoffs: &[f64],
    player: Player,
    against: &[usize],
) -> Result<Vec<bool>> {
    let per_game = rows * cols * 2;
    if per_game == 0 || payoffs.len() != per_game * against.len() {
        return Err(Error::invalid(
            "payoffs",
            format!(
                "expected {} games of {rows}x{cols} ({} numbers), got {} numbers",
                against.len(),
                per_game * against.len(),
                payoffs.len()
            ),
        ));
    }
    let k = match player {
        Player::Row => rows,
        Player::Col => cols,
    };
    let mut mask = vec![false; k * against.len()];
    mask.par_chunks_mut(k)
        .zip(payoffs.par_chunks(per_game))
        .zip(against.par_iter())
        .enumerate()
        .try_for_each(|(i, ((out, game), &a))| -> Result<()> {
            let game = Bimatrix::new(rows, cols, game).map_err(|e| at_game(e, i))?;
            for action in game.best_responses(player, a).map_err(|e| at_game(e, i))? {
                out[action] = true;
            }
            Ok(())
        })?;
    Ok(mask)
}

fn at_game(error: Error, index: usize) -> Error {
    match error {
        Error::InvalidInput { field, message } => Error::InvalidInput {
            field,
            message: format!("game {index}: {message}"),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(cells: &[(f64, f64)], rows: usize, cols: usize) -> Vec<f64> {
        assert_eq!(cells.len(), rows * cols);
        cells.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    #[test]
    fn spend_example_from_the_paper() {
        // Spend/Don't Spend: (5,5) (10,0) / (0,10) (3,3). Against "don't spend"
        // (column 1) the row player's best response is to spend (10 > 3).
        let p = game(&[(5., 5.), (10., 0.), (0., 10.), (3., 3.)], 2, 2);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(g.best_responses(Player::Row, 1).unwrap(), vec![0]);
        assert_eq!(g.best_responses(Player::Col, 1).unwrap(), vec![0]);
        assert_eq!(g.payoff(1, 0, Player::Col), 10.0);
    }

    #[test]
    fn ties_are_all_reported() {
        let p = game(&[(1., 0.), (2., 1.), (1., 0.), (2., 1.)], 2, 2);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(g.best_responses(Player::Row, 1).unwrap(), vec![0, 1]);
        assert_eq!(g.best_responses(Player::Col, 0).unwrap(), vec![1]);
    }

    #[test]
    fn decimal_noise_counts_as_a_tie() {
        let p = game(&[(0.1 + 0.2, 0.), (0.3, 0.)], 2, 1);
        let g = Bimatrix::new(2, 1, &p).unwrap();
        assert_eq!(g.best_responses(Player::Row, 0).unwrap(), vec![0, 1]);
    }

    #[test]
    fn bad_shapes_and_values_are_rejected() {
        assert!(Bimatrix::new(0, 2, &[]).is_err());
        assert!(Bimatrix::new(2, 2, &[0.0; 7]).is_err());
        let mut p = vec![0.0; 8];
        p[3] = f64::NAN;
        let err = Bimatrix::new(2, 2, &p).unwrap_err();
        assert!(err.to_string().contains("payoff 3 is not finite"), "{err}");
        let g_payoffs = vec![0.0; 8];
        let g = Bimatrix::new(2, 2, &g_payoffs).unwrap();
        assert!(g.best_responses(Player::Row, 2).is_err());
        assert!(Player::from_index(2).is_err());
    }

    #[test]
    fn batch_matches_one_at_a_time() {
        let a = game(&[(5., 5.), (10., 0.), (0., 10.), (3., 3.)], 2, 2);
        let b = game(&[(1., 4.), (2., 3.), (3., 2.), (0., 1.)], 2, 2);
        let both: Vec<f64> = a.iter().chain(b.iter()).copied().collect();
        let mask = best_response_batch(2, 2, &both, Player::Row, &[0, 1]).unwrap();
        assert_eq!(mask, vec![true, false, true, false]);
        let mask = best_response_batch(2, 2, &both, Player::Col, &[1, 0]).unwrap();
        assert_eq!(mask, vec![true, false, true, false]);
        let err = best_response_batch(2, 2, &both, Player::Row, &[0, 5]).unwrap_err();
        assert!(err.to_string().contains("game 1"), "{err}");
        assert!(best_response_batch(2, 2, &both, Player::Row, &[0]).is_err());
    }
}
