"""Multiple-comparison control across the cells of one card.

Holm (step-down, family-wise error) is the default; Benjamini–Hochberg
(step-up, false discovery rate) suits many cells; "none" leaves p as it is.
Adjusted p-values are compared with the level directly.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Correction = Literal["holm", "bh", "none"]
CORRECTIONS: tuple[Correction, ...] = ("holm", "bh", "none")


def adjust(p: np.ndarray | list[float], method: Correction = "holm") -> np.ndarray:
    """Adjusted p-values, in the order given (NaN stays NaN and is not counted)."""
    p = np.asarray(p, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    values = p[ok]
    m = values.size
    if m == 0:
        return out
    if method == "none":
        out[ok] = values
        return out
    order = np.argsort(values, kind="stable")
    ranked = values[order]
    if method == "holm":
        # p_(i)·(m − i + 1), made monotone from the smallest up.
        scaled = np.maximum.accumulate(ranked * (m - np.arange(m)))
    elif method == "bh":
        # p_(i)·m/i, made monotone from the largest down.
        scaled = np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1]
    else:
        raise ValueError(f"unknown correction {method!r} (choose holm, bh or none)")
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(scaled, 1.0)
    out[ok] = adjusted
    return out
