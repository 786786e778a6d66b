//! Extensive-form games with imperfect information: which pure strategy
//! profiles are part of a sequential equilibrium (Kreps–Wilson), with a
//! belief system that supports each, and which are Nash equilibria.
//!
//! The tree is flat arrays as in [`super::extensive`] (parents before
//! children; a node's children, in index order, are its actions), plus chance
//! nodes with fixed move probabilities and information sets: decision nodes
//! sharing an information set belong to one player and offer the same number
//! of actions, which are identified by position. Perfect recall is checked.
//!
//! Consistency. For a pure profile σ, a node's *deviations* are the actions on
//! its path that σ does not prescribe. At an information set, deviations
//! shared by all its nodes cancel out of Bayes' rule; what is left decides the
//! beliefs consistency allows:
//! - some node has nothing left: beliefs are Bayes' rule (by chance
//!   probabilities) over those nodes, and zero elsewhere, in any sequence of
//!   trembles (this covers on-path sets and off-path sets inside a subgame);
//! - every node has exactly one deviation left: trembles on different actions
//!   go to zero at free relative rates, so any belief over the groups of nodes
//!   sharing a deviation is consistent (within a group, chance fixes ratios).
//!   That is the case of every off-path set of a signaling game, of entry
//!   games whose entrant stays out, and of Selten's horse.
//!
//! Other patterns (two or more deviations left, or free sets whose deviations
//! overlap so their beliefs are linked) are rejected as
//! [`Error::Unsolvable`] rather than answered approximately.
//!
//! Sequential rationality is checked one information set at a time against
//! σ's continuation, which suffices under consistent beliefs (the one-shot
//! deviation principle of Hendon, Jacobsen and Sloth, 1996). Where beliefs
//! are free, the best belief for σ's action is found exactly: the largest
//! margin `min_b (u(σ) − u(b))·μ` over the simplex is attained at a vertex,
//! and the vertices are enumerated.

use super::normal_form::TIE_TOLERANCE;
use crate::error::{Error, Result};

/// At most this many pure profiles are enumerated by [`ImperfectGame::assess_all`].
pub const MAX_PROFILES: usize = 1 << 16;
/// At most this many nodes per game.
pub const MAX_NODES: usize = 4096;

/// What happens at a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKind {
    /// No children; payoffs are read here.
    Terminal,
    /// Nature moves with the probabilities given on the children.
    Chance,
    /// `player` moves; `infoset` numbers the information set (0-based).
    Decision { player: usize, infoset: usize },
}

#[derive(Debug, Clone)]
struct InfoSet {
    player: usize,
    nodes: Vec<usize>,
    actions: usize,
}

/// A validated game with imperfect information.
#[derive(Debug, Clone)]
pub struct ImperfectGame {
    players: usize,
    parent: Vec<Option<usize>>,
    kind: Vec<NodeKind>,
    /// Probability of the edge into the node when its parent is a chance node.
    prob: Vec<f64>,
    payoffs: Vec<f64>,
    first: Vec<usize>,
    children: Vec<usize>,
    /// For a node whose parent is a decision node: (infoset, action index).
    via: Vec<Option<(usize, usize)>>,
    infosets: Vec<InfoSet>,
}

/// The verdict on one pure profile.
#[derive(Debug, Clone, PartialEq)]
pub struct Assessment {
    /// Part of a sequential equilibrium: some consistent belief system makes
    /// the profile sequentially rational at every information set.
    pub sequential: bool,
    /// A Nash equilibrium: no player gains by switching pure strategy.
    pub nash: bool,
    /// The first information set where no consistent belief makes σ's action
    /// optimal.
    pub failing: Option<usize>,
    /// Per information set: the best achievable `min_b (u(σ) − u(b))` under a
    /// consistent belief (negative: σ's action cannot be justified; zero: only
    /// with indifference; +∞ when the set offers one action).
    pub margin: Vec<f64>,
    /// Per information set: reached with positive probability under σ.
    pub on_path: Vec<bool>,
    /// Per information set: consistency leaves the belief free.
    pub free: Vec<bool>,
    /// Per node: the supporting belief (probability of the node within its
    /// information set); NaN at chance and terminal nodes.
    pub belief: Vec<f64>,
    /// Expected payoff of each player under σ.
    pub outcome: Vec<f64>,
}

type Deviations = Vec<(usize, usize)>;

impl ImperfectGame {
    /// `parent[v]` is `None` only for node 0; `kind[v]` says who moves;
    /// `prob[v]` is read when v's parent is a chance node; `payoffs` is
    /// `nodes x players`, read at terminals.
    pub fn new(
        parent: &[Option<usize>],
        kind: &[NodeKind],
        prob: &[f64],
        payoffs: &[f64],
        players: usize,
    ) -> Result<Self> {
        let n = parent.len();
        if n == 0 {
            return Err(Error::invalid("parent", "a tree needs at least a root"));
        }
        if n > MAX_NODES {
            return Err(Error::invalid(
                "parent",
                format!("{n} nodes; at most {MAX_NODES} are supported"),
            ));
        }
        if players == 0 {
            return Err(Error::invalid(
                "payoffs",
                "a game needs at least one player",
            ));
        }
        for (field, len) in [("player", kind.len()), ("prob", prob.len())] {
            if len != n {
                return Err(Error::invalid(
                    field,
                    format!("{len} entries for {n} nodes"),
                ));
            }
        }
        if payoffs.len() != n * players {
            return Err(Error::invalid(
                "payoffs",
                format!("expected {n} x {players} numbers, got {}", payoffs.len()),
            ));
        }
        let (first, children) = super::extensive::children_of(parent)?;
        let mut game = ImperfectGame {
            players,
            parent: parent.to_vec(),
            kind: kind.to_vec(),
            prob: prob.to_vec(),
            payoffs: payoffs.to_vec(),
            first,
            children,
            via: vec![None; n],
            infosets: Vec::new(),
        };
        game.check_nodes()?;
        game.collect_infosets()?;
        game.check_perfect_recall()?;
        Ok(game)
    }

    fn check_nodes(&self) -> Result<()> {
        let k = self.players;
        for v in 0..self.nodes() {
            let kids = self.children(v);
            match (kids.is_empty(), self.kind[v]) {
                (true, NodeKind::Terminal) => {
                    if self.payoffs[v * k..(v + 1) * k]
                        .iter()
                        .any(|x| !x.is_finite())
                    {
                        return Err(Error::invalid(
                            "payoffs",
                            format!("terminal node {v} has a payoff that is not finite"),
                        ));
                    }
                }
                (true, _) => {
                    return Err(Error::invalid(
                        "player",
                        format!("node {v} has no children, so it must be terminal (-1)"),
                    ))
                }
                (false, NodeKind::Terminal) => {
                    return Err(Error::invalid(
                        "player",
                        format!("node {v} has children, so it needs a mover or chance (-2)"),
                    ))
                }
                (false, NodeKind::Chance) => {
                    let probs: Vec<f64> = kids.iter().map(|&c| self.prob[c]).collect();
                    if probs.iter().any(|p| !(p.is_finite() && *p > 0.0)) {
                        return Err(Error::invalid(
                            "prob",
                            format!("chance node {v}: every move needs a probability above 0"),
                        ));
                    }
                    let total: f64 = probs.iter().sum();
                    if (total - 1.0).abs() > 1e-9 {
                        return Err(Error::invalid(
                            "prob",
                            format!("chance node {v}: probabilities sum to {total}, not 1"),
                        ));
                    }
                }
                (false, NodeKind::Decision { player, .. }) if player >= k => {
                    return Err(Error::invalid(
                        "player",
                        format!("node {v}: player {player} but the game has {k} players"),
                    ))
                }
                (false, NodeKind::Decision { .. }) => {}
            }
        }
        Ok(())
    }

    fn collect_infosets(&mut self) -> Result<()> {
        let mut sets: Vec<Option<InfoSet>> = Vec::new();
        for v in 0..self.nodes() {
            let NodeKind::Decision { player, infoset } = self.kind[v] else {
                continue;
            };
            if infoset >= self.nodes() {
                return Err(Error::invalid(
                    "infoset",
                    format!("node {v}: information set {infoset} is out of range"),
                ));
            }
            if sets.len() <= infoset {
                sets.resize(infoset + 1, None);
            }
            let actions = self.children(v).len();
            match &mut sets[infoset] {
                None => {
                    sets[infoset] = Some(InfoSet {
                        player,
                        nodes: vec![v],
                        actions,
                    })
                }
                Some(set) => {
                    if set.player != player {
                        return Err(Error::invalid(
                            "infoset",
                            format!(
                                "information set {infoset} holds nodes of players {} and {player}",
                                set.player
                            ),
                        ));
                    }
                    if set.actions != actions {
                        return Err(Error::invalid(
                            "infoset",
                            format!(
                                "information set {infoset}: node {v} has {actions} actions, \
                                 node {} has {}",
                                set.nodes[0], set.actions
                            ),
                        ));
                    }
                    set.nodes.push(v);
                }
            }
        }
        let mut out = Vec::with_capacity(sets.len());
        for (i, set) in sets.into_iter().enumerate() {
            out.push(set.ok_or_else(|| {
                Error::invalid(
                    "infoset",
                    format!("information set {i} has no nodes; number them 0, 1, 2, …"),
                )
            })?);
        }
        for (v, via) in self.via.iter_mut().enumerate().skip(1) {
            let p = self.parent[v].expect("validated");
            if let NodeKind::Decision { infoset, .. } = self.kind[p] {
                let kids = &self.children[self.first[p]..self.first[p + 1]];
                let action = kids
                    .iter()
                    .position(|&c| c == v)
                    .expect("child of its parent");
                *via = Some((infoset, action));
            }
        }
        self.infosets = out;
        Ok(())
    }

    /// Every node of an information set must share its mover's own history.
    fn check_perfect_recall(&self) -> Result<()> {
        let n = self.nodes();
        let mut own: Vec<Vec<(usize, usize)>> = vec![Vec::new(); self.players];
        let mut history: Vec<Option<Deviations>> = vec![None; n];
        for (i, set) in self.infosets.iter().enumerate() {
            for &v in &set.nodes {
                own.iter_mut().for_each(Vec::clear);
                let mut u = v;
                while let Some(p) = self.parent[u] {
                    if let (Some(step), NodeKind::Decision { player, .. }) =
                        (self.via[u], self.kind[p])
                    {
                        own[player].push(step);
                    }
                    u = p;
                }
                let mine = own[set.player].clone();
                match &history[set.nodes[0]] {
                    None => history[set.nodes[0]] = Some(mine),
                    Some(first) if *first != mine => {
                        return Err(Error::invalid(
                            "infoset",
                            format!(
                                "information set {i}: nodes {} and {v} differ in what player {} \
                                 did before, so the game lacks perfect recall",
                                set.nodes[0], set.player
                            ),
                        ))
                    }
                    Some(_) => {}
                }
            }
        }
        Ok(())
    }

    pub fn nodes(&self) -> usize {
        self.kind.len()
    }

    pub fn players(&self) -> usize {
        self.players
    }

    pub fn infosets(&self) -> usize {
        self.infosets.len()
    }

    /// Actions at each information set.
    pub fn actions(&self) -> Vec<usize> {
        self.infosets.iter().map(|s| s.actions).collect()
    }

    /// The nodes of information set `i`.
    pub fn infoset_nodes(&self, i: usize) -> &[usize] {
        &self.infosets[i].nodes
    }

    pub fn children(&self, node: usize) -> &[usize] {
        &self.children[self.first[node]..self.first[node + 1]]
    }

    fn check_profile(&self, profile: &[usize]) -> Result<()> {
        if profile.len() != self.infosets.len() {
            return Err(Error::invalid(
                "profiles",
                format!(
                    "a profile names {} actions for {} information sets",
                    profile.len(),
                    self.infosets.len()
                ),
            ));
        }
        for (i, (&a, set)) in profile.iter().zip(&self.infosets).enumerate() {
            if a >= set.actions {
                return Err(Error::invalid(
                    "profiles",
                    format!(
                        "information set {i} has {} actions; got action {a}",
                        set.actions
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Continuation payoffs `nodes x players` when everyone follows `profile`.
    fn values(&self, profile: &[usize]) -> Vec<f64> {
        let (n, k) = (self.nodes(), self.players);
        let mut values = vec![0.0; n * k];
        for v in (0..n).rev() {
            match self.kind[v] {
                NodeKind::Terminal => {
                    values[v * k..(v + 1) * k].copy_from_slice(&self.payoffs[v * k..(v + 1) * k])
                }
                NodeKind::Chance => {
                    for &c in self.children(v) {
                        for j in 0..k {
                            values[v * k + j] += self.prob[c] * values[c * k + j];
                        }
                    }
                }
                NodeKind::Decision { infoset, .. } => {
                    let c = self.children(v)[profile[infoset]];
                    values.copy_within(c * k..(c + 1) * k, v * k);
                }
            }
        }
        values
    }

    /// Deviations from `profile` on each node's path, and its chance weight.
    fn paths(&self, profile: &[usize]) -> (Vec<Deviations>, Vec<f64>) {
        let n = self.nodes();
        let mut devs: Vec<Deviations> = vec![Vec::new(); n];
        let mut chance = vec![1.0; n];
        for v in 1..n {
            let p = self.parent[v].expect("validated");
            let mut d = devs[p].clone();
            if let Some((i, a)) = self.via[v] {
                if profile[i] != a {
                    d.push((i, a));
                }
            }
            chance[v] = chance[p]
                * if self.kind[p] == NodeKind::Chance {
                    self.prob[v]
                } else {
                    1.0
                };
            devs[v] = d;
        }
        (devs, chance)
    }

    /// Judge one pure profile (an action index per information set).
    pub fn assess(&self, profile: &[usize]) -> Result<Assessment> {
        self.check_profile(profile)?;
        let (n, k, m) = (self.nodes(), self.players, self.infosets.len());
        let values = self.values(profile);
        let (devs, chance) = self.paths(profile);
        let mut margin = vec![f64::INFINITY; m];
        let mut on_path = vec![false; m];
        let mut free = vec![false; m];
        let mut belief = vec![f64::NAN; n];
        let mut free_actions: Vec<(usize, (usize, usize))> = Vec::new();
        for (s, set) in self.infosets.iter().enumerate() {
            let common: Deviations = devs[set.nodes[0]]
                .iter()
                .copied()
                .filter(|d| set.nodes.iter().all(|&v| devs[v].contains(d)))
                .collect();
            let residual = |v: usize| -> Deviations {
                devs[v]
                    .iter()
                    .copied()
                    .filter(|d| !common.contains(d))
                    .collect()
            };
            on_path[s] = set.nodes.iter().any(|&v| devs[v].is_empty());
            // Groups of nodes whose relative weights chance fixes.
            let mut groups: Vec<(Deviations, Vec<usize>)> = Vec::new();
            let pinned: Vec<usize> = set
                .nodes
                .iter()
                .copied()
                .filter(|&v| residual(v).is_empty())
                .collect();
            if !pinned.is_empty() {
                groups.push((Vec::new(), pinned));
            } else {
                free[s] = true;
                for &v in &set.nodes {
                    let r = residual(v);
                    if r.len() != 1 {
                        return Err(Error::Unsolvable(format!(
                            "information set {s}: node {v} is reached through {} deviations \
                             beyond those shared by the set; consistent beliefs there are \
                             outside what this solver decides exactly",
                            r.len()
                        )));
                    }
                    match groups.iter_mut().find(|(d, _)| *d == r) {
                        Some((_, nodes)) => nodes.push(v),
                        None => {
                            free_actions.push((s, r[0]));
                            groups.push((r, vec![v]));
                        }
                    }
                }
            }
            // utility[g][a]: the mover's expected payoff from action a within group g.
            let player = set.player;
            let weights: Vec<Vec<f64>> = groups
                .iter()
                .map(|(_, nodes)| {
                    let total: f64 = nodes.iter().map(|&v| chance[v]).sum();
                    nodes.iter().map(|&v| chance[v] / total).collect()
                })
                .collect();
            let utility: Vec<Vec<f64>> = groups
                .iter()
                .zip(&weights)
                .map(|((_, nodes), w)| {
                    (0..set.actions)
                        .map(|a| {
                            nodes
                                .iter()
                                .zip(w)
                                .map(|(&v, wv)| wv * values[self.children(v)[a] * k + player])
                                .sum()
                        })
                        .collect()
                })
                .collect();
            let (best, mu) = best_margin(&utility, profile[s]);
            margin[s] = best;
            for (((_, nodes), w), g) in groups.iter().zip(&weights).zip(&mu) {
                for (&v, wv) in nodes.iter().zip(w) {
                    belief[v] = g * wv;
                }
            }
            for &v in &set.nodes {
                if belief[v].is_nan() {
                    belief[v] = 0.0;
                }
            }
        }
        // Free beliefs must be independent across sets: no tremble shared.
        for (x, (s, d)) in free_actions.iter().enumerate() {
            if let Some((t, _)) = free_actions[x + 1..].iter().find(|(t, e)| t != s && e == d) {
                return Err(Error::Unsolvable(format!(
                    "information sets {s} and {t} both hinge on the deviation to action {} at \
                     information set {}, so their beliefs are linked; this solver only decides \
                     independent ones",
                    d.1, d.0
                )));
            }
        }
        let failing = margin.iter().position(|&g| g < -self.tolerance());
        Ok(Assessment {
            sequential: failing.is_none(),
            nash: self.is_nash(profile, &values)?,
            failing,
            margin,
            on_path,
            free,
            belief,
            outcome: values[..k].to_vec(),
        })
    }

    fn tolerance(&self) -> f64 {
        let scale =
            self.payoffs.iter().fold(
                1.0_f64,
                |acc, x| if x.is_finite() { acc.max(x.abs()) } else { acc },
            );
        TIE_TOLERANCE * scale
    }

    /// No player gains by switching to any of their pure strategies.
    fn is_nash(&self, profile: &[usize], values: &[f64]) -> Result<bool> {
        for (player, &current) in values.iter().enumerate().take(self.players) {
            let mine: Vec<usize> = (0..self.infosets.len())
                .filter(|&i| self.infosets[i].player == player)
                .collect();
            let sizes: Vec<usize> = mine.iter().map(|&i| self.infosets[i].actions).collect();
            let total = sizes
                .iter()
                .try_fold(1usize, |acc, &s| acc.checked_mul(s))
                .filter(|&t| t <= MAX_PROFILES)
                .ok_or_else(|| {
                    Error::Unsolvable(format!(
                        "player {player} has more than {MAX_PROFILES} pure strategies"
                    ))
                })?;
            let mut trial = profile.to_vec();
            for code in 0..total {
                let mut c = code;
                for (&i, &size) in mine.iter().zip(&sizes) {
                    trial[i] = c % size;
                    c /= size;
                }
                let got = self.values(&trial)[player];
                if got > current + self.tolerance() {
                    return Ok(false);
                }
            }
        }
        Ok(true)
    }

    /// Every pure profile in mixed-radix order (the first information set
    /// varies fastest).
    pub fn profiles(&self) -> Result<Vec<Vec<usize>>> {
        let sizes = self.actions();
        let total = sizes
            .iter()
            .try_fold(1usize, |acc, &s| acc.checked_mul(s))
            .filter(|&t| t <= MAX_PROFILES)
            .ok_or_else(|| {
                Error::invalid(
                    "infoset",
                    format!("the game has more than {MAX_PROFILES} pure profiles"),
                )
            })?;
        Ok((0..total)
            .map(|code| {
                let mut c = code;
                sizes
                    .iter()
                    .map(|&s| {
                        let a = c % s;
                        c /= s;
                        a
                    })
                    .collect()
            })
            .collect())
    }

    /// Assess every pure profile.
    pub fn assess_all(&self) -> Result<Vec<(Vec<usize>, Assessment)>> {
        self.profiles()?
            .into_iter()
            .map(|p| {
                let a = self.assess(&p)?;
                Ok((p, a))
            })
            .collect()
    }
}

/// `max_μ min_b Σ_g μ_g (u[g][chosen] − u[g][b])` over the simplex of groups,
/// and a maximizing μ. With one group this is the plain margin of `chosen`.
fn best_margin(utility: &[Vec<f64>], chosen: usize) -> (f64, Vec<f64>) {
    let g = utility.len();
    let actions = utility[0].len();
    let rivals: Vec<usize> = (0..actions).filter(|&b| b != chosen).collect();
    if rivals.is_empty() {
        return (f64::INFINITY, vec![1.0 / g as f64; g]);
    }
    // diff[b][g]
    let diff: Vec<Vec<f64>> = rivals
        .iter()
        .map(|&b| (0..g).map(|x| utility[x][chosen] - utility[x][b]).collect())
        .collect();
    let value = |mu: &[f64]| -> f64 {
        diff.iter()
            .map(|row| row.iter().zip(mu).map(|(d, m)| d * m).sum::<f64>())
            .fold(f64::INFINITY, f64::min)
    };
    if g == 1 {
        return (value(&[1.0]), vec![1.0]);
    }
    // Variables (μ_1..μ_g, t); maximize t subject to Σμ = 1, μ ≥ 0 and
    // diff_b·μ − t ≥ 0. The optimum sits where g of these g + |rivals|
    // inequalities are tight.
    let constraints = g + rivals.len();
    let mut best = (f64::NEG_INFINITY, vec![1.0 / g as f64; g]);
    let mut pick: Vec<usize> = (0..g).collect();
    loop {
        // Rows: Σμ = 1, then the tight set.
        let mut a = vec![vec![0.0; g + 2]; g + 1];
        a[0][..g].fill(1.0);
        a[0][g + 1] = 1.0;
        for (r, &c) in pick.iter().enumerate() {
            let row = &mut a[r + 1];
            if c < g {
                row[c] = 1.0;
            } else {
                row[..g].copy_from_slice(&diff[c - g]);
                row[g] = -1.0;
            }
        }
        if let Some(x) = solve(a) {
            let mu = &x[..g];
            if mu.iter().all(|&m| m >= -1e-12) {
                let mu: Vec<f64> = mu.iter().map(|m| m.max(0.0)).collect();
                let v = value(&mu);
                if v > best.0 + 1e-12 {
                    best = (v, mu);
                }
            }
        }
        if !next_combination(&mut pick, constraints) {
            break;
        }
    }
    best
}

/// Gaussian elimination with partial pivoting on an augmented square system;
/// None when singular.
fn solve(mut a: Vec<Vec<f64>>) -> Option<Vec<f64>> {
    let n = a.len();
    for col in 0..n {
        let pivot = (col..n).max_by(|&x, &y| a[x][col].abs().total_cmp(&a[y][col].abs()))?;
        if a[pivot][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let f = a[row][col] / a[col][col];
                if f != 0.0 {
                    let pivot_row = a[col].clone();
                    for (x, p) in a[row][col..].iter_mut().zip(&pivot_row[col..]) {
                        *x -= f * p;
                    }
                }
            }
        }
    }
    Some((0..n).map(|i| a[i][n] / a[i][i]).collect())
}

/// Advance `pick` (increasing indices below `n`) to the next combination.
fn next_combination(pick: &mut [usize], n: usize) -> bool {
    let k = pick.len();
    for i in (0..k).rev() {
        if pick[i] < n - k + i {
            pick[i] += 1;
            for j in i + 1..k {
                pick[j] = pick[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use NodeKind::{Chance, Decision, Terminal};

    fn d(player: usize, infoset: usize) -> NodeKind {
        Decision { player, infoset }
    }

    /// Selten's horse: 1 chooses A (across) or D; after A, 2 chooses a or d;
    /// 3 sees neither (one set: after D, after A-d) and plays L or R.
    fn horse() -> ImperfectGame {
        // 0: P1; 1: P3 after D; 2: P2 after A; 3,4: leaves of 1;
        // 5: P3 after A-d; 6: leaf A-a; 7,8: leaves of 5.
        let parent = [
            None,
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            Some(5),
            Some(5),
        ];
        let kind = [
            d(0, 0),
            d(2, 2),
            d(1, 1),
            Terminal,
            Terminal,
            d(2, 2),
            Terminal,
            Terminal,
            Terminal,
        ];
        // Node 1 is D (action 0 of P1), node 2 is A (action 1); at 2, d (node 5) is
        // action 0 and a (node 6) action 1.
        let mut pay = vec![0.0; 9 * 3];
        let mut set = |v: usize, p: [f64; 3]| pay[v * 3..v * 3 + 3].copy_from_slice(&p);
        set(3, [3.0, 3.0, 2.0]); // D, L
        set(4, [0.0, 0.0, 0.0]); // D, R
        set(6, [1.0, 1.0, 1.0]); // A, a
        set(7, [4.0, 4.0, 0.0]); // A, d, L
        set(8, [1.0, 1.0, 1.0]); // A, d, R
        ImperfectGame::new(&parent, &kind, &[1.0; 9], &pay, 3).unwrap()
    }

    #[test]
    fn horse_has_one_pure_sequential_equilibrium() {
        let g = horse();
        let all = g.assess_all().unwrap();
        let seq: Vec<&Vec<usize>> = all
            .iter()
            .filter(|(_, a)| a.sequential)
            .map(|(p, _)| p)
            .collect();
        // 1 goes across and 3 plays R (believing A-d at least 2/3 likely when
        // off path); 2, indifferent against R, may play either.
        assert_eq!(seq, vec![&vec![1, 0, 1], &vec![1, 1, 1]]);
        let nash: Vec<&Vec<usize>> = all.iter().filter(|(_, a)| a.nash).map(|(p, _)| p).collect();
        // (D, a, L) is Nash but 2's a is not rational against L.
        assert!(nash.contains(&&vec![0, 1, 0]) && nash.contains(&&vec![1, 1, 1]));
        let (_, se) = all.iter().find(|(p, _)| p == &vec![1, 1, 1]).unwrap();
        assert!(se.free[2] && !se.on_path[2]);
        assert!(se.belief[5] >= 2.0 / 3.0 - 1e-12);
        assert!((se.belief[1] + se.belief[5] - 1.0).abs() < 1e-12);
        let (_, threat) = all.iter().find(|(p, _)| p == &vec![0, 1, 0]).unwrap();
        assert_eq!(threat.failing, Some(1));
    }

    /// Beer–quiche: strong (0.9) or weak; breakfast beer/quiche; the other
    /// duels or not.
    fn beer_quiche() -> ImperfectGame {
        // 0 chance; 1 strong, 2 weak (sender sets 0, 1); message nodes:
        // strong-beer 3, strong-quiche 4, weak-beer 5, weak-quiche 6
        // (receiver sets 2 = after beer, 3 = after quiche); leaves 7..14:
        // duel (action 0), walk away (action 1).
        let mut parent = vec![None, Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)];
        let mut kind = vec![Chance, d(0, 0), d(0, 1), d(1, 2), d(1, 3), d(1, 2), d(1, 3)];
        let mut prob = vec![1.0, 0.9, 0.1, 1.0, 1.0, 1.0, 1.0];
        let mut pay = vec![0.0; 7 * 2];
        for (v, strong, beer) in [
            (3, true, true),
            (4, true, false),
            (5, false, true),
            (6, false, false),
        ] {
            for duel in [true, false] {
                parent.push(Some(v));
                kind.push(Terminal);
                prob.push(1.0);
                let likes = if strong == beer { 1.0 } else { 0.0 };
                let sender = likes + if duel { 0.0 } else { 2.0 };
                let receiver = if duel != strong { 1.0 } else { 0.0 };
                pay.extend([sender, receiver]);
            }
        }
        ImperfectGame::new(&parent, &kind, &prob, &pay, 2).unwrap()
    }

    #[test]
    fn beer_quiche_pooling_equilibria_are_sequential() {
        let g = beer_quiche();
        let all = g.assess_all().unwrap();
        let mut seq: Vec<Vec<usize>> = all
            .iter()
            .filter(|(_, a)| a.sequential)
            .map(|(p, _)| p.clone())
            .collect();
        seq.sort();
        // [strong msg, weak msg, after beer, after quiche]; 0 = beer / duel.
        assert_eq!(seq, vec![vec![0, 0, 1, 0], vec![1, 1, 0, 1]]);
        let (_, pool) = all.iter().find(|(p, _)| p == &vec![0, 0, 1, 0]).unwrap();
        assert!(pool.on_path[2] && !pool.on_path[3] && pool.free[3]);
        // Dueling after quiche needs weak at least 1/2 likely there.
        assert!(pool.belief[6] >= 0.5 - 1e-12);
        assert!((pool.belief[3] - 0.9).abs() < 1e-12);
        assert!((pool.outcome[0] - (0.9 * 3.0 + 0.1 * 2.0)).abs() < 1e-12);
    }

    #[test]
    fn entry_with_hidden_variant() {
        // Entrant: Out (0), In-A (1), In-B (2); incumbent sees entry only.
        let parent = [
            None,
            Some(0),
            Some(0),
            Some(0),
            Some(2),
            Some(2),
            Some(3),
            Some(3),
        ];
        let kind = [
            d(0, 0),
            Terminal,
            d(1, 1),
            d(1, 1),
            Terminal,
            Terminal,
            Terminal,
            Terminal,
        ];
        let mut pay = vec![0.0; 16];
        for (v, p) in [
            (1, [0.0, 4.0]),
            (4, [-1.0, -1.0]),
            (5, [3.0, 1.0]),
            (6, [-1.0, 0.0]),
            (7, [2.0, 2.0]),
        ] {
            pay[v * 2..v * 2 + 2].copy_from_slice(&p);
        }
        let g = ImperfectGame::new(&parent, &kind, &[1.0; 8], &pay, 2).unwrap();
        let all = g.assess_all().unwrap();
        // Fighting (action 0) is worse for the incumbent at both nodes, so no
        // belief justifies the threat behind (Out, Fight).
        let verdict = |p: Vec<usize>| all.iter().find(|(q, _)| *q == p).unwrap().1.clone();
        let out_fight = verdict(vec![0, 0]);
        assert!(out_fight.nash && !out_fight.sequential && out_fight.free[1]);
        assert!(verdict(vec![1, 1]).sequential);
        assert!(!verdict(vec![2, 1]).sequential);
    }

    #[test]
    fn beliefs_inside_a_subgame_are_pinned() {
        // 1: Out (0) or In (1); after In, 1 picks X (0) or Y (1) and 2 moves
        // without seeing it: 2's beliefs follow 1's prescribed X/Y even
        // when 1 stays out.
        let parent = [
            None,
            Some(0),
            Some(0),
            Some(2),
            Some(2),
            Some(3),
            Some(3),
            Some(4),
            Some(4),
        ];
        let kind = [
            d(0, 0),
            Terminal,
            d(0, 1),
            d(1, 2),
            d(1, 2),
            Terminal,
            Terminal,
            Terminal,
            Terminal,
        ];
        let mut pay = vec![0.0; 18];
        for (v, p) in [
            (1, [1.0, 3.0]),
            (5, [3.0, 1.0]),
            (6, [0.0, 0.0]),
            (7, [0.0, 0.0]),
            (8, [1.0, 3.0]),
        ] {
            pay[v * 2..v * 2 + 2].copy_from_slice(&p);
        }
        let g = ImperfectGame::new(&parent, &kind, &[1.0; 9], &pay, 2).unwrap();
        let a = g.assess(&[0, 1, 1]).unwrap();
        assert!(!a.free[2] && !a.on_path[2]);
        assert_eq!((a.belief[3], a.belief[4]), (0.0, 1.0));
        assert!(a.sequential);
        // With Y prescribed, 2 must play its reply to Y (and 1's Y, facing 2's
        // other reply, fails first).
        let b = g.assess(&[0, 1, 0]).unwrap();
        assert_eq!(b.failing, Some(1));
        assert!(b.margin[2] < 0.0);
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        let kind = [d(0, 0), Terminal, d(1, 0)];
        let err = ImperfectGame::new(&[None, Some(0), Some(0)], &kind, &[1.0; 3], &[0.0; 6], 2);
        assert!(err.is_err());
        // Perfect recall: 2's set mixes nodes after different own moves.
        let parent = [
            None,
            Some(0),
            Some(0),
            Some(1),
            Some(1),
            Some(2),
            Some(2),
            Some(3),
            Some(3),
            Some(4),
            Some(4),
        ];
        let kind = [
            d(0, 0),
            d(1, 1),
            d(1, 2),
            d(1, 3),
            d(1, 3),
            Terminal,
            Terminal,
            Terminal,
            Terminal,
            Terminal,
            Terminal,
        ];
        let err = ImperfectGame::new(&parent, &kind, &[1.0; 11], &[0.0; 22], 2).unwrap_err();
        assert!(err.to_string().contains("perfect recall"), "{err}");
        let kind = [Chance, Terminal, Terminal];
        let err = ImperfectGame::new(
            &[None, Some(0), Some(0)],
            &kind,
            &[1.0, 0.5, 0.6],
            &[0.0; 6],
            2,
        )
        .unwrap_err();
        assert!(err.to_string().contains("sum to"), "{err}");
        let g = horse();
        assert!(g.assess(&[0, 0]).is_err());
        assert!(g.assess(&[0, 0, 5]).is_err());
    }

    #[test]
    fn margin_over_free_beliefs_is_exact() {
        // Two groups, actions: chosen pays (1, 0), rival pays (0, 2): best μ puts
        // all weight on group 0, margin 1.
        let (m, mu) = best_margin(&[vec![1.0, 0.0], vec![0.0, 2.0]], 0);
        assert!((m - 1.0).abs() < 1e-12 && (mu[0] - 1.0).abs() < 1e-12);
        // Chosen is worse everywhere: negative margin.
        let (m, _) = best_margin(&[vec![0.0, 1.0], vec![0.0, 2.0]], 0);
        assert!((m + 1.0).abs() < 1e-12);
        // Against two rivals the best belief balances them.
        let u = [vec![0.0, 1.0, -1.0], vec![0.0, -1.0, 1.0]];
        let (m, mu) = best_margin(&u, 0);
        assert!(m.abs() < 1e-12 && (mu[0] - 0.5).abs() < 1e-12);
    }
}
