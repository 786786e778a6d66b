"""Colours for scores: red (random guessing or worse) to green (perfect)."""

from __future__ import annotations


def score_colour(value: float | None) -> str:
    """An `hsl(...)` colour for a normalized score in [0, 1] (clamped); grey if missing."""
    if value is None or value != value:
        return "#d0d0d0"
    hue = max(0.0, min(1.0, value)) * 120
    return f"hsl({hue:.0f}, 65%, 48%)"
