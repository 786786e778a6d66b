//! The money-pump index (Echenique, Lee and Shum 2011) by enumerating the
//! simple violating cycles of `R0`.

use super::bits::Bits;
use super::Expenditure;

/// The money-pump index of one subject (0 for GARP-consistent data).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoneyPump {
    /// Mean normalised money-pump cost over the violating cycles counted.
    pub mean: f64,
    /// Largest normalised money-pump cost among them.
    pub max: f64,
    /// Number of violating cycles counted.
    pub cycles: usize,
    /// Whether every simple cycle was enumerated (else `max` is a lower bound
    /// and `mean` covers the cycles counted).
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
    MoneyPump {
        mean: if walk.cycles > 0 {
            walk.sum / walk.cycles as f64
        } else {
            0.0
        },
        max: walk.max,
        cycles: walk.cycles,
        exact,
    }
}
