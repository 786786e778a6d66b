"""Figures: the shared canvas, palette and deterministic saving (`_figure`),
and the report's figures built on it (`_heatmap`, `_grade_curve`)."""

from steer.view._figure import (
    FONT,
    LINESTYLES,
    MARKERS,
    PALETTE,
    REFERENCE_COLOUR,
    figure_svg,
    message_figure,
    new_figure,
    save_figure,
)
from steer.view._grade_curve import grade_curve_figure
from steer.view._heatmap import heatmap_figure

__all__ = [
    "FONT",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "REFERENCE_COLOUR",
    "figure_svg",
    "grade_curve_figure",
    "heatmap_figure",
    "message_figure",
    "new_figure",
    "save_figure",
]
