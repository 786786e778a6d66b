//! Prospect theory (Tversky and Kahneman 1992) from certainty equivalents and
//! mixed-gamble switching points.
//!
//! Value `v(x) = x^α` (x ≥ 0), `−λ(−x)^β` (x < 0); weighting
//! `w(p) = p^c / (p^c + (1−p)^c)^(1/c)` with `c = γ` for gains and `c = δ`
//! for losses. Bounds: α, β ∈ [0.05, 2], λ ∈ [0.1, 10], γ, δ ∈ [0.28, 1.5]
//! (where `w` stays monotone); the noise scale σ ∈ [1e-6, 100].
//!
//! * **Kind 0**, a certainty-equivalent task on a two-outcome prospect
//!   `(x1, p1; x2, p2)` with outcomes of one sign: with `x_hi` the outcome
//!   of larger magnitude, `V = w(p_hi) v(x_hi) + (1 − w(p_hi)) v(x_lo)` and
//!   the model's answer is `CE = v⁻¹(V)`. (λ cancels from a loss CE.)
//! * **Kind 1**, a mixed gamble: lose `|L|` with probability `p_L`, else win
//!   `G`, against nothing for sure. The model's switching gain solves
//!   `w+(1−p_L) G^α = λ w−(p_L) |L|^β`.
//!
//! The subject's answer is the bracket `[lo, hi]` (NaN = open side) of the
//! switch value. `Method::Mle` maximises the interval-censored likelihood of
//! `answer = model + ε`, `ε ~ N(0, (σ s)²)` with `s = |x2 − x1|` (kind 0) or
//! the break-even gain `−L p_L / (1 − p_L)` (kind 1); `Method::Lm` minimises
//! the squared distance of the model value to the midpoints of closed brackets
//! (open brackets are left out). Parameters the data cannot identify (no gain
//! prospects → α, γ; no loss prospects → β, δ; no mixed gambles → λ; or every
//! answer of that kind censored on the same side) are held at the human
//! medians [`PT_MEDIANS`] and reported unidentified.
//!
//! The full-sample fit runs Gauss–Newton from several starts and polishes the
//! best with Newton steps. Each bootstrap resample starts from the
//! full-sample estimate and takes damped Newton steps ([`minimize_newton`])
//! with λ and σ as their logarithms (the objective is closer to quadratic
//! there; the bounds map with them, so the optimum is the same). An
//! evaluation computes the weighting function once per distinct probability
//! and each power once per distinct outcome, and skips zero-weight
//! observations.

use super::normal::censored;
use super::solve::{minimize, minimize_newton, singular, Objective, LOOSE, TIGHT};
use super::{
    bootstrap_intervals, bracket_problem, finite, gaussian_ic, group_rows, r_squared, same_lengths,
    Bootstrap, GroupFit, ParamFit,
};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// Fitting method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// Interval-censored maximum likelihood (with the noise scale σ).
    Mle,
    /// Bounded Levenberg–Marquardt least squares on bracket midpoints.
    Lm,
}

impl Method {
    pub fn name(self) -> &'static str {
        match self {
            Method::Mle => "mle",
            Method::Lm => "lm",
        }
    }
}

/// α, β, λ, γ, δ held when the data do not identify them (human medians).
pub const PT_MEDIANS: [f64; 5] = [0.88, 0.88, 2.25, 0.61, 0.69];
/// (lower, upper) bounds of α, β, λ, γ, δ, σ.
pub const PT_BOUNDS: [(f64, f64); 6] = [
    (0.05, 2.0),
    (0.05, 2.0),
    (0.1, 10.0),
    (0.28, 1.5),
    (0.28, 1.5),
    (1e-6, 100.0),
];
const NAMES: [&str; 6] = ["alpha", "beta", "lambda", "gamma", "delta", "sigma"];
const STARTS: [[f64; 5]; 4] = [
    PT_MEDIANS,
    [0.5, 0.5, 1.0, 0.4, 0.4],
    [1.0, 1.0, 1.5, 0.9, 0.9],
    [1.4, 1.4, 4.0, 1.2, 1.2],
];
const SIGMA_START: f64 = 0.1;
const TAG: u64 = 0x5054; // "PT"

/// Observations, one entry per observation in every slice.
#[derive(Debug, Clone, Copy)]
pub struct ProspectData<'a> {
    pub group: &'a [i64],
    /// 0: certainty-equivalent task; 1: mixed gamble.
    pub kind: &'a [i64],
    /// Kind 0: first outcome; kind 1: the loss `L < 0`.
    pub x1: &'a [f64],
    /// Kind 0: probability of `x1`; kind 1: the loss probability `p_L`.
    pub p1: &'a [f64],
    /// Kind 0: second outcome (ignored for kind 1).
    pub x2: &'a [f64],
    /// Kind 0: probability of `x2`, `p1 + p2 = 1` (ignored for kind 1).
    pub p2: &'a [f64],
    /// Bracket of the switch value; NaN = open.
    pub lo: &'a [f64],
    pub hi: &'a [f64],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Gain,
    Loss,
    Mixed,
}

/// One observation, logs precomputed.
#[derive(Debug, Clone, Copy)]
struct Obs {
    kind: Kind,
    /// ln |x_hi| (kind 0) or ln |L| (kind 1).
    lxh: f64,
    /// ln |x_lo|, −∞ when x_lo = 0.
    lxl: f64,
    /// ln p_hi, ln (1 − p_hi) (kind 0) or ln p_L, ln (1 − p_L) (kind 1).
    lp: f64,
    lq: f64,
    lo: f64,
    hi: f64,
    scale: f64,
}

impl Obs {
    fn closed(&self) -> bool {
        !self.lo.is_nan() && !self.hi.is_nan()
    }
    fn mid(&self) -> f64 {
        0.5 * (self.lo + self.hi)
    }
}

fn validate(d: &ProspectData<'_>) -> Result<Vec<Obs>> {
    let n = d.group.len();
    same_lengths(
        n,
        &[
            ("kind", d.kind.len()),
            ("x1", d.x1.len()),
            ("p1", d.p1.len()),
            ("x2", d.x2.len()),
            ("p2", d.p2.len()),
            ("lo", d.lo.len()),
            ("hi", d.hi.len()),
        ],
    )?;
    (0..n)
        .map(|i| {
            let bad =
                |field: &str, msg: String| Error::invalid(field, format!("observation {i}: {msg}"));
            let (lo, hi) = (d.lo[i], d.hi[i]);
            if let Some((field, msg)) = bracket_problem(lo, hi) {
                return Err(bad(field, msg));
            }
            let (x1, p1) = (d.x1[i], d.p1[i]);
            if !x1.is_finite() {
                return Err(bad("x1", format!("must be a finite number, got {x1}")));
            }
            if !(0.0..=1.0).contains(&p1) {
                return Err(bad(
                    "p1",
                    format!("probability must be in [0, 1], got {p1}"),
                ));
            }
            match d.kind[i] {
                0 => {
                    let (x2, p2) = (d.x2[i], d.p2[i]);
                    if !x2.is_finite() {
                        return Err(bad("x2", format!("must be a finite number, got {x2}")));
                    }
                    if !(0.0..=1.0).contains(&p2) {
                        return Err(bad(
                            "p2",
                            format!("probability must be in [0, 1], got {p2}"),
                        ));
                    }
                    if (p1 + p2 - 1.0).abs() > 1e-9 {
                        return Err(bad("p2", format!("p1 + p2 = {} (must be 1)", p1 + p2)));
                    }
                    if x1 == x2 {
                        return Err(bad("x2", format!("x1 = x2 = {x1}: not a gamble")));
                    }
                    if x1 * x2 < 0.0 {
                        return Err(bad(
                            "x2",
                            format!(
                                "outcomes {x1} and {x2} differ in sign: a mixed prospect is kind 1"
                            ),
                        ));
                    }
                    let gain = x1.max(x2) > 0.0;
                    let ((xh, ph), xl) = if x1.abs() > x2.abs() {
                        ((x1, p1), x2)
                    } else {
                        ((x2, p2), x1)
                    };
                    Ok(Obs {
                        kind: if gain { Kind::Gain } else { Kind::Loss },
                        lxh: xh.abs().ln(),
                        lxl: xl.abs().ln(),
                        lp: ph.ln(),
                        lq: (1.0 - ph).ln(),
                        lo,
                        hi,
                        scale: (x2 - x1).abs(),
                    })
                }
                1 => {
                    if !(x1 < 0.0) {
                        return Err(bad(
                            "x1",
                            format!("a mixed gamble's loss must be negative, got {x1}"),
                        ));
                    }
                    if !(p1 > 0.0 && p1 < 1.0) {
                        return Err(bad(
                            "p1",
                            format!(
                                "a mixed gamble's loss probability must be in (0, 1), got {p1}"
                            ),
                        ));
                    }
                    Ok(Obs {
                        kind: Kind::Mixed,
                        lxh: (-x1).ln(),
                        lxl: f64::NEG_INFINITY,
                        lp: p1.ln(),
                        lq: (1.0 - p1).ln(),
                        lo,
                        hi,
                        scale: -x1 * p1 / (1.0 - p1),
                    })
                }
                k => Err(bad(
                    "kind",
                    format!("must be 0 (certainty equivalent) or 1 (mixed gamble), got {k}"),
                )),
            }
        })
        .collect()
}

/// `(w(p), ln w(p), d ln w / dc, d² ln w / dc²)` from `ln p`, `ln (1 − p)`.
#[inline]
fn weight(c: f64, lp: f64, lq: f64) -> (f64, f64, f64, f64) {
    if lp == f64::NEG_INFINITY {
        return (0.0, f64::NEG_INFINITY, 0.0, 0.0);
    }
    if lq == f64::NEG_INFINITY {
        return (1.0, 0.0, 0.0, 0.0);
    }
    let pc = (c * lp).exp();
    let qc = (c * lq).exp();
    let d = pc + qc;
    let ld = d.ln();
    // ld' = E, ld'' = F − E² (derivatives of ln(p^c + q^c) in c).
    let e = (pc * lp + qc * lq) / d;
    let ldd = (pc * lp * lp + qc * lq * lq) / d - e * e;
    let lnw = c * lp - ld / c;
    let dlnw = lp - e / c + ld / (c * c);
    let d2lnw = -ldd / c + 2.0 * e / (c * c) - 2.0 * ld / (c * c * c);
    (lnw.exp(), lnw, dlnw, d2lnw)
}

/// A one-sign prospect's CE magnitude `exp(Q)` with curvature `a`, from the
/// weighting terms `wt` of `p_hi` ([`weight`]) and the powers
/// `big = |x_hi|^a`, `small = |x_lo|^a`: `(Q, Q_a, Q_c, Q_aa, Q_ac, Q_cc)`;
/// `None` when V = 0.
#[inline]
fn ce_log(a: f64, wt: Wt, big: f64, small: f64, o: &Obs) -> Option<[f64; 6]> {
    let (w, _, dl, d2l) = wt;
    let wc = w * dl;
    let wcc = w * (dl * dl + d2l);
    let (ba, baa) = (big * o.lxh, big * o.lxh * o.lxh);
    let (sb, sbb) = if o.lxl == f64::NEG_INFINITY {
        (0.0, 0.0)
    } else {
        (small * o.lxl, small * o.lxl * o.lxl)
    };
    let v = w * big + (1.0 - w) * small;
    if !(v > 0.0) {
        return None;
    }
    let va = w * ba + (1.0 - w) * sb;
    let vaa = w * baa + (1.0 - w) * sbb;
    let vc = (big - small) * wc;
    let vcc = (big - small) * wcc;
    let vac = (ba - sb) * wc;
    let l = v.ln();
    let (la, lc) = (va / v, vc / v);
    let laa = vaa / v - la * la;
    let lac = vac / v - la * lc;
    let lcc = vcc / v - lc * lc;
    Some([
        l / a,
        la / a - l / (a * a),
        lc / a,
        laa / a - 2.0 * la / (a * a) + 2.0 * l / (a * a * a),
        lac / a - lc / (a * a),
        lcc / a,
    ])
}

/// [`weight`]'s four terms.
type Wt = (f64, f64, f64, f64);

/// What an observation's model value needs beyond its own data, computed
/// once per parameter vector for every distinct probability and outcome
/// ([`Shared`]) or directly ([`Terms::direct`]).
#[derive(Debug, Clone, Copy)]
struct Terms {
    /// Kind 0: weighting of `p_hi`; kind 1: δ-weighting of `p_L`.
    w1: Wt,
    /// Kind 1: γ-weighting of `1 − p_L` (unused for kind 0).
    w2: Wt,
    /// Kind 0: `|x_hi|^a`, `|x_lo|^a` (0 when `x_lo = 0`).
    big: f64,
    small: f64,
    /// ln λ (kind 1).
    ln_lambda: f64,
}

/// `(curvature index, weighting index)` of a one-sign prospect.
fn ce_params(kind: Kind) -> (usize, usize) {
    if kind == Kind::Gain {
        (0, 3)
    } else {
        (1, 4)
    }
}

/// `|x|^a` from `ln |x|` (0 when x = 0).
#[inline]
fn power(a: f64, lx: f64) -> f64 {
    if lx == f64::NEG_INFINITY {
        0.0
    } else {
        (a * lx).exp()
    }
}

impl Terms {
    fn direct(x: &[f64], o: &Obs) -> Terms {
        match o.kind {
            Kind::Gain | Kind::Loss => {
                let (ia, ic) = ce_params(o.kind);
                Terms {
                    w1: weight(x[ic], o.lp, o.lq),
                    w2: (0.0, 0.0, 0.0, 0.0),
                    big: power(x[ia], o.lxh),
                    small: power(x[ia], o.lxl),
                    ln_lambda: 0.0,
                }
            }
            Kind::Mixed => Terms {
                w1: weight(x[4], o.lp, o.lq),
                w2: weight(x[3], o.lq, o.lp),
                big: 0.0,
                small: 0.0,
                ln_lambda: x[2].ln(),
            },
        }
    }
}

/// The distinct weighting and power terms of a group's observations (each
/// observation points into them), so that an evaluation computes each once.
struct Shared {
    /// (parameter index of c, ln p, ln (1 − p)) of each distinct weighting.
    wkeys: Vec<(usize, f64, f64)>,
    /// (parameter index of a, ln |x|) of each distinct power.
    pkeys: Vec<(usize, f64)>,
    /// Per observation: indices of `w1`, `w2`, `big`, `small` (`usize::MAX`:
    /// not used).
    index: Vec<[usize; 4]>,
}

impl Shared {
    fn new(obs: &[Obs]) -> Shared {
        use std::collections::HashMap;
        let mut wmap: HashMap<(usize, u64, u64), usize> = HashMap::new();
        let mut pmap: HashMap<(usize, u64), usize> = HashMap::new();
        let mut sh = Shared {
            wkeys: Vec::new(),
            pkeys: Vec::new(),
            index: Vec::with_capacity(obs.len()),
        };
        let mut wi = |sh: &mut Shared, c: usize, lp: f64, lq: f64| {
            *wmap
                .entry((c, lp.to_bits(), lq.to_bits()))
                .or_insert_with(|| {
                    sh.wkeys.push((c, lp, lq));
                    sh.wkeys.len() - 1
                })
        };
        let mut pi = |sh: &mut Shared, a: usize, lx: f64| {
            if lx == f64::NEG_INFINITY {
                return usize::MAX;
            }
            *pmap.entry((a, lx.to_bits())).or_insert_with(|| {
                sh.pkeys.push((a, lx));
                sh.pkeys.len() - 1
            })
        };
        for o in obs {
            let idx = match o.kind {
                Kind::Gain | Kind::Loss => {
                    let (ia, ic) = ce_params(o.kind);
                    [
                        wi(&mut sh, ic, o.lp, o.lq),
                        usize::MAX,
                        pi(&mut sh, ia, o.lxh),
                        pi(&mut sh, ia, o.lxl),
                    ]
                }
                Kind::Mixed => [
                    wi(&mut sh, 4, o.lp, o.lq),
                    wi(&mut sh, 3, o.lq, o.lp),
                    usize::MAX,
                    usize::MAX,
                ],
            };
            sh.index.push(idx);
        }
        sh
    }

    /// The terms at `x` into `wv`, `pv`.
    fn compute(&self, x: &[f64], wv: &mut Vec<Wt>, pv: &mut Vec<f64>) {
        wv.clear();
        wv.extend(self.wkeys.iter().map(|&(c, lp, lq)| weight(x[c], lp, lq)));
        pv.clear();
        pv.extend(self.pkeys.iter().map(|&(a, lx)| power(x[a], lx)));
    }

    /// Observation `i`'s terms from computed tables.
    #[inline]
    fn terms(&self, i: usize, wv: &[Wt], pv: &[f64], ln_lambda: f64) -> Terms {
        let [a, b, c, d] = self.index[i];
        let zero = (0.0, 0.0, 0.0, 0.0);
        Terms {
            w1: wv[a],
            w2: if b == usize::MAX { zero } else { wv[b] },
            big: if c == usize::MAX { 0.0 } else { pv[c] },
            small: if d == usize::MAX { 0.0 } else { pv[d] },
            ln_lambda: if b == usize::MAX { 0.0 } else { ln_lambda },
        }
    }
}

/// The model's switch value `m` with its gradient in (α, β, λ, γ, δ) and,
/// when `d2m` is given, its Hessian (row-major 5×5). Every model value is
/// `±exp(Q)`, so `∇m = m ∇Q` and `∇²m = m (∇Q ∇Qᵀ + ∇²Q)`.
#[inline]
fn model(x: &[f64], o: &Obs, dm: &mut [f64; 5], d2m: Option<&mut [f64; 25]>) -> f64 {
    model_with(x, o, &Terms::direct(x, o), dm, d2m)
}

/// [`model`] from precomputed [`Terms`].
#[inline]
fn model_with(
    x: &[f64],
    o: &Obs,
    t: &Terms,
    dm: &mut [f64; 5],
    d2m: Option<&mut [f64; 25]>,
) -> f64 {
    let mut dq = [0.0; 5];
    let mut d2q = [0.0; 25];
    let m = match o.kind {
        Kind::Gain | Kind::Loss => {
            let (ia, ic) = ce_params(o.kind);
            let sign = if o.kind == Kind::Gain { 1.0 } else { -1.0 };
            let Some(q) = ce_log(x[ia], t.w1, t.big, t.small, o) else {
                *dm = [0.0; 5];
                if let Some(d2) = d2m {
                    *d2 = [0.0; 25];
                }
                return 0.0;
            };
            dq[ia] = q[1];
            dq[ic] = q[2];
            d2q[ia * 5 + ia] = q[3];
            d2q[ia * 5 + ic] = q[4];
            d2q[ic * 5 + ia] = q[4];
            d2q[ic * 5 + ic] = q[5];
            sign * q[0].exp()
        }
        Kind::Mixed => {
            let (alpha, beta, lambda) = (x[0], x[1], x[2]);
            let (_, lwm, dlwm, d2lwm) = t.w1;
            let (_, lwp, dlwp, d2lwp) = t.w2;
            let n = t.ln_lambda + lwm + beta * o.lxh - lwp;
            // ∇N (α slot unused), ∇²N diagonal.
            let dn = [0.0, o.lxh, 1.0 / lambda, -dlwp, dlwm];
            let d2n = [0.0, 0.0, -1.0 / (lambda * lambda), -d2lwp, d2lwm];
            let a2 = alpha * alpha;
            dq[0] = -n / a2;
            d2q[0] = 2.0 * n / (a2 * alpha);
            for j in 1..5 {
                dq[j] = dn[j] / alpha;
                d2q[j * 5] = -dn[j] / a2;
                d2q[j] = -dn[j] / a2;
                d2q[j * 5 + j] = d2n[j] / alpha;
            }
            (n / alpha).exp()
        }
    };
    for i in 0..5 {
        dm[i] = m * dq[i];
    }
    if let Some(d2) = d2m {
        for i in 0..5 {
            for j in 0..5 {
                d2[i * 5 + j] = m * (dq[i] * dq[j] + d2q[i * 5 + j]);
            }
        }
    }
    m
}

/// The objective over weighted observations: ½ SSR on midpoints (`Lm`) or
/// the negative log-likelihood (`Mle`, parameter 5 = σ). `exact` adds the
/// model's second derivatives to the curvature (Newton: fast near the
/// optimum); without them it is the Gauss–Newton matrix (robust from afar,
/// and the one the identification check reads).
struct Pt<'a> {
    obs: &'a [Obs],
    shared: &'a Shared,
    weights: &'a [f64],
    method: Method,
    exact: bool,
    /// Parameters the minimiser sees as their logarithm.
    log: [bool; 6],
    /// Scratch: the shared terms at the current point.
    wv: Vec<Wt>,
    pv: Vec<f64>,
}

impl<'a> Pt<'a> {
    fn new(
        obs: &'a [Obs],
        shared: &'a Shared,
        weights: &'a [f64],
        method: Method,
        exact: bool,
    ) -> Self {
        Pt {
            obs,
            shared,
            weights,
            method,
            exact,
            log: [false; 6],
            wv: Vec::with_capacity(shared.wkeys.len()),
            pv: Vec::with_capacity(shared.pkeys.len()),
        }
    }

    /// [`Pt::accumulate`] at `x` in the minimiser's coordinates: `θ_i =
    /// exp(x_i)` where `log[i]`, so `∂f/∂x_i = θ_i f_i` and
    /// `∂²f/∂x_i∂x_j = θ_i θ_j f_ij (+ θ_i f_i when i = j)`; the Gauss–Newton
    /// matrix takes the first term only.
    fn eval_at(
        &mut self,
        x: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        mut psd: Option<&mut [f64]>,
    ) -> f64 {
        if !self.log.contains(&true) {
            return self.accumulate(x, g, h, psd);
        }
        let p = x.len();
        let (mut theta, mut s) = ([0.0; 6], [1.0; 6]);
        for i in 0..p {
            theta[i] = x[i];
            if self.log[i] {
                s[i] = x[i].exp();
                theta[i] = s[i];
            }
        }
        let f = self.accumulate(&theta[..p], g, h, psd.as_deref_mut());
        for m in std::iter::once(&mut *h).chain(psd) {
            for i in 0..p {
                for j in 0..p {
                    m[i * p + j] *= s[i] * s[j];
                }
            }
        }
        for i in 0..p {
            if self.log[i] {
                h[i * p + i] += s[i] * g[i];
                g[i] *= s[i];
            }
        }
        f
    }

    /// `f`, `g` and the curvature `h` (with the model's second derivatives
    /// when `exact`) at `x`; `psd`, when given, gets the Gauss–Newton matrix
    /// too.
    fn accumulate(
        &mut self,
        x: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        mut psd: Option<&mut [f64]>,
    ) -> f64 {
        let p = x.len();
        g.iter_mut().for_each(|v| *v = 0.0);
        h.iter_mut().for_each(|v| *v = 0.0);
        let mut f = 0.0;
        let mut dm = [0.0; 5];
        let mut d2m = [0.0; 25];
        // Σ gm ∇²m (upper triangle of the model block).
        let mut second = [0.0; 25];
        self.shared.compute(x, &mut self.wv, &mut self.pv);
        let ln_lambda = x[2].ln();
        for (i, (o, &w)) in self.obs.iter().zip(self.weights).enumerate() {
            if w == 0.0 {
                continue;
            }
            let t = self.shared.terms(i, &self.wv, &self.pv, ln_lambda);
            let m = model_with(x, o, &t, &mut dm, self.exact.then_some(&mut d2m));
            // (weight of ∇m∇mᵀ, weight of ∇m = weight of ∇²m)
            let (gm, hmm) = match self.method {
                Method::Lm => {
                    let r = m - o.mid();
                    f += 0.5 * w * r * r;
                    (w * r, w)
                }
                Method::Mle => {
                    let c = censored(m, x[5], o.scale, o.lo, o.hi);
                    f -= w * c.ll;
                    g[5] -= w * c.d_s;
                    h[5 * p + 5] -= w * c.d_ss;
                    for i in 0..5 {
                        h[i * p + 5] -= w * c.d_ms * dm[i];
                    }
                    (-w * c.d_m, -w * c.d_mm)
                }
            };
            for i in 0..5 {
                if dm[i] == 0.0 {
                    continue;
                }
                g[i] += gm * dm[i];
                let hi = hmm * dm[i];
                for j in i..5 {
                    h[i * p + j] += hi * dm[j];
                }
                if self.exact {
                    for j in i..5 {
                        second[i * 5 + j] += gm * d2m[i * 5 + j];
                    }
                }
            }
        }
        if let Some(psd) = psd.as_deref_mut() {
            psd.copy_from_slice(h);
        }
        if self.exact {
            for i in 0..5 {
                for j in i..5 {
                    h[i * p + j] += second[i * 5 + j];
                }
            }
        }
        for m in std::iter::once(h).chain(psd) {
            for i in 0..p {
                for j in 0..i {
                    m[i * p + j] = m[j * p + i];
                }
            }
        }
        f
    }
}

impl Objective for Pt<'_> {
    fn eval(&mut self, x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
        self.eval_at(x, g, h, None)
    }

    fn eval_newton(
        &mut self,
        x: &[f64],
        g: &mut [f64],
        h: &mut [f64],
        psd: &mut [f64],
    ) -> (f64, bool) {
        (self.eval_at(x, g, h, Some(psd)), self.exact)
    }

    fn fall_back(&mut self) -> bool {
        std::mem::replace(&mut self.exact, false)
    }
}

/// Can a block of observations identify its parameters? `None` if yes,
/// else why not.
fn informative(obs: &[Obs], kind: Kind, what: &str) -> Option<String> {
    let mut count = 0;
    let (mut lo_open, mut hi_open) = (true, true);
    for o in obs.iter().filter(|o| o.kind == kind) {
        count += 1;
        lo_open &= o.lo.is_nan();
        hi_open &= o.hi.is_nan();
    }
    if count == 0 {
        Some(format!("no {what}"))
    } else if lo_open || hi_open {
        Some(format!(
            "every {what} answer is censored on the same side (no switching point)"
        ))
    } else {
        None
    }
}

fn fit_group(gid: i64, all: Vec<Obs>, method: Method, boot: &Bootstrap) -> GroupFit {
    let obs: Vec<Obs> = match method {
        Method::Lm => all.into_iter().filter(Obs::closed).collect(),
        Method::Mle => all,
    };
    let n = obs.len();
    let p = if method == Method::Mle { 6 } else { 5 };
    let names = &NAMES[..p];
    let mut out = GroupFit {
        group: gid,
        family: "prospect-theory",
        method: method.name(),
        n,
        params: Vec::new(),
        r2: None,
        ssr: None,
        aic: None,
        bic: None,
    };
    let gains = informative(&obs, Kind::Gain, "gain prospect");
    let losses = informative(&obs, Kind::Loss, "loss prospect");
    let mixed = informative(&obs, Kind::Mixed, "mixed gamble");
    let held: [Option<String>; 5] = [gains.clone(), losses.clone(), mixed, gains, losses];
    let held_reason = |i: usize| {
        held.get(i)
            .and_then(Option::as_ref)
            .map(|r| format!("held at the human median {}: {r}", PT_MEDIANS[i]))
    };
    let free: Vec<usize> = (0..p).filter(|&i| i == 5 || held[i].is_none()).collect();
    let k = free.len();
    let fail_all = |out: &mut GroupFit, why: String| {
        out.params = (0..p)
            .map(|i| {
                ParamFit::unidentified(names[i], held_reason(i).unwrap_or_else(|| why.clone()))
            })
            .collect();
    };
    let k_model = free.iter().filter(|&&i| i < 5).count();
    if k_model == 0 {
        fail_all(&mut out, "no parameter is identified by these data".into());
        return out;
    }
    if n <= k {
        let why = format!("too few observations ({n}) for {k} parameters");
        fail_all(&mut out, why);
        return out;
    }
    let (mut lo, mut hi) = ([0.0; 6], [0.0; 6]);
    for i in 0..p {
        if i < 5 && held[i].is_some() {
            lo[i] = PT_MEDIANS[i];
            hi[i] = PT_MEDIANS[i];
        } else {
            lo[i] = PT_BOUNDS[i].0;
            hi[i] = PT_BOUNDS[i].1;
        }
    }
    let ones = vec![1.0; n];
    let shared = Shared::new(&obs);
    let mut best: Option<([f64; 6], super::solve::Outcome)> = None;
    for s in STARTS {
        let mut x = [s[0], s[1], s[2], s[3], s[4], SIGMA_START];
        let mut obj = Pt::new(&obs, &shared, &ones, method, false);
        let o = minimize(&mut x[..p], &lo[..p], &hi[..p], &mut obj, 300, LOOSE);
        if o.f.is_finite() && best.as_ref().is_none_or(|(_, b)| o.f < b.f) {
            best = Some((x, o));
        }
    }
    // Polish the best start with Newton steps to the optimum's precision.
    let best = best.map(|(mut x, _)| {
        let mut obj = Pt::new(&obs, &shared, &ones, method, true);
        let o = minimize(&mut x[..p], &lo[..p], &hi[..p], &mut obj, 500, TIGHT);
        (x, o)
    });
    let Some((est, outcome)) = best else {
        fail_all(&mut out, "the objective is not finite at any start".into());
        return out;
    };
    if !outcome.converged {
        fail_all(&mut out, "the fit did not converge".into());
        return out;
    }
    // Identification at the estimate: the model block of the curvature.
    let (mut g, mut h) = ([0.0; 6], [0.0; 36]);
    let f =
        Pt::new(&obs, &shared, &ones, method, false).eval(&est[..p], &mut g[..p], &mut h[..p * p]);
    let model_free: Vec<usize> = free.iter().copied().filter(|&i| i < 5).collect();
    if singular(&h[..p * p], p, &model_free) {
        fail_all(
            &mut out,
            "singular Jacobian at the estimate: these data do not separate the parameters".into(),
        );
        return out;
    }
    // Goodness of fit on the closed brackets' midpoints.
    let mut dm = [0.0; 5];
    let closed = obs.iter().filter(|o| o.closed());
    let ssr: f64 = closed
        .clone()
        .map(|o| (model(&est, o, &mut dm, None) - o.mid()).powi(2))
        .sum();
    let n_closed = closed.clone().count();
    out.ssr = finite(ssr).filter(|_| n_closed > 0);
    out.r2 = r_squared(ssr, closed.map(Obs::mid));
    match method {
        Method::Lm => (out.aic, out.bic) = gaussian_ic(ssr, n, k),
        Method::Mle => {
            out.aic = finite(2.0 * k as f64 + 2.0 * f);
            out.bic = finite(k as f64 * (n as f64).ln() + 2.0 * f);
        }
    }
    // Resamples see λ and σ as their logarithms (the likelihood is closer to
    // quadratic there, so Newton needs fewer steps; the bounds map with
    // them, the optimum is the same).
    let log: [bool; 6] = std::array::from_fn(|i| (i == 2 || i == 5) && i < p && lo[i] < hi[i]);
    let (mut llo, mut lhi) = (lo, hi);
    for i in (0..p).filter(|&i| log[i]) {
        (llo[i], lhi[i]) = (lo[i].ln(), hi[i].ln());
    }
    let ci = bootstrap_intervals(n, p, gid, TAG, boot, |weights, x| {
        for i in 0..p {
            x[i] = if log[i] { est[i].ln() } else { est[i] };
        }
        let mut obj = Pt::new(&obs, &shared, weights, method, true);
        obj.log = log;
        let ok = minimize_newton(x, &llo[..p], &lhi[..p], &mut obj, 200, LOOSE)
            .f
            .is_finite();
        for i in (0..p).filter(|&i| log[i]) {
            x[i] = x[i].exp().clamp(lo[i], hi[i]);
        }
        ok
    });
    out.params = (0..p)
        .map(|i| match held_reason(i) {
            Some(r) => ParamFit::unidentified(names[i], r),
            None => {
                let mut pf = ParamFit::identified(names[i], est[i]);
                (pf.ci_lo, pf.ci_hi) = ci[i];
                pf
            }
        })
        .collect();
    out
}

/// Fits prospect theory per group (see the module doc). Amounts are in the
/// experiment's money unit: λ depends on it when α ≠ β.
pub fn prospect_theory(
    data: &ProspectData<'_>,
    method: Method,
    boot: &Bootstrap,
) -> Result<Vec<GroupFit>> {
    boot.check()?;
    let obs = validate(data)?;
    let groups = group_rows(data.group);
    Ok(groups
        .into_par_iter()
        .map(|(gid, rows)| {
            let o: Vec<Obs> = rows.iter().map(|&i| obs[i]).collect();
            fit_group(gid, o, method, boot)
        })
        .collect())
}

/// The model's switch value for one observation at parameters
/// `(α, β, λ, γ, δ)` (for tests and references).
pub fn switch_value(
    params: &[f64; 5],
    kind: i64,
    x1: f64,
    p1: f64,
    x2: f64,
    p2: f64,
) -> Result<f64> {
    let g = [0i64];
    let k = [kind];
    let (a, b, c, d, lo) = ([x1], [p1], [x2], [p2], [0.0]);
    let obs = validate(&ProspectData {
        group: &g,
        kind: &k,
        x1: &a,
        p1: &b,
        x2: &c,
        p2: &d,
        lo: &lo,
        hi: &[f64::NAN],
    })?;
    let mut dm = [0.0; 5];
    Ok(model(params, &obs[0], &mut dm, None))
}

/// `(m, ∇m, ∇²m)` of one observation (for the derivative tests).
#[cfg(test)]
pub(super) fn model_for_tests(
    params: &[f64; 5],
    kind: i64,
    x1: f64,
    p1: f64,
    x2: f64,
    p2: f64,
) -> (f64, [f64; 5], [f64; 25]) {
    let obs = validate(&ProspectData {
        group: &[0],
        kind: &[kind],
        x1: &[x1],
        p1: &[p1],
        x2: &[x2],
        p2: &[p2],
        lo: &[0.0],
        hi: &[f64::NAN],
    })
    .unwrap();
    let (mut d1, mut d2) = ([0.0; 5], [0.0; 25]);
    let m = model(params, &obs[0], &mut d1, Some(&mut d2));
    (m, d1, d2)
}

/// The objective the bootstrap minimises (exact curvature): `(f, g, h, psd)`
/// at `x` (the minimiser's coordinates: `log[i]` means `x[i] = ln θ_i`) over
/// `weights` (for the objective tests).
#[cfg(test)]
pub(super) fn objective_for_tests(
    data: &ProspectData<'_>,
    method: Method,
    x: &[f64],
    weights: &[f64],
    log: [bool; 6],
) -> (f64, Vec<f64>, Vec<f64>, Vec<f64>) {
    let obs = validate(data).unwrap();
    let shared = Shared::new(&obs);
    let mut pt = Pt::new(&obs, &shared, weights, method, true);
    pt.log = log;
    let p = x.len();
    let (mut g, mut h, mut psd) = (vec![0.0; p], vec![0.0; p * p], vec![0.0; p * p]);
    let (f, _) = pt.eval_newton(x, &mut g, &mut h, &mut psd);
    (f, g, h, psd)
}
