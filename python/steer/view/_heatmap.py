"""The element × model heatmap: a colour scale, readable labels, nothing clipped.

The figure is sized from its content: the cells keep a fixed size, so 122
elements make a wide figure rather than unreadable cells, and the margins
grow with the longest label (constrained layout places them). Colours come
from `cividis`, perceptually uniform and readable under the common
colour-vision deficiencies; cells with no value are light grey and said so
under the colour bar.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib import colormaps
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from steer.view._figure import FONT, message_figure, new_figure

CELL_IN = 0.16  # inches per cell
MISSING = "#dddddd"

#: What a metric's values mean, for the colour bar.
METRIC_LABELS = {
    "normalized_accuracy": "normalized accuracy\n(0 = random guessing, 1 = perfect)",
    "normalized_accuracy_strict": (
        "normalized accuracy, no-answers wrong\n(0 = chance, 1 = perfect)"
    ),
    "exact_match": "exact match\n(share right, 0 to 1)",
}


def heatmap_figure(
    models: Sequence[str],
    elements: Sequence[str],
    values: Mapping[tuple[str, str], float | None],
    *,
    metric: str = "normalized_accuracy",
    urls: Mapping[tuple[str, str], str] | None = None,
) -> Figure:
    """Models (rows) × elements (columns), coloured by `metric`. `urls`: a link
    per (model, element) cell, followed from the figure's SVG (the report's
    drill-down to the answers behind the cell)."""
    if not models or not elements:
        return message_figure("nothing to plot: no graded element in these runs")
    row_of = {m: i for i, m in enumerate(models)}
    col_of = {e: j for j, e in enumerate(elements)}
    grid = np.full((len(models), len(elements)), np.nan)
    for i, m in enumerate(models):
        for j, e in enumerate(elements):
            v = values.get((m, e))
            if v is not None:
                grid[i, j] = v
    finite = grid[np.isfinite(grid)]
    low = min(0.0, float(finite.min())) if finite.size else 0.0
    norm = Normalize(vmin=low, vmax=1.0)
    longest_model = max(len(m) for m in models)
    longest_element = max(len(e) for e in elements)
    char_in = FONT / 72 * 0.62  # a character's width at FONT points, roughly
    bar_in = 1.1  # the colour bar below the cells, with its two-line label
    # Room for the cells, or for the axis and colour-bar labels under them.
    under = max(len(elements) * CELL_IN, 45 * char_in)
    width = longest_model * char_in + under + 0.9
    height = len(models) * CELL_IN + longest_element * char_in + bar_in + 0.9
    fig = new_figure(width, height)
    grid_spec = fig.add_gridspec(2, 1, height_ratios=[max(len(models) * CELL_IN, 0.2), 0.12])
    ax = fig.add_subplot(grid_spec[0])
    cax = fig.add_subplot(grid_spec[1])
    cmap = colormaps["cividis"].with_extremes(bad=MISSING)
    image = ax.imshow(
        np.ma.masked_invalid(grid), cmap=cmap, norm=norm, aspect="equal", interpolation="none"
    )
    for (model, element), url in (urls or {}).items():
        if model in row_of and element in col_of:
            # A transparent cell on top: SVG wraps it in a link (<a href>).
            i, j = row_of[model], col_of[element]
            cell = Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=(0, 0, 0, 0), edgecolor="none")
            cell.set_url(url)
            ax.add_patch(cell)
    ax.set_xticks(np.arange(len(elements)), labels=list(elements), rotation=90, fontsize=FONT)
    ax.set_yticks(np.arange(len(models)), labels=list(models), fontsize=FONT)
    ax.tick_params(length=0)
    missing = " · grey cells: not graded" if np.isnan(grid).any() else ""
    ax.set_xlabel(f"element ({len(elements)}){missing}", fontsize=FONT)
    ax.set_ylabel(f"model ({len(models)})", fontsize=FONT)
    # Below the cells, in its own row: readable whatever the number of models.
    bar = fig.colorbar(image, cax=cax, orientation="horizontal")
    bar.set_label(METRIC_LABELS.get(metric, metric), fontsize=FONT)
    bar.ax.tick_params(labelsize=FONT)
    return fig
