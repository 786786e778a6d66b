"""McNemar's exact test: a two-sided binomial test on the discordant pairs.

With b questions right only on side A and c right only on side B, under the
null hypothesis each discordant pair is equally likely to go either way, so
min(b, c) is a Binomial(b + c, 1/2) tail: p = min(1, 2·P[X ≤ min(b, c)]).
"""

from __future__ import annotations

import numpy as np


def _binomial_half_cdf(k: int, n: int) -> float:
    """P[X ≤ k] for X ~ Binomial(n, 1/2), summed in log space (no overflow)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    j = np.arange(1, k + 1, dtype=np.float64)
    # log C(n, j) = Σ_{i ≤ j} log((n − i + 1)/i), cumulated without factorials.
    log_choose = np.concatenate(([0.0], np.cumsum(np.log((n - j + 1) / j))))
    log_terms = log_choose - n * np.log(2.0)
    top = log_terms.max()
    return float(min(1.0, np.exp(top) * np.exp(log_terms - top).sum()))


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact p-value for b and c discordant pairs (1.0 when none)."""
    if b < 0 or c < 0:
        raise ValueError(f"discordant counts must be ≥ 0, got {b} and {c}")
    n = b + c
    if n == 0:
        return 1.0
    return min(1.0, 2.0 * _binomial_half_cdf(min(b, c), n))
