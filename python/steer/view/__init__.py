"""Figures: the shared canvas, palette and deterministic saving (`_figure`),
and the report's figures built on it (`_heatmap`, `_grade_curve`)."""

from steer.view._calibration import CalibrationSeries, calibration_figure
from steer.view._compare import compare_figure
from steer.view._dependency_graph import dependency_graph_figure, layered_layout
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
from steer.view._robustness import robustness_figure

__all__ = [
    "FONT",
    "LINESTYLES",
    "MARKERS",
    "PALETTE",
    "REFERENCE_COLOUR",
    "CalibrationSeries",
    "calibration_figure",
    "compare_figure",
    "dependency_graph_figure",
    "figure_svg",
    "grade_curve_figure",
    "heatmap_figure",
    "layered_layout",
    "message_figure",
    "new_figure",
    "robustness_figure",
    "save_figure",
]
