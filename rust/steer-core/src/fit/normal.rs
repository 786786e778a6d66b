//! The standard normal distribution in log space, as the interval-censored
//! likelihood needs it: `ln Φ`-type quantities that stay finite far in the
//! tails, and the ratios `z^k φ(z) / P` of an interval probability `P`.

const LN_2PI_HALF: f64 = 0.918_938_533_204_672_8; // ½ ln 2π
const LN_HALF: f64 = -std::f64::consts::LN_2;

#[allow(clippy::excessive_precision)]
/// Chebyshev coefficients of erfc (Numerical Recipes, 3rd ed., §6.2.2):
/// relative error about 1.2e-16 for x ≥ 0.
const COF: [f64; 28] = [
    -1.302_653_719_781_709_4,
    6.419_697_923_564_902_6e-1,
    1.947_647_320_418_583_6e-2,
    -9.561_514_786_808_631e-3,
    -9.465_953_444_820_36e-4,
    3.668_394_978_527_61e-4,
    4.252_332_480_690_7e-5,
    -2.027_857_811_253_4e-5,
    -1.624_290_004_647e-6,
    1.303_655_835_580e-6,
    1.562_644_172_2e-8,
    -8.523_809_591_5e-8,
    6.529_054_439e-9,
    5.059_343_495e-9,
    -9.913_641_56e-10,
    -2.273_651_22e-10,
    9.646_791_1e-11,
    2.394_038e-12,
    -6.886_027e-12,
    8.944_87e-13,
    3.130_92e-13,
    -1.127_08e-13,
    3.81e-16,
    7.106e-15,
    -1.523e-15,
    -9.4e-17,
    1.21e-16,
    -2.8e-17,
];

/// `ln erfc(x)` for `x ≥ 0`, finite however large `x` is.
pub fn ln_erfc(x: f64) -> f64 {
    debug_assert!(x >= 0.0);
    let t = 2.0 / (2.0 + x);
    let ty = 4.0 * t - 2.0;
    let (mut d, mut dd) = (0.0, 0.0);
    for &c in COF[1..].iter().rev() {
        let tmp = d;
        d = ty * d - dd + c;
        dd = tmp;
    }
    t.ln() - x * x + 0.5 * (COF[0] + ty * d) - dd
}

/// [`ln_erfc`] of two arguments at once (both ≥ 0), with the Chebyshev
/// recurrence `d_k = y d_{k+1} − d_{k+2} + c_k` taken two terms a step
/// (`d_k = (y² − 1) d_{k+2} − y d_{k+3} + y c_{k+1} + c_k`) and the two
/// arguments' recurrences interleaved: a quarter of the dependent latency of
/// two plain [`ln_erfc`] calls, agreeing with them to about 1e-15.
#[inline]
fn ln_erfc2(x: f64, y: f64) -> (f64, f64) {
    debug_assert!(x >= 0.0 && y >= 0.0);
    let (t, u) = (2.0 / (2.0 + x), 2.0 / (2.0 + y));
    let (tx, ty) = (4.0 * t - 2.0, 4.0 * u - 2.0);
    let (ax, ay) = (tx * tx - 1.0, ty * ty - 1.0);
    // COF[1..] from the top: c_27 alone, then pairs (c_{k+1}, c_k).
    let top = COF[COF.len() - 1];
    let (mut d, mut dd) = (top, 0.0);
    let (mut e, mut ee) = (top, 0.0);
    for pair in COF[1..COF.len() - 1].rchunks_exact(2) {
        let (hi, lo) = (pair[1], pair[0]);
        let d1 = tx * d + (hi - dd);
        let e1 = ty * e + (hi - ee);
        d = ax * d + ((tx * hi + lo) - tx * dd);
        e = ay * e + ((ty * hi + lo) - ty * ee);
        dd = d1;
        ee = e1;
    }
    (
        t.ln() - x * x + 0.5 * (COF[0] + tx * d) - dd,
        u.ln() - y * y + 0.5 * (COF[0] + ty * e) - ee,
    )
}

/// `ln Q(z)` = `ln P(Z > z)`; −∞ at z = +∞, 0 at z = −∞.
pub fn ln_q(z: f64) -> f64 {
    if z == f64::INFINITY {
        f64::NEG_INFINITY
    } else if z == f64::NEG_INFINITY {
        0.0
    } else if z >= 0.0 {
        LN_HALF + ln_erfc(z * std::f64::consts::FRAC_1_SQRT_2)
    } else {
        (-0.5 * ln_erfc(-z * std::f64::consts::FRAC_1_SQRT_2).exp()).ln_1p()
    }
}

/// `(ln Q(z), ln Q(w))` for `z, w ≥ 0` (either may be +∞), as [`ln_q`].
#[inline]
fn ln_q2(z: f64, w: f64) -> (f64, f64) {
    let arg = |v: f64| {
        if v == f64::INFINITY {
            0.0
        } else {
            v * std::f64::consts::FRAC_1_SQRT_2
        }
    };
    let (ez, ew) = ln_erfc2(arg(z), arg(w));
    let out = |v: f64, e: f64| {
        if v == f64::INFINITY {
            f64::NEG_INFINITY
        } else {
            LN_HALF + e
        }
    };
    (out(z, ez), out(w, ew))
}

/// `ln(1 − e^x)` for `x ≤ 0`, accurate on both ends.
fn ln_one_minus_exp(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        (-x.exp_m1()).ln()
    } else {
        (-x.exp()).ln_1p()
    }
}

/// `ln P(a < Z < b)` for `a < b` (either may be infinite).
pub fn ln_interval(a: f64, b: f64) -> f64 {
    if a >= 0.0 {
        let (qa, qb) = ln_q2(a, b);
        qa + ln_one_minus_exp(qb - qa)
    } else if b <= 0.0 {
        let (qa, qb) = ln_q2(-b, -a);
        qa + ln_one_minus_exp(qb - qa)
    } else {
        let (qa, qb) = ln_q2(-a, b);
        (-(qa.exp() + qb.exp())).ln_1p()
    }
}

/// `ln φ(z)`.
#[inline]
fn ln_phi(z: f64) -> f64 {
    -0.5 * z * z - LN_2PI_HALF
}

/// One observation's log-likelihood and its first and second derivatives in
/// the model value `m` and the noise scale `sigma`.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Censored {
    pub ll: f64,
    pub d_m: f64,
    pub d_s: f64,
    pub d_mm: f64,
    pub d_ms: f64,
    pub d_ss: f64,
}

/// The observation "the switch value lies in `[lo, hi]`" (NaN = open side)
/// when it is `m + ε`, `ε ~ N(0, (sigma·scale)²)`. `lo == hi` is an exact
/// observation (a density). `lo < hi` or one side open is assumed.
pub fn censored(m: f64, sigma: f64, scale: f64, lo: f64, hi: f64) -> Censored {
    let u = 1.0 / (sigma * scale);
    if lo == hi {
        let z = (lo - m) * u;
        return Censored {
            ll: -0.5 * z * z - (sigma * scale).ln() - LN_2PI_HALF,
            d_m: z * u,
            d_s: (z * z - 1.0) / sigma,
            d_mm: -u * u,
            d_ms: -2.0 * z * u / sigma,
            d_ss: (1.0 - 3.0 * z * z) / (sigma * sigma),
        };
    }
    let a = if lo.is_nan() {
        f64::NEG_INFINITY
    } else {
        (lo - m) * u
    };
    let b = if hi.is_nan() {
        f64::INFINITY
    } else {
        (hi - m) * u
    };
    let lp = ln_interval(a, b);
    // z^k φ(z) / P for the two ends (zero at an open end).
    let ratio = |z: f64| {
        if z.is_finite() {
            (ln_phi(z) - lp).exp()
        } else {
            0.0
        }
    };
    let (rb, ra) = (ratio(b), ratio(a));
    let (a, b) = (
        if a.is_finite() { a } else { 0.0 },
        if b.is_finite() { b } else { 0.0 },
    );
    let m1 = rb - ra;
    let n1 = b * rb - a * ra;
    let k2 = b * b * rb - a * a * ra;
    let k3 = b * b * b * rb - a * a * a * ra;
    Censored {
        ll: lp,
        d_m: -u * m1,
        d_s: -n1 / sigma,
        d_mm: -u * u * (n1 + m1 * m1),
        d_ms: u / sigma * (m1 - k2 - m1 * n1),
        d_ss: (2.0 * n1 - k3 - n1 * n1) / (sigma * sigma),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erfc_matches_reference_values() {
        // scipy.special.erfc
        for (x, want) in [
            (0.0, 1.0),
            (0.1, 0.887_537_083_981_715_2),
            (0.5, 0.479_500_122_186_953_5),
            (1.0, 0.157_299_207_050_285_16),
            (2.0, 0.004_677_734_981_047_266),
            (3.0, 2.209_049_699_858_544_5e-5),
            (5.0, 1.537_459_794_428_034_7e-12),
            (10.0, 2.088_487_583_762_544_6e-45),
        ] {
            let got = ln_erfc(x).exp();
            assert!((got - want).abs() <= 1e-14 * want, "{x}: {got} vs {want}");
        }
    }

    #[test]
    fn paired_erfc_matches_the_single_one() {
        for i in 0..=4000 {
            let x = i as f64 * 0.01;
            let y = 40.0 - x;
            let (ex, ey) = ln_erfc2(x, y);
            for (got, want) in [(ex, ln_erfc(x)), (ey, ln_erfc(y))] {
                assert!(
                    (got - want).abs() <= 4e-15 * want.abs().max(1.0),
                    "{x}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn log_tails_match_reference_values() {
        // scipy.special.log_ndtr(z) = ln Φ(z) = ln Q(−z)
        for (z, want) in [
            (-40.0, -804.608_442_013_753_9),
            (-5.0, -15.064_998_393_988_727),
            (-1.0, -1.841_021_645_009_263_4),
            (0.0, -std::f64::consts::LN_2),
            (1.0, -0.172_753_779_023_449_9),
            (5.0, -2.866_516_129_637_629_4e-7),
        ] {
            let got = ln_q(-z);
            assert!(
                (got - want).abs() <= 1e-13 * want.abs(),
                "{z}: {got} vs {want}"
            );
        }
    }

    #[test]
    fn derivatives_match_finite_differences() {
        for &(m, s, lo, hi) in &[
            (1.0, 0.3, 0.5, 1.7),
            (3.0, 0.2, f64::NAN, 1.0),
            (-2.0, 0.5, 0.0, f64::NAN),
            (0.4, 0.1, 0.4, 0.4),
            (9.0, 0.1, 0.0, 1.0),
        ] {
            let c = censored(m, s, 2.0, lo, hi);
            let h = 1e-6;
            let fm = |mm: f64, ss: f64| censored(mm, ss, 2.0, lo, hi);
            let num_m = (fm(m + h, s).ll - fm(m - h, s).ll) / (2.0 * h);
            let num_s = (fm(m, s + h).ll - fm(m, s - h).ll) / (2.0 * h);
            let num_mm = (fm(m + h, s).d_m - fm(m - h, s).d_m) / (2.0 * h);
            let num_ms = (fm(m, s + h).d_m - fm(m, s - h).d_m) / (2.0 * h);
            let num_ss = (fm(m, s + h).d_s - fm(m, s - h).d_s) / (2.0 * h);
            for (got, want) in [
                (c.d_m, num_m),
                (c.d_s, num_s),
                (c.d_mm, num_mm),
                (c.d_ms, num_ms),
                (c.d_ss, num_ss),
            ] {
                assert!(
                    (got - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "{m} {s} {lo} {hi}: {got} vs {want}"
                );
            }
        }
    }
}
