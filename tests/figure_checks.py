"""Layout checks for matplotlib figures, by their own text extents: every
label lies inside the canvas, and no two tick labels of one axis overlap."""

from __future__ import annotations

import itertools

from matplotlib.axis import Axis
from matplotlib.figure import Figure
from matplotlib.text import Text


def _shown_ticks(axis: Axis) -> list[Text]:
    """The tick labels matplotlib draws: those of ticks within the view."""
    lo, hi = sorted(axis.get_view_interval())
    span = (hi - lo) * 1e-9
    return [
        label
        for loc, label in zip(axis.get_majorticklocs(), axis.get_ticklabels(), strict=False)
        if lo - span <= loc <= hi + span and label.get_visible() and label.get_text()
    ]


def _texts(fig: Figure) -> list[Text]:
    out: list[Text] = [t for t in fig.texts if t.get_text()]
    for ax in fig.axes:
        out += [ax.xaxis.label, ax.yaxis.label, ax.title]
        out += _shown_ticks(ax.xaxis) + _shown_ticks(ax.yaxis)
        legend = ax.get_legend()
        if legend is not None:
            out += list(legend.get_texts())
    for legend in fig.legends:
        out += list(legend.get_texts())
    return [t for t in out if t.get_text()]


def assert_laid_out(fig: Figure) -> None:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    canvas = fig.bbox
    for t in _texts(fig):
        box = t.get_window_extent(renderer)
        inside = (
            canvas.x0 - 0.5 <= box.x0 and box.x1 <= canvas.x1 + 0.5
            and canvas.y0 - 0.5 <= box.y0 and box.y1 <= canvas.y1 + 0.5
        )  # fmt: skip
        assert inside, f"{t.get_text()!r} at {box} runs off the canvas {canvas}"
    for ax in fig.axes:
        for ticks in (_shown_ticks(ax.xaxis), _shown_ticks(ax.yaxis)):
            boxes = [t.get_window_extent(renderer) for t in ticks if t.get_text()]
            for a, b in itertools.pairwise(boxes):
                overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
                overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
                assert overlap_x <= 0.5 or overlap_y <= 0.5, f"tick labels overlap: {a} {b}"
