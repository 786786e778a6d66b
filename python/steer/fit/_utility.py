"""Utility-function fits of one model and condition's play runs: prospect
theory (gambling and mixed gambles together), the discounting families
(waiting, discounting) with EconBench's S_time and magnitude-effect penalty,
and Fehr-Schmidt beta from binary allocations (dictator). The fits run in
steer-core (`steer.fit.prospect_theory`, `discounting`, `fehr_schmidt`).

Magnitude-effect penalty (EconBench; our definition): the exponential
discount factor per year is fitted separately for the smallest and the
largest reward magnitude; when their 95% bootstrap intervals do not overlap
(a conservative test of a difference at the 5% level) the penalty is
5 x min(1, |delta_small - delta_large| / 0.1) points, else 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.fit._observations import column, ladders
from steer.fit._scores import row

Row = dict[str, Any]
_COLUMNS = ("family", "parameter", "estimate", "ci_lo", "ci_hi", "n", "identified", "reason",
            "r2", "ssr", "aic", "bic")  # fmt: skip
NO_LADDERS = (
    "no competent ladder to fit (each had more than one switching point or unanswered "
    "rungs; --include-incompetent fits them all)"
)
DISCOUNT_PARAMETERS = (
    ("hyperbolic", "k"), ("exponential", "delta"), ("quasi-hyperbolic", "beta"),
    ("quasi-hyperbolic", "delta"),
)  # fmt: skip
MAGNITUDE_PENALTY_MAX = 5.0
MAGNITUDE_SCALE = 0.1


def _rows(result: pa.Table, experiment: str) -> list[Row]:
    return [{"experiment": experiment, **{k: r[k] for k in _COLUMNS}} for r in result.to_pylist()]


def _prospect_rows(tables: dict[str, pa.Table], *, b: int, seed: int, method: str) -> list[Row]:
    from steer.fit._prospect import prospect_theory

    parts = []
    for experiment, kind in (("gambling", 0), ("mixed-gamble", 1)):
        t = tables.get(experiment)
        if t is None:
            continue
        lad = ladders(t)
        first = lad.first
        closed = ~(np.isnan(lad.lo) & np.isnan(lad.hi))
        parts.append(
            {
                "kind": np.full(int(closed.sum()), kind),
                "x1": column(t, "x1", first)[closed],
                "p1": column(t, "p1", first)[closed],
                "x2": column(t, "x2", first)[closed],
                "p2": column(t, "p2", first)[closed],
                "lo": lad.lo[closed],
                "hi": lad.hi[closed],
            }
        )
    if not parts:
        return []
    names = "+".join(e for e in ("gambling", "mixed-gamble") if e in tables)
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    if not len(data["kind"]):
        return [
            row("prospect-theory", p, None, 0, reason=NO_LADDERS, experiment=names)
            for p in ("alpha", "beta", "lambda", "gamma", "delta")
        ]
    result = prospect_theory(
        np.zeros(len(data["kind"]), dtype=np.int64), data["kind"], data["x1"], data["p1"],
        data["x2"], data["p2"], data["lo"], data["hi"], method=method, bootstrap=b, seed=seed,
    )  # fmt: skip
    return _rows(result, names)


def _delay_data(t: pa.Table) -> dict[str, np.ndarray]:
    lad = ladders(t)
    first = lad.first
    return {
        "delay": column(t, "years", first),
        "amount": column(t, "amount", first),
        "lo": lad.lo,
        "hi": lad.hi,
    }


def _discount_rows(experiment: str, t: pa.Table, *, b: int, seed: int) -> list[Row]:
    from steer.fit._discounting import discounting

    data = _delay_data(t)
    n = len(data["delay"])
    if not n:
        return [
            row(family, parameter, None, 0, reason=NO_LADDERS, experiment=experiment)
            for family, parameter in DISCOUNT_PARAMETERS
        ]
    result = discounting(
        np.zeros(n, dtype=np.int64), data["delay"], data["amount"], data["lo"], data["hi"],
        bootstrap=b, seed=seed,
    )  # fmt: skip
    out = _rows(result, experiment)
    if experiment != "discounting":
        return out
    exp = next((r for r in out if r["family"] == "exponential" and r["parameter"] == "delta"), None)
    if exp is not None:
        ci = (100 * exp["ci_lo"], 100 * exp["ci_hi"]) if exp["ci_lo"] is not None else None
        estimate = None if exp["estimate"] is None else 100 * exp["estimate"]
        out.append(row("econbench", "S_time", estimate, exp["n"], ci=ci, reason=exp["reason"],
                       experiment=experiment))  # fmt: skip
    out += _magnitude_rows(data, b=b, seed=seed, experiment=experiment)
    return out


def _magnitude_rows(
    data: dict[str, np.ndarray], *, b: int, seed: int, experiment: str
) -> list[Row]:
    """Exponential delta per reward magnitude, and the penalty."""
    from steer.fit._discounting import discounting

    magnitudes = np.unique(data["amount"])
    if len(magnitudes) < 2:
        return [row("econbench", "magnitude_penalty", None, len(data["amount"]),
                    reason="one reward magnitude only", experiment=experiment)]  # fmt: skip
    group = np.searchsorted(magnitudes, data["amount"]).astype(np.int64)
    result = discounting(
        group, data["delay"], data["amount"], data["lo"], data["hi"],
        families=["exponential"], bootstrap=b, seed=seed,
    )  # fmt: skip
    deltas = result.filter(pc.equal(result["parameter"], "delta")).to_pylist()
    out: list[Row] = []
    by_group = {r["group"]: r for r in deltas}
    for g, m in enumerate(magnitudes):
        r = by_group.get(g)
        if r is None:
            continue
        out.append({**{k: r[k] for k in _COLUMNS}, "parameter": f"delta@{m:g}",
                    "experiment": experiment})  # fmt: skip
    small, large = by_group.get(0), by_group.get(len(magnitudes) - 1)
    if not (small and large and small["identified"] and large["identified"]):
        out.append(row("econbench", "magnitude_penalty", None, len(group),
                       reason="delta not identified at every magnitude",
                       experiment=experiment))  # fmt: skip
        return out
    if small["ci_lo"] is None or large["ci_lo"] is None:
        significant = False
    else:
        hi_small = small["ci_hi"] if small["ci_hi"] is not None else np.inf
        hi_large = large["ci_hi"] if large["ci_hi"] is not None else np.inf
        significant = hi_small < large["ci_lo"] or hi_large < small["ci_lo"]
    gap = abs(small["estimate"] - large["estimate"])
    penalty = MAGNITUDE_PENALTY_MAX * min(1.0, gap / MAGNITUDE_SCALE) if significant else 0.0
    out.append(row("econbench", "magnitude_penalty", penalty, len(group), experiment=experiment))
    return out


def _allocation_rows(t: pa.Table, *, b: int, seed: int) -> list[Row]:
    from steer.fit._fairness import fehr_schmidt

    t = t.filter(pc.and_(pc.equal(t["kind"], "allocation"), pc.greater_equal(t["chosen"], 0)))
    if not t.num_rows:
        return []
    chose_a = t["chosen"].to_numpy() == 0
    result = fehr_schmidt(
        allocation_group=np.zeros(t.num_rows, dtype=np.int64),
        own_a=t["a_own"].to_numpy(), other_a=t["a_other"].to_numpy(),
        own_b=t["b_own"].to_numpy(), other_b=t["b_other"].to_numpy(),
        chose_a=chose_a, bootstrap=b, seed=seed,
    )  # fmt: skip
    return _rows(result.filter(pc.equal(result["parameter"], "beta")), "dictator")


def utility_rows(
    tables: dict[str, pa.Table], *, b: int, seed: int, method: str
) -> list[dict[str, Any]]:
    """The utility-parameter rows of one (model, condition)'s experiments."""
    out = _prospect_rows(tables, b=b, seed=seed, method=method)
    for experiment in ("waiting", "discounting"):
        if experiment in tables:
            out += _discount_rows(experiment, tables[experiment], b=b, seed=seed)
    if "dictator" in tables:
        out += _allocation_rows(tables["dictator"], b=b, seed=seed)
    return out
