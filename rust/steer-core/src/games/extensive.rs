//! Extensive-form games with perfect information: backward induction and the
//! subgame-perfect equilibrium it selects.
//!
//! The tree is given as flat arrays so Python can fill it with plain lists:
//! node 0 is the root and every other node names its parent, which must have a
//! smaller index. A node's children are the nodes naming it as parent, in
//! index order (that order numbers its actions). Nodes without children are
//! terminal and carry one payoff per player; every other node names the player
//! who moves there.
//!
//! Ties: when the mover is indifferent (within [`TIE_TOLERANCE`]) between
//! several children, the lowest-numbered one is chosen and the node is flagged
//! `tied`, so a question generator can reject or reword ambiguous trees.

use super::normal_form::TIE_TOLERANCE;
use crate::error::{Error, Result};

/// A borrowed, validated game tree.
#[derive(Debug, Clone)]
pub struct GameTree<'a> {
    players: usize,
    mover: &'a [Option<usize>],
    payoffs: &'a [f64],
    /// CSR lists of children: node `v`'s children are
    /// `children[first[v]..first[v + 1]]`.
    first: Vec<usize>,
    children: Vec<usize>,
}

/// The backward-induction solution.
#[derive(Debug, Clone, PartialEq)]
pub struct BackwardInduction {
    /// `nodes x players`: the payoffs reached from each node when everyone
    /// follows the equilibrium below it.
    pub values: Vec<f64>,
    /// The child chosen at each decision node (`None` at terminals): the
    /// subgame-perfect strategy profile, off the equilibrium path too.
    pub choice: Vec<Option<usize>>,
    /// True where the mover had more than one optimal child.
    pub tied: Vec<bool>,
    /// The equilibrium path: the root, then each chosen node down to a leaf.
    pub path: Vec<usize>,
}

impl<'a> GameTree<'a> {
    /// `parent[v]` is `None` only for the root (node 0); `mover[v]` is the
    /// player at decision node `v` and `None` at terminals; `payoffs` is
    /// `nodes x players`, read at terminals only.
    pub fn new(
        parent: &[Option<usize>],
        mover: &'a [Option<usize>],
        payoffs: &'a [f64],
        players: usize,
    ) -> Result<Self> {
        let n = parent.len();
        if n == 0 {
            return Err(Error::invalid("parent", "a tree needs at least a root"));
        }
        if players == 0 {
            return Err(Error::invalid(
                "payoffs",
                "a game needs at least one player",
            ));
        }
        if mover.len() != n {
            return Err(Error::invalid(
                "player",
                format!("{} entries for {n} nodes", mover.len()),
            ));
        }
        if payoffs.len() != n * players {
            return Err(Error::invalid(
                "payoffs",
                format!("expected {n} x {players} numbers, got {}", payoffs.len()),
            ));
        }
        let (first, children) = children_of(parent)?;
        for v in 0..n {
            let terminal = first[v] == first[v + 1];
            match (terminal, mover[v]) {
                (true, None) => {
                    let row = &payoffs[v * players..(v + 1) * players];
                    if row.iter().any(|x| !x.is_finite()) {
                        return Err(Error::invalid(
                            "payoffs",
                            format!("terminal node {v} has a payoff that is not finite"),
                        ));
                    }
                }
                (true, Some(_)) => {
                    return Err(Error::invalid(
                        "player",
                        format!("node {v} has no children, so it is terminal and has no mover"),
                    ))
                }
                (false, None) => {
                    return Err(Error::invalid(
                        "player",
                        format!("decision node {v} needs a player"),
                    ))
                }
                (false, Some(i)) if i >= players => {
                    return Err(Error::invalid(
                        "player",
                        format!("node {v}: player {i} but the game has {players} players"),
                    ))
                }
                (false, Some(_)) => {}
            }
        }
        Ok(GameTree {
            players,
            mover,
            payoffs,
            first,
            children,
        })
    }

    pub fn nodes(&self) -> usize {
        self.mover.len()
    }

    /// The children of `node`, in action order.
    pub fn children(&self, node: usize) -> &[usize] {
        &self.children[self.first[node]..self.first[node + 1]]
    }

    /// Backward induction: solve every subgame from the leaves up. Parents
    /// precede children, so one pass in reverse index order suffices.
    pub fn backward_induction(&self) -> BackwardInduction {
        let (n, k) = (self.nodes(), self.players);
        let mut values = vec![0.0; n * k];
        let mut choice = vec![None; n];
        let mut tied = vec![false; n];
        for v in (0..n).rev() {
            let Some(i) = self.mover[v] else {
                values[v * k..(v + 1) * k].copy_from_slice(&self.payoffs[v * k..(v + 1) * k]);
                continue;
            };
            let kids = self.children(v);
            let best = kids
                .iter()
                .map(|&c| values[c * k + i])
                .fold(f64::NEG_INFINITY, f64::max);
            let cut = best - TIE_TOLERANCE * best.abs().max(1.0);
            let optimal: Vec<usize> = kids
                .iter()
                .copied()
                .filter(|&c| values[c * k + i] >= cut)
                .collect();
            let pick = optimal[0];
            tied[v] = optimal.len() > 1;
            choice[v] = Some(pick);
            values.copy_within(pick * k..(pick + 1) * k, v * k);
        }
        let mut path = vec![0];
        while let Some(next) = choice[*path.last().unwrap()] {
            path.push(next);
        }
        BackwardInduction {
            values,
            choice,
            tied,
            path,
        }
    }
}

/// Children lists (CSR: node `v`'s children are `children[first[v]..first[v + 1]]`,
/// in index order) of a tree whose node 0 is the root and whose parents come
/// before their children; shared with [`super::sequential`].
pub(crate) fn children_of(parent: &[Option<usize>]) -> Result<(Vec<usize>, Vec<usize>)> {
    let n = parent.len();
    if n == 0 {
        return Err(Error::invalid("parent", "a tree needs at least a root"));
    }
    if parent[0].is_some() {
        return Err(Error::invalid(
            "parent",
            "node 0 is the root and has no parent",
        ));
    }
    let mut count = vec![0usize; n + 1];
    for (v, p) in parent.iter().enumerate().skip(1) {
        match *p {
            Some(p) if p < v => count[p + 1] += 1,
            Some(p) => {
                return Err(Error::invalid(
                    "parent",
                    format!("node {v} names parent {p}; parents must come before children"),
                ))
            }
            None => {
                return Err(Error::invalid(
                    "parent",
                    format!("node {v} has no parent; only node 0 may be the root"),
                ))
            }
        }
    }
    for v in 0..n {
        count[v + 1] += count[v];
    }
    let first = count.clone();
    let mut next = count;
    let mut children = vec![0; n.saturating_sub(1)];
    for (v, p) in parent.iter().enumerate().skip(1) {
        let p = p.expect("checked above");
        children[next[p]] = v;
        next[p] += 1;
    }
    Ok((first, children))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entry game: the entrant (player 0) stays out (0, 2) or enters; the
    /// incumbent (player 1) then fights (-1, -1) or accommodates (1, 1).
    fn entry_game() -> (Vec<Option<usize>>, Vec<Option<usize>>, Vec<f64>) {
        let parent = vec![None, Some(0), Some(0), Some(2), Some(2)];
        let mover = vec![Some(0), None, Some(1), None, None];
        let payoffs = vec![0., 0., 0., 2., 0., 0., -1., -1., 1., 1.];
        (parent, mover, payoffs)
    }

    #[test]
    fn entry_game_enters_and_incumbent_accommodates() {
        let (parent, mover, payoffs) = entry_game();
        let tree = GameTree::new(&parent, &mover, &payoffs, 2).unwrap();
        assert_eq!(tree.children(0), &[1, 2]);
        let bi = tree.backward_induction();
        assert_eq!(bi.choice, vec![Some(2), None, Some(4), None, None]);
        assert_eq!(bi.path, vec![0, 2, 4]);
        assert_eq!(&bi.values[0..2], &[1., 1.]);
        assert!(bi.tied.iter().all(|t| !t));
    }

    #[test]
    fn off_path_choices_are_part_of_the_profile() {
        // Player 0 moves first: left leads to player 1 choosing between
        // (3, 0) and (0, 1); right gives (2, 2). Player 1 would pick (0, 1)
        // after left, so player 0 goes right, yet the profile still records
        // player 1's off-path choice.
        let parent = vec![None, Some(0), Some(0), Some(1), Some(1)];
        let mover = vec![Some(0), Some(1), None, None, None];
        let payoffs = vec![0., 0., 0., 0., 2., 2., 3., 0., 0., 1.];
        let bi = GameTree::new(&parent, &mover, &payoffs, 2)
            .unwrap()
            .backward_induction();
        assert_eq!(bi.choice[1], Some(4));
        assert_eq!(bi.path, vec![0, 2]);
    }

    #[test]
    fn ties_take_the_first_child_and_are_flagged() {
        let parent = vec![None, Some(0), Some(0)];
        let mover = vec![Some(0), None, None];
        let payoffs = vec![0., 0., 0.1 + 0.2, 5., 0.3, 9.];
        let bi = GameTree::new(&parent, &mover, &payoffs, 2)
            .unwrap()
            .backward_induction();
        assert_eq!(bi.choice[0], Some(1));
        assert!(bi.tied[0]);
    }

    #[test]
    fn a_single_leaf_is_its_own_solution() {
        let bi = GameTree::new(&[None], &[None], &[4., 5., 6.], 3)
            .unwrap()
            .backward_induction();
        assert_eq!(bi.values, vec![4., 5., 6.]);
        assert_eq!(bi.path, vec![0]);
    }

    #[test]
    fn malformed_trees_are_rejected() {
        let (parent, mover, payoffs) = entry_game();
        let err = |p: &[Option<usize>], m: &[Option<usize>], x: &[f64]| {
            GameTree::new(p, m, x, 2).unwrap_err().to_string()
        };
        assert!(err(&[], &[], &[]).starts_with("parent"));
        let mut p = parent.clone();
        p[3] = Some(4);
        assert!(err(&p, &mover, &payoffs).contains("parents must come before"));
        p[3] = None;
        assert!(err(&p, &mover, &payoffs).contains("only node 0"));
        let mut m = mover.clone();
        m[1] = Some(0);
        assert!(err(&parent, &m, &payoffs).contains("terminal"));
        m[1] = None;
        m[2] = None;
        assert!(err(&parent, &m, &payoffs).contains("needs a player"));
        m[2] = Some(2);
        assert!(err(&parent, &m, &payoffs).contains("player 2"));
        let mut x = payoffs.clone();
        x[9] = f64::NAN;
        assert!(err(&parent, &mover, &x).contains("not finite"));
        assert!(err(&parent, &mover, &x[..9]).starts_with("payoffs"));
        assert!(err(&parent, &mover[..4], &payoffs).starts_with("player"));
        let mut root = parent.clone();
        root[0] = Some(0);
        assert!(err(&root, &mover, &payoffs).contains("root"));
        // Internal nodes' payoff rows are ignored, NaN or not.
        x[9] = 1.0;
        x[0] = f64::NAN;
        assert!(GameTree::new(&parent, &mover, &x, 2).is_ok());
        assert!(GameTree::new(&parent, &mover, &payoffs, 0).is_err());
    }
}
