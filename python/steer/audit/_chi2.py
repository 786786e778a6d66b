"""Pearson's χ² goodness of fit without scipy (scipy ships with the `audit`
extra through scikit-learn, but the heuristic audit must run without it)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def chi2_sf(x: float, df: int) -> float:
    """P(χ²_df ≥ x): the regularized upper incomplete gamma Q(df/2, x/2)."""
    if df <= 0 or x != x:
        return math.nan
    if x <= 0:
        return 1.0
    a, z = df / 2.0, x / 2.0
    log_front = a * math.log(z) - z - math.lgamma(a)
    if z < a + 1:  # series for P, then Q = 1 - P
        term = total = 1.0 / a
        k = a
        for _ in range(10_000):
            k += 1
            term *= z / k
            total += term
            if abs(term) < abs(total) * 1e-15:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    # Continued fraction for Q (Lentz), as in Numerical Recipes' gcf.
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return min(1.0, math.exp(log_front) * h)


def chisquare(
    observed: npt.NDArray[np.float64], expected: npt.NDArray[np.float64]
) -> tuple[float, float]:
    """(statistic, p-value) of observed counts against expected counts over
    the cells with a positive expectation; df = cells − 1."""
    mask = expected > 0
    o, e = observed[mask], expected[mask]
    if len(o) < 2:
        return math.nan, math.nan
    stat = float(((o - e) ** 2 / e).sum())
    return stat, chi2_sf(stat, len(o) - 1)
