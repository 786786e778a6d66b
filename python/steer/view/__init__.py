"""Figures: the shared canvas, palette and deterministic saving (`_figure`),
and the report's figures built on it (`_heatmap`)."""

from steer.view._figure import (
    FONT,
    LINESTYLES,
    MARKERS,
    PALETTE,
    REFERENCE_COLOUR,
    message_figure,
    new_figure,
    save_figure,
)
from steer.view._heatmap import heatmap_figure

__all__ = [
    "FONT",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "REFERENCE_COLOUR",
    "heatmap_figure",
    "message_figure",
    "new_figure",
    "save_figure",
]
