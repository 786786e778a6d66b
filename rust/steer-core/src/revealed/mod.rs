//! Revealed preference over budget choices: GARP, Afriat's critical cost
//! efficiency index (CCEI), the Houtman–Maks index and the money-pump index.
//!
//! One subject is T observations of prices `p_t` and chosen bundles `x_t`
//! over G goods, given as flat row-major slices of length T·G. With
//! `E[t][s] = p_t·x_s` (what bundle `s` costs at the prices of `t`):
//!
//! * `x_t R0 x_s` (directly revealed preferred) iff `E[t][t] ≥ E[t][s]`, and
//!   `x_t P0 x_s` (strictly) iff `E[t][t] > E[t][s]`; `R*` is the transitive
//!   closure of `R0`.
//! * **GARP** holds iff there is no pair with `x_t R* x_s` and `x_s P0 x_t`;
//!   [`Garp::violations`] counts those ordered pairs.
//! * **CCEI** is `sup { e ∈ [0, 1] : GARP_e holds }`, where `GARP_e` uses
//!   `e·E[t][t] ≥ E[t][s]` (and `>` for the strict relation). A violation of
//!   `GARP_e` is an `R0_e` cycle with a strict edge, so the supremum is the
//!   smallest value `c` among the ratios `E[t][s] / E[t][t]` (t ≠ s) at which
//!   the graph of edges with ratio `≤ c` has a cycle, or 1 when no such `c` is
//!   below 1. It is found exactly by bisection over those candidate ratios
//!   (selection, not a full sort), each step one cycle test.
//! * **Houtman–Maks**: the size of the largest subset of observations that
//!   satisfies GARP on its own. Every violation lies inside one strongly
//!   connected component of `R0`, so each component is solved on its own:
//!   exactly, by branch and bound on the observations of a shortest violating
//!   cycle (iterative deepening on the number removed, a disjoint-cycle lower
//!   bound), for components of at most 64 observations whose search finishes
//!   within a node budget; otherwise a greedy removal gives a consistent
//!   subset (a lower bound on the size) and the result says `exact = false`.
//!   Measured on random budget-line data (the worst case: every subject
//!   violates), the default budget proves every subject exact up to T = 50
//!   (about 3 ms a subject there); near-rational data is far easier.
//! * **Money-pump index** (Echenique, Lee and Shum 2011): for a violating
//!   cycle `k_1 → k_2 → … → k_n → k_1` of `R0` (at least one edge strict) the
//!   money pumped is `Σ_i (E[k_i][k_i] − E[k_i][k_{i+1}])`, normalised by the
//!   cycle's expenditure `Σ_i E[k_i][k_i]`. We report the mean and the maximum
//!   of this normalised cost over all simple violating cycles, and their
//!   number. The maximum (prefgraph's and Smeulders et al.'s MPI) is a
//!   maximum-ratio cycle, found in polynomial time by Dinkelbach iteration
//!   with a Bellman–Ford positive-cycle search: exact for any T (to rounding,
//!   ~1e-12 of the largest expenditure). The mean needs every cycle: they are
//!   enumerated exactly while the search stays within a step budget (measured
//!   on random budget-line data: always within the default budget for
//!   T ≤ 12, 88% of subjects at T = 20, 27% at T = 30); beyond it the mean and
//!   count cover every 2-cycle and the cycles found so far, and
//!   `exact = false`.
//!
//! Comparisons are exact (no tolerance): callers with rounded data should
//! round consistently. Batch entry points take many subjects at once, their
//! observations stacked and delimited by `offsets` (subject `i` is rows
//! `offsets[i]..offsets[i + 1]`), and run in parallel over subjects.

mod bits;
mod garp;
mod hm;
mod mpi;

pub use garp::{ccei, garp, Garp};
pub use hm::{houtman_maks, HoutmanMaks};
pub use mpi::{money_pump, MoneyPump};

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Default node budget of the exact Houtman–Maks search, per subject.
pub const HM_NODE_BUDGET: usize = 200_000;
/// Default step budget of the money-pump cycle enumeration, per subject.
pub const MPI_STEP_BUDGET: usize = 2_000_000;

/// The expenditure matrix `E[t][s] = p_t·x_s` of one subject (T × T).
#[derive(Debug, Clone)]
pub struct Expenditure {
    n: usize,
    e: Vec<f64>,
}

impl Expenditure {
    /// Checks one subject's prices and quantities (T·G each, T ≥ 1) and builds
    /// its expenditure matrix. Errors name the observation and good.
    pub fn new(prices: &[f64], quantities: &[f64], goods: usize) -> Result<Self> {
        let n = validate(prices, quantities, goods)?;
        // Row t of E is Σ_g p_tg · x_·g: with the quantities by good, each
        // good is one vectorisable pass over the row.
        let mut by_good = vec![0.0; n * goods];
        for (i, &q) in quantities.iter().enumerate() {
            by_good[(i % goods) * n + i / goods] = q;
        }
        let mut e = vec![0.0; n * n];
        for (row, p) in e.chunks_exact_mut(n).zip(prices.chunks_exact(goods)) {
            for (&pg, xg) in p.iter().zip(by_good.chunks_exact(n)) {
                for (cell, &x) in row.iter_mut().zip(xg) {
                    *cell += pg * x;
                }
            }
        }
        for t in 0..n {
            if e[t * n + t] <= 0.0 {
                return Err(Error::invalid(
                    "quantities",
                    format!("observation {t}: the chosen bundle is empty (spends nothing)"),
                ));
            }
        }
        Ok(Expenditure { n, e })
    }

    /// Number of observations T.
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false: a subject has at least one observation.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// `p_t·x_s`.
    #[inline]
    pub fn at(&self, t: usize, s: usize) -> f64 {
        self.e[t * self.n + s]
    }

    /// `x_t R0 x_s`: `p_t·x_t ≥ p_t·x_s`.
    #[inline]
    fn weak(&self, t: usize, s: usize) -> bool {
        self.at(t, t) >= self.at(t, s)
    }

    /// `x_t P0 x_s`: `p_t·x_t > p_t·x_s`.
    #[inline]
    fn strict(&self, t: usize, s: usize) -> bool {
        self.at(t, t) > self.at(t, s)
    }
}

/// Number of observations after checking shapes and values.
fn validate(prices: &[f64], quantities: &[f64], goods: usize) -> Result<usize> {
    if goods == 0 {
        return Err(Error::invalid("prices", "need at least one good"));
    }
    if prices.len() != quantities.len() {
        return Err(Error::invalid(
            "quantities",
            format!(
                "{} quantities for {} prices",
                quantities.len(),
                prices.len()
            ),
        ));
    }
    if prices.len() % goods != 0 {
        return Err(Error::invalid(
            "prices",
            format!(
                "{} values do not split into rows of {goods} goods",
                prices.len()
            ),
        ));
    }
    let n = prices.len() / goods;
    if n == 0 {
        return Err(Error::invalid("prices", "no observations (T = 0)"));
    }
    for (i, (&p, &q)) in prices.iter().zip(quantities).enumerate() {
        let (t, g) = (i / goods, i % goods);
        if !(p.is_finite() && p > 0.0) {
            return Err(Error::invalid(
                "prices",
                format!("observation {t}, good {g}: a price must be positive and finite, got {p}"),
            ));
        }
        if !(q.is_finite() && q >= 0.0) {
            return Err(Error::invalid(
                "quantities",
                format!(
                    "observation {t}, good {g}: a quantity must be non-negative and finite, got {q}"
                ),
            ));
        }
    }
    Ok(n)
}

/// Many subjects' observations stacked row-wise (rows × goods), subject `i`
/// being rows `offsets[i]..offsets[i + 1]`.
#[derive(Debug, Clone, Copy)]
pub struct Panel<'a> {
    prices: &'a [f64],
    quantities: &'a [f64],
    goods: usize,
    offsets: &'a [usize],
}

impl<'a> Panel<'a> {
    pub fn new(
        prices: &'a [f64],
        quantities: &'a [f64],
        goods: usize,
        offsets: &'a [usize],
    ) -> Result<Self> {
        if goods == 0 {
            return Err(Error::invalid("prices", "need at least one good"));
        }
        if prices.len() != quantities.len() || prices.len() % goods != 0 {
            return Err(Error::invalid(
                "quantities",
                format!(
                    "prices ({}) and quantities ({}) must both hold rows of {goods} goods",
                    prices.len(),
                    quantities.len()
                ),
            ));
        }
        let rows = prices.len() / goods;
        if offsets.first() != Some(&0) || offsets.last() != Some(&rows) {
            return Err(Error::invalid(
                "offsets",
                format!("must start at 0 and end at the number of rows ({rows})"),
            ));
        }
        if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::invalid(
                "offsets",
                format!("must not decrease (entry {} < entry {i})", i + 1),
            ));
        }
        Ok(Panel {
            prices,
            quantities,
            goods,
            offsets,
        })
    }

    /// Number of subjects.
    pub fn subjects(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Subject `i`'s expenditure matrix; errors say which subject.
    pub fn expenditure(&self, i: usize) -> Result<Expenditure> {
        let (a, b) = (
            self.offsets[i] * self.goods,
            self.offsets[i + 1] * self.goods,
        );
        Expenditure::new(&self.prices[a..b], &self.quantities[a..b], self.goods)
            .map_err(|e| e.at_item("subject", i))
    }

    /// `f` on every subject, in parallel; the first error (lowest subject)
    /// wins.
    pub fn map<T, F>(&self, f: F) -> Result<Vec<T>>
    where
        T: Send,
        F: Fn(&Expenditure) -> T + Sync,
    {
        (0..self.subjects())
            .into_par_iter()
            .map(|i| self.expenditure(i).map(|e| f(&e)))
            .collect()
    }
}

/// GARP and, when `with_ccei`, the CCEI of every subject.
pub fn garp_ccei_batch(panel: &Panel<'_>, with_ccei: bool) -> Result<Vec<(Garp, Option<f64>)>> {
    panel.map(|e| {
        let (g, r) = garp::garp_closed(e);
        let c = with_ccei.then(|| {
            if g.consistent {
                1.0
            } else {
                garp::ccei_closed(e, &r)
            }
        });
        (g, c)
    })
}

/// The Houtman–Maks index of every subject.
pub fn houtman_maks_batch(panel: &Panel<'_>, node_budget: usize) -> Result<Vec<HoutmanMaks>> {
    panel.map(|e| houtman_maks(e, node_budget))
}

/// The money-pump index of every subject.
pub fn money_pump_batch(panel: &Panel<'_>, step_budget: usize) -> Result<Vec<MoneyPump>> {
    panel.map(|e| money_pump(e, step_budget))
}

#[cfg(test)]
mod tests;
