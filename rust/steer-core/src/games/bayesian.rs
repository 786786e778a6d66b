//! Simple Bayesian games: two players, a few types each, a common prior over
//! type pairs, and a bimatrix stage game for every type pair.
//!
//! Strategies are pure and type-contingent (one action per own type). A type
//! evaluates an action by its expected payoff over the opponent's types,
//! conditioned on its own type with Bayes' rule on the common prior.

use super::normal_form::{Player, TIE_TOLERANCE};
use crate::error::{Error, Result};

/// A borrowed, validated Bayesian game.
#[derive(Debug, Clone, Copy)]
pub struct BayesianGame<'a> {
    /// Number of types of the row and column player.
    pub types: (usize, usize),
    /// Number of actions of the row and column player.
    pub actions: (usize, usize),
    /// `types.0 x types.1`: the common prior over type pairs.
    prior: &'a [f64],
    /// `[row type][col type][row action][col action][player]`.
    payoffs: &'a [f64],
}

/// One player's best responses to the opponent's type-contingent strategy.
#[derive(Debug, Clone, PartialEq)]
pub struct BayesBestResponse {
    /// `own types x own actions`: each type's expected payoff of each action.
    pub expected: Vec<f64>,
    /// For each own type, its best actions (ties within the tie tolerance).
    pub best: Vec<Vec<usize>>,
}

impl<'a> BayesianGame<'a> {
    pub fn new(
        types: (usize, usize),
        actions: (usize, usize),
        prior: &'a [f64],
        payoffs: &'a [f64],
    ) -> Result<Self> {
        if types.0 == 0 || types.1 == 0 || actions.0 == 0 || actions.1 == 0 {
            return Err(Error::invalid(
                "payoffs",
                "every player needs at least one type and one action",
            ));
        }
        if prior.len() != types.0 * types.1 {
            return Err(Error::invalid(
                "prior",
                format!(
                    "expected {} x {} probabilities, got {}",
                    types.0,
                    types.1,
                    prior.len()
                ),
            ));
        }
        if prior.iter().any(|p| !(p.is_finite() && *p >= 0.0)) {
            return Err(Error::invalid(
                "prior",
                "probabilities must be finite and >= 0",
            ));
        }
        let total: f64 = prior.iter().sum();
        if (total - 1.0).abs() > 1e-9 {
            return Err(Error::invalid("prior", format!("sums to {total}, not 1")));
        }
        let marginal = |t: usize, player: Player| -> f64 {
            match player {
                Player::Row => prior[t * types.1..(t + 1) * types.1].iter().sum(),
                Player::Col => (0..types.0).map(|r| prior[r * types.1 + t]).sum(),
            }
        };
        for (player, n) in [(Player::Row, types.0), (Player::Col, types.1)] {
            if let Some(t) = (0..n).find(|&t| marginal(t, player) <= 0.0) {
                return Err(Error::invalid(
                    "prior",
                    format!(
                        "{} type {t} has probability 0, so its beliefs are undefined",
                        if player == Player::Row {
                            "row"
                        } else {
                            "column"
                        }
                    ),
                ));
            }
        }
        let expect = types.0 * types.1 * actions.0 * actions.1 * 2;
        if payoffs.len() != expect {
            return Err(Error::invalid(
                "payoffs",
                format!("expected {expect} numbers, got {}", payoffs.len()),
            ));
        }
        if payoffs.iter().any(|p| !p.is_finite()) {
            return Err(Error::invalid("payoffs", "payoffs must be finite"));
        }
        Ok(BayesianGame {
            types,
            actions,
            prior,
            payoffs,
        })
    }

    fn payoff(&self, tr: usize, tc: usize, ar: usize, ac: usize, player: Player) -> f64 {
        let (na, nb) = self.actions;
        self.payoffs[((((tr * self.types.1 + tc) * na + ar) * nb + ac) * 2) + player as usize]
    }

    /// Best responses of every type of `player` to the opponent's pure
    /// type-contingent strategy `opponent` (one action per opponent type).
    pub fn best_responses(&self, player: Player, opponent: &[usize]) -> Result<BayesBestResponse> {
        let (own_types, opp_types, own_actions, opp_actions) = match player {
            Player::Row => (self.types.0, self.types.1, self.actions.0, self.actions.1),
            Player::Col => (self.types.1, self.types.0, self.actions.1, self.actions.0),
        };
        if opponent.len() != opp_types {
            return Err(Error::invalid(
                "strategy",
                format!("expected one action for each of {opp_types} opponent types"),
            ));
        }
        if let Some(t) = (0..opp_types).find(|&t| opponent[t] >= opp_actions) {
            return Err(Error::invalid(
                "strategy",
                format!(
                    "opponent type {t} plays action {} of {opp_actions}",
                    opponent[t]
                ),
            ));
        }
        let mut expected = vec![0.0; own_types * own_actions];
        let mut best = Vec::with_capacity(own_types);
        for t in 0..own_types {
            let joint = |o: usize| match player {
                Player::Row => self.prior[t * self.types.1 + o],
                Player::Col => self.prior[o * self.types.1 + t],
            };
            let marginal: f64 = (0..opp_types).map(joint).sum();
            let row = &mut expected[t * own_actions..(t + 1) * own_actions];
            for (a, slot) in row.iter_mut().enumerate() {
                *slot = (0..opp_types)
                    .map(|o| {
                        let u = match player {
                            Player::Row => self.payoff(t, o, a, opponent[o], player),
                            Player::Col => self.payoff(o, t, opponent[o], a, player),
                        };
                        joint(o) / marginal * u
                    })
                    .sum();
            }
            let top = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let cut = top - TIE_TOLERANCE * top.abs().max(1.0);
            best.push((0..own_actions).filter(|&a| row[a] >= cut).collect());
        }
        Ok(BayesBestResponse { expected, best })
    }

    /// All pure Bayes–Nash equilibria as (row strategy, column strategy),
    /// each a list of actions by type, found by checking every profile.
    pub fn pure_equilibria(&self) -> Result<Vec<(Vec<usize>, Vec<usize>)>> {
        let profiles = |types: usize, actions: usize| -> Result<Vec<Vec<usize>>> {
            let count = (actions as u128)
                .checked_pow(types as u32)
                .unwrap_or(u128::MAX);
            if count > 1 << 16 {
                return Err(Error::Unsolvable(format!(
                    "{count} type-contingent strategies are too many to enumerate"
                )));
            }
            Ok((0..count as usize)
                .map(|mut k| {
                    (0..types)
                        .map(|_| {
                            let a = k % actions;
                            k /= actions;
                            a
                        })
                        .collect()
                })
                .collect())
        };
        let rows = profiles(self.types.0, self.actions.0)?;
        let cols = profiles(self.types.1, self.actions.1)?;
        let mut found = Vec::new();
        for c in &cols {
            let br_row = self.best_responses(Player::Row, c)?;
            for r in &rows {
                if !(0..self.types.0).all(|t| br_row.best[t].contains(&r[t])) {
                    continue;
                }
                let br_col = self.best_responses(Player::Col, r)?;
                if (0..self.types.1).all(|t| br_col.best[t].contains(&c[t])) {
                    found.push((r.clone(), c.clone()));
                }
            }
        }
        found.sort();
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Row has one type; column is "likes company" (prob 1/2) or "avoids"
    /// (1/2). Actions: Go (0) or Stay (1). Row gets 2 if both go, 0 if it
    /// goes alone and 1 for staying. Column of type 0 gets 1 when matching
    /// Row, type 1 gets 1 when mismatching.
    fn meeting() -> (Vec<f64>, Vec<f64>) {
        let prior = vec![0.5, 0.5];
        let mut payoffs = vec![0.0; 2 * 2 * 2 * 2];
        let at = |tc: usize, ar: usize, ac: usize, p: usize| (((tc * 2 + ar) * 2 + ac) * 2) + p;
        for tc in 0..2 {
            for ar in 0..2 {
                for ac in 0..2 {
                    payoffs[at(tc, ar, ac, 0)] = match (ar, ac) {
                        (0, 0) => 2.0,
                        (0, 1) => 0.0,
                        _ => 1.0,
                    };
                    let matched = ar == ac;
                    payoffs[at(tc, ar, ac, 1)] = f64::from(u8::from(matched == (tc == 0)));
                }
            }
        }
        (prior, payoffs)
    }

    #[test]
    fn expected_payoffs_average_over_opponent_types() {
        let (prior, payoffs) = meeting();
        let g = BayesianGame::new((1, 2), (2, 2), &prior, &payoffs).unwrap();
        // Column types play (Go, Stay): Go earns 0.5·2 + 0.5·0 = 1 = Stay.
        let br = g.best_responses(Player::Row, &[0, 1]).unwrap();
        assert_eq!(br.expected, vec![1.0, 1.0]);
        assert_eq!(br.best, vec![vec![0, 1]]);
        // Both column types go: Go earns 2.
        let br = g.best_responses(Player::Row, &[0, 0]).unwrap();
        assert_eq!(br.best, vec![vec![0]]);
        // Column types best-respond to Row going: type 0 goes, type 1 stays.
        let br = g.best_responses(Player::Col, &[0]).unwrap();
        assert_eq!(br.best, vec![vec![0], vec![1]]);
        let eq = g.pure_equilibria().unwrap();
        assert!(eq.contains(&(vec![0], vec![0, 1])));
        assert!(eq.contains(&(vec![1], vec![1, 0])));
        assert_eq!(eq.len(), 2);
    }

    #[test]
    fn conditioning_uses_the_common_prior() {
        // Two types each; prior correlated: P(0,0) = .4, P(0,1) = .1,
        // P(1,0) = .1, P(1,1) = .4. Row type 0 believes column type 0 with
        // probability .8. Row's payoff is 10 for action 0 when the column's
        // type is 0 (any action), else 0; action 1 pays 7 always.
        let prior = [0.4, 0.1, 0.1, 0.4];
        let mut payoffs = vec![0.0; 2 * 2 * 2 * 2 * 2];
        for tr in 0..2 {
            for tc in 0..2 {
                for ac in 0..2 {
                    let base = ((tr * 2 + tc) * 2) * 2 * 2;
                    payoffs[base + ac * 2] = if tc == 0 { 10.0 } else { 0.0 };
                    payoffs[base + (2 + ac) * 2] = 7.0;
                }
            }
        }
        let g = BayesianGame::new((2, 2), (2, 2), &prior, &payoffs).unwrap();
        let br = g.best_responses(Player::Row, &[1, 1]).unwrap();
        assert!((br.expected[0] - 8.0).abs() < 1e-12); // type 0: .8·10
        assert!((br.expected[2] - 2.0).abs() < 1e-12); // type 1: .2·10
        assert_eq!(br.best, vec![vec![0], vec![1]]);
    }

    #[test]
    fn bad_games_and_strategies_are_rejected() {
        let (prior, payoffs) = meeting();
        assert!(BayesianGame::new((1, 2), (2, 2), &[0.5, 0.6], &payoffs).is_err());
        assert!(BayesianGame::new((1, 2), (2, 2), &[1.0, 0.0], &payoffs)
            .unwrap_err()
            .to_string()
            .contains("column type 1"));
        assert!(BayesianGame::new((1, 2), (2, 2), &prior, &payoffs[1..]).is_err());
        assert!(BayesianGame::new((0, 2), (2, 2), &prior, &payoffs).is_err());
        assert!(BayesianGame::new((2, 2), (2, 2), &prior, &payoffs).is_err());
        let mut bad = payoffs.clone();
        bad[3] = f64::NAN;
        assert!(BayesianGame::new((1, 2), (2, 2), &prior, &bad).is_err());
        let g = BayesianGame::new((1, 2), (2, 2), &prior, &payoffs).unwrap();
        assert!(g.best_responses(Player::Row, &[0]).is_err());
        assert!(g.best_responses(Player::Row, &[0, 2]).is_err());
        assert!(BayesianGame::new((1, 2), (2, 2), &[-0.5, 1.5], &payoffs).is_err());
    }
}
