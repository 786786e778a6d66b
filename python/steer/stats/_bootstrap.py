"""Paired bootstrap of a mean difference over questions.

Resampling n questions with replacement and averaging their differences is
exactly a multinomial draw over the distinct difference values, so the cost
grows with the number of distinct values (three for exact match), not with n.
The stream is seeded from (seed, cell key): a cell's interval does not depend
on the order of the inputs or on which other cells are present.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

MAX_RESAMPLES = 1_000_000


@dataclass(frozen=True)
class BootstrapResult:
    mean: float
    lo: float
    hi: float
    p: float  # two-sided, H0: mean difference 0


def cell_rng(seed: int, key: str) -> np.random.Generator:
    """A generator for one cell, from the seed and a stable hash of its key."""
    digest = hashlib.sha256(key.encode("utf-8")).digest()
    return np.random.default_rng([int(seed) & 0xFFFFFFFF, int.from_bytes(digest[:8], "little")])


def paired_bootstrap(
    diff: np.ndarray,
    *,
    resamples: int = 2000,
    level: float = 0.95,
    rng: np.random.Generator,
) -> BootstrapResult:
    """Percentile interval of the mean of `diff` (per-question B − A) and a
    two-sided p-value from the bootstrap distribution shifted to mean 0:
    p = (1 + #{|m* − m̄| ≥ |m̄|}) / (resamples + 1)."""
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be within 1–{MAX_RESAMPLES}, got {resamples}")
    diff = np.asarray(diff, dtype=np.float64)
    n = diff.size
    if n == 0:
        return BootstrapResult(float("nan"), float("nan"), float("nan"), float("nan"))
    values, counts = np.unique(diff, return_counts=True)
    draws = rng.multinomial(n, counts / n, size=resamples)
    means = draws @ values / n
    mean = float(diff.mean())
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    # A tolerance keeps ties (e.g. every replicate equal to the mean) extreme.
    extreme = np.abs(means - mean) >= abs(mean) - 1e-12
    p = (1 + int(extreme.sum())) / (resamples + 1)
    return BootstrapResult(mean, float(lo), float(hi), min(1.0, p))
