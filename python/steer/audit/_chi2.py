"""Pearson's χ² goodness of fit without scipy (scipy ships with the `audit`
extra through scikit-learn, but the heuristic audit must run without it)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from steer.stats._distributions import chi2_sf

__all__ = ["chi2_sf", "chisquare"]


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
