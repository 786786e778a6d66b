"""Prospect-theory fits (Tversky and Kahneman 1992) from certainty-equivalent
brackets and mixed-gamble switching points, many groups at once."""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from steer import _native
from steer.errors import InputError
from steer.fit._table import (
    check_bootstrap,
    check_brackets,
    floats,
    ints,
    lengths,
    no_nan,
    result_table,
)

__all__ = ["PT_BOUNDS", "PT_MEDIANS", "prospect_theory"]

#: Held values of the parameters the data cannot identify (human medians).
PT_MEDIANS = {"alpha": 0.88, "beta": 0.88, "lambda": 2.25, "gamma": 0.61, "delta": 0.69}
#: Bounds of the fitted parameters (sigma: the mle noise scale).
PT_BOUNDS = {
    "alpha": (0.05, 2.0),
    "beta": (0.05, 2.0),
    "lambda": (0.1, 10.0),
    "gamma": (0.28, 1.5),
    "delta": (0.28, 1.5),
    "sigma": (1e-6, 100.0),
}


def prospect_theory(
    group: Any,
    kind: Any,
    x1: Any,
    p1: Any,
    x2: Any = None,
    p2: Any = None,
    lo: Any = None,
    hi: Any = None,
    *,
    method: str = "mle",
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pa.Table:
    """Fit α, β, λ, γ, δ per group, with bootstrapped percentile intervals.

    Value `v(x) = x^α` (x ≥ 0), `−λ(−x)^β` (x < 0); weighting
    `w(p) = p^c / (p^c + (1−p)^c)^(1/c)`, `c = γ` for gains, `δ` for losses.
    Each observation (all arrays of one length, one entry per observation):

    * `group`: int64 id (one subject/model × condition); observations of a
      group need not be contiguous; rows come out by ascending id.
    * `kind` 0 — a certainty-equivalent task on the prospect
      `(x1, p1; x2, p2)` (outcomes of one sign, `p1 + p2 = 1`); rank-dependent:
      `V = w(p_hi) v(x_hi) + (1 − w(p_hi)) v(x_lo)`, the model's answer is
      `v⁻¹(V)`. `lo`, `hi`: the bracket of the subject's certainty equivalent
      (e.g. the two sure amounts of a ladder it switched between); NaN = open
      (−∞ / +∞).
    * `kind` 1 — a mixed gamble: lose `|x1|` (`x1 < 0`) with probability `p1`,
      else win G, against nothing for sure. `[lo, hi]` brackets the switching
      gain `G*` at which the subject starts accepting; the model's `G*` solves
      `w+(1−p1) G*^α = λ w−(p1) |x1|^β`. `x2`, `p2` are ignored (NaN/None).

    `method="mle"` (default): interval-censored maximum likelihood, the
    answer being the model value plus `N(0, (σ s)²)` noise with `s = |x2 − x1|`
    (kind 0) or the break-even gain `−x1 p1 / (1 − p1)` (kind 1); σ is reported
    as parameter `sigma`; `aic`, `bic` come from the log-likelihood and `r2`,
    `ssr` from the closed brackets' midpoints. `method="lm"`: bounded
    Levenberg–Marquardt least squares on the midpoints of closed brackets (the
    LLM economicus method; open brackets are left out); `aic`/`bic` are the
    Gaussian ones from `ssr`.

    Bounds: α, β ∈ [0.05, 2], λ ∈ [0.1, 10], γ, δ ∈ [0.28, 1.5] (where `w`
    stays monotone), σ ∈ [1e-6, 100]. Parameters the data cannot identify (no
    gain prospects → α, γ; no loss prospects → β, δ; no mixed gambles → λ; or
    every answer of that kind censored on the same side) are held at the human
    medians `PT_MEDIANS` during the fit and reported `identified=False` with
    the reason; a group with too few observations, a singular Jacobian at the
    estimate or no convergence has every row unidentified.

    Amounts are in the experiment's money unit (dollars): λ depends on the
    unit when α ≠ β, so compare λ only across fits in the same unit.

    Bootstrap: `bootstrap` resamples (0: no intervals) of each group's
    observations with replacement, seeded per (seed, group, resample) so the
    result does not depend on the thread count; percentile intervals at
    `level`. Returns the `steer.fit` result table (family `prospect-theory`).
    """
    if method not in ("mle", "lm"):
        raise InputError(f'method: must be "mle" or "lm", got {method!r}')
    check_bootstrap(bootstrap, level)
    g = ints("group", group)
    n = len(g)
    k = ints("kind", kind)
    a1, q1 = floats("x1", x1), floats("p1", p1)
    a2, q2 = floats("x2", x2, n), floats("p2", p2, n)
    b_lo, b_hi = floats("lo", lo, n), floats("hi", hi, n)
    lengths(n, kind=k, x1=a1, p1=q1, x2=a2, p2=q2, lo=b_lo, hi=b_hi)
    if not np.isin(k, (0, 1)).all():
        i = int(np.flatnonzero(~np.isin(k, (0, 1)))[0])
        raise InputError(
            f"kind: observation {i}: must be 0 (certainty equivalent)"
            f" or 1 (mixed gamble), got {k[i]}"
        )
    ce = k == 0
    no_nan("x1", a1)
    no_nan("p1", q1)
    no_nan("x2", a2, ce)
    no_nan("p2", q2, ce)
    for name, p in (("p1", q1), ("p2", q2)):
        bad = ((p < 0) | (p > 1)) & (ce if name == "p2" else True)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(f"{name}: observation {i}: probability must be in [0, 1], got {p[i]}")
    off = ce & (np.abs(q1 + q2 - 1.0) > 1e-9)
    if off.any():
        i = int(np.flatnonzero(off)[0])
        raise InputError(f"p2: observation {i}: p1 + p2 = {q1[i] + q2[i]} (must be 1)")
    check_brackets(b_lo, b_hi)
    columns = _native.fit_prospect_theory(
        g, k, a1, q1, a2, q2, b_lo, b_hi, method, int(bootstrap), float(level), int(seed)
    )
    return result_table(columns)
