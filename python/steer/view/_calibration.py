"""The reliability diagram (`steer plot calibration`): per model, the observed
accuracy in each confidence bin against the bin's mean confidence, with the
diagonal (perfect calibration) for reference.

The bins are `steer score`'s ECE bins, taken as they are: confidence is the
probability on the top option (renormalised over the options, first of ties),
a bin is right when that option is the key, bins are equal-width over [0, 1]
(`floor(conf · bins)`, 1.0 in the last). So the ECE in each panel's legend,
Σ_b |Σright_b − Σconf_b| / N, is the `ece` metric of the same answers.
Intervals are Wilson's (the scorer's own), which stay inside [0, 1] and are
honest for the few-answer bins at the extremes where a normal interval is not.
A histogram under each panel gives the answers per bin; answers without
probabilities (free text) leave a panel saying so.
"""

from __future__ import annotations

import functools
import math
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.textpath import TextPath
from matplotlib.ticker import MaxNLocator

from steer.view._figure import FONT, PALETTE, REFERENCE_COLOUR, message_figure, new_figure

PANEL_IN = 2.35  # width of one panel, inches
COLUMNS = 4  # panels per row at most
MIN_WIDTH_IN = 5.2  # room for the legend under the panels
COLOUR = PALETTE[0]


@dataclass(frozen=True)
class CalibrationSeries:
    """One model's ECE bins: per bin, the answers `n`, the sum of their
    confidences `conf_sum` and how many had the key as top option `correct`
    (the `ece_n_b`, `ece_conf_b`, `ece_acc_b` cells of `steer.score`)."""

    name: str
    n: Sequence[int]
    conf_sum: Sequence[float]
    correct: Sequence[int]

    def __post_init__(self) -> None:
        if not len(self.n) == len(self.conf_sum) == len(self.correct) >= 1:
            raise ValueError(f"{self.name}: n, conf_sum and correct need one entry per bin")

    @property
    def total(self) -> int:
        return int(np.sum(self.n))

    @property
    def ece(self) -> float | None:
        """Σ_b |Σright_b − Σconf_b| / N, as `steer.score`'s `ece` (None: no answers)."""
        if self.total == 0:
            return None
        gap = np.abs(np.asarray(self.correct, float) - np.asarray(self.conf_sum, float))
        return float(gap.sum() / self.total)


# Cached: measuring outlines is slow, and a report's figures measure the same
# labels and title prefixes over and over (one figure per model).
@functools.lru_cache(maxsize=8192)
def text_width_in(text: str, size: float = FONT) -> float:
    """The drawn width of `text` at `size` points, in inches (from the font's
    outlines, so the same for every backend)."""
    return float(TextPath((0, 0), text, size=size).get_extents().width) / 72


def wrap_to(text: str, width_in: float, size: float = FONT) -> list[str]:
    """`text` in lines no wider than `width_in`, broken after a space, `;`,
    `,` or `/` (model names have few spaces), mid-token only when a token
    alone is too wide."""
    lines: list[str] = []
    line = ""
    for token in re.split(r"(?<=[ ;,/])", text):
        while token:
            if text_width_in(line + token, size) <= width_in:
                line, token = line + token, ""
            elif line:
                lines.append(line.rstrip())
                line = ""
            else:  # one token wider than a line: cut it where it stops fitting
                # The longest prefix that fits (one character at least), by
                # bisection: a prefix is never wider than a longer one.
                cut, over = 1, len(token)
                while over - cut > 1:
                    mid = (cut + over) // 2
                    if text_width_in(token[:mid], size) <= width_in:
                        cut = mid
                    else:
                        over = mid
                lines.append(token[:cut])
                token = token[cut:]
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _panel_grid(count: int) -> tuple[int, int]:
    cols = min(count, COLUMNS)
    return math.ceil(count / cols), cols


def calibration_figure(series: Sequence[CalibrationSeries], *, level: float = 0.95) -> Figure:
    """One reliability panel (with its count histogram) per series; `level`:
    the Wilson intervals' coverage."""
    from steer.score import wilson  # here: `import steer.view` need not load the engine

    if not series:
        return message_figure("nothing to plot: no answered question in these runs")
    if all(s.total == 0 for s in series):
        names = ", ".join(s.name for s in series)
        return message_figure(
            f"nothing to plot: no answer carries option probabilities ({names}); free-text "
            "answers have none, so their calibration cannot be drawn"
        )
    bins = len(series[0].n)
    if any(len(s.n) != bins for s in series):
        raise ValueError("every series needs the same number of bins")
    rows, cols = _panel_grid(len(series))
    width = max(cols * PANEL_IN + 0.3, MIN_WIDTH_IN)
    # The title spans the plot area: the panel less the y-axis labels.
    titles = [wrap_to(s.name, (width - 0.3) / cols - 0.6) for s in series]
    title_lines = max(len(t) for t in titles)
    fig = new_figure(width, rows * (2.55 + title_lines * FONT / 72 * 1.3) + 0.95)
    grid = fig.add_gridspec(2 * rows, cols, height_ratios=[3.0, 1.0] * rows)
    edges = np.linspace(0.0, 1.0, bins + 1)
    for k, s in enumerate(series):
        r, c = divmod(k, cols)
        ax = fig.add_subplot(grid[2 * r, c])
        hist = fig.add_subplot(grid[2 * r + 1, c], sharex=ax)
        ax.set_title("\n".join(titles[k]), fontsize=FONT)
        ax.plot([0, 1], [0, 1], linestyle="--", color=REFERENCE_COLOUR, linewidth=0.8)
        n = np.asarray(s.n, dtype=np.float64)
        if s.total:
            shown = n > 0
            with np.errstate(invalid="ignore", divide="ignore"):
                conf = np.asarray(s.conf_sum, float) / n
                acc = np.asarray(s.correct, float) / n
            lo, hi = wilson(np.asarray(s.correct, float), n, level)
            yerr = np.vstack([acc - lo, hi - acc])[:, shown]
            drawn = ax.errorbar(
                conf[shown], acc[shown], yerr=np.clip(yerr, 0, None), color=COLOUR,
                marker="o", markersize=3.5, linewidth=0.9, capsize=2, elinewidth=0.8,
            )  # fmt: skip
            drawn.lines[0].set_gid(f"accuracy-{k}")
            drawn.lines[0].set_label(f"ECE = {s.ece:.3f}, n = {s.total}")
            # "best": the corner the points leave free (fixed rules, so deterministic).
            ax.legend(loc="best", fontsize=FONT, handlelength=1.2, framealpha=0.85,
                      edgecolor="none")  # fmt: skip
            bars = hist.bar(edges[:-1], n, width=1 / bins, align="edge", color=COLOUR,
                            alpha=0.55, edgecolor="white", linewidth=0.5)  # fmt: skip
            for b, bar in enumerate(bars):
                bar.set_gid(f"answers-{k}-{b}")
            hist.set_ylim(0, max(n.max(), 1) * 1.15)
            hist.yaxis.set_major_locator(MaxNLocator(nbins=2, integer=True))
        else:
            ax.text(0.5, 0.5, textwrap.fill("no option probabilities (free-text answers or none): "
                                            "nothing to calibrate", 26),
                    ha="center", va="center", fontsize=FONT, transform=ax.transAxes,
                    bbox={"facecolor": "white", "edgecolor": "none"})  # fmt: skip
            hist.set_yticks([])
        # A little room past [0, 1]: points at the extremes stay whole.
        ax.set_xlim(-0.03, 1.03)
        ax.set_ylim(-0.03, 1.03)
        ax.set_yticks([0, 0.5, 1], labels=["0", "0.5", "1"])
        ax.tick_params(labelsize=FONT, labelbottom=False)
        ax.set_ylabel("accuracy", fontsize=FONT)
        ax.grid(alpha=0.3, linewidth=0.5)
        hist.set_xticks([0, 0.5, 1], labels=["0", "0.5", "1"])
        hist.tick_params(labelsize=FONT)
        hist.set_xlabel("confidence", fontsize=FONT)
        hist.set_ylabel("answers", fontsize=FONT)
    handles = [
        Line2D([], [], linestyle="--", color=REFERENCE_COLOUR, linewidth=0.8),
        Line2D([], [], color=COLOUR, marker="o", markersize=3.5, linewidth=0.9),
        Patch(facecolor=COLOUR, alpha=0.55),
    ]
    labels = [
        "perfect calibration",
        f"accuracy per bin at its mean confidence, {level:.0%} Wilson interval",
        f"answers per bin ({bins} equal-width bins, as `steer score --metric ece`)",
    ]
    fig.legend(handles, labels, loc="outside lower center", fontsize=FONT, frameon=False,
               ncols=1, title="confidence: probability on the top option; right: it is the key",
               title_fontsize=FONT)  # fmt: skip
    return fig
