//! Discounting from immediate equivalents: a delayed amount `A` at delay `d`
//! (years, > 0) and the bracket `[lo, hi]` (NaN = open) of the immediate
//! amount the subject finds equivalent. Each family is fitted by bounded
//! nonlinear least squares on the midpoints of closed brackets (the LLM
//! economicus method; open brackets are left out):
//!
//! * hyperbolic `IE = A / (1 + k d)`, `k ∈ [0, 1e6]`;
//! * exponential `IE = A δ^d`, `δ ∈ [1e-9, 1.5]`;
//! * quasi-hyperbolic `IE = A β δ^d` (d > 0), `β, δ ∈ [1e-9, 1.5]`.
//!
//! Each result carries SSR, R² and Gaussian AIC `n ln(SSR/n) + 2k` and BIC
//! `n ln(SSR/n) + k ln n`, so families fitted to the same data compare.

use super::solve::{minimize, singular, Objective, LOOSE, TIGHT};
use super::{
    bootstrap_intervals, bracket_problem, finite, gaussian_ic, group_rows, r_squared, same_lengths,
    Bootstrap, GroupFit, ParamFit,
};
use crate::error::{Error, Result};
use rayon::prelude::*;

/// A discounting family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiscountFamily {
    Hyperbolic,
    Exponential,
    QuasiHyperbolic,
}

impl DiscountFamily {
    pub fn name(self) -> &'static str {
        match self {
            DiscountFamily::Hyperbolic => "hyperbolic",
            DiscountFamily::Exponential => "exponential",
            DiscountFamily::QuasiHyperbolic => "quasi-hyperbolic",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "hyperbolic" => Some(DiscountFamily::Hyperbolic),
            "exponential" => Some(DiscountFamily::Exponential),
            "quasi-hyperbolic" => Some(DiscountFamily::QuasiHyperbolic),
            _ => None,
        }
    }

    fn params(self) -> &'static [&'static str] {
        match self {
            DiscountFamily::Hyperbolic => &["k"],
            DiscountFamily::Exponential => &["delta"],
            DiscountFamily::QuasiHyperbolic => &["beta", "delta"],
        }
    }

    fn bounds(self) -> (&'static [f64], &'static [f64]) {
        match self {
            DiscountFamily::Hyperbolic => (&[0.0], &[1e6]),
            DiscountFamily::Exponential => (&[1e-9], &[1.5]),
            DiscountFamily::QuasiHyperbolic => (&[1e-9, 1e-9], &[1.5, 1.5]),
        }
    }

    fn tag(self) -> u64 {
        match self {
            DiscountFamily::Hyperbolic => 0x4859,
            DiscountFamily::Exponential => 0x4558,
            DiscountFamily::QuasiHyperbolic => 0x5148,
        }
    }

    /// The model's immediate equivalent and its gradient.
    #[inline]
    pub fn value(self, x: &[f64], delay: f64, amount: f64, dm: &mut [f64; 2]) -> f64 {
        match self {
            DiscountFamily::Hyperbolic => {
                let q = 1.0 + x[0] * delay;
                let m = amount / q;
                dm[0] = -m * delay / q;
                m
            }
            DiscountFamily::Exponential => {
                let m = amount * (delay * x[0].ln()).exp();
                dm[0] = m * delay / x[0];
                m
            }
            DiscountFamily::QuasiHyperbolic => {
                let m = amount * x[0] * (delay * x[1].ln()).exp();
                dm[0] = m / x[0];
                dm[1] = m * delay / x[1];
                m
            }
        }
    }
}

/// Observations, one entry per observation in every slice.
#[derive(Debug, Clone, Copy)]
pub struct DiscountData<'a> {
    pub group: &'a [i64],
    /// Delay in years (> 0).
    pub delay: &'a [f64],
    /// The delayed amount (> 0).
    pub amount: &'a [f64],
    /// Bracket of the immediate equivalent; NaN = open.
    pub lo: &'a [f64],
    pub hi: &'a [f64],
}

#[derive(Debug, Clone, Copy)]
struct Obs {
    delay: f64,
    amount: f64,
    mid: f64,
}

fn validate(d: &DiscountData<'_>) -> Result<()> {
    let n = d.group.len();
    same_lengths(
        n,
        &[
            ("delay", d.delay.len()),
            ("amount", d.amount.len()),
            ("lo", d.lo.len()),
            ("hi", d.hi.len()),
        ],
    )?;
    for i in 0..n {
        let bad =
            |field: &str, msg: String| Error::invalid(field, format!("observation {i}: {msg}"));
        if !(d.delay[i] > 0.0 && d.delay[i].is_finite()) {
            return Err(bad(
                "delay",
                format!("must be a positive number of years, got {}", d.delay[i]),
            ));
        }
        if !(d.amount[i] > 0.0 && d.amount[i].is_finite()) {
            return Err(bad(
                "amount",
                format!("must be a positive amount, got {}", d.amount[i]),
            ));
        }
        if let Some((field, msg)) = bracket_problem(d.lo[i], d.hi[i]) {
            return Err(bad(field, msg));
        }
    }
    Ok(())
}

struct Ls<'a> {
    family: DiscountFamily,
    obs: &'a [Obs],
    weights: &'a [f64],
}

impl Objective for Ls<'_> {
    fn eval(&mut self, x: &[f64], g: &mut [f64], h: &mut [f64]) -> f64 {
        let p = x.len();
        g.iter_mut().for_each(|v| *v = 0.0);
        h.iter_mut().for_each(|v| *v = 0.0);
        let mut f = 0.0;
        let mut dm = [0.0; 2];
        for (o, &w) in self.obs.iter().zip(self.weights) {
            if w == 0.0 {
                continue;
            }
            let r = self.family.value(x, o.delay, o.amount, &mut dm) - o.mid;
            f += 0.5 * w * r * r;
            for i in 0..p {
                g[i] += w * r * dm[i];
                for j in 0..p {
                    h[i * p + j] += w * dm[i] * dm[j];
                }
            }
        }
        f
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

fn starts(family: DiscountFamily, obs: &[Obs]) -> Vec<[f64; 2]> {
    let ks = obs
        .iter()
        .filter(|o| o.mid > 0.0)
        .map(|o| (o.amount / o.mid - 1.0) / o.delay)
        .collect();
    let ds = obs
        .iter()
        .filter(|o| o.mid > 0.0)
        .map(|o| (o.mid / o.amount).powf(1.0 / o.delay))
        .collect();
    match family {
        DiscountFamily::Hyperbolic => {
            let mut s = vec![[0.01, 0.0], [0.1, 0.0], [1.0, 0.0]];
            if let Some(k) = median(ks) {
                s.push([k.clamp(0.0, 1e6), 0.0]);
            }
            s
        }
        DiscountFamily::Exponential => {
            let mut s = vec![[0.5, 0.0], [0.9, 0.0], [0.99, 0.0]];
            if let Some(d) = median(ds) {
                s.push([d.clamp(1e-9, 1.5), 0.0]);
            }
            s
        }
        DiscountFamily::QuasiHyperbolic => {
            let d0 = median(ds).unwrap_or(0.9).clamp(1e-9, 1.5);
            vec![[1.0, d0], [0.8, d0], [1.0, 0.9], [0.7, 0.99], [0.5, 0.5]]
        }
    }
}

fn fit_group(
    gid: i64,
    obs: &[Obs],
    n_all: usize,
    family: DiscountFamily,
    boot: &Bootstrap,
) -> GroupFit {
    let names = family.params();
    let p = names.len();
    let n = obs.len();
    let mut out = GroupFit {
        group: gid,
        family: family.name(),
        method: "lm",
        n,
        params: Vec::new(),
        r2: None,
        ssr: None,
        aic: None,
        bic: None,
    };
    let fail = |out: &mut GroupFit, why: &str| {
        out.params = names
            .iter()
            .map(|&nm| ParamFit::unidentified(nm, why))
            .collect();
    };
    if n == 0 && n_all > 0 {
        fail(&mut out, "every answer is censored (no switching point)");
        return out;
    }
    if n <= p {
        fail(
            &mut out,
            &format!("too few observations ({n}) for {p} parameters"),
        );
        return out;
    }
    let (lo, hi) = family.bounds();
    let ones = vec![1.0; n];
    let mut best: Option<([f64; 2], super::solve::Outcome)> = None;
    for s in starts(family, obs) {
        let mut x = s;
        let mut obj = Ls {
            family,
            obs,
            weights: &ones,
        };
        let o = minimize(&mut x[..p], lo, hi, &mut obj, 500, TIGHT);
        if o.f.is_finite() && best.as_ref().is_none_or(|(_, b)| o.f < b.f) {
            best = Some((x, o));
        }
    }
    let Some((est, outcome)) = best else {
        fail(&mut out, "the objective is not finite at any start");
        return out;
    };
    if !outcome.converged {
        fail(&mut out, "the fit did not converge");
        return out;
    }
    let (mut g, mut h) = ([0.0; 2], [0.0; 4]);
    let f = Ls {
        family,
        obs,
        weights: &ones,
    }
    .eval(&est[..p], &mut g[..p], &mut h[..p * p]);
    let all: Vec<usize> = (0..p).collect();
    if singular(&h[..p * p], p, &all) {
        fail(
            &mut out,
            "singular Jacobian at the estimate: these data do not separate the parameters",
        );
        return out;
    }
    let ssr = 2.0 * f;
    out.ssr = finite(ssr);
    out.r2 = r_squared(ssr, obs.iter().map(|o| o.mid));
    (out.aic, out.bic) = gaussian_ic(ssr, n, p);
    let ci = bootstrap_intervals(n, p, gid, family.tag(), boot, |weights, x| {
        x.copy_from_slice(&est[..p]);
        let mut obj = Ls {
            family,
            obs,
            weights,
        };
        minimize(x, lo, hi, &mut obj, 200, LOOSE).f.is_finite()
    });
    out.params = (0..p)
        .map(|i| {
            let mut pf = ParamFit::identified(names[i], est[i]);
            (pf.ci_lo, pf.ci_hi) = ci[i];
            pf
        })
        .collect();
    out
}

/// Fits each of `families` per group (see the module doc); rows come
/// group-major, families in the order given.
pub fn discounting(
    data: &DiscountData<'_>,
    families: &[DiscountFamily],
    boot: &Bootstrap,
) -> Result<Vec<GroupFit>> {
    boot.check()?;
    validate(data)?;
    let groups = group_rows(data.group);
    let fits: Vec<Vec<GroupFit>> = groups
        .into_par_iter()
        .map(|(gid, rows)| {
            let obs: Vec<Obs> = rows
                .iter()
                .filter(|&&i| !data.lo[i].is_nan() && !data.hi[i].is_nan())
                .map(|&i| Obs {
                    delay: data.delay[i],
                    amount: data.amount[i],
                    mid: 0.5 * (data.lo[i] + data.hi[i]),
                })
                .collect();
            families
                .iter()
                .map(|&f| fit_group(gid, &obs, rows.len(), f, boot))
                .collect()
        })
        .collect();
    Ok(fits.into_iter().flatten().collect())
}
