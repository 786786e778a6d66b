//! The Houtman–Maks index: the largest subset of observations that satisfies
//! GARP, solved per strongly connected component of `R0`.

use super::bits::Bits;
use super::Expenditure;

/// The Houtman–Maks index of one subject.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoutmanMaks {
    /// Size of the largest GARP-consistent subset found.
    pub size: usize,
    /// An upper bound on the largest consistent subset (equal to `size` when
    /// exact).
    pub upper: usize,
    /// Whether `size` is proven optimal.
    pub exact: bool,
}

/// Houtman–Maks with at most `node_budget` branch-and-bound nodes per
/// component (see the module doc).
pub fn houtman_maks(e: &Expenditure, node_budget: usize) -> HoutmanMaks {
    let n = e.len();
    let mut r = Bits::from_fn(n, |t, s| e.weak(t, s));
    r.close();
    let mut seen = vec![false; n];
    let (mut removed_hi, mut removed_lo) = (0, 0);
    for v in 0..n {
        if seen[v] {
            continue;
        }
        let comp: Vec<usize> = (0..n)
            .filter(|&u| u == v || (r.get(v, u) && r.get(u, v)))
            .collect();
        for &u in &comp {
            seen[u] = true;
        }
        let violated = comp
            .iter()
            .any(|&t| comp.iter().any(|&s| s != t && e.strict(t, s)));
        if !violated {
            continue;
        }
        let greedy = greedy_removals(e, &comp);
        let (lo, hi) = if comp.len() <= 64 {
            Component::new(e, &comp, node_budget).solve(greedy)
        } else {
            (short_cycle_packing(e, &comp).max(1), greedy)
        };
        removed_lo += lo;
        removed_hi += hi;
    }
    HoutmanMaks {
        size: n - removed_hi,
        upper: n - removed_lo,
        exact: removed_lo == removed_hi,
    }
}

/// A lower bound on the removals a large component needs: greedily packed
/// vertex-disjoint violating cycles of two, then three observations.
pub(crate) fn short_cycle_packing(e: &Expenditure, comp: &[usize]) -> usize {
    let mut used = vec![false; e.len()];
    let mut count = 0;
    let violating = |cycle: &[usize]| {
        let steps = cycle.iter().zip(cycle.iter().cycle().skip(1));
        steps.clone().all(|(&a, &b)| e.weak(a, b)) && steps.clone().any(|(&a, &b)| e.strict(a, b))
    };
    for (i, &a) in comp.iter().enumerate() {
        for &b in &comp[i + 1..] {
            if !used[a] && !used[b] && violating(&[a, b]) {
                used[a] = true;
                used[b] = true;
                count += 1;
            }
        }
    }
    for &a in comp {
        for &b in comp {
            for &c in comp {
                if a < b
                    && a < c
                    && b != c
                    && ![a, b, c].iter().any(|&v| used[v])
                    && violating(&[a, b, c])
                {
                    used[a] = true;
                    used[b] = true;
                    used[c] = true;
                    count += 1;
                }
            }
        }
    }
    count
}

/// How many observations greedy removal drops from `comp` until GARP holds:
/// each step drops the observation in the most violating pairs.
fn greedy_removals(e: &Expenditure, comp: &[usize]) -> usize {
    let mut alive: Vec<usize> = comp.to_vec();
    let mut removed = 0;
    loop {
        let m = alive.len();
        let mut r = Bits::from_fn(m, |i, j| e.weak(alive[i], alive[j]));
        r.close();
        let mut count = vec![0usize; m];
        let mut any = false;
        for i in 0..m {
            for j in 0..m {
                if i != j && r.get(i, j) && e.strict(alive[j], alive[i]) {
                    count[i] += 1;
                    count[j] += 1;
                    any = true;
                }
            }
        }
        if !any {
            return removed;
        }
        let worst = (0..m)
            .max_by_key(|&i| (count[i], std::cmp::Reverse(i)))
            .unwrap_or(0);
        alive.remove(worst);
        removed += 1;
    }
}

/// One strongly connected component of at most 64 observations, as bit
/// masks over its local indices.
struct Component {
    /// `adj[i]`: bit `j` iff `x_i R0 x_j`.
    adj: Vec<u64>,
    /// `strict_to[s]`: bit `t` iff `x_t P0 x_s`.
    strict_to: Vec<u64>,
    nodes: usize,
    budget: usize,
}

impl Component {
    fn new(e: &Expenditure, comp: &[usize], budget: usize) -> Self {
        let m = comp.len();
        let mut adj = vec![0u64; m];
        let mut strict_to = vec![0u64; m];
        for i in 0..m {
            for j in 0..m {
                if i != j && e.weak(comp[i], comp[j]) {
                    adj[i] |= 1 << j;
                }
                if i != j && e.strict(comp[i], comp[j]) {
                    strict_to[j] |= 1 << i;
                }
            }
        }
        Component {
            adj,
            strict_to,
            nodes: 0,
            budget,
        }
    }

    /// (proven lower bound, best found) on the number of removals, given a
    /// greedy solution removing `greedy`.
    fn solve(&mut self, greedy: usize) -> (usize, usize) {
        let m = self.adj.len();
        let all = if m == 64 { u64::MAX } else { (1u64 << m) - 1 };
        let mut k = self.packing(all);
        while k < greedy {
            match self.search(all, 0, k) {
                Some(true) => return (k, k),
                Some(false) => k += 1,
                None => return (k, greedy),
            }
        }
        (greedy, greedy)
    }

    /// Can at most `k` observations outside `keep` be dropped from `mask` so
    /// that GARP holds? `None` when the node budget ran out.
    fn search(&mut self, mask: u64, keep: u64, k: usize) -> Option<bool> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let Some(cycle) = self.shortest_cycle(mask) else {
            return Some(true);
        };
        if k == 0 || 1 + self.packing(mask & !cycle) > k {
            return Some(false);
        }
        let mut keep = keep;
        let mut free = cycle & !keep;
        while free != 0 {
            let v = free.trailing_zeros();
            free &= free - 1;
            if self.search(mask & !(1 << v), keep, k - 1)? {
                return Some(true);
            }
            keep |= 1 << v;
        }
        Some(false)
    }

    /// A lower bound on the removals `mask` needs: greedily packed
    /// vertex-disjoint violating cycles.
    fn packing(&self, mut mask: u64) -> usize {
        let mut count = 0;
        while let Some(c) = self.shortest_cycle(mask) {
            count += 1;
            mask &= !c;
        }
        count
    }

    /// The vertices (as a mask) of a shortest `R0` cycle within `mask` that
    /// closes with a strict edge, if any.
    fn shortest_cycle(&self, mask: u64) -> Option<u64> {
        let mut best: Option<(usize, u64)> = None;
        let mut rest = mask;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let targets = self.strict_to[s] & mask;
            if targets == 0 {
                continue;
            }
            // Breadth-first layers from s; stop once longer than the best.
            let mut layers = vec![1u64 << s];
            let mut visited = 1u64 << s;
            loop {
                let depth = layers.len();
                if best.is_some_and(|(len, _)| depth >= len) {
                    break;
                }
                let frontier = *layers.last().unwrap_or(&0);
                let mut next = 0u64;
                let mut f = frontier;
                while f != 0 {
                    let v = f.trailing_zeros() as usize;
                    f &= f - 1;
                    next |= self.adj[v];
                }
                next &= mask & !visited;
                if next == 0 {
                    break;
                }
                visited |= next;
                layers.push(next);
                let hit = next & targets;
                if hit != 0 {
                    // Walk back from t to s through the layers.
                    let mut cur = hit.trailing_zeros() as usize;
                    let mut verts = 1u64 << cur;
                    for layer in layers[..layers.len() - 1].iter().rev() {
                        let mut l = *layer;
                        while l != 0 {
                            let u = l.trailing_zeros() as usize;
                            l &= l - 1;
                            if self.adj[u] >> cur & 1 == 1 {
                                cur = u;
                                break;
                            }
                        }
                        verts |= 1 << cur;
                    }
                    best = Some((layers.len(), verts));
                    break;
                }
            }
        }
        best.map(|(_, v)| v)
    }
}
