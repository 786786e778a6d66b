"""Figures of a `steer fit` parameters table (FIT_SCHEMA).

Each figure function takes the table and returns a `matplotlib.figure.Figure`
built without pyplot (no global figure registry, so threads and long-running
processes never leak figures) on an Agg canvas. A table with nothing to plot
gives a figure that says so instead of raising.

Bands come from the parameters' 95% intervals: the curve is evaluated over
the interval box and the pointwise envelope is drawn. The value function and
the discount functions are monotone in each parameter, so the corners of the
box suffice; the probability weighting function is not, so its interval is
sampled on a grid.

`save_figure` writes PNG, SVG or PDF by the path's suffix, byte-identical
for the same figure (fixed SVG hash salt, no dates in SVG or PDF metadata).
"""

from __future__ import annotations

import functools
import itertools
import math
import textwrap
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from matplotlib.artist import Artist
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, MaxNLocator

# The canvas, palette and saving are shared with every steer figure.
from steer.view._figure import FONT, LINESTYLES, MARKERS, PALETTE
from steer.view._figure import REFERENCE_COLOUR as HUMAN_COLOUR
from steer.view._figure import message_figure as _message_figure
from steer.view._figure import new_figure as _new_figure
from steer.view._figure import save_figure as save_figure

F64 = npt.NDArray[np.float64]

#: Human reference values: Tversky & Kahneman (1992) medians, Fehr & Schmidt
#: (1999) population means.
HUMAN: dict[tuple[str, str], float] = {
    ("prospect-theory", "alpha"): 0.88,
    ("prospect-theory", "beta"): 0.88,
    ("prospect-theory", "lambda"): 2.25,
    ("prospect-theory", "gamma"): 0.61,
    ("prospect-theory", "delta"): 0.69,
    ("fehr-schmidt", "alpha"): 0.85,
    ("fehr-schmidt", "beta"): 0.315,
}
#: Parameters no figure shows (choice noise has no preference reading).
HIDDEN = {("prospect-theory", "sigma")}

DISCOUNT_FAMILIES = ("hyperbolic", "exponential", "quasi-hyperbolic")
DISCOUNT_TITLES = {
    "hyperbolic": r"hyperbolic discounting: $D(t) = 1/(1 + kt)$",
    "exponential": r"exponential discounting: $D(t) = \delta^{t}$",
    "quasi-hyperbolic": r"quasi-hyperbolic discounting: $D(t) = \beta\delta^{t}$ ($t > 0$)",
}
DISCOUNT_PARAMETERS = {
    "hyperbolic": ("k",),
    "exponential": ("delta",),
    "quasi-hyperbolic": ("beta", "delta"),
}

BAND_NOTE = "band: envelope over the 95% intervals"
DISCOUNT_BAND_NOTE = (
    "band: D(t) over the 95% intervals\n"
    "(hyperbolic, exponential: the exact\n"
    "pointwise percentile band; quasi-\n"
    "hyperbolic: envelope over β × δ)"
)


@dataclass(frozen=True)
class Estimate:
    """An identified estimate and its interval (the estimate itself at both
    ends when the table has no interval)."""

    value: float
    lo: float
    hi: float
    interval: bool

    def ends(self) -> tuple[float, float]:
        return (self.lo, self.hi) if self.interval else (self.value, self.value)


@dataclass
class Series:
    """One fitted curve: a (model, condition, experiment) cell of one family."""

    model: str
    condition: str
    experiment: str
    family: str
    params: dict[str, Estimate] = field(default_factory=dict)
    n: int = 0


def _number(x: Any) -> float | None:
    """`x` as a finite float, else None (missing, NaN or infinite)."""
    if isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x):
        return float(x)
    return None


def _estimate(row: dict[str, Any]) -> Estimate | None:
    """The row's estimate, or None when it is not identified (or not a number)."""
    value = _number(row.get("estimate"))
    if not row.get("identified") or value is None:
        return None
    lo, hi = _number(row.get("ci_lo")), _number(row.get("ci_hi"))
    if lo is not None and hi is not None:
        return Estimate(value, min(lo, hi, value), max(lo, hi, value), True)
    return Estimate(value, value, value, False)


def _rows(fits: pa.Table | None) -> list[dict[str, Any]]:
    if fits is None or not isinstance(fits, pa.Table) or not fits.num_rows:
        return []
    return [r for r in fits.to_pylist() if r.get("family") and r.get("parameter")]


def _series(fits: pa.Table | None, families: Sequence[str]) -> list[Series]:
    """Identified parameters of `families` per (model, condition, experiment,
    family), in the table's order."""
    out: dict[tuple[str, str, str, str], Series] = {}
    for r in _rows(fits):
        if r["family"] not in families:
            continue
        key = (str(r["model"]), str(r["condition"]), str(r["experiment"]), str(r["family"]))
        s = out.setdefault(key, Series(*key))
        est = _estimate(r)
        if est is not None:
            s.params[str(r["parameter"])] = est
            s.n = max(s.n, int(r["n"] or 0))
    return list(out.values())


def _labels(keys: Sequence[tuple[str, str, str]], n: dict[tuple[str, str, str], int]) -> list[str]:
    """Legend labels of (model, condition, experiment) keys; the experiment is
    named only where one model and condition has several."""
    per_cell: dict[tuple[str, str], set[str]] = {}
    for m, c, e in keys:
        per_cell.setdefault((m, c), set()).add(e)
    labels = []
    for m, c, e in keys:
        text = f"{m} · {c}"
        if len(per_cell[(m, c)]) > 1:
            text += f" · {e}"
        if n.get((m, c, e)):
            text += f" (n={n[(m, c, e)]})"
        # Long names wrap (never cut) so the legend does not take the figure.
        labels.append(textwrap.fill(text, 60, subsequent_indent="  ", break_long_words=False))
    return labels


def style(i: int) -> dict[str, Any]:
    """Line style of the i-th series: colour, then line style, then marker."""
    colour = PALETTE[i % len(PALETTE)]
    linestyle = LINESTYLES[(i // len(PALETTE)) % len(LINESTYLES)]
    marker = MARKERS[(i // (len(PALETTE) * len(LINESTYLES))) % len(MARKERS)]
    out: dict[str, Any] = {"color": colour, "linestyle": linestyle, "linewidth": 1.6}
    if marker is not None:
        out.update(marker=marker, markersize=3.5, markevery=0.1)
    return out


def _legend_columns(labels: Sequence[str]) -> int:
    # Two columns at most: a taller figure reads better than squeezed axes.
    lines = sum(len(label.split("\n")) for label in labels)
    return 1 if lines <= 28 else 2


def _legend(fig: Figure, handles: Sequence[Artist], labels: Sequence[str]) -> None:
    """A legend right of the axes; the figure grows to hold it, since
    constrained layout would rather shrink the axes to nothing (or let the
    legend run off the canvas) than enlarge the figure."""
    legend = fig.legend(
        handles,
        labels,
        loc="outside right upper",
        fontsize=FONT,
        ncols=_legend_columns(labels),
        frameon=False,
        handlelength=3.0,
    )
    box = legend.get_window_extent()  # measured with the figure's own renderer
    width, height = fig.get_size_inches()
    need_height = box.height / fig.dpi + 0.3
    fig.set_size_inches(width + box.width / fig.dpi, max(height, need_height))


def _band_handle(note: str) -> tuple[Artist, str]:
    return Patch(facecolor=HUMAN_COLOUR, alpha=0.25, edgecolor="none"), note


def _band_alpha(count: int) -> float:
    # Many overlapping bands would fill the axes with one muddy colour.
    return max(0.06, 0.22 / math.sqrt(max(count, 1)))


def _envelope(
    curve: Callable[..., F64], x: F64, choices: Sequence[Sequence[float]]
) -> tuple[F64, F64]:
    """Pointwise min and max of `curve(x, *p)` over every combination of `choices`."""
    values = np.array([curve(x, *p) for p in itertools.product(*choices)])
    # fmin/fmax skip NaN (a side not identified) without nanmin's warnings.
    return np.fmin.reduce(values, axis=0), np.fmax.reduce(values, axis=0)


def _style_axes(ax: Axes) -> None:
    ax.tick_params(labelsize=FONT)
    ax.grid(True, color="#e4e4e4", linewidth=0.6)
    ax.set_axisbelow(True)


def _limits(
    curves: Iterable[F64],
    floor: tuple[float, float] | None = None,
    cap: tuple[float, float] | None = None,
) -> tuple[float, float]:
    """y limits from the estimate curves (not the bands, which may run far
    off), at least `floor` and at most `cap`, padded by 5%."""
    finite = [c[np.isfinite(c)] for c in curves]
    values = np.concatenate([f for f in finite if f.size] or [np.zeros(1)])
    lo, hi = float(values.min()), float(values.max())
    if floor is not None:
        lo, hi = min(lo, floor[0]), max(hi, floor[1])
    if cap is not None:
        lo, hi = max(lo, cap[0]), min(hi, cap[1])
    pad = 0.05 * (hi - lo or 1.0)
    return lo - pad, hi + pad


# --- value function ---------------------------------------------------------


def _value(x: F64, alpha: float | None, beta: float | None, lam: float | None) -> F64:
    """v(x) = x^α for gains, -λ(-x)^β for losses; NaN on a side whose
    parameters are not identified."""
    out = np.full_like(x, np.nan)
    gains, losses = x >= 0, x < 0
    with np.errstate(all="ignore"):
        if alpha is not None:
            out[gains] = x[gains] ** alpha
        if beta is not None and lam is not None:
            out[losses] = -lam * (-x[losses]) ** beta
    return out


def _value_of(x: F64, *values: float, names: Sequence[str]) -> F64:
    """v(x) with the parameters `names` (a subset of alpha, beta, lambda) given."""
    given = dict(zip(names, values, strict=True))
    return _value(x, given.get("alpha"), given.get("beta"), given.get("lambda"))


def value_function_figure(fits: pa.Table) -> Figure:
    """Prospect theory's value function v(x) per (model, condition), with the
    human median curve (Tversky & Kahneman 1992) dashed in grey."""
    series = [
        s
        for s in _series(fits, ("prospect-theory",))
        if "alpha" in s.params or {"beta", "lambda"} <= s.params.keys()
    ]
    if not series:
        return _message_figure(
            "No identified prospect-theory value function (α, or β with λ) to plot."
        )
    x = np.linspace(-100.0, 100.0, 201)
    keys = [(s.model, s.condition, s.experiment) for s in series]
    labels = _labels(keys, {k: s.n for k, s in zip(keys, series, strict=True)})
    for j, s in enumerate(series):
        if "alpha" not in s.params:
            labels[j] += "\n  (losses only: α not identified)"
        elif not {"beta", "lambda"} <= s.params.keys():
            labels[j] += "\n  (gains only: β, λ not identified)"
    human_label = "human median\n(α = β = 0.88, λ = 2.25)"
    note = _band_handle(BAND_NOTE)
    fig = _new_figure(5.6, 4.2)
    ax = fig.add_subplot()
    _style_axes(ax)
    human = _value(x, 0.88, 0.88, 2.25)
    (human_line,) = ax.plot(x, human, "--", color=HUMAN_COLOUR, linewidth=1.8, zorder=5)
    curves = [human]
    handles: list[Artist] = []
    alpha = _band_alpha(len(series))
    for i, s in enumerate(series):
        names = [p for p in ("alpha", "beta", "lambda") if p in s.params]
        curve = functools.partial(_value_of, names=names)
        y = curve(x, *(s.params[p].value for p in names))
        lo, hi = _envelope(curve, x, [s.params[p].ends() for p in names])
        st = style(i)
        ax.fill_between(x, lo, hi, color=st["color"], alpha=alpha, linewidth=0)
        (line,) = ax.plot(x, y, **st, zorder=4)
        handles.append(line)
        curves.append(y)
    ax.axhline(0, color="#999999", linewidth=0.6)
    ax.axvline(0, color="#999999", linewidth=0.6)
    ax.set_xlim(-100, 100)
    ax.set_ylim(*_limits(curves))
    ax.set_xlabel("outcome x ($)", fontsize=FONT + 1)
    ax.set_ylabel("value v(x) (utility units)", fontsize=FONT + 1)
    ax.set_title("Prospect-theory value function", fontsize=FONT + 2)
    _legend(fig, [*handles, human_line, note[0]], [*labels, human_label, note[1]])
    return fig


# --- probability weighting ---------------------------------------------------


def _weight(p: F64, g: float) -> F64:
    """Tversky & Kahneman (1992): w(p) = p^g / (p^g + (1 - p)^g)^(1/g)."""
    with np.errstate(all="ignore"):
        num = p**g
        return np.asarray(num / (num + (1.0 - p) ** g) ** (1.0 / g), dtype=np.float64)


def _grid(est: Estimate, points: int = 25) -> list[float]:
    # w(p) is not monotone in its parameter everywhere, so the corners of the
    # interval are not enough: sample it.
    lo, hi = est.ends()
    return [float(v) for v in np.linspace(lo, hi, points)] if hi > lo else [est.value]


def weighting_figure(fits: pa.Table) -> Figure:
    """Probability weighting w(p) for gains (γ) and losses (δ) per (model,
    condition), with the diagonal and the human median curves."""
    series = [
        s for s in _series(fits, ("prospect-theory",)) if {"gamma", "delta"} & s.params.keys()
    ]
    if not series:
        return _message_figure(
            "No identified prospect-theory probability weighting (γ, δ) to plot."
        )
    # Denser towards 0 and 1, where w(p) is steepest.
    p = (1.0 - np.cos(np.linspace(0.0, np.pi, 121))) / 2.0
    keys = [(s.model, s.condition, s.experiment) for s in series]
    labels = _labels(keys, {k: s.n for k, s in zip(keys, series, strict=True)})
    note = _band_handle(BAND_NOTE)
    extra = ["w(p) = p", "human median\n(γ = 0.61, δ = 0.69)", note[1]]
    fig = _new_figure(8.0, 4.0)
    axes = fig.subplots(1, 2, sharey=True)
    alpha = _band_alpha(len(series))
    handles: list[Artist] = [Line2D([], [], **style(i)) for i in range(len(series))]
    diagonal = Line2D([], [], color="#999999", linewidth=0.8, linestyle=":")
    human = Line2D([], [], color=HUMAN_COLOUR, linewidth=1.8, linestyle="--")
    for ax, parameter, human_g, title in zip(
        axes,
        ("gamma", "delta"),
        (0.61, 0.69),
        ("probability weighting of gains: w⁺(p), γ", "probability weighting of losses: w⁻(p), δ"),
        strict=True,
    ):
        _style_axes(ax)
        ax.plot(p, p, color="#999999", linewidth=0.8, linestyle=":")
        ax.plot(p, _weight(p, human_g), "--", color=HUMAN_COLOUR, linewidth=1.8, zorder=5)
        curves = [p]
        for i, s in enumerate(series):
            est = s.params.get(parameter)
            if est is None:
                continue
            st = style(i)
            lo, hi = _envelope(_weight, p, [_grid(est)])
            ax.fill_between(p, lo, hi, color=st["color"], alpha=alpha, linewidth=0)
            y = _weight(p, est.value)
            ax.plot(p, y, **st, zorder=4)
            curves.append(y)
        if len(curves) == 1:
            ax.text(
                0.5, 0.08, "not identified", transform=ax.transAxes,
                ha="center", fontsize=FONT, style="italic", color=HUMAN_COLOUR,
            )  # fmt: skip
        ax.set_xlim(0, 1)
        ax.set_ylim(*_limits(curves, (0.0, 1.0)))
        ax.set_xlabel("probability p", fontsize=FONT + 1)
        ax.set_title(title, fontsize=FONT + 2)
    axes[0].set_ylabel("decision weight w(p) (probability)", fontsize=FONT + 1)
    _legend(fig, [*handles, diagonal, human, note[0]], [*labels, *extra])
    return fig


# --- discounting -----------------------------------------------------------


def _hyperbolic(t: F64, k: float) -> F64:
    return np.asarray(1.0 / (1.0 + k * t), dtype=np.float64)


def _exponential(t: F64, delta: float) -> F64:
    with np.errstate(all="ignore"):
        return np.asarray(delta**t, dtype=np.float64)


def _quasi_hyperbolic(t: F64, beta: float, delta: float) -> F64:
    with np.errstate(all="ignore"):
        return np.asarray(np.where(t > 0, beta * delta**t, 1.0), dtype=np.float64)


DISCOUNT_CURVES: dict[str, Callable[..., F64]] = {
    "hyperbolic": _hyperbolic,
    "exponential": _exponential,
    "quasi-hyperbolic": _quasi_hyperbolic,
}


#: Delays plotted: t = 0 (where quasi-hyperbolic jumps) then a log grid to 50 years.
DELAYS = np.concatenate([[0.0], np.geomspace(1e-3, 50.0, 120)])
DELAY_TICKS = (0.0, 0.1, 1.0, 10.0, 50.0)


def discount_figure(fits: pa.Table) -> Figure:
    """Discount functions D(t) per (model, condition, experiment), one panel
    per family present, over delays of 0 to 50 years (symmetric-log axis, so
    that both the first months and the decades show)."""
    series = [
        s
        for s in _series(fits, DISCOUNT_FAMILIES)
        if set(DISCOUNT_PARAMETERS[s.family]) <= s.params.keys()
    ]
    if not series:
        return _message_figure(
            "No identified discounting parameters (hyperbolic k, exponential δ, "
            "quasi-hyperbolic β and δ) to plot."
        )
    families = [f for f in DISCOUNT_FAMILIES if any(s.family == f for s in series)]
    keys = list(dict.fromkeys((s.model, s.condition, s.experiment) for s in series))
    n: dict[tuple[str, str, str], int] = {}
    for s in series:
        k = (s.model, s.condition, s.experiment)
        n[k] = max(n.get(k, 0), s.n)
    labels = _labels(keys, n)
    note = _band_handle(DISCOUNT_BAND_NOTE)
    fig = _new_figure(0.6 + 3.6 * len(families), 4.0)
    axes = fig.subplots(1, len(families), sharey=True, squeeze=False)[0]
    counts = {f: sum(s.family == f for s in series) for f in families}
    for ax, family in zip(axes, families, strict=True):
        _style_axes(ax)
        curves = []
        alpha = _band_alpha(counts[family])
        curve = DISCOUNT_CURVES[family]
        for s in series:
            if s.family != family:
                continue
            st = style(keys.index((s.model, s.condition, s.experiment)))
            params = [s.params[p] for p in DISCOUNT_PARAMETERS[family]]
            lo, hi = _envelope(curve, DELAYS, [p.ends() for p in params])
            ax.fill_between(DELAYS, lo, hi, color=st["color"], alpha=alpha, linewidth=0)
            y = curve(DELAYS, *(p.value for p in params))
            ax.plot(DELAYS, y, **st, zorder=4)
            curves.append(y)
        ax.set_xscale("symlog", linthresh=0.1, linscale=0.4)
        ax.set_xlim(0, 50)
        ax.xaxis.set_major_locator(FixedLocator(DELAY_TICKS))
        ax.xaxis.set_minor_locator(FixedLocator([]))
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        # δ > 1 grows without bound: show where a curve leaves [0, 1], not how far.
        ax.set_ylim(*_limits(curves, (0.0, 1.0), (0.0, 1.5)))
        ax.set_xlabel("delay t (years)", fontsize=FONT + 1)
        ax.set_title(DISCOUNT_TITLES[family], fontsize=FONT + 1)
    axes[0].set_ylabel("discount factor D(t)", fontsize=FONT + 1)
    handles: list[Artist] = [Line2D([], [], **style(i)) for i in range(len(keys))]
    _legend(fig, [*handles, note[0]], [*labels, note[1]])
    return fig


# --- forest plot ---------------------------------------------------------------

PANEL_COLUMNS = 5
ROW_INCHES = 0.22


def _panel_title(family: str, parameter: str, experiment: str | None) -> str:
    lines = [family, parameter] + ([f"({experiment})"] if experiment is not None else [])
    # Panels are narrow: wrap long names onto more lines rather than overlap.
    return "\n".join(part for line in lines for part in textwrap.wrap(line, 26))


#: Units of the forest plot's x axes (by (family, parameter), then by family).
UNITS: dict[tuple[str, str | None], str] = {
    ("prospect-theory", "lambda"): "ratio",
    ("hyperbolic", "k"): "per year",
    ("exponential", "delta"): "per year",
    ("quasi-hyperbolic", "delta"): "per year",
    ("econbench", None): "score 0–100",
    ("competence", None): "share 0–1",
    ("revealed-preference", None): "index",
}


def _unit(family: str, parameter: str) -> str:
    return UNITS.get((family, parameter), UNITS.get((family, None), "unitless"))


def _middle(text: str, limit: int) -> str:
    """`text` cut in the middle to `limit` characters: both the provider and the
    condition at the ends stay readable (the HTML table has the full names)."""
    if len(text) <= limit:
        return text
    keep = limit - 1
    return text[: keep - keep // 2] + "…" + text[len(text) - keep // 2 :]


def _tick_format(v: float, _pos: int | None = None) -> str:
    return f"{v:.3g}"


def estimates_figure(fits: pa.Table, families: Sequence[str] | None = None) -> Figure:
    """A forest plot: one panel per family.parameter (and experiment), one row
    per (model, condition); the point is the estimate, the bar its 95%
    interval, the dashed line the human value where one is known. Unidentified
    parameters say "not identified" in their row. The figure grows with the
    rows, so 1 to 40 (model, condition) rows stay readable."""
    rows = [
        r
        for r in _rows(fits)
        if (families is None or r["family"] in families)
        and (r["family"], r["parameter"]) not in HIDDEN
    ]
    if not rows:
        wanted = "" if families is None else f" of {', '.join(families)}"
        return _message_figure(f"No parameters{wanted} to plot.")
    cells = list(dict.fromkeys((str(r["model"]), str(r["condition"])) for r in rows))
    panels = list(dict.fromkeys((r["family"], r["parameter"], r["experiment"]) for r in rows))
    experiments: dict[tuple[str, str], set[str]] = {}
    for f, p, e in panels:
        experiments.setdefault((f, p), set()).add(e)
    by_panel: dict[tuple[str, str, str], dict[int, dict[str, Any]]] = {}
    for r in rows:
        key = (r["family"], r["parameter"], r["experiment"])
        by_panel.setdefault(key, {})[cells.index((str(r["model"]), str(r["condition"])))] = r

    ncols = min(PANEL_COLUMNS, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    row_labels = [_middle(f"{m} · {c}", 64) for m, c in cells]
    label_inches = 0.3 + 0.062 * max(len(label) for label in row_labels)
    panel_height = 1.15 + ROW_INCHES * len(cells)  # titles and x ticks, then the rows
    fig = _new_figure(label_inches + 2.1 * ncols, 0.7 + panel_height * nrows)
    grid = fig.subplots(nrows, ncols, sharey=True, squeeze=False)
    y = np.arange(len(cells), dtype=np.float64)
    for index, ax in enumerate(grid.flat):
        if index >= len(panels):
            ax.set_visible(False)
            continue
        family, parameter, experiment = panels[index]
        _style_axes(ax)
        ax.grid(False, axis="y")
        # Shaded alternate rows guide the eye across a wide panel.
        shade = [[(0, i - 0.5), (1, i - 0.5), (1, i + 0.5), (0, i + 0.5)] for i in y[1::2]]
        ax.add_collection(
            PolyCollection(
                shade,
                transform=ax.get_yaxis_transform(),
                facecolor="#f2f2f2",
                edgecolor="none",
                zorder=0,
            ),
            autolim=False,
        )
        values: list[float] = []
        # One artist per panel for the bars and one for the points: a figure of
        # 40 rows by 25 panels stays quick to draw and small as SVG.
        points: list[tuple[float, float]] = []
        bars: list[tuple[float, float, float]] = []
        for i, r in by_panel[panels[index]].items():
            est = _estimate(r)
            if est is None:
                ax.text(
                    0.5, y[i], "not identified", transform=ax.get_yaxis_transform(),
                    ha="center", va="center", fontsize=FONT - 1, style="italic",
                    color=HUMAN_COLOUR,
                )  # fmt: skip
                continue
            if est.interval:
                bars.append((y[i], est.lo, est.hi))
            points.append((est.value, y[i]))
            values += [est.value, est.lo, est.hi]
        if bars:
            rows_y, lo, hi = zip(*bars, strict=True)
            ax.hlines(rows_y, lo, hi, color=PALETTE[0], linewidth=1.8)
        if points:
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, "o", color=PALETTE[3], markersize=4.5, zorder=4)
        human = HUMAN.get((family, parameter))
        if human is not None:
            ax.axvline(human, color=HUMAN_COLOUR, linestyle="--", linewidth=1.2)
            values.append(human)
        _estimate_axis(ax, values)
        many = len(experiments[(family, parameter)]) > 1 or family in DISCOUNT_FAMILIES
        ax.set_title(_panel_title(family, parameter, experiment if many else None), fontsize=FONT)
        ax.set_xlabel(f"estimate ({_unit(family, parameter)})", fontsize=FONT)
    first = grid[0, 0]
    first.set_ylim(len(cells) - 0.5, -0.5)  # first row on top
    first.yaxis.set_major_locator(FixedLocator(list(y)))
    first.yaxis.set_major_formatter(FuncFormatter(lambda v, pos: _row_label(row_labels, v)))
    for ax in grid[:, 0]:
        ax.tick_params(axis="y", labelsize=FONT)
    handles: list[Artist] = [
        Line2D([], [], marker="o", linestyle="none", color=PALETTE[3], markersize=4.5),
        Line2D([], [], color=PALETTE[0], linewidth=1.8),
        Line2D([], [], color=HUMAN_COLOUR, linestyle="--", linewidth=1.2),
    ]
    # The key is the legend's title line's neighbour, not a suptitle: an outside
    # legend and a suptitle share the top margin and would overlap.
    fig.legend(
        handles,
        ["estimate", "95% interval", "human value (TK 1992 median, FS 1999 mean)"],
        loc="outside upper center",
        ncols=3,
        fontsize=FONT,
        frameon=False,
        title="Parameter estimates by model · condition",
        title_fontproperties={"size": FONT + 3},
    )
    return fig


def _row_label(labels: Sequence[str], v: float) -> str:
    i = round(v)
    return labels[i] if 0 <= i < len(labels) and abs(v - i) < 1e-9 else ""


def _estimate_axis(ax: Axes, values: Sequence[float]) -> None:
    """x limits and ticks of one forest panel: log when the values are positive
    and span more than three decades (hyperbolic k does), else linear."""
    finite = [v for v in values if math.isfinite(v)]
    if not finite:
        ax.set_xlim(0, 1)
        ax.xaxis.set_major_locator(FixedLocator([]))
        return
    lo, hi = min(finite), max(finite)
    if lo > 0 and hi / lo > 1e3:
        ax.set_xscale("log")
        ax.set_xlim(lo / 2, hi * 2)
        ax.xaxis.set_major_locator(LogLocator(numticks=4))
        ax.xaxis.set_minor_locator(FixedLocator([]))
        return
    pad = 0.08 * (hi - lo) if hi > lo else max(abs(lo) * 0.1, 0.05)
    ax.set_xlim(lo - pad, hi + pad)
    ax.xaxis.set_major_locator(MaxNLocator(nbins=4))
    ax.xaxis.set_major_formatter(FuncFormatter(_tick_format))


# --- saving ------------------------------------------------------------------


FIGURES: dict[str, Callable[[pa.Table], Figure]] = {
    "value-function": value_function_figure,
    "weighting": weighting_figure,
    "discounting": discount_figure,
    "estimates": estimates_figure,
}
