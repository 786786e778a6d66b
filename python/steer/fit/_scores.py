"""Scores that need no utility fit: competence, EconBench's S_risk, altruism
and fairness, the paper's Fehr-Schmidt alpha and offer-based beta, and
revealed preference over budget choices. Intervals are percentile bootstraps
over samples (the independent repeats), vectorised with numpy.

Definitions (REFERENCES: LLM economicus, EconBench):
- competence.<experiment>: share of ladders with a single switching point
  (waiting, discounting: and not taking $0 now over the delayed amount);
  competence.<experiment>-monotone: share of adjacent delays whose median
  immediate equivalent does not rise with the delay
  (mm-triangle: share of dominance controls where the dominating lottery was
  chosen; budget: share of answered budget lines).
- S_risk = 100 - error%, error = share of Marschak-Machina pairs (a problem and
  its common-ratio / common-consequence shift) chosen differently.
- altruism = mean offer as a share of the pool in the dictator (give) and
  ultimatum-proposer trials / 50% x 100.
- fairness = rejection rate (%) of ultimatum offers below half the pool.
- Fehr-Schmidt (paper): alpha = s_r/(P - 2 s_r), s_r the smallest offer
  accepted in more than half the samples (alpha = 0 when s_r >= P/2);
  beta_offer = 1 - mean offered share (it only says whether beta is above or
  below 0.5).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer.fit._observations import I64, delay_ladders, delay_monotone, ladders, pick

F64 = npt.NDArray[np.float64]
Row = dict[str, Any]

LEVEL = 0.95


def row(
    family: str, parameter: str, estimate: float | None, n: int, *,
    ci: tuple[float, float] | None = None, reason: str | None = None, **extra: Any,
) -> Row:  # fmt: skip
    """One output row (model, condition and experiment are added by the caller).
    A missing or non-finite estimate is 'not identified', never a number."""
    ok = estimate is not None and bool(np.isfinite(estimate)) and reason is None
    lo, hi = ci if ci is not None and ok and all(np.isfinite(ci)) else (None, None)
    return {
        "family": family,
        "parameter": parameter,
        "estimate": float(estimate) if ok and estimate is not None else None,
        "ci_lo": None if lo is None else float(lo),
        "ci_hi": None if hi is None else float(hi),
        "n": int(n),
        "identified": ok,
        "reason": None if ok else (reason or "no data to estimate it"),
        **extra,
    }


def bootstrap(
    units: I64, statistic: Callable[[npt.NDArray[np.int64]], F64], *, b: int, seed: int
) -> tuple[float, float] | None:
    """Percentile interval of `statistic` over resamples of the distinct `units`
    (samples). `statistic` takes a (B, n_units) matrix of unit indices."""
    distinct = np.unique(units)
    if len(distinct) < 2 or b < 1:
        return None
    rng = np.random.default_rng([seed, len(distinct)])
    draws = rng.integers(0, len(distinct), size=(b, len(distinct)))
    values = statistic(distinct[draws])
    values = values[np.isfinite(values)]
    if len(values) < max(10, b // 2):
        return None
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(values, [tail, 100 - tail])
    return float(lo), float(hi)


def _per_unit(units: I64, values: F64) -> tuple[I64, F64, F64]:
    """Distinct units with the sum and count of `values` in each."""
    uniq, inv = np.unique(units, return_inverse=True)
    sums = np.bincount(inv, weights=values, minlength=len(uniq))
    counts = np.bincount(inv, minlength=len(uniq)).astype(np.float64)
    return uniq, sums, counts


def mean_over_units(units: I64, values: F64, *, b: int, seed: int) -> tuple[float, tuple | None]:
    """Mean of `values` and its bootstrap interval, resampling whole units."""
    uniq, sums, counts = _per_unit(units, values)

    def stat(idx: npt.NDArray[np.int64]) -> F64:
        pos = np.searchsorted(uniq, idx)
        return sums[pos].sum(axis=1) / np.maximum(counts[pos].sum(axis=1), 1)

    return float(values.mean()) if len(values) else float("nan"), bootstrap(
        uniq, stat, b=b, seed=seed
    )


def competence_rows(experiment: str, table: pa.Table, *, b: int, seed: int) -> list[Row]:
    if experiment in ("waiting", "discounting"):
        lad = delay_ladders(table)
    elif experiment in ("gambling", "mixed-gamble"):
        lad = ladders(table)
    elif experiment == "ultimatum-responder":
        lad = ladders(table, by_stimulus=False)
    elif experiment == "mm-triangle":
        dom = pc.equal(table["control"], "dominance").fill_null(False)
        t = table.filter(dom)
        if not t.num_rows:
            return []
        ok = (t["chosen"].to_numpy() == 1).astype(np.float64)
        units = t["sample"].to_numpy().astype(np.int64)
        est, ci = mean_over_units(units, ok, b=b, seed=seed)
        return [row("competence", experiment, est, t.num_rows, ci=ci)]
    else:
        ok = (table["chosen"].to_numpy() >= 0).astype(np.float64)
        units = table["sample"].to_numpy().astype(np.int64)
        est, ci = mean_over_units(units, ok, b=b, seed=seed)
        return [row("competence", experiment, est, table.num_rows, ci=ci)]
    est, ci = mean_over_units(lad.sample, lad.competent.astype(np.float64), b=b, seed=seed)
    out = [row("competence", experiment, est, len(lad.sample), ci=ci)]
    if experiment in ("waiting", "discounting"):
        share, pairs = delay_monotone(table, lad)
        reason = None if pairs else "fewer than two delays with competent ladders"
        out.append(row("competence", f"{experiment}-monotone", share, pairs, reason=reason))
    return out


def triangle_rows(table: pa.Table, *, b: int, seed: int) -> list[Row]:
    """S_risk from the linked Marschak-Machina pairs."""
    t = table.filter(pc.is_valid(table["pair"]))
    t = t.filter(pc.greater_equal(t["chosen"], 0))
    if not t.num_rows:
        return [row("econbench", "S_risk", None, 0, reason="no answered triangle pairs")]
    pair = t["pair"].to_numpy(zero_copy_only=False).astype(str)
    sample = t["sample"].to_numpy().astype(np.int64)
    chosen = t["chosen"].to_numpy().astype(np.int64)
    key = np.char.add(np.char.add(pair, "|"), sample.astype(str))
    uniq, inv, counts = np.unique(key, return_inverse=True, return_counts=True)
    lo = np.full(len(uniq), 10)
    hi = np.full(len(uniq), -10)
    np.minimum.at(lo, inv, chosen)
    np.maximum.at(hi, inv, chosen)
    complete = counts == 2
    if not complete.any():
        return [row("econbench", "S_risk", None, 0, reason="no pair answered in both problems")]
    differ = (lo != hi)[complete].astype(np.float64)
    first = np.unique(inv, return_index=True)[1]
    units = sample[first][complete]
    rate, ci = mean_over_units(units, differ, b=b, seed=seed)
    score_ci = None if ci is None else (100 - 100 * ci[1], 100 - 100 * ci[0])
    n = int(complete.sum())
    return [
        row("econbench", "S_risk", 100 - 100 * rate, n, ci=score_ci),
        row("independence", "violation_rate", rate, n, ci=ci),
    ]


def _offered_share(table: pa.Table) -> tuple[F64, I64]:
    """The share of the pool handed over in each answered give/offer trial."""
    t = table.filter(pc.greater_equal(table["chosen"], 0))
    amounts = pick(t["option_q1"], t["chosen"]) if t.num_rows else np.zeros(0)
    share = amounts / t["pool"].to_numpy(zero_copy_only=False)
    return share, t["sample"].to_numpy().astype(np.int64)


def offer_rows(experiment: str, table: pa.Table, *, b: int, seed: int) -> list[Row]:
    """Mean offered share, altruism and the paper's beta from offers."""
    if experiment == "dictator":
        table = table.filter(pc.equal(table["kind"], "give"))
    share, units = _offered_share(table)
    if not len(share):
        return [row("fehr-schmidt", "beta_offer", None, 0, reason="no answered offers")]
    mean, ci = mean_over_units(units, share, b=b, seed=seed)
    n = len(share)

    def scaled(f: Callable[[float], float]) -> tuple[float, float] | None:
        return None if ci is None else tuple(sorted((f(ci[0]), f(ci[1]))))  # type: ignore[return-value]

    return [
        row("offers", "mean_offer_share", mean, n, ci=ci),
        row("econbench", "altruism", mean / 0.5 * 100, n, ci=scaled(lambda s: s / 0.5 * 100)),
        row("fehr-schmidt", "beta_offer", 1 - mean, n, ci=scaled(lambda s: 1 - s)),
    ]


def _alpha_at(s: F64, pool: float) -> F64:
    """The envy alpha at which offer s of `pool` is just acceptable (s < P/2)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return s / (pool - 2 * s)


def _fs_alpha(offers: F64, pool: float, taken: F64, asked: F64) -> tuple[F64, F64]:
    """(alpha, lower bound) for each row of acceptance counts (rows x offers).

    alpha = s_r/(P - 2 s_r), s_r the smallest offer accepted more than half
    the time: the envy at which s_r is just acceptable (the paper's figure,
    the top of what the choices allow). The offer below s_r was turned down,
    so alpha exceeds s'/(P - 2 s') for that offer s': the lower bound (0
    when s_r is the smallest offer). alpha is NaN where no offer below half
    the pool is accepted (then only the lower bound is known) or none at all.
    """
    rate = taken / np.maximum(asked, 1)
    above = (rate > 0.5) & (asked > 0)
    s_r = np.where(above, offers[None, :], np.inf).min(axis=1)
    below = np.where(offers[None, :] < s_r[:, None], offers[None, :], -np.inf).max(axis=1)
    alpha = np.where(s_r < pool / 2, _alpha_at(s_r, pool), np.nan)
    # Turning down half the pool or more fits no Fehr-Schmidt responder: no bound.
    lower = np.where(np.isfinite(below), _alpha_at(below, pool), 0.0)
    lower = np.where(np.isfinite(s_r) & (s_r <= pool / 2) & (below < pool / 2), lower, np.nan)
    return alpha, lower


def responder_rows(table: pa.Table, *, b: int, seed: int) -> list[Row]:
    t = table.filter(pc.greater_equal(table["chosen"], 0))
    if not t.num_rows:
        return [row("fehr-schmidt", "alpha", None, 0, reason="no answered offers")]
    offer = t["level"].to_numpy(zero_copy_only=False).astype(np.float64)
    pool = t["pool"].to_numpy(zero_copy_only=False).astype(np.float64)
    accepted = (t["chosen"].to_numpy() == t["accept"].to_numpy()).astype(np.float64)
    units = t["sample"].to_numpy().astype(np.int64)
    unfair = offer < pool / 2
    out: list[Row] = []
    if unfair.any():
        rate, ci = mean_over_units(units[unfair], 1 - accepted[unfair], b=b, seed=seed)
        pct = None if ci is None else (100 * ci[0], 100 * ci[1])
        out.append(row("econbench", "fairness", 100 * rate, int(unfair.sum()), ci=pct))
    if len(np.unique(pool)) != 1:
        reason = "offers from pools of different sizes"
        out.append(row("fehr-schmidt", "alpha", None, t.num_rows, reason=reason))
        return out
    # Acceptances per (sample, offer): a resample of samples sums their rows.
    uniq, u = np.unique(units, return_inverse=True)
    offers, o = np.unique(offer, return_inverse=True)
    taken = np.zeros((len(uniq), len(offers)))
    asked = np.zeros((len(uniq), len(offers)))
    np.add.at(taken, (u, o), accepted)
    np.add.at(asked, (u, o), 1.0)
    top, bottom = _fs_alpha(offers, pool[0], taken.sum(0)[None], asked.sum(0)[None])
    alpha = float(top[0])

    def bound(which: int) -> Callable[[npt.NDArray[np.int64]], F64]:
        def stat(idx: npt.NDArray[np.int64]) -> F64:
            pos = np.searchsorted(uniq, idx)
            return _fs_alpha(offers, pool[0], taken[pos].sum(axis=1), asked[pos].sum(axis=1))[which]

        return stat

    # The choices bracket alpha between the offer turned down and the one
    # taken: the interval spans the resampled brackets (lower end of the
    # lower bound, upper end of the paper's figure).
    ci = None
    if np.isfinite(alpha):
        lows, highs = (
            bootstrap(uniq, bound(1), b=b, seed=seed),
            bootstrap(uniq, bound(0), b=b, seed=seed),
        )
        if lows is not None and highs is not None:
            ci = (min(lows[0], float(bottom[0])), max(highs[1], alpha))
    some_taken = bool((taken.sum(0) > asked.sum(0) / 2).any())
    if np.isfinite(alpha):
        reason = None
    elif np.isfinite(bottom[0]):
        reason = (
            f"no offer below half the pool is accepted: alpha >= {bottom[0]:.3g}, with no "
            "upper bound on this grid"
        )
    elif some_taken:
        reason = (
            "an offer of half the pool or more is turned down more than half the time: no "
            "Fehr-Schmidt alpha explains that"
        )
    else:
        reason = "no offer was accepted in more than half the samples"
    out.append(row("fehr-schmidt", "alpha", alpha, t.num_rows, ci=ci, reason=reason))
    return out


def budget_rows(table: pa.Table) -> list[Row]:
    """GARP, CCEI, Houtman-Maks and the money-pump index of each sample's
    budget choices (a sample is one subject); the estimate is their mean, the
    interval the 2.5-97.5% spread across subjects."""
    from steer.fit._revealed import ccei, houtman_maks, money_pump

    t = table.filter(pc.greater_equal(table["chosen"], 0))
    if not t.num_rows:
        return [row("revealed-preference", "ccei", None, 0, reason="no answered budget lines")]
    q1 = pick(t["option_q1"], t["chosen"])
    q2 = pick(t["option_q2"], t["chosen"])
    prices = np.column_stack([t["price1"].to_numpy(), t["price2"].to_numpy()])
    quantities = np.column_stack([q1, q2])
    subjects = t["sample"].to_numpy().astype(np.int64).astype(str)
    c = ccei(prices, quantities, subjects=subjects)
    hm = houtman_maks(prices, quantities, subjects=subjects)
    mp = money_pump(prices, quantities, subjects=subjects)
    n = c.num_rows
    out = []
    for name, values in (
        ("garp_consistent", c["consistent"].to_numpy(zero_copy_only=False).astype(float)),
        ("ccei", c["ccei"].to_numpy()),
        ("houtman_maks", hm["fraction"].to_numpy()),
        ("money_pump_max", mp["max"].to_numpy()),
    ):
        spread = tuple(np.percentile(values, [2.5, 97.5])) if n > 1 else None
        out.append(row("revealed-preference", name, float(np.mean(values)), n, ci=spread))
    return out
