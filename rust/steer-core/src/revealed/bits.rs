//! Square bit matrices (one row of 64-bit words per vertex) for the dense
//! relation graphs of revealed preference.

#[derive(Debug, Clone)]
pub(crate) struct Bits {
    n: usize,
    w: usize,
    data: Vec<u64>,
}

impl Bits {
    pub(crate) fn new(n: usize) -> Self {
        let w = n.div_ceil(64).max(1);
        Bits {
            n,
            w,
            data: vec![0; n * w],
        }
    }

    /// The relation `{(t, s) : t ≠ s, edge(t, s)}` (built without branches:
    /// the edges of choice data are coin flips to a branch predictor).
    pub(crate) fn from_fn(n: usize, edge: impl Fn(usize, usize) -> bool) -> Self {
        let mut b = Bits::new(n);
        for t in 0..n {
            let row = &mut b.data[t * b.w..(t + 1) * b.w];
            for s in 0..n {
                row[s / 64] |= u64::from(edge(t, s)) << (s % 64);
            }
            row[t / 64] &= !(1u64 << (t % 64));
        }
        b
    }

    /// Number of pairs set in both `self` and `other`.
    pub(crate) fn count_and(&self, other: &Bits) -> usize {
        self.data
            .iter()
            .zip(&other.data)
            .map(|(a, b)| (a & b).count_ones() as usize)
            .sum()
    }

    /// Sets `(i, j)` when `on`, without a branch.
    #[inline]
    pub(crate) fn set_if(&mut self, i: usize, j: usize, on: bool) {
        self.data[i * self.w + j / 64] |= u64::from(on) << (j % 64);
    }

    /// Bits set in both `(i, ·)` of `self` and `(i, ·)` of `other`, word by
    /// word, as a list of column indices.
    pub(crate) fn row_and(&self, other: &Bits, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for (k, (a, b)) in self.row(i).iter().zip(other.row(i)).enumerate() {
            let mut x = a & b;
            while x != 0 {
                out.push(k * 64 + x.trailing_zeros() as usize);
                x &= x - 1;
            }
        }
        out
    }

    #[inline]
    pub(crate) fn get(&self, i: usize, j: usize) -> bool {
        self.data[i * self.w + j / 64] >> (j % 64) & 1 == 1
    }

    #[inline]
    pub(crate) fn row(&self, i: usize) -> &[u64] {
        &self.data[i * self.w..(i + 1) * self.w]
    }

    /// Transitive closure in place (Warshall over bit rows).
    pub(crate) fn close(&mut self) {
        let w = self.w;
        let mut tmp = vec![0u64; w];
        for k in 0..self.n {
            tmp.copy_from_slice(self.row(k));
            let (kw, kb) = (k / 64, 1u64 << (k % 64));
            for i in 0..self.n {
                let row = &mut self.data[i * w..(i + 1) * w];
                // All ones when i reaches k, else zero: no branch.
                let take = 0u64.wrapping_sub(u64::from(row[kw] & kb != 0));
                for (r, t) in row.iter_mut().zip(&tmp) {
                    *r |= t & take;
                }
            }
        }
    }

    /// Whether the graph has a directed cycle: sinks (no edge to a live
    /// vertex) are peeled off until none is left; a cycle remains iff some
    /// vertex survives.
    pub(crate) fn has_cycle(&self) -> bool {
        if self.w == 1 {
            return self.has_cycle_small();
        }
        let w = self.w;
        let mut alive = vec![0u64; w];
        for v in 0..self.n {
            alive[v / 64] |= 1u64 << (v % 64);
        }
        let mut left = self.n;
        loop {
            let mut removed = false;
            for v in 0..self.n {
                let (vw, vb) = (v / 64, 1u64 << (v % 64));
                if alive[vw] & vb == 0 {
                    continue;
                }
                if self.row(v).iter().zip(&alive).all(|(r, a)| r & a == 0) {
                    alive[vw] &= !vb;
                    left -= 1;
                    removed = true;
                }
            }
            if !removed || left == 0 {
                return left > 0;
            }
        }
    }

    /// `has_cycle` for at most 64 vertices: one word per row.
    fn has_cycle_small(&self) -> bool {
        let mut alive = if self.n == 64 {
            u64::MAX
        } else {
            (1u64 << self.n) - 1
        };
        loop {
            let before = alive;
            let mut a = alive;
            while a != 0 {
                let v = a.trailing_zeros() as usize;
                a &= a - 1;
                if self.data[v] & alive == 0 {
                    alive &= !(1u64 << v);
                }
            }
            if alive == before || alive == 0 {
                return alive != 0;
            }
        }
    }
}
