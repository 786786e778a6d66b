//! Integers and samples drawn exactly as numpy's `Generator` draws them.
//!
//! The generators draw every question from a numpy `Generator`, and a bank
//! must stay the same for a seed. numpy's `integers(..., size=k)` and
//! `choice(n, k, replace=False)` cost a few microseconds a call in argument
//! handling (an `np.prod` of the size, a hash-set array), far more than the
//! draws. These functions run the same algorithms on the same raw bits:
//! Lemire's bounded integers (32-bit when the range fits, as numpy does),
//! Floyd's sample with numpy's shuffle after it, and numpy's tail shuffle for
//! large populations. Called on the bit generator behind a `Generator`, they
//! return what its method would and leave its stream where the method would.

use crate::alloc;
use crate::error::{Error, Result};
use std::collections::HashSet;

/// Raw bits from a bit generator (numpy's `next_uint32` / `next_uint64`).
pub trait BitSource {
    fn next_u32(&mut self) -> u32;
    fn next_u64(&mut self) -> u64;
}

/// A uniform integer in `[0, range]`, closed (numpy's `random_bounded_uint64`,
/// unmasked).
pub fn bounded<B: BitSource + ?Sized>(bits: &mut B, range: u64) -> u64 {
    const U32: u64 = u32::MAX as u64;
    match range {
        0 => 0,
        U32 => u64::from(bits.next_u32()),
        r if r < U32 => u64::from(lemire32(bits, r as u32)),
        u64::MAX => bits.next_u64(),
        r => lemire64(bits, r),
    }
}

/// Lemire's multiply-and-reject on 32 bits; `range` < u32::MAX.
fn lemire32<B: BitSource + ?Sized>(bits: &mut B, range: u32) -> u32 {
    let excl = range + 1;
    let mut m = u64::from(bits.next_u32()) * u64::from(excl);
    let mut low = m as u32;
    if low < excl {
        let threshold = (u32::MAX - range) % excl;
        while low < threshold {
            m = u64::from(bits.next_u32()) * u64::from(excl);
            low = m as u32;
        }
    }
    (m >> 32) as u32
}

/// The same on 64 bits; `range` < u64::MAX.
fn lemire64<B: BitSource + ?Sized>(bits: &mut B, range: u64) -> u64 {
    let excl = range + 1;
    let mut m = u128::from(bits.next_u64()) * u128::from(excl);
    let mut low = m as u64;
    if low < excl {
        let threshold = (u64::MAX - range) % excl;
        while low < threshold {
            m = u128::from(bits.next_u64()) * u128::from(excl);
            low = m as u64;
        }
    }
    (m >> 64) as u64
}

/// `out.len()` integers in `[low, high)`, as `Generator.integers(low, high,
/// size=out.len())` fills its int64 array.
pub fn integers<B: BitSource + ?Sized>(
    bits: &mut B,
    low: i64,
    high: i64,
    out: &mut [i64],
) -> Result<()> {
    if low >= high {
        return Err(Error::invalid(
            "high",
            format!("low >= high ({low} >= {high})"),
        ));
    }
    // numpy's closed range high - 1 - low, in two's complement.
    let range = (high as u64).wrapping_sub(1).wrapping_sub(low as u64);
    for x in out.iter_mut() {
        *x = (low as u64).wrapping_add(bounded(bits, range)) as i64;
    }
    Ok(())
}

/// numpy's in-place shuffle of `data[first..]`'s positions: for each i from
/// the last down to `first`, swap `data[i]` with `data[j]`, j uniform in [0, i].
fn shuffle_from<B: BitSource + ?Sized>(bits: &mut B, data: &mut [u64], first: usize) {
    for i in (first..data.len()).rev() {
        let j = bounded(bits, i as u64) as usize;
        data.swap(i, j);
    }
}

/// Populations above this size with large samples are shuffled, not sampled
/// by Floyd (numpy's heuristic, for `shuffle=True`).
const TAIL_SHUFFLE_ABOVE: u64 = 10_000;
const TAIL_SHUFFLE_CUTOFF: u64 = 50;
/// Samples up to this size find taken values by a scan, larger ones by a set.
const SCAN_UP_TO: usize = 32;

/// `size` distinct indices of `0..population` in random order, as
/// `Generator.choice(population, size, replace=False)` returns them.
pub fn sample<B: BitSource + ?Sized>(
    bits: &mut B,
    population: u64,
    size: usize,
) -> Result<Vec<u64>> {
    let k = size as u64;
    if k > population {
        return Err(Error::invalid(
            "size",
            format!("cannot take {size} distinct items from a population of {population}"),
        ));
    }
    if population > TAIL_SHUFFLE_ABOVE && k > population / TAIL_SHUFFLE_CUTOFF {
        let n = usize::try_from(population).map_err(|_| Error::too_large("population", None))?;
        let mut all = alloc::try_with_capacity("population", n)?;
        all.extend(0..population);
        shuffle_from(bits, &mut all, (n - size).max(1));
        all.drain(..n - size);
        return Ok(all);
    }
    // Floyd: for each j of the last `size` values, take a uniform pick in
    // [0, j], or j itself when the pick is already taken.
    // Small samples (the usual case) look up what is taken by scanning.
    let mut out: Vec<u64> = alloc::try_with_capacity("sample", size)?;
    let mut taken = HashSet::new();
    for j in population - k..population {
        let pick = bounded(bits, j);
        let seen = if size <= SCAN_UP_TO {
            out.contains(&pick)
        } else {
            taken.contains(&pick)
        };
        let chosen = if seen { j } else { pick };
        if size > SCAN_UP_TO {
            taken.insert(chosen);
        }
        out.push(chosen);
    }
    shuffle_from(bits, &mut out, 1);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// splitmix64: a plain, well-mixed source for property tests.
    struct Mix(u64);

    impl BitSource for Mix {
        fn next_u64(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }
        fn next_u32(&mut self) -> u32 {
            (self.next_u64() >> 32) as u32
        }
    }

    /// Replays fixed words, to drive the rejection branches.
    struct Words(Vec<u32>, usize);

    impl BitSource for Words {
        fn next_u32(&mut self) -> u32 {
            self.1 += 1;
            self.0[self.1 - 1]
        }
        fn next_u64(&mut self) -> u64 {
            u64::from(self.next_u32())
        }
    }

    #[test]
    fn bounded_stays_in_range_and_reaches_both_ends() {
        let mut bits = Mix(7);
        for range in [1u64, 2, 5, 6, 1000, u64::from(u32::MAX) - 1, 1 << 40] {
            let draws: Vec<u64> = (0..4000).map(|_| bounded(&mut bits, range)).collect();
            assert!(draws.iter().all(|&x| x <= range));
            if range <= 6 {
                assert!(draws.contains(&0) && draws.contains(&range));
            }
        }
        assert_eq!(bounded(&mut bits, 0), 0);
    }

    #[test]
    fn lemire_rejects_the_biased_low_words() {
        // range 2 (3 values): threshold = (2^32 - 3) % 3 = 1, so a word whose
        // product's low half is 0 is drawn again.
        let mut bits = Words(vec![0, 0x8000_0000], 0);
        assert_eq!(bounded(&mut bits, 2), 1);
        assert_eq!(bits.1, 2);
    }

    #[test]
    fn integers_cover_a_shifted_range_and_refuse_an_empty_one() {
        let mut bits = Mix(3);
        let mut out = vec![0i64; 500];
        integers(&mut bits, -3, 2, &mut out).unwrap();
        assert!(out.iter().all(|&x| (-3..2).contains(&x)));
        assert!(out.contains(&-3) && out.contains(&1));
        assert!(integers(&mut bits, 4, 4, &mut out).is_err());
    }

    #[test]
    fn samples_are_distinct_and_every_subset_order_occurs() {
        let mut bits = Mix(11);
        let mut seen = std::collections::HashSet::new();
        for _ in 0..3000 {
            let s = sample(&mut bits, 4, 2).unwrap();
            assert!(s[0] != s[1] && s.iter().all(|&x| x < 4));
            seen.insert((s[0], s[1]));
        }
        assert_eq!(seen.len(), 12);
        let big = sample(&mut bits, 20_000, 1_000).unwrap();
        let distinct: std::collections::HashSet<_> = big.iter().collect();
        assert_eq!(distinct.len(), 1_000);
        assert!(sample(&mut bits, 3, 4).is_err());
        assert!(sample(&mut bits, 0, 0).unwrap().is_empty());
    }
}
