//! GARP by transitive closure and the exact CCEI by bisection over the
//! candidate efficiency ratios.

use super::bits::Bits;
use super::Expenditure;

/// GARP for one subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Garp {
    /// No ordered pair `(t, s)` has `x_t R* x_s` and `x_s P0 x_t`.
    pub consistent: bool,
    /// Number of such ordered pairs.
    pub violations: usize,
}

/// GARP: closure of `R0`, then the pairs it contradicts strictly.
pub fn garp(e: &Expenditure) -> Garp {
    garp_closed(e).0
}

/// GARP and the closure `R*` it was read from.
pub(crate) fn garp_closed(e: &Expenditure) -> (Garp, Bits) {
    let n = e.len();
    let mut r = Bits::from_fn(n, |t, s| e.weak(t, s));
    r.close();
    // q[t] holds s when x_s P0 x_t: a violation is a pair in both.
    let q = Bits::from_fn(n, |t, s| e.strict(s, t));
    let violations = r.count_and(&q);
    let garp = Garp {
        consistent: violations == 0,
        violations,
    };
    (garp, r)
}

/// Afriat's critical cost efficiency index, exact (see the module doc).
pub fn ccei(e: &Expenditure) -> f64 {
    let (_, r) = garp_closed(e);
    ccei_closed(e, &r)
}

/// The CCEI given the closure `r` of `R0`. Every cycle of the efficiency
/// graphs (ratio < 1, so inside `R0`) lies in a strongly connected component
/// of `R0`: only edges inside one are candidates.
pub(crate) fn ccei_closed(e: &Expenditure, r: &Bits) -> f64 {
    let n = e.len();
    // scc[t]: the observations in t's strongly connected component (not t).
    let back = Bits::from_fn(n, |t, s| r.get(s, t));
    let scc: Vec<Vec<usize>> = (0..n).map(|t| r.row_and(&back, t)).collect();
    let verts: Vec<usize> = (0..n).filter(|&v| !scc[v].is_empty()).collect();
    let m = verts.len();
    if m == 0 {
        return 1.0;
    }
    let mut local = vec![usize::MAX; n];
    for (i, &v) in verts.iter().enumerate() {
        local[v] = i;
    }
    let mut ratio = vec![f64::INFINITY; m * m];
    let mut edges: Vec<(usize, usize, f64)> = Vec::new();
    for (i, &t) in verts.iter().enumerate() {
        let own = e.at(t, t);
        for &s in &scc[t] {
            let q = e.at(t, s) / own;
            if q < 1.0 {
                let j = local[s];
                ratio[i * m + j] = q;
                edges.push((i, j, q));
            }
        }
    }
    let cyclic = |edges: &[(usize, usize, f64)], c: f64| {
        let mut g = Bits::new(m);
        for &(i, j, q) in edges {
            g.set_if(i, j, q <= c);
        }
        g.has_cycle()
    };
    // Every 2-cycle bounds the answer: it is a cycle at its larger ratio.
    let mut bound = f64::INFINITY;
    for i in 0..m {
        for j in i + 1..m {
            bound = bound.min(ratio[i * m + j].max(ratio[j * m + i]));
        }
    }
    if bound == f64::INFINITY && !cyclic(&edges, bound) {
        return 1.0;
    }
    edges.retain(|e| e.2 <= bound);
    let mut candidates: Vec<f64> = edges.iter().map(|e| e.2).collect();
    // The smallest candidate at which the graph has a cycle: the largest
    // candidate is one; bisect by selection over the remaining ones.
    let mut best = candidates.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut rest: &mut [f64] = &mut candidates;
    while !rest.is_empty() {
        let mid = rest.len() / 2;
        let (below, &mut pivot, above) = rest.select_nth_unstable_by(mid, f64::total_cmp);
        if pivot < best && cyclic(&edges, pivot) {
            best = pivot;
            rest = below;
            // Later tests are all below the pivot: drop the longer edges.
            edges.retain(|e| e.2 <= pivot);
        } else if pivot < best {
            rest = above;
        } else {
            rest = below;
        }
    }
    best
}
