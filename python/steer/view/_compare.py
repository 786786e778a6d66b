"""Model comparison: one bar per model with its bootstrap interval, and the
paired difference of every other model from the reference (the first row,
the best by the metric) with its interval and test.

Left panel: the metric per series, its 95% bootstrap interval as error bars,
the value written beside each bar. Right panel: B − reference over the
questions asked of both (what `steer compare` computes), as a dot with its
paired-bootstrap interval, and beside it the difference, interval and
p-value (raw and adjusted across the comparisons); a filled dot marks an
adjusted p below the level. With one series there is nothing to pair: the
figure says so. Long series names wrap at " · " (model over adaptation).
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from steer.view._figure import FONT, PALETTE, REFERENCE_COLOUR, message_figure, new_figure
from steer.view._heatmap import METRIC_LABELS

CHAR_IN = FONT / 72 * 0.62  # a character's width at FONT points, roughly
WRAP_AT = 40  # series names longer than this go on two lines
WRAP_LABEL = 46  # axis labels wrap to fit their panel (PANEL_IN wide)
PANEL_IN = 3.3
VERDICT_CHARS = 52  # "−1.009 [−1.122, −0.891]  p = 0.0005, adj. 0.001 *"
TESTS = {"mcnemar": "McNemar's exact test", "bootstrap": "paired bootstrap"}
CORRECTIONS = {"holm": "Holm", "bh": "Benjamini–Hochberg"}
SIGNIFICANT = PALETTE[3]  # vermillion


def _label(name: str) -> str:
    """A series name on two lines (model, then adaptation) when it is long."""
    if len(name) <= WRAP_AT or " · " not in name:
        return name
    model, _, adaptation = name.partition(" · ")
    return f"{model} ·\n{adaptation}"


def _finite(x: Any) -> bool:
    return x is not None and math.isfinite(x)


def _num(x: Any, sign: bool = False) -> str:
    if not _finite(x):
        return "—"
    text = f"{x:+.3f}" if sign else f"{x:.3f}"
    return text.replace("-", "−").replace("−0.000", "+0.000" if sign else "0.000")


def p_text(p: Any) -> str:
    """A p-value as `steer compare` prints it (2 significant digits below 0.001)."""
    if not _finite(p):
        return "—"
    return f"{p:.2g}" if p < 0.001 else f"{p:.3f}"


def _n_text(ns: Sequence[int]) -> str:
    return f"n = {min(ns)}" if min(ns) == max(ns) else f"n = {min(ns)}–{max(ns)}"


def _short(metric: str) -> str:
    """The metric's name without its scale, for sentences."""
    return METRIC_LABELS.get(metric, metric).splitlines()[0]


def _bars(ax: Axes, rows: list[dict[str, Any]], metric: str) -> None:
    y = np.arange(len(rows), dtype=float)
    value = np.array([r["value"] for r in rows], dtype=float)
    lo = np.array([r["lo"] if _finite(r["lo"]) else np.nan for r in rows], dtype=float)
    hi = np.array([r["hi"] if _finite(r["hi"]) else np.nan for r in rows], dtype=float)
    ax.barh(y, value, height=0.6, color=PALETTE[0], alpha=0.85)
    bootstrapped = bool(np.isfinite(lo).any() or np.isfinite(hi).any())
    if bootstrapped:  # else caps around nothing would look like intervals of 0
        err = np.vstack(
            [np.where(np.isnan(lo), 0, value - lo), np.where(np.isnan(hi), 0, hi - value)]
        )
        ax.errorbar(value, y, xerr=np.clip(err, 0, None), fmt="none", ecolor="black",
                    elinewidth=0.9, capsize=2.5)  # fmt: skip
    left = np.fmin(value, lo)
    right = np.fmax(value, hi)
    low, high = min(0.0, float(np.nanmin(left))), max(0.0, float(np.nanmax(right)))
    span = max(high - low, 1e-9)
    pad = 0.2 * span  # room for the value written past the interval
    ax.set_xlim(low - (pad if low < 0 else 0.02 * span), high + pad)
    for yi, v, a, b in zip(y, value, left, right, strict=True):
        # Beside the interval's outer end, on the side the bar points to.
        if v >= 0:
            ax.text(b + 0.03 * span, yi, _num(v), va="center", ha="left", fontsize=FONT)
        else:
            ax.text(a - 0.03 * span, yi, _num(v), va="center", ha="right", fontsize=FONT)
    ax.axvline(0, color="#9a9a9a", linewidth=0.6)
    ax.set_yticks(y, labels=[_label(r["series"]) for r in rows], fontsize=FONT)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first row on top
    ns = [int(r["n"]) for r in rows]
    lines = [*METRIC_LABELS.get(metric, metric).splitlines(), f"{_n_text(ns)} questions per model"]
    lines.append("bars: 95% bootstrap interval" if bootstrapped else "no bootstrap interval")
    ax.set_xlabel(
        "\n".join(textwrap.fill(line, WRAP_LABEL, break_on_hyphens=False) for line in lines),
        fontsize=FONT,
    )
    ax.tick_params(labelsize=FONT)
    ax.grid(axis="x", alpha=0.3, linewidth=0.5)


def _verdict(r: dict[str, Any], level: float, adjusted: bool) -> str:
    if not r["n"]:
        return "no question asked of both"
    text = f"{_num(r['diff'], True)} [{_num(r['lo'], True)}, {_num(r['hi'], True)}]"
    text += f"  p = {p_text(r['p'])}"
    if adjusted:
        text += f", adj. {p_text(r['p_adjusted'])}"
    return text + (" *" if _finite(r["p_adjusted"]) and r["p_adjusted"] < level else "")


def _differences(
    ax: Axes,
    order: list[str],
    paired: dict[str, dict[str, Any]],
    *,
    metric: str,
    paired_metric: str,
    correction: str,
    level: float,
) -> None:
    k = len(paired)
    adjusted = correction in CORRECTIONS and k > 1
    labels = ["reference"]
    ends: list[float] = [0.0]
    for i, name in enumerate(order[1:], start=1):
        r = paired.get(name)
        if r is None:
            labels.append("not compared")
            continue
        labels.append(_verdict(r, level, adjusted))
        if not r["n"] or not _finite(r["diff"]):
            continue
        lo = r["lo"] if _finite(r["lo"]) else r["diff"]
        hi = r["hi"] if _finite(r["hi"]) else r["diff"]
        ends += [lo, hi]
        significant = _finite(r["p_adjusted"]) and r["p_adjusted"] < level
        colour = SIGNIFICANT if significant else REFERENCE_COLOUR
        ax.errorbar(
            [r["diff"]], [i], xerr=[[max(r["diff"] - lo, 0)], [max(hi - r["diff"], 0)]],
            fmt="o", color=colour, markersize=4.5, elinewidth=1.1, capsize=2.5,
            markerfacecolor=colour if significant else "white",
        )  # fmt: skip
    ax.plot([0], [0], marker="|", markersize=9, color="black")  # the reference itself
    ax.axvline(0, color="#9a9a9a", linewidth=0.6)
    reach = max(abs(min(ends)), abs(max(ends)), 1e-3) * 1.1
    ax.set_xlim(-reach, reach)  # symmetric: the sign reads at a glance
    ax.set_ylim(len(order) - 0.5, -0.5)
    ax.yaxis.tick_right()
    ax.set_yticks(np.arange(len(order)), labels=labels, fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    ax.grid(axis="x", alpha=0.3, linewidth=0.5)
    tests = sorted({TESTS.get(r["test"], r["test"]) for r in paired.values() if r["n"]})
    if adjusted:
        how = f"{CORRECTIONS[correction]}-adjusted across the {k} comparisons"
    elif k > 1:
        how = "not adjusted for multiple comparisons"
    else:
        how = "one comparison, no adjustment"
    ns = [int(r["n"]) for r in paired.values() if r["n"]]
    where = f"paired over {_n_text(ns)} questions asked of both" if ns else "no paired question"
    confidence = f"{100 * (1 - level):g}%"
    other = f" (the rubric's {metric} has none per question)" if paired_metric != metric else ""
    lines = [
        f"B − reference in {_short(paired_metric)}{other}",
        where,
        f"bars: {confidence} paired-bootstrap interval",
        f"p: {' / '.join(tests) or '—'}, {how}",
        f"filled dot, *: adjusted p < {level:g}",
    ]
    ax.set_xlabel(
        "\n".join(textwrap.fill(line, WRAP_LABEL, break_on_hyphens=False) for line in lines),
        fontsize=FONT,
    )


def compare_figure(
    bars: pa.Table,
    paired: pa.Table | None,
    metric: str,
    *,
    paired_metric: str | None = None,
    correction: str = "holm",
    level: float = 0.05,
) -> Figure:
    """`bars`: one row per series (`series`, `value`, `lo`, `hi`, `n`), drawn
    top to bottom; the first is the reference. `paired`: one row per other
    series (`series`, `n`, `diff`, `lo`, `hi`, `p`, `p_adjusted`, `test`),
    B − reference in `paired_metric` (default: `metric`); `correction` is how
    `p_adjusted` was adjusted across the rows and `level` the significance
    level (the paired interval's confidence is 1 − level). Rows without a
    value are left out."""
    rows = [r for r in bars.to_pylist() if _finite(r["value"])]
    if not rows:
        return message_figure("nothing to plot: no model with a value of this metric")
    paired_rows = {r["series"]: r for r in (paired.to_pylist() if paired is not None else [])}
    longest = max(len(line) for r in rows for line in _label(r["series"]).splitlines())
    two_lines = any("\n" in _label(r["series"]) for r in rows)
    row_in = 0.36 if two_lines else 0.24
    compared = len(rows) > 1 and bool(paired_rows)
    # The name labels, the bars, then the differences and their verdicts.
    right_in = PANEL_IN + VERDICT_CHARS * CHAR_IN if compared else 0.0
    width = longest * CHAR_IN + PANEL_IN + right_in + 0.6
    height = len(rows) * row_in + (2.3 if compared else 1.6)
    fig = new_figure(max(width, 5.5), height)
    if not compared:
        ax = fig.add_subplot()
        _bars(ax, rows, metric)
        why = "one model: no paired test" if len(rows) == 1 else "no paired comparison given"
        ax.set_title(why, fontsize=FONT)
        return fig
    grid = fig.add_gridspec(1, 2, width_ratios=[1, 1])
    left = fig.add_subplot(grid[0])
    right = fig.add_subplot(grid[1])
    _bars(left, rows, metric)
    left.set_title("by model; the top one is the reference", fontsize=FONT)
    right.set_title("paired difference from the reference", fontsize=FONT)
    _differences(
        right, [r["series"] for r in rows], paired_rows, metric=metric,
        paired_metric=paired_metric or metric, correction=correction, level=level,
    )  # fmt: skip
    return fig
