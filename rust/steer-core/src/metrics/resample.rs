//! Exact resampling kernels for means over a small set of distinct values.
//!
//! Drawing n questions with replacement from n questions and averaging a
//! per-question value depends only on how many times each *distinct* value
//! is drawn, and those counts follow a multinomial law with probabilities
//! count/n. So a replicate is one multinomial draw over the distinct values
//! (sequential binomials), costing O(distinct values) instead of O(n).
//! Exact match, normalized accuracy, no-answer and consistency take a handful
//! of values per group; paired tests take a handful of value pairs.
//!
//! Streams are keyed by (seed, a stable hash of a group key, replicate), so a
//! group's replicates depend on nothing but its own data and key.

use crate::alloc::{mul, try_vec, try_with_capacity};
use crate::error::{Error, Result};
use crate::metrics::rng::{splitmix64, Xoshiro256pp};
use rayon::prelude::*;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Stable 64-bit hash of a group key's bytes: the bytes are absorbed as
/// 8-byte little-endian words (the last one zero-padded), then the length,
/// each through SplitMix64 from a fixed start value. Defined here, not by the
/// standard library, so it never changes between Rust versions or platforms.
pub fn key_hash(key: &[u8]) -> u64 {
    let mut h = 0x5EE4_B007_57A7_0001u64;
    for chunk in key.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        h = splitmix64(h ^ u64::from_le_bytes(word));
    }
    splitmix64(h ^ key.len() as u64)
}

/// Uniform double in [0, 1) from the top 53 bits.
#[inline]
fn uniform(rng: &mut Xoshiro256pp) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

const LN_FACT_TABLE: usize = 256;

fn ln_fact_table() -> &'static [f64; LN_FACT_TABLE] {
    static TABLE: OnceLock<[f64; LN_FACT_TABLE]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [0.0; LN_FACT_TABLE];
        for k in 1..LN_FACT_TABLE {
            t[k] = t[k - 1] + (k as f64).ln();
        }
        t
    })
}

/// ln(k!): a table below 256, Stirling's series above (error < 1e-15 there).
pub fn ln_factorial(k: u64) -> f64 {
    if (k as usize) < LN_FACT_TABLE {
        return ln_fact_table()[k as usize];
    }
    let x = k as f64;
    let inv = 1.0 / x;
    let inv2 = inv * inv;
    (x + 0.5) * x.ln() - x
        + 0.5 * (2.0 * std::f64::consts::PI).ln()
        + inv * (1.0 / 12.0 - inv2 * (1.0 / 360.0 - inv2 / 1260.0))
}

/// One Binomial(n, p) draw, exact: inversion when n·min(p, 1−p) < 10,
/// otherwise Hörmann's BTRS transformed rejection with squeeze (1993).
pub fn binomial(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    if p > 0.5 {
        return n - binomial(rng, n, 1.0 - p);
    }
    if (n as f64) * p < 10.0 {
        binomial_inversion(rng, n, p)
    } else {
        binomial_btrs(rng, n, p)
    }
}

/// Sequential search of the CDF from 0 (expected n·p + 1 steps).
fn binomial_inversion(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    let q = 1.0 - p;
    let s = p / q;
    let a = (n as f64 + 1.0) * s;
    let r0 = q.powf(n as f64);
    loop {
        let mut r = r0;
        let mut u = uniform(rng);
        let mut x = 0u64;
        while u > r {
            u -= r;
            x += 1;
            if x > n {
                break; // rounding left mass beyond n: draw again
            }
            r *= a / x as f64 - s;
        }
        if x <= n {
            return x;
        }
    }
}

/// BTRS for p ≤ 0.5 and n·p ≥ 10.
fn binomial_btrs(rng: &mut Xoshiro256pp, n: u64, p: f64) -> u64 {
    let nf = n as f64;
    let q = 1.0 - p;
    let spq = (nf * p * q).sqrt();
    let b = 1.15 + 2.53 * spq;
    let a = -0.0873 + 0.0248 * b + 0.01 * p;
    let c = nf * p + 0.5;
    let v_r = 0.92 - 4.2 / b;
    let alpha = (2.83 + 5.1 / b) * spq;
    let m = ((nf + 1.0) * p).floor();
    // The exact test's constants cost three logarithms: computed only when a
    // draw misses the squeeze (about one in five), at most once per call.
    let mut exact: Option<(f64, f64)> = None;
    loop {
        let u = uniform(rng) - 0.5;
        let v = uniform(rng);
        let us = 0.5 - u.abs();
        let kf = ((2.0 * a / us + b) * u + c).floor();
        if kf < 0.0 || kf > nf {
            continue;
        }
        let k = kf as u64;
        if us >= 0.07 && v <= v_r {
            return k;
        }
        let v = (v * alpha / (a / (us * us) + b)).ln();
        let (h, lpq) = *exact.get_or_insert_with(|| {
            (
                ln_factorial(m as u64) + ln_factorial(n - m as u64),
                (p / q).ln(),
            )
        });
        if v <= h - ln_factorial(k) - ln_factorial(n - k) + (kf - m) * lpq {
            return k;
        }
    }
}

/// Draws n items with replacement from categories holding `counts` items
/// (Σ counts = total) and writes how many were drawn from each into `out`:
/// a Multinomial(n, counts/total) draw by sequential binomials, each
/// conditional probability an exact ratio of remaining counts.
pub fn multinomial(rng: &mut Xoshiro256pp, n: u64, counts: &[u64], out: &mut [u64]) {
    let mut left_items: u64 = counts.iter().sum();
    let mut left_draws = n;
    // The last category takes what is left, without a draw: callers put
    // their largest category there.
    for (slot, &c) in out.iter_mut().zip(counts) {
        if left_draws == 0 || c == left_items {
            *slot = if c == left_items { left_draws } else { 0 };
            left_draws -= *slot;
            left_items -= c;
            continue;
        }
        let x = binomial(rng, left_draws, c as f64 / left_items as f64);
        *slot = x;
        left_draws -= x;
        left_items -= c;
    }
}

/// Distinct values of a group (in a canonical order) with their counts, and
/// how to draw a resample of the group's size from them.
#[derive(Debug, Clone)]
pub struct Categories {
    pub counts: Vec<u64>,
    /// Items in category order (category index per item) for direct draws,
    /// used when categories are too many for sequential binomials to pay.
    expanded: Option<Vec<u32>>,
}

impl Categories {
    pub fn new(counts: Vec<u64>) -> Self {
        let n: u64 = counts.iter().sum();
        // Sequential binomials cost a few uniforms per category; direct
        // resampling costs one per item. Both are exact.
        let expanded = (counts.len() as u64 * 4 > n).then(|| {
            counts
                .iter()
                .enumerate()
                .flat_map(|(j, &c)| std::iter::repeat_n(j as u32, c as usize))
                .collect()
        });
        Categories { counts, expanded }
    }

    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// How many of a same-size resample fall in each category.
    pub fn draw(&self, rng: &mut Xoshiro256pp, out: &mut [u64]) {
        let n = self.total();
        match &self.expanded {
            None => multinomial(rng, n, &self.counts, out),
            Some(items) => {
                out.iter_mut().for_each(|x| *x = 0);
                for _ in 0..n {
                    out[items[rng.below(items.len())] as usize] += 1;
                }
            }
        }
    }
}

/// Distinct rows of `values` (compared bit for bit, sorted by their bits so
/// the order of the input never matters) and their counts.
pub fn distinct<const W: usize>(
    values: impl Iterator<Item = [f64; W]>,
) -> (Vec<[f64; W]>, Vec<u64>) {
    let mut seen: HashMap<[u64; W], u64> = HashMap::new();
    for v in values {
        *seen.entry(v.map(f64::to_bits)).or_insert(0) += 1;
    }
    let mut pairs: Vec<([u64; W], u64)> = seen.into_iter().collect();
    pairs.sort_unstable_by_key(|p| p.0);
    let values = pairs.iter().map(|p| p.0.map(f64::from_bits)).collect();
    let counts = pairs.into_iter().map(|p| p.1).collect();
    (values, counts)
}

/// Paired bootstrap of per-question value pairs: `resamples` replicates, each
/// resampling the n questions with replacement (a pair stays a pair), and
/// returning the mean of `a` and of `b` on each (row-major, `[b0_a, b0_b,
/// b1_a, …]`). Streams come from (seed, `key`, replicate).
pub fn paired_means(
    a: &[f64],
    b: &[f64],
    resamples: usize,
    seed: u64,
    key: &[u8],
) -> Result<Vec<f64>> {
    if a.len() != b.len() {
        return Err(Error::invalid(
            "b",
            format!("has {} values, a has {}", b.len(), a.len()),
        ));
    }
    if let Some(i) = a.iter().chain(b).position(|v| !v.is_finite()) {
        let (field, row) = if i < a.len() {
            ("a", i)
        } else {
            ("b", i - a.len())
        };
        return Err(crate::metrics::input::row_error(
            field,
            row,
            "is not a finite number",
        ));
    }
    let mut out = try_vec("resamples", mul("resamples", resamples, 2)?, f64::NAN)?;
    if a.is_empty() {
        return Ok(out);
    }
    let (values, counts) = distinct(a.iter().zip(b).map(|(&x, &y)| [x, y]));
    let cats = Categories::new(counts);
    let n = a.len() as f64;
    let stream = key_hash(key);
    out.par_chunks_mut(2).enumerate().for_each_init(
        || vec![0u64; values.len()],
        |drawn, (r, slot)| {
            let mut rng = Xoshiro256pp::for_stream(&[seed, stream, r as u64]);
            cats.draw(&mut rng, drawn);
            let (mut sa, mut sb) = (0.0, 0.0);
            for (v, &c) in values.iter().zip(drawn.iter()) {
                sa += v[0] * c as f64;
                sb += v[1] * c as f64;
            }
            slot[0] = sa / n;
            slot[1] = sb / n;
        },
    );
    Ok(out)
}

/// `size` Binomial(n, p) draws from stream (seed): for testing the sampler
/// against a reference distribution.
pub fn binomial_draws(n: u64, p: f64, size: usize, seed: u64) -> Result<Vec<u64>> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid("p", format!("must be in [0, 1], got {p}")));
    }
    let mut rng = Xoshiro256pp::for_stream(&[seed, 0xB1_0A1]);
    let mut out = try_with_capacity("size", size)?;
    out.extend((0..size).map(|_| binomial(&mut rng, n, p)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn moments(draws: &[u64]) -> (f64, f64) {
        let n = draws.len() as f64;
        let mean = draws.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = draws
            .iter()
            .map(|&x| (x as f64 - mean).powi(2))
            .sum::<f64>()
            / (n - 1.0);
        (mean, var)
    }

    #[test]
    fn ln_factorial_is_continuous_at_the_table_edge() {
        let direct: f64 = (1..=300u64).map(|k| (k as f64).ln()).sum();
        assert!((ln_factorial(300) - direct).abs() < 1e-9);
        let direct: f64 = (1..=256u64).map(|k| (k as f64).ln()).sum();
        assert!((ln_factorial(256) - direct).abs() < 1e-10);
        assert_eq!(ln_factorial(0), 0.0);
    }

    #[test]
    fn binomial_moments_in_both_regimes() {
        for &(n, p) in &[
            (20u64, 0.1),
            (1_000, 0.3),
            (1_000_000, 0.45),
            (50, 0.9),
            (7, 0.5),
        ] {
            let d = binomial_draws(n, p, 200_000, 3).unwrap();
            assert!(d.iter().all(|&x| x <= n));
            let (mean, var) = moments(&d);
            let (m, v) = (n as f64 * p, n as f64 * p * (1.0 - p));
            // 6 standard errors of the mean and of the variance.
            assert!(
                (mean - m).abs() < 6.0 * (v / 2e5).sqrt() + 1e-9,
                "{n} {p}: {mean}"
            );
            assert!(
                (var - v).abs() < 6.0 * v * (2.0 / 2e5f64).sqrt() + 1e-9,
                "{n} {p}: {var}"
            );
        }
    }

    #[test]
    fn degenerate_binomials() {
        let mut rng = Xoshiro256pp::for_stream(&[1]);
        assert_eq!(binomial(&mut rng, 0, 0.5), 0);
        assert_eq!(binomial(&mut rng, 9, 0.0), 0);
        assert_eq!(binomial(&mut rng, 9, 1.0), 9);
        assert!(binomial_draws(3, 1.5, 1, 0).is_err());
    }

    #[test]
    fn sizes_past_memory_are_errors_not_aborts() {
        let too_large = |e: Error| matches!(e, Error::TooLarge { .. });
        for size in [usize::MAX / 2, usize::MAX, 1 << 50] {
            assert!(too_large(binomial_draws(3, 0.5, size, 0).unwrap_err()));
            assert!(too_large(
                paired_means(&[1.0], &[0.0], size, 0, b"k").unwrap_err()
            ));
        }
        assert_eq!(paired_means(&[1.0], &[0.0], 3, 0, b"k").unwrap().len(), 6);
    }

    #[test]
    fn key_hash_is_fixed() {
        // Pinned: intervals are reproducible across versions only if this is.
        assert_eq!(key_hash(b""), key_hash(b""));
        assert_ne!(key_hash(b"a"), key_hash(b"a\0"));
        assert_ne!(key_hash(b"model=a"), key_hash(b"model=b"));
        assert_eq!(key_hash(b"steer"), 0xCD6A_AF4E_0C96_79F0);
    }

    #[test]
    fn paired_means_are_reproducible_and_order_free() {
        let a: Vec<f64> = (0..500).map(|i| (i % 3 == 0) as u8 as f64).collect();
        let b: Vec<f64> = (0..500).map(|i| (i % 5 < 2) as u8 as f64).collect();
        let r1 = paired_means(&a, &b, 300, 7, b"k").unwrap();
        let mut idx: Vec<usize> = (0..500).collect();
        idx.reverse();
        let a2: Vec<f64> = idx.iter().map(|&i| a[i]).collect();
        let b2: Vec<f64> = idx.iter().map(|&i| b[i]).collect();
        assert_eq!(r1, paired_means(&a2, &b2, 300, 7, b"k").unwrap());
        assert_ne!(r1, paired_means(&a, &b, 300, 7, b"other").unwrap());
        assert!(paired_means(&a, &b[..3], 1, 0, b"").is_err());
        assert!(paired_means(&[f64::NAN], &[0.0], 1, 0, b"").is_err());
        assert!(paired_means(&[], &[], 2, 0, b"")
            .unwrap()
            .iter()
            .all(|v| v.is_nan()));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn multinomial_draws_sum_to_n(
            counts in prop::collection::vec(0u64..50, 1..12),
            seed in any::<u64>(),
        ) {
            let total: u64 = counts.iter().sum();
            prop_assume!(total > 0);
            let mut rng = Xoshiro256pp::for_stream(&[seed]);
            let mut out = vec![0u64; counts.len()];
            multinomial(&mut rng, total, &counts, &mut out);
            prop_assert_eq!(out.iter().sum::<u64>(), total);
            for (o, c) in out.iter().zip(&counts) {
                prop_assert!(*c > 0 || *o == 0, "an empty category was drawn");
            }
            let cats = Categories::new(counts.clone());
            cats.draw(&mut rng, &mut out);
            prop_assert_eq!(out.iter().sum::<u64>(), total);
        }

        #[test]
        fn binomial_stays_in_range(n in 0u64..100_000, p in 0.0f64..=1.0, seed in any::<u64>()) {
            let mut rng = Xoshiro256pp::for_stream(&[seed]);
            for _ in 0..20 {
                prop_assert!(binomial(&mut rng, n, p) <= n);
            }
        }

        #[test]
        fn paired_means_stay_within_the_values(
            pairs in prop::collection::vec((-5i32..5, -5i32..5), 1..60),
            seed in any::<u64>(),
        ) {
            let a: Vec<f64> = pairs.iter().map(|p| p.0 as f64).collect();
            let b: Vec<f64> = pairs.iter().map(|p| p.1 as f64).collect();
            let reps = paired_means(&a, &b, 20, seed, b"g").unwrap();
            let (lo, hi) = (a.iter().cloned().fold(f64::MAX, f64::min), a.iter().cloned().fold(f64::MIN, f64::max));
            for r in reps.chunks(2) {
                prop_assert!(r[0] >= lo - 1e-12 && r[0] <= hi + 1e-12);
            }
        }
    }

    #[test]
    fn multinomial_matches_direct_resampling_in_law() {
        // Mean and variance of the drawn count of each category equal those
        // of direct index resampling: n·c/N and n·(c/N)(1 − c/N).
        let counts = vec![5u64, 40, 1, 154];
        let n: u64 = counts.iter().sum();
        let mut rng = Xoshiro256pp::for_stream(&[11]);
        let reps = 40_000;
        let mut drawn = vec![Vec::with_capacity(reps); counts.len()];
        let mut out = vec![0u64; counts.len()];
        for _ in 0..reps {
            multinomial(&mut rng, n, &counts, &mut out);
            for (column, &x) in drawn.iter_mut().zip(&out) {
                column.push(x);
            }
        }
        for (j, &c) in counts.iter().enumerate() {
            let p = c as f64 / n as f64;
            let (mean, var) = moments(&drawn[j]);
            let v = n as f64 * p * (1.0 - p);
            assert!((mean - n as f64 * p).abs() < 6.0 * (v / reps as f64).sqrt() + 1e-9);
            assert!(
                (var - v).abs() < 8.0 * v * (2.0 / reps as f64).sqrt() + 1e-9,
                "{j}: {var} {v}"
            );
        }
    }
}
