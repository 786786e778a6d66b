"""Discounting fits (hyperbolic, exponential, quasi-hyperbolic) from
immediate-equivalent brackets, many groups at once."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

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

__all__ = ["DISCOUNT_FAMILIES", "discounting"]

#: The families, in their default order.
DISCOUNT_FAMILIES = ("hyperbolic", "exponential", "quasi-hyperbolic")


def discounting(
    group: Any,
    delay: Any,
    amount: Any,
    lo: Any,
    hi: Any,
    *,
    families: Sequence[str] = DISCOUNT_FAMILIES,
    bootstrap: int = 1000,
    level: float = 0.95,
    seed: int = 0,
) -> pa.Table:
    """Fit each discounting family per group by bounded nonlinear least squares
    on the midpoints of the immediate-equivalent brackets (the LLM economicus
    method), with bootstrapped percentile intervals.

    Per observation: `group` (int64 id; observations need not be contiguous),
    `delay` (years, > 0), `amount` (the delayed amount A, > 0), `lo`, `hi` (the
    bracket of the immediate amount judged equivalent, i.e. the switching
    point; NaN = open side; open brackets are left out of the fit).

    Families (parameter names in the table): `hyperbolic` IE = A/(1 + k d),
    `k` ∈ [0, 1e6]; `exponential` IE = A δ^d, `delta` ∈ [1e-9, 1.5];
    `quasi-hyperbolic` IE = A β δ^d for d > 0, `beta`, `delta` ∈ [1e-9, 1.5]
    (needs at least two distinct delays). Each family's rows carry `ssr`, `r2`
    and Gaussian `aic` = n ln(ssr/n) + 2k, `bic` = n ln(ssr/n) + k ln n, so
    families fitted to the same group compare (lower is better). Rows come
    group-major, families in the order asked for.
    """
    fams = [families] if isinstance(families, str) else list(families)
    unknown = [f for f in fams if f not in DISCOUNT_FAMILIES]
    if unknown or not fams:
        raise InputError(
            f"families: unknown or none {unknown!r} (choose from {', '.join(DISCOUNT_FAMILIES)})"
        )
    check_bootstrap(bootstrap, level)
    g = ints("group", group)
    d, a = floats("delay", delay), floats("amount", amount)
    b_lo, b_hi = floats("lo", lo), floats("hi", hi)
    lengths(len(g), delay=d, amount=a, lo=b_lo, hi=b_hi)
    no_nan("delay", d)
    no_nan("amount", a)
    check_brackets(b_lo, b_hi)
    columns = _native.fit_discounting(
        g, d, a, b_lo, b_hi, fams, int(bootstrap), float(level), int(seed)
    )
    return result_table(columns)
