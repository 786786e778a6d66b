"""The grade curve: the rubric's metric by grade level, one line per model,
with its bootstrap interval at every point.

Grade levels are the taxonomy's 0–14 (kindergarten to the end of a
degree); points with no question are left out, so a model's line joins the
grades it was asked. n (questions per point) is on the x-axis label.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from matplotlib.figure import Figure

from steer.view._figure import FONT, LINESTYLES, MARKERS, PALETTE, message_figure, new_figure
from steer.view._heatmap import METRIC_LABELS


def grade_curve_figure(table: pa.Table, metric: str) -> Figure:
    """`table`: one row per (series, grade) with `value`, `lo`, `hi`, `n`."""
    if table.num_rows == 0:
        return message_figure("nothing to plot: no graded question in these runs")
    rows = table.to_pylist()
    series = list(dict.fromkeys(r["series"] for r in rows))
    # The legend goes under the axes, one series a line: the figure grows with it.
    fig = new_figure(7.2, 3.4 + 0.17 * len(series))
    ax = fig.add_subplot()
    for i, name in enumerate(series):
        mine = sorted((r for r in rows if r["series"] == name), key=lambda r: r["grade"])
        x = np.array([r["grade"] for r in mine], dtype=float)
        y = np.array([np.nan if r["value"] is None else r["value"] for r in mine])
        lo = np.array([np.nan if r["lo"] is None else r["lo"] for r in mine])
        hi = np.array([np.nan if r["hi"] is None else r["hi"] for r in mine])
        err = np.vstack([np.where(np.isnan(lo), 0, y - lo), np.where(np.isnan(hi), 0, hi - y)])
        colour = PALETTE[i % len(PALETTE)]
        ax.errorbar(
            x, y, yerr=np.clip(err, 0, None), color=colour, capsize=2.5, linewidth=1.2,
            linestyle=LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)],
            marker=MARKERS[1 + i % (len(MARKERS) - 1)], markersize=3.5, label=name,
        )  # fmt: skip
    ns = [r["n"] for r in rows]
    n_text = f"n = {min(ns)}" if min(ns) == max(ns) else f"n = {min(ns)}–{max(ns)}"
    ax.set_xlabel(
        f"grade level (0 = kindergarten … 14)\n{n_text} questions per point; bars: 95% "
        "bootstrap interval",
        fontsize=FONT,
    )
    ax.set_ylabel(METRIC_LABELS.get(metric, metric), fontsize=FONT)
    ax.set_xticks(range(15))
    ax.set_xlim(-0.5, 14.5)
    ax.axhline(0, color="#9a9a9a", linewidth=0.6)
    ax.tick_params(labelsize=FONT)
    ax.grid(alpha=0.3, linewidth=0.5)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", fontsize=FONT,
               frameon=False, ncols=1)  # fmt: skip
    return fig
