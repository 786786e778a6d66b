//! Infinitely repeated two-player games: feasible and enforceable payoffs,
//! minmax values and grim-trigger discount factors.
//!
//! Feasible payoffs are the convex hull of the stage game's payoff pairs
//! (public randomisation over outcomes). Minmax values are *pure*: the
//! punisher is limited to pure actions, which is what STEER's questions ask
//! and what a reader can check cell by cell; with mixed punishments the
//! minmax can be lower.

use super::normal_form::{Bimatrix, Player};
use super::pure_nash::is_pure_nash;
use crate::error::{Error, Result};

/// Distances below this (relative to the largest payoff) count as on the
/// boundary, so points printed on a hull edge are feasible.
pub const HULL_TOLERANCE: f64 = 1e-9;

fn cross(o: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
}

/// The convex hull of the stage payoff pairs, counter-clockwise, without
/// repeated or collinear points (Andrew's monotone chain).
pub fn feasible_hull(game: &Bimatrix) -> Vec<(f64, f64)> {
    let mut pts: Vec<(f64, f64)> = (0..game.rows())
        .flat_map(|i| (0..game.cols()).map(move |j| (i, j)))
        .map(|(i, j)| {
            (
                game.payoff(i, j, Player::Row),
                game.payoff(i, j, Player::Col),
            )
        })
        .collect();
    pts.sort_by(|a, b| a.partial_cmp(b).expect("payoffs are finite"));
    pts.dedup();
    if pts.len() < 3 {
        return pts;
    }
    let mut hull: Vec<(f64, f64)> = Vec::with_capacity(2 * pts.len());
    for pass in 0..2 {
        let start = hull.len();
        let iter: Box<dyn Iterator<Item = &(f64, f64)>> = if pass == 0 {
            Box::new(pts.iter())
        } else {
            Box::new(pts.iter().rev())
        };
        for &p in iter {
            while hull.len() >= start + 2
                && cross(hull[hull.len() - 2], hull[hull.len() - 1], p) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop();
    }
    hull
}

/// Whether the payoff pair `point` is feasible: inside or on the convex hull
/// of the stage payoffs.
pub fn is_feasible(game: &Bimatrix, point: (f64, f64)) -> Result<bool> {
    if !(point.0.is_finite() && point.1.is_finite()) {
        return Err(Error::invalid("point", "payoffs must be finite"));
    }
    let hull = feasible_hull(game);
    let scale = hull
        .iter()
        .chain([&point])
        .map(|p| p.0.abs().max(p.1.abs()))
        .fold(1.0, f64::max);
    let tol = HULL_TOLERANCE * scale;
    let near = |a: (f64, f64), b: (f64, f64)| (a.0 - b.0).hypot(a.1 - b.1) <= tol;
    Ok(match hull.len() {
        1 => near(hull[0], point),
        2 => {
            // A segment: the point must be on it.
            let (a, b) = (hull[0], hull[1]);
            let len = (b.0 - a.0).hypot(b.1 - a.1);
            let t = ((point.0 - a.0) * (b.0 - a.0) + (point.1 - a.1) * (b.1 - a.1)) / (len * len);
            let t = t.clamp(0.0, 1.0);
            near((a.0 + t * (b.0 - a.0), a.1 + t * (b.1 - a.1)), point)
        }
        k => (0..k).all(|e| {
            let (a, b) = (hull[e], hull[(e + 1) % k]);
            // Signed distance from the edge's line; negative = outside.
            cross(a, b, point) / (b.0 - a.0).hypot(b.1 - a.1) >= -tol
        }),
    })
}

/// Pure minmax value of each player and the opponent action that holds it
/// there.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Minmax {
    /// min over column actions of the row player's best payoff.
    pub row: f64,
    /// The column action that punishes the row player.
    pub row_punished_by: usize,
    /// min over row actions of the column player's best payoff.
    pub col: f64,
    /// The row action that punishes the column player.
    pub col_punished_by: usize,
}

/// Pure minmax values (see the module notes); the lowest-numbered punishing
/// action is reported when several hold a player equally low.
pub fn pure_minmax(game: &Bimatrix) -> Minmax {
    let best = |f: &dyn Fn(usize) -> f64, n: usize| (0..n).map(f).fold(f64::NEG_INFINITY, f64::max);
    let argmin = |v: Vec<f64>| {
        let mut k = 0;
        for (i, &x) in v.iter().enumerate() {
            if x < v[k] {
                k = i;
            }
        }
        (v[k], k)
    };
    let (row, row_punished_by) = argmin(
        (0..game.cols())
            .map(|j| best(&|i| game.payoff(i, j, Player::Row), game.rows()))
            .collect(),
    );
    let (col, col_punished_by) = argmin(
        (0..game.rows())
            .map(|i| best(&|j| game.payoff(i, j, Player::Col), game.cols()))
            .collect(),
    );
    Minmax {
        row,
        row_punished_by,
        col,
        col_punished_by,
    }
}

/// Whether `point` is enforceable: feasible and at least each player's pure
/// minmax value (weakly, within the tie tolerance), so a folk theorem applies
/// for patient enough players.
pub fn is_enforceable(game: &Bimatrix, point: (f64, f64)) -> Result<bool> {
    let mm = pure_minmax(game);
    let at_least = |x: f64, v: f64| x >= v - HULL_TOLERANCE * x.abs().max(v.abs()).max(1.0);
    Ok(is_feasible(game, point)? && at_least(point.0, mm.row) && at_least(point.1, mm.col))
}

/// The grim-trigger verdict for one target outcome.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GrimTrigger {
    /// Smallest discount factor at which neither player gains by deviating
    /// once and being punished forever; `None` when no δ < 1 works.
    pub critical_delta: Option<f64>,
    /// Whether the punishment is a stage Nash equilibrium, without which grim
    /// trigger is not subgame perfect at any δ.
    pub punishment_is_stage_nash: bool,
}

/// The discount factor at which grim trigger sustains the stage outcome
/// `target` = (row, col), reverting forever to `punishment` after any
/// deviation. For each player with best payoff `d` from a *different* action
/// (the opponent keeping to the target), target payoff `u` and punishment
/// payoff `p`, staying is optimal iff `u / (1 − δ) ≥ d + δ p / (1 − δ)`,
/// i.e. `u ≥ (1 − δ) d + δ p`. When `d > u > p` that means
/// `δ ≥ (d − u) / (d − p)`; the critical δ is the largest bound over the two
/// players, and 0 when no one gains by deviating (`d ≤ u`) and the
/// punishment hurts (`p ≤ u`).
///
/// `critical_delta` is `None` when the outcome is not sustained by every δ
/// from some threshold up to 1: when deviating pays and the punishment is no
/// worse than the target (`d > u`, `p ≥ u`), or when the "punishment" is
/// better than the target for a player who can deviate (`p > u`), so that
/// patient players would deviate on purpose.
pub fn grim_trigger(
    game: &Bimatrix,
    target: (usize, usize),
    punishment: (usize, usize),
) -> Result<GrimTrigger> {
    for (field, (r, c)) in [("target", target), ("punishment", punishment)] {
        if r >= game.rows() || c >= game.cols() {
            return Err(Error::invalid(
                field,
                format!(
                    "({r}, {c}) is outside the {}x{} game",
                    game.rows(),
                    game.cols()
                ),
            ));
        }
    }
    let mut critical = Some(0.0f64);
    for player in [Player::Row, Player::Col] {
        let u = game.payoff(target.0, target.1, player);
        let p = game.payoff(punishment.0, punishment.1, player);
        let deviations: Vec<f64> = match player {
            Player::Row => (0..game.rows())
                .filter(|&i| i != target.0)
                .map(|i| game.payoff(i, target.1, player))
                .collect(),
            Player::Col => (0..game.cols())
                .filter(|&j| j != target.1)
                .map(|j| game.payoff(target.0, j, player))
                .collect(),
        };
        let Some(d) = deviations.into_iter().reduce(f64::max) else {
            continue; // a single action: nothing to deviate to
        };
        let slack = HULL_TOLERANCE * d.abs().max(u.abs()).max(p.abs()).max(1.0);
        let gains_now = d > u + slack;
        let punished = p < u - slack;
        let rewarded = p > u + slack;
        critical = match critical {
            Some(c) if gains_now && punished => Some(c.max((d - u) / (d - p))),
            Some(c) if !gains_now && !rewarded => Some(c),
            _ => None,
        };
    }
    Ok(GrimTrigger {
        critical_delta: critical,
        punishment_is_stage_nash: is_pure_nash(game, punishment.0, punishment.1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(c: &[(f64, f64)]) -> Vec<f64> {
        c.iter().flat_map(|&(a, b)| [a, b]).collect()
    }

    #[test]
    fn feasibility_example_from_the_paper() {
        // PD CC (3,3), CD (0,5), DC (5,0), DD (1,1): (3, 2) is feasible.
        let p = cells(&[(3., 3.), (0., 5.), (5., 0.), (1., 1.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        assert!(is_feasible(&g, (3., 2.)).unwrap());
        assert!(is_feasible(&g, (3., 3.)).unwrap()); // a vertex
        assert!(is_feasible(&g, (2.5, 2.5)).unwrap()); // on the edge CD–DC
        assert!(!is_feasible(&g, (3.1, 3.)).unwrap());
        assert!(!is_feasible(&g, (0.5, 0.2)).unwrap()); // below the DD corner
        assert!(!is_feasible(&g, (4., 4.)).unwrap());
        assert_eq!(feasible_hull(&g).len(), 4);
        assert!(is_feasible(&g, (f64::NAN, 0.)).is_err());
    }

    #[test]
    fn enforceability_example_from_the_paper() {
        // PD CC (2,2), CD (-1,3), DC (3,-1), DD (0,0): minmax 0 each, so an
        // average of 2 each is enforceable; grim trigger needs δ ≥ 1/3.
        let p = cells(&[(2., 2.), (-1., 3.), (3., -1.), (0., 0.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        let mm = pure_minmax(&g);
        assert_eq!((mm.row, mm.col), (0., 0.));
        assert_eq!((mm.row_punished_by, mm.col_punished_by), (1, 1));
        assert!(is_enforceable(&g, (2., 2.)).unwrap());
        assert!(is_enforceable(&g, (0., 0.)).unwrap());
        assert!(!is_enforceable(&g, (-0.5, 1.)).unwrap()); // below the row minmax
        assert!(!is_enforceable(&g, (2.5, 2.5)).unwrap()); // infeasible
        let gt = grim_trigger(&g, (0, 0), (1, 1)).unwrap();
        assert!((gt.critical_delta.unwrap() - 1. / 3.).abs() < 1e-12);
        assert!(gt.punishment_is_stage_nash);
    }

    #[test]
    fn trigger_strategy_example_from_the_paper() {
        // HH (4,4), HL (2,6), LH (6,2), LL (3,3): grim trigger on L sustains
        // (H,H) iff δ ≥ 2/3 (at 0.8: 20 vs 6 + 0.8·15 = 18).
        let p = cells(&[(4., 4.), (2., 6.), (6., 2.), (3., 3.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        let gt = grim_trigger(&g, (0, 0), (1, 1)).unwrap();
        assert!((gt.critical_delta.unwrap() - 2. / 3.).abs() < 1e-12);
        assert!(gt.punishment_is_stage_nash);
        let delta: f64 = 0.8;
        assert!(4. / (1. - delta) > 6. + delta * 3. / (1. - delta));
    }

    #[test]
    fn grim_trigger_edge_cases() {
        let p = cells(&[(4., 4.), (2., 6.), (6., 2.), (3., 3.)]);
        let g = Bimatrix::new(2, 2, &p).unwrap();
        // A stage equilibrium needs no patience.
        assert_eq!(
            grim_trigger(&g, (1, 1), (1, 1)).unwrap().critical_delta,
            Some(0.0)
        );
        // Punishing with (H,H), which is better than the target for the
        // deviator, can never deter: no δ works, and it is no stage NE.
        let gt = grim_trigger(&g, (0, 1), (0, 0)).unwrap();
        assert_eq!(gt.critical_delta, None);
        assert!(!gt.punishment_is_stage_nash);
        // No one gains by deviating from (0, 0), but the column player likes
        // the "punishment" (0) better than the target (-1): a patient column
        // player deviates on purpose, so there is no threshold.
        let p = cells(&[(0., -1.), (0., -1.), (0., 0.), (0., 0.)]);
        let g2 = Bimatrix::new(2, 2, &p).unwrap();
        assert_eq!(
            grim_trigger(&g2, (0, 0), (1, 0)).unwrap().critical_delta,
            None
        );
        // With a single action nobody can deviate.
        let one = cells(&[(1., 1.)]);
        let g1 = Bimatrix::new(1, 1, &one).unwrap();
        assert_eq!(
            grim_trigger(&g1, (0, 0), (0, 0)).unwrap().critical_delta,
            Some(0.0)
        );
        assert!(grim_trigger(&g, (2, 0), (1, 1)).is_err());
        assert!(grim_trigger(&g, (0, 0), (1, 5)).is_err());
    }

    #[test]
    fn degenerate_hulls() {
        let same = cells(&[(1., 1.), (1., 1.)]);
        let g = Bimatrix::new(1, 2, &same).unwrap();
        assert!(is_feasible(&g, (1., 1.)).unwrap());
        assert!(!is_feasible(&g, (1., 1.1)).unwrap());
        let line = cells(&[(0., 0.), (1., 1.), (2., 2.)]);
        let g = Bimatrix::new(1, 3, &line).unwrap();
        assert_eq!(feasible_hull(&g).len(), 2);
        assert!(is_feasible(&g, (1.5, 1.5)).unwrap());
        assert!(!is_feasible(&g, (1.5, 1.4)).unwrap());
        assert!(!is_feasible(&g, (2.5, 2.5)).unwrap());
    }
}
