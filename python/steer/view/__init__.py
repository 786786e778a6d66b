"""Figures: the shared canvas, palette and deterministic saving (`_figure`),
the figures built on it (`_heatmap`, `_grade_curve`, `_compare`,
`_robustness`, `_calibration`, `_dependency_graph`), and the data behind
those of graded responses, shared by `steer plot` and `steer report`
(`_data`)."""

from steer.view._calibration import CalibrationSeries, calibration_figure
from steer.view._compare import compare_figure
from steer.view._data import (
    calibration_of,
    calibration_series,
    compare_of,
    dependency_graph_of,
    robustness_of,
    series_name,
)
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
    "calibration_of",
    "calibration_series",
    "compare_figure",
    "compare_of",
    "dependency_graph_figure",
    "dependency_graph_of",
    "figure_svg",
    "grade_curve_figure",
    "heatmap_figure",
    "layered_layout",
    "message_figure",
    "new_figure",
    "robustness_figure",
    "robustness_of",
    "save_figure",
    "series_name",
]
