"""Paired bootstrap of a mean difference over questions.

Replicates come from the Rust resampling kernel (`_native.paired_bootstrap`):
resampling n questions with replacement is an exact multinomial draw over the
distinct (a, b) value pairs, so the cost grows with the number of distinct
pairs (four for exact match), not with n. The stream is seeded from (seed,
cell key): a cell's interval does not depend on the order of the questions or
on which other cells are present.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from steer import _native

MAX_RESAMPLES = 100_000


@dataclass(frozen=True)
class BootstrapResult:
    mean: float
    lo: float
    hi: float
    p: float  # two-sided, H0: mean difference 0


def paired_bootstrap(
    a: np.ndarray,
    b: np.ndarray,
    *,
    resamples: int = 2000,
    level: float = 0.95,
    seed: int = 0,
    key: str = "",
) -> BootstrapResult:
    """Mean of b − a over paired questions, its percentile interval at
    `level`, and a two-sided p-value from the replicates shifted to mean 0:
    p = (1 + #{|m* − m̄| ≥ |m̄|}) / (resamples + 1)."""
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise ValueError(f"resamples must be within 1–{MAX_RESAMPLES}, got {resamples}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    b = np.ascontiguousarray(b, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"paired arrays differ in length: {a.size} and {b.size}")
    if a.size == 0:
        return BootstrapResult(float("nan"), float("nan"), float("nan"), float("nan"))
    means = _native.paired_bootstrap(a, b, resamples=resamples, seed=seed, key=key)
    replicates = means[:, 1] - means[:, 0]
    mean = float(np.mean(b - a))
    alpha = (1 - level) / 2
    lo, hi = np.quantile(replicates, [alpha, 1 - alpha])
    # A tolerance keeps exact ties (e.g. every replicate equal to 0) extreme.
    extreme = np.abs(replicates - mean) >= abs(mean) - 1e-12
    p = (1 + int(extreme.sum())) / (resamples + 1)
    return BootstrapResult(mean, float(lo), float(hi), min(1.0, p))
