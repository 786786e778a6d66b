"""Robustness: the metric by domain, by question type and by perspective, one
panel each (stacked, sharing the metric's axis), one dot per model in each
category with its bootstrap interval.

Categories run down a panel worst first (by the mean over the models), so
the minimum the `*_robustness` metrics take is at the top; within a category
the models sit side by side in legend order. n (questions per model in the
category) is written after the category's name. Categories without a value
(no question, or an empty label) are left out, and so is a dimension with
none left. The figure grows with categories × models rather than crowding
them.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from steer.view._figure import FONT, PALETTE, message_figure, new_figure
from steer.view._heatmap import METRIC_LABELS

#: The dimensions drawn, in order, with their panel titles.
DIMENSIONS = {"domain": "domain", "type": "question type", "perspective": "perspective"}
#: Filled markers: series i takes colour i mod 7 and marker i div 7, so 49 stay distinct.
DOT_MARKERS = ("o", "s", "^", "D", "v", "P", "X")
SERIES_IN = 0.045  # inches per model within a category
CHAR_IN = FONT / 72 * 0.62  # a character's width at FONT points, roughly


def _finite(x: Any) -> bool:
    return x is not None and math.isfinite(x)


def _n_text(ns: list[int]) -> str:
    return f"n = {min(ns)}" if min(ns) == max(ns) else f"n = {min(ns)}–{max(ns)}"


def style(i: int) -> tuple[str, str]:
    """(colour, marker) of the i-th series."""
    return PALETTE[i % len(PALETTE)], DOT_MARKERS[(i // len(PALETTE)) % len(DOT_MARKERS)]


def _categories(rows: list[dict[str, Any]]) -> list[str]:
    """The categories, worst mean over the series first (ties by name)."""
    by: dict[str, list[float]] = {}
    for r in rows:
        by.setdefault(r["category"], []).append(r["value"])
    return sorted(by, key=lambda c: (float(np.mean(by[c])), c))


def _panel(ax: Axes, rows: list[dict[str, Any]], series: list[str], band: float) -> list[str]:
    """Draw one dimension; returns its categories, top to bottom."""
    cats = _categories(rows)
    at = {c: i for i, c in enumerate(cats)}
    s = len(series)
    step = band / s
    for j, name in enumerate(series):
        mine = [r for r in rows if r["series"] == name]
        if not mine:
            continue
        y = np.array([at[r["category"]] + (j - (s - 1) / 2) * step for r in mine])
        x = np.array([r["value"] for r in mine], dtype=float)
        lo = np.array([r["lo"] if _finite(r["lo"]) else r["value"] for r in mine], dtype=float)
        hi = np.array([r["hi"] if _finite(r["hi"]) else r["value"] for r in mine], dtype=float)
        colour, marker = style(j)
        ax.errorbar(
            x, y, xerr=np.clip(np.vstack([x - lo, hi - x]), 0, None), fmt=marker, color=colour,
            markersize=3.5, elinewidth=0.9, capsize=0, linestyle="none", label=name,
        )  # fmt: skip
    labels = []
    for c in cats:
        ns = [int(r["n"]) for r in rows if r["category"] == c]
        labels.append(f"{c} ({_n_text(ns)})")
    ax.set_yticks(np.arange(len(cats)), labels=labels, fontsize=FONT)
    ax.set_ylim(len(cats) - 0.5, -0.5)  # the worst on top
    for boundary in np.arange(len(cats) - 1) + 0.5:  # keeps the groups apart
        ax.axhline(boundary, color="#e3e3e3", linewidth=0.5)
    ax.axvline(0, color="#9a9a9a", linewidth=0.6)
    ax.tick_params(labelsize=FONT, axis="both")
    ax.tick_params(axis="y", length=0)
    ax.grid(axis="x", alpha=0.3, linewidth=0.5)
    return cats


def robustness_figure(table: pa.Table, metric: str) -> Figure:
    """`table`: one row per (dimension, category, series) with `value`, `lo`,
    `hi` and `n`; dimension is one of DIMENSIONS. Series keep the order of
    their first row."""
    rows = [
        r
        for r in table.to_pylist()
        if r["dimension"] in DIMENSIONS and r["category"] and _finite(r["value"]) and r["n"]
    ]
    if not rows:
        return message_figure(
            "nothing to plot: no question with a domain, type or perspective and a value"
        )
    series = list(dict.fromkeys(r["series"] for r in rows))
    dims = [d for d in DIMENSIONS if any(r["dimension"] == d for r in rows)]
    counts = [len({r["category"] for r in rows if r["dimension"] == d}) for d in dims]
    band = 0.7  # of a category's height; the rest separates categories
    category_in = max(0.24, len(series) * SERIES_IN / band)
    longest = max(len(f"{r['category']} (n = 0000–0000)") for r in rows)
    width = max(6.5, longest * CHAR_IN + 4.8)
    panels_in = sum(c * category_in + 0.55 for c in counts)
    height = panels_in + 0.9 + 0.17 * len(series)  # the axis label, then the legend
    fig = new_figure(width, height)
    grid = fig.add_gridspec(len(dims), 1, height_ratios=[c * category_in + 0.2 for c in counts])
    axes: list[Axes] = []
    for k, (dim, count) in enumerate(zip(dims, counts, strict=True)):
        ax = fig.add_subplot(grid[k], sharex=axes[0] if axes else None)
        _panel(ax, [r for r in rows if r["dimension"] == dim], series, band)
        ax.set_title(
            f"by {DIMENSIONS[dim]} ({count} categor{'y' if count == 1 else 'ies'})",
            fontsize=FONT,
        )
        axes.append(ax)
    ends = [v for r in rows for v in (r["value"], r["lo"], r["hi"]) if _finite(v)]
    low, high = min(0.0, min(ends)), max(0.0, max(ends))
    pad = 0.05 * max(high - low, 1e-9)
    axes[0].set_xlim(low - pad, high + pad)
    bootstrapped = any(_finite(r["lo"]) or _finite(r["hi"]) for r in rows)
    axes[-1].set_xlabel(
        f"{METRIC_LABELS.get(metric, metric)}\n"
        f"dots: value; {'bars: 95% bootstrap interval' if bootstrapped else 'no interval'}\n"
        "n: questions per model in the category; worst category first",
        fontsize=FONT,
    )
    handles, labels = axes[0].get_legend_handles_labels()
    for ax in axes[1:]:  # a series missing from the first panel still gets an entry
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    order = sorted(range(len(labels)), key=lambda i: series.index(labels[i]))
    fig.legend([handles[i] for i in order], [labels[i] for i in order],
               loc="outside lower center", fontsize=FONT, frameon=False, ncols=1)  # fmt: skip
    return fig
