//! The money-pump index (Echenique, Lee and Shum 2011) by enumerating the
//! simple violating cycles of `R0`.

use super::bits::Bits;
use super::Expenditure;

/// The money-pump index of one subject (0 for GARP-consistent data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoneyPump {
    /// Mean normalised money-pump cost over the violating cycles counted.
    pub mean: f64,
    /// Largest normalised money-pump cost over all violating cycles: always
    /// exact (a maximum-ratio cycle, found by Dinkelbach iteration with a
    /// positive-cycle search), whatever the budget.
    pub max: f64,
    /// Number of violating cycles counted.
    pub cycles: usize,
    /// Whether every simple cycle was enumerated (else `mean` and `cycles`
    /// cover the cycles counted: every 2-cycle and those found in budget).
    pub exact: bool,
}

struct Walk<'a> {
    e: &'a Expenditure,
    out: Vec<Vec<usize>>,
    on_path: Vec<bool>,
    steps: usize,
    budget: usize,
    sum: f64,
    max: f64,
    cycles: usize,
}

impl Walk<'_> {
    fn record(&mut self, pumped: f64, spent: f64) {
        if pumped > 0.0 {
            let cost = pumped / spent;
            self.sum += cost;
            self.max = self.max.max(cost);
            self.cycles += 1;
        }
    }

    /// Extends the path ending at `v` (started at `start`) through vertices
    /// above `start`; false once the step budget is spent.
    fn extend(&mut self, start: usize, v: usize, len: usize, pumped: f64, spent: f64) -> bool {
        let own = self.e.at(v, v);
        for k in 0..self.out[v].len() {
            let w = self.out[v][k];
            self.steps += 1;
            if self.steps > self.budget {
                return false;
            }
            let step = own - self.e.at(v, w);
            if w == start {
                if len >= 3 {
                    self.record(pumped + step, spent + own);
                }
            } else if w > start && !self.on_path[w] {
                self.on_path[w] = true;
                let ok = self.extend(start, w, len + 1, pumped + step, spent + own);
                self.on_path[w] = false;
                if !ok {
                    return false;
                }
            }
        }
        true
    }
}

/// The money-pump index with at most `step_budget` search steps.
pub fn money_pump(e: &Expenditure, step_budget: usize) -> MoneyPump {
    let n = e.len();
    let mut r = Bits::from_fn(n, |t, s| e.weak(t, s));
    r.close();
    // Edges of R0 inside a strongly connected component: the only ones on
    // cycles.
    let out: Vec<Vec<usize>> = (0..n)
        .map(|t| {
            (0..n)
                .filter(|&s| s != t && e.weak(t, s) && r.get(s, t))
                .collect()
        })
        .collect();
    let mut walk = Walk {
        e,
        out,
        on_path: vec![false; n],
        steps: 0,
        budget: step_budget,
        sum: 0.0,
        max: 0.0,
        cycles: 0,
    };
    for t in 0..n {
        for s in t + 1..n {
            if e.weak(t, s) && e.weak(s, t) {
                let pumped = (e.at(t, t) - e.at(t, s)) + (e.at(s, s) - e.at(s, t));
                walk.record(pumped, e.at(t, t) + e.at(s, s));
            }
        }
    }
    let mut exact = true;
    for start in 0..n {
        walk.on_path[start] = true;
        let ok = walk.extend(start, start, 1, 0.0, 0.0);
        walk.on_path[start] = false;
        if !ok {
            exact = false;
            break;
        }
    }
    let max = if walk.cycles > 0 {
        max_ratio_cycle(e, &walk.out, walk.max)
    } else {
        0.0
    };
    MoneyPump {
        mean: if walk.cycles > 0 {
            walk.sum / walk.cycles as f64
        } else {
            0.0
        },
        max,
        cycles: walk.cycles,
        exact,
    }
}

/// The largest `Σ a / Σ b` over cycles of the graph `out`, where an edge
/// `t → s` has `a = E[t][t] − E[t][s]` and `b = E[t][t]`, starting from a
/// ratio `best` that some cycle reaches. Dinkelbach: while some cycle has
/// `Σ (a − best·b) > 0` (Bellman–Ford from every vertex at once), move `best`
/// to that cycle's ratio; the ratio rises strictly, so this ends. Cycles that
/// beat `best` by less than about 1e-12 of the largest expenditure per edge
/// are not told apart from rounding.
fn max_ratio_cycle(e: &Expenditure, out: &[Vec<usize>], mut best: f64) -> f64 {
    let n = e.len();
    let edges: Vec<(usize, usize)> = (0..n)
        .flat_map(|t| out[t].iter().map(move |&s| (t, s)))
        .collect();
    let gain = |t: usize, s: usize| e.at(t, t) - e.at(t, s);
    // Gains below `slack` are rounding noise: without it the cycle that set
    // `best` (weight 0 at `best`) can pose as a positive one and hide the rest.
    let slack = 1e-12 * (0..n).map(|t| e.at(t, t)).fold(0.0, f64::max);
    let mut dist = vec![0.0; n];
    let mut pred = vec![usize::MAX; n];
    loop {
        dist.fill(0.0);
        pred.fill(usize::MAX);
        let mut last = None;
        for _ in 0..=n {
            last = None;
            for &(t, s) in &edges {
                let via = dist[t] + gain(t, s) - best * e.at(t, t);
                if via > dist[s] + slack {
                    dist[s] = via;
                    pred[s] = t;
                    last = Some(s);
                }
            }
            if last.is_none() {
                break;
            }
        }
        let Some(mut v) = last else {
            return best;
        };
        // Walking back n steps lands on a cycle of the predecessor graph.
        for _ in 0..n {
            v = pred[v];
            if v == usize::MAX {
                return best; // rounding noise, not a cycle
            }
        }
        let (mut pumped, mut spent) = (0.0, 0.0);
        let mut u = v;
        for _ in 0..n {
            let t = pred[u];
            if t == usize::MAX {
                return best;
            }
            pumped += gain(t, u);
            spent += e.at(t, t);
            u = t;
            if u == v {
                break;
            }
        }
        if u != v {
            return best;
        }
        let ratio = pumped / spent;
        if ratio <= best {
            return best;
        }
        best = ratio;
    }
}
