//! Fehr–Schmidt inequity aversion, `U = x − α max(y − x, 0) − β max(x − y, 0)`
//! (own payoff `x`, the other's `y`), from three kinds of data, each optional:
//!
//! * **α** from responder decisions (pool `P`, offer `s`, accepted): with
//!   offers as shares `s/P`, `s_r` = the smallest share accepted more than
//!   half the time, `α = s_r / (1 − 2 s_r)` (the LLM economicus formula
//!   `s_r / (P − 2 s_r)` in shares, so several pool sizes pool). No share
//!   accepted more than half the time, or `s_r ≥ 1/2` (α unbounded: the model
//!   puts α → ∞ there), leaves α unidentified; in a bootstrap resample these
//!   count as α = +∞, so an interval's upper end may be missing (unbounded).
//! * **β** from binary allocation choices where the chooser is weakly ahead in
//!   both options (other choices are left out): choosing `a` over `b` says
//!   `Δx − β Δd ≥ 0` (`Δx` the own-payoff difference, `Δd` the difference in
//!   advantage `x − y`), a bound `β ≤ Δx/Δd` or `β ≥ Δx/Δd`. The estimate is
//!   the midpoint of the largest region of `[0, 1)` that violates the fewest
//!   choices (bracketing: deterministic choosers, common among models at
//!   temperature 0, put a logit's temperature at zero and its β anywhere in a
//!   bracket; the bracket's midpoint is the stable summary). Choices that
//!   leave all of `[0, 1)` optimal leave β unidentified.
//! * **beta_offer** `= 1 − mean(s_p / P)` from proposer (or dictator) offers,
//!   the LLM economicus summary (it only says whether β ≷ 1/2).
//!
//! Each parameter is bootstrapped over its own observations within the group.

use super::{bootstrap_intervals, same_lengths, Bootstrap, GroupFit, ParamFit};
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The three data sets; each has its own group ids (and may be empty).
#[derive(Debug, Clone, Copy, Default)]
pub struct FairnessData<'a> {
    pub responder_group: &'a [i64],
    pub pool: &'a [f64],
    pub offer: &'a [f64],
    pub accepted: &'a [bool],
    pub allocation_group: &'a [i64],
    pub own_a: &'a [f64],
    pub other_a: &'a [f64],
    pub own_b: &'a [f64],
    pub other_b: &'a [f64],
    pub chose_a: &'a [bool],
    pub proposer_group: &'a [i64],
    pub proposer_pool: &'a [f64],
    pub proposer_offer: &'a [f64],
}

fn check_offers(pool: &[f64], offer: &[f64], pool_name: &str, offer_name: &str) -> Result<()> {
    for (i, (&p, &s)) in pool.iter().zip(offer).enumerate() {
        if !(p > 0.0 && p.is_finite()) {
            return Err(Error::invalid(
                pool_name,
                format!("observation {i}: the pool must be positive, got {p}"),
            ));
        }
        if !(0.0..=p).contains(&s) {
            return Err(Error::invalid(
                offer_name,
                format!("observation {i}: the offer must be in [0, pool = {p}], got {s}"),
            ));
        }
    }
    Ok(())
}

fn validate(d: &FairnessData<'_>) -> Result<()> {
    same_lengths(
        d.responder_group.len(),
        &[
            ("pool", d.pool.len()),
            ("offer", d.offer.len()),
            ("accepted", d.accepted.len()),
        ],
    )?;
    same_lengths(
        d.allocation_group.len(),
        &[
            ("own_a", d.own_a.len()),
            ("other_a", d.other_a.len()),
            ("own_b", d.own_b.len()),
            ("other_b", d.other_b.len()),
            ("chose_a", d.chose_a.len()),
        ],
    )?;
    same_lengths(
        d.proposer_group.len(),
        &[
            ("proposer_pool", d.proposer_pool.len()),
            ("proposer_offer", d.proposer_offer.len()),
        ],
    )?;
    check_offers(d.pool, d.offer, "pool", "offer")?;
    check_offers(
        d.proposer_pool,
        d.proposer_offer,
        "proposer_pool",
        "proposer_offer",
    )?;
    for (name, v) in [
        ("own_a", d.own_a),
        ("other_a", d.other_a),
        ("own_b", d.own_b),
        ("other_b", d.other_b),
    ] {
        if let Some(i) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::invalid(
                name,
                format!("observation {i}: must be a finite number, got {}", v[i]),
            ));
        }
    }
    Ok(())
}

/// α from (share, accepted) with weights: `Err(reason)` when not identified;
/// `+∞` is returned as `Ok(∞)` only through [`alpha_value`].
fn alpha_value(resp: &[(f64, bool)], weights: &[f64]) -> std::result::Result<f64, &'static str> {
    let mut by_share: BTreeMap<u64, (f64, f64)> = BTreeMap::new();
    for (&(share, acc), &w) in resp.iter().zip(weights) {
        if w == 0.0 {
            continue;
        }
        let e = by_share.entry(share.to_bits()).or_insert((0.0, 0.0));
        e.0 += w;
        if acc {
            e.1 += w;
        }
    }
    // Shares are non-negative, so their bit patterns sort like the numbers.
    let s_r = by_share
        .iter()
        .find(|(_, &(tot, acc))| acc > 0.5 * tot)
        .map(|(&bits, _)| f64::from_bits(bits));
    match s_r {
        None => Err("no offer is accepted more than half the time"),
        Some(s) if s >= 0.5 => Err("α unbounded: only offers of at least half the pool are accepted more than half the time (α → ∞)"),
        Some(s) => Ok(s / (1.0 - 2.0 * s)),
    }
}

/// A bound from one allocation choice: (threshold, is_upper_bound).
fn beta_bounds(d: &FairnessData<'_>, rows: &[usize]) -> Vec<(f64, bool)> {
    rows.iter()
        .filter_map(|&i| {
            let (xa, ya, xb, yb) = (d.own_a[i], d.other_a[i], d.own_b[i], d.other_b[i]);
            if xa < ya || xb < yb {
                return None;
            }
            let dx = xa - xb;
            let dd = (xa - ya) - (xb - yb);
            if dd == 0.0 {
                return None;
            }
            // choose a ⟺ dx − β dd ≥ 0.
            let upper = (dd > 0.0) == d.chose_a[i];
            Some((dx / dd, upper))
        })
        .collect()
}

/// The bracketing β estimate: midpoint of the largest region of [0, 1) with
/// the fewest violated bounds; `None` when that is all of [0, 1).
fn beta_value(bounds: &[(f64, bool)], weights: &[f64]) -> Option<f64> {
    let mut cuts: Vec<f64> = bounds
        .iter()
        .zip(weights)
        .filter(|(_, &w)| w > 0.0)
        .map(|(&(t, _), _)| t)
        .filter(|&t| t > 0.0 && t < 1.0)
        .collect();
    cuts.push(0.0);
    cuts.push(1.0);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let loss = |b: f64| -> f64 {
        bounds
            .iter()
            .zip(weights)
            .filter(|&(&(t, upper), _)| if upper { b > t } else { b < t })
            .map(|(_, &w)| w)
            .sum()
    };
    // Segments between cuts, judged at their midpoints.
    let segs: Vec<(f64, f64, f64)> = cuts
        .windows(2)
        .map(|c| (c[0], c[1], loss(0.5 * (c[0] + c[1]))))
        .collect();
    let best = segs.iter().map(|s| s.2).fold(f64::INFINITY, f64::min);
    // Merge adjacent optimal segments (a cut between them that is itself
    // optimal joins them).
    let mut regions: Vec<(f64, f64)> = Vec::new();
    for &(a, b, l) in &segs {
        if l > best {
            continue;
        }
        match regions.last_mut() {
            Some(r) if r.1 == a && loss(a) <= best => r.1 = b,
            _ => regions.push((a, b)),
        }
    }
    let (a, b) =
        regions.iter().copied().fold(
            (0.0, 0.0),
            |acc, r| if r.1 - r.0 > acc.1 - acc.0 { r } else { acc },
        );
    if a <= 0.0 && b >= 1.0 {
        return None;
    }
    Some(0.5 * (a + b))
}

const TAG_ALPHA: u64 = 0x4641;
const TAG_BETA: u64 = 0x4642;
const TAG_OFFER: u64 = 0x464f;

fn fit_group(
    gid: i64,
    d: &FairnessData<'_>,
    resp: &[usize],
    alloc: &[usize],
    prop: &[usize],
    boot: &Bootstrap,
) -> GroupFit {
    let mut params = Vec::with_capacity(3);
    // α
    let obs: Vec<(f64, bool)> = resp
        .iter()
        .map(|&i| (d.offer[i] / d.pool[i] + 0.0, d.accepted[i]))
        .collect();
    let mut alpha = if obs.is_empty() {
        ParamFit::unidentified("alpha", "no responder data")
    } else {
        match alpha_value(&obs, &vec![1.0; obs.len()]) {
            Err(why) => ParamFit::unidentified("alpha", why),
            Ok(a) => {
                let mut pf = ParamFit::identified("alpha", a);
                (pf.ci_lo, pf.ci_hi) =
                    bootstrap_intervals(obs.len(), 1, gid, TAG_ALPHA, boot, |w, out| {
                        out[0] = alpha_value(&obs, w).unwrap_or(f64::INFINITY);
                        true
                    })[0];
                pf
            }
        }
    };
    alpha.n = Some(obs.len());
    params.push(alpha);
    // β
    let bounds = beta_bounds(d, alloc);
    let mut beta = if bounds.is_empty() {
        ParamFit::unidentified(
            "beta",
            if alloc.is_empty() {
                "no allocation choices"
            } else {
                "no allocation choice with the chooser ahead in both options that trades own payoff against advantage"
            },
        )
    } else {
        match beta_value(&bounds, &vec![1.0; bounds.len()]) {
            None => {
                ParamFit::unidentified("beta", "the choices do not discriminate any β in [0, 1)")
            }
            Some(b) => {
                let mut pf = ParamFit::identified("beta", b);
                (pf.ci_lo, pf.ci_hi) =
                    bootstrap_intervals(bounds.len(), 1, gid, TAG_BETA, boot, |w, out| {
                        out[0] = beta_value(&bounds, w).unwrap_or(f64::NAN);
                        true
                    })[0];
                pf
            }
        }
    };
    beta.n = Some(bounds.len());
    params.push(beta);
    // β from offers
    let shares: Vec<f64> = prop
        .iter()
        .map(|&i| d.proposer_offer[i] / d.proposer_pool[i])
        .collect();
    let mean = |w: &[f64]| {
        let (s, n) = shares
            .iter()
            .zip(w)
            .fold((0.0, 0.0), |(s, n), (&x, &w)| (s + w * x, n + w));
        1.0 - s / n
    };
    let mut offer = if shares.is_empty() {
        ParamFit::unidentified("beta_offer", "no proposer offers")
    } else {
        let mut pf = ParamFit::identified("beta_offer", mean(&vec![1.0; shares.len()]));
        (pf.ci_lo, pf.ci_hi) =
            bootstrap_intervals(shares.len(), 1, gid, TAG_OFFER, boot, |w, out| {
                out[0] = mean(w);
                true
            })[0];
        pf
    };
    offer.n = Some(shares.len());
    params.push(offer);
    GroupFit {
        group: gid,
        family: "fehr-schmidt",
        method: "threshold",
        n: resp.len() + alloc.len() + prop.len(),
        params,
        r2: None,
        ssr: None,
        aic: None,
        bic: None,
    }
}

/// Fits α, β and beta_offer per group (the union of the three data sets'
/// group ids, ascending).
pub fn fehr_schmidt(data: &FairnessData<'_>, boot: &Bootstrap) -> Result<Vec<GroupFit>> {
    boot.check()?;
    validate(data)?;
    let mut groups: BTreeMap<i64, [Vec<usize>; 3]> = BTreeMap::new();
    for (k, ids) in [
        data.responder_group,
        data.allocation_group,
        data.proposer_group,
    ]
    .into_iter()
    .enumerate()
    {
        for (i, &g) in ids.iter().enumerate() {
            groups.entry(g).or_default()[k].push(i);
        }
    }
    let groups: Vec<(i64, [Vec<usize>; 3])> = groups.into_iter().collect();
    Ok(groups
        .into_par_iter()
        .map(|(gid, [r, a, p])| fit_group(gid, data, &r, &a, &p, boot))
        .collect())
}
