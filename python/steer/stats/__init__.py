"""Paired statistical tests for comparing two runs question by question.

`mcnemar_exact` (exact match), `paired_bootstrap` (any per-question score) and
`adjust` (Holm, Benjamini–Hochberg or no multiple-comparison control).
"""

from steer.stats._bootstrap import BootstrapResult, paired_bootstrap
from steer.stats._mcnemar import mcnemar_exact
from steer.stats._multitest import CORRECTIONS, Correction, adjust
from steer.stats._paired import compare, paired_values, significant_drops
from steer.stats._sides import compare_sides, side_outcomes

__all__ = [
    "CORRECTIONS",
    "BootstrapResult",
    "Correction",
    "adjust",
    "compare",
    "compare_sides",
    "mcnemar_exact",
    "paired_bootstrap",
    "paired_values",
    "side_outcomes",
    "significant_drops",
]
