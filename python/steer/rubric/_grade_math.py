"""Letters and weighted means: the arithmetic of a report card."""

from __future__ import annotations

from collections.abc import Sequence


def letter_of(score: float | None, steps: Sequence[tuple[str, float, float]]) -> tuple[str, float]:
    """(letter, points) of a score on a scale given best first; below every
    step is F with 0 points; no score is '—' (points NaN)."""
    if score is None or score != score:
        return "—", float("nan")
    for name, lowest, points in steps:
        if score >= lowest:
            return name, points
    return "F", 0.0


def weighted_mean(pairs: Sequence[tuple[float, float | None]]) -> float | None:
    """Mean of values weighted by weights, skipping missing values (None if none)."""
    kept = [(w, v) for w, v in pairs if v is not None and v == v]
    total = sum(w for w, _ in kept)
    if not kept or total <= 0:
        return None
    return sum(w * v for w, v in kept) / total
