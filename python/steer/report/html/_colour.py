"""Colours for scores: red (random guessing or worse) to green (perfect)."""

from __future__ import annotations


def score_colour(value: float | None) -> str:
    """An `hsl(...)` colour for a normalized score in [0, 1] (clamped); grey if missing."""
    if value is None or value != value:
        return "#d0d0d0"
    hue = max(0.0, min(1.0, value)) * 120
    return f"hsl({hue:.0f}, 65%, 48%)"


MODEL_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b")


def model_colour(index: int) -> str:
    return MODEL_COLOURS[index % len(MODEL_COLOURS)]
