"""Fehr–Schmidt inequity aversion from ultimatum responder decisions,
allocation choices and proposer offers, many groups at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from steer import _native
from steer.errors import InputError
from steer.fit._table import bools, check_bootstrap, floats, ints, lengths, no_nan, result_table

__all__ = ["fehr_schmidt"]


def _dataset(
    label: str, group: Any, **fields: tuple[Any, str]
) -> tuple[npt.NDArray[np.int64], list[npt.NDArray[Any]]]:
    """One optional data set: all of its arrays, or none (empty arrays)."""
    given = [k for k, (v, _) in fields.items() if v is not None]
    if group is None and not given:
        return np.zeros(0, np.int64), [
            np.zeros(0, np.bool_ if t == "bool" else np.float64) for _, t in fields.values()
        ]
    if group is None or len(given) != len(fields):
        missing = [k for k, (v, _) in fields.items() if v is None]
        missing += [] if group is not None else [f"{label}_group"]
        raise InputError(f"{label} data: missing {', '.join(missing)}")
    g = ints(f"{label}_group", group)
    out: list[npt.NDArray[Any]] = []
    for name, (value, kind) in fields.items():
        if kind == "bool":
            out.append(bools(name, value))
        else:
            arr = floats(name, value)
            no_nan(name, arr)
            out.append(arr)
    lengths(len(g), **dict(zip(fields, out, strict=True)))
    return g, out


def fehr_schmidt(
    *,
    responder_group: Any = None,
    pool: Any = None,
    offer: Any = None,
    accepted: Any = None,
    allocation_group: Any = None,
    own_a: Any = None,
    other_a: Any = None,
    own_b: Any = None,
    other_b: Any = None,
    chose_a: Any = None,
    proposer_group: Any = None,
    proposer_pool: Any = None,
    proposer_offer: Any = None,
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pa.Table:
    """Fehr–Schmidt `U = x − α max(y − x, 0) − β max(x − y, 0)` per group, from
    three optional data sets (each with its own int64 group ids; a group's rows
    cover the union):

    * responder decisions `responder_group`, `pool`, `offer`, `accepted` →
      parameter `alpha`: with `s_r` the smallest offer share `offer/pool`
      accepted more than half the time, `α = s_r / (1 − 2 s_r)` (= s_r/(P − 2 s_r)
      in money). No share accepted more than half the time, or `s_r ≥ 1/2`
      (α → ∞), leaves α unidentified; resamples like that count as α = ∞, so
      `ci_hi` may be null (unbounded).
    * binary allocation choices `allocation_group`, `own_a`, `other_a`,
      `own_b`, `other_b`, `chose_a` → parameter `beta`, from the choices where
      the chooser is weakly ahead in both options: each bounds β above or below
      at `Δown / Δadvantage`; the estimate is the midpoint of the largest region
      of [0, 1) violating the fewest choices (a bracketing estimator, robust to
      the deterministic choices of models at temperature 0, where a logit's
      temperature collapses).
    * proposer (or dictator) offers `proposer_group`, `proposer_pool`,
      `proposer_offer` → parameter `beta_offer` = 1 − mean offer share (the LLM
      economicus summary; it only says whether β ≷ 1/2).

    Each parameter is bootstrapped over its own observations (`n` on its row),
    percentile intervals at `level`. Family `fehr-schmidt`, method `threshold`.
    """
    check_bootstrap(bootstrap, level)
    rg, (pool_a, offer_a, acc) = _dataset(
        "responder",
        responder_group,
        pool=(pool, "f"),
        offer=(offer, "f"),
        accepted=(accepted, "bool"),
    )
    ag, (oa, ya, ob, yb, ca) = _dataset(
        "allocation",
        allocation_group,
        own_a=(own_a, "f"),
        other_a=(other_a, "f"),
        own_b=(own_b, "f"),
        other_b=(other_b, "f"),
        chose_a=(chose_a, "bool"),
    )
    pg, (pp, po) = _dataset(
        "proposer",
        proposer_group,
        proposer_pool=(proposer_pool, "f"),
        proposer_offer=(proposer_offer, "f"),
    )
    columns = _native.fit_fehr_schmidt(
        rg, pool_a, offer_a, acc, ag, oa, ya, ob, yb, ca, pg, pp, po,
        int(bootstrap), float(level), int(seed),
    )  # fmt: skip
    return result_table(columns)
