"""The element dependency graph (`steer plot dependency-graph`): prerequisites
to the left, arrows from a prerequisite to the element that needs it, each
element coloured by one model's score on it.

Placement is graphviz `dot`'s when the binary is on PATH, otherwise
`layered_layout`'s, a Sugiyama-style layout in plain Python: longest-path
layers (an element one column right of its furthest-right prerequisite),
a waypoint in every column a long edge crosses (so it can be routed between
boxes rather than through them), barycentre sweeps with adjacent swaps to
cut crossings, then positions pulled towards the neighbours' mean under
the rule that nodes keep their order and never touch.

The figure is sized from its content with one data unit = one inch and no
layout engine, so the boxes, measured from the labels' outlines, always hold
their labels, at 3 elements or the whole taxonomy. Colours are `cividis`
(perceptually uniform, colour-vision-deficiency safe) on the heatmap's scale;
elements with no score are grey and carry a dash for a value.
"""

from __future__ import annotations

import functools
import itertools
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from graphlib import CycleError, TopologicalSorter
from typing import Literal

import numpy as np
from matplotlib import colormaps
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize, to_rgb
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Patch
from matplotlib.path import Path as MplPath

from steer.view._calibration import text_width_in, wrap_to
from steer.view._figure import FONT, message_figure, new_figure
from steer.view._heatmap import METRIC_LABELS, MISSING

Engine = Literal["auto", "dot", "layered"]
Point = tuple[float, float]

NODE_FONT = FONT - 1
LINE_IN = NODE_FONT / 72 * 1.25  # one line of node text
BOX_PAD_IN = 0.07  # box edge to text, each side
RANK_GAP_IN = 0.55  # between a column's boxes and the next column's
EDGE_COLOUR = "#8a8a8a"
MARGIN_IN = 0.15
DOT_TIMEOUT_S = 60
# Below the graph, bottom up: the note (two lines at most), the colour bar's
# label and ticks, the bar (0.12 in) from here.
BAR_Y_IN = 0.8
# Gaps within a layer, in rows: boxes take ROW_FILL of a row, so two boxes a
# row apart never touch and an edge waypoint half a row from a box clears it.
ROW_FILL = 0.72
GAP_NODES, GAP_WAYPOINT = 1.0, 0.5


@dataclass(frozen=True)
class Layering:
    """Where `layered_layout` put things. `layer`: column of each node (0: no
    prerequisite); `position`: place along its column, in rows (nodes of one
    layer are at least 1 apart); `routes`: each edge's (layer, position)
    points from its source to its target, one per layer it spans;
    `crossings`: edge crossings left between adjacent layers."""

    layer: dict[str, int]
    position: dict[str, float]
    routes: dict[tuple[str, str], tuple[tuple[int, float], ...]]
    crossings: int


def _crossings(order: list[list[int]], succ: list[list[int]]) -> int:
    total = 0
    for upper, lower in itertools.pairwise(order):
        at = {v: i for i, v in enumerate(lower)}
        ends = sorted((i, at[w]) for i, v in enumerate(upper) for w in succ[v])
        # A pair crosses when its sources and targets are in opposite orders.
        total += sum(1 for (a, x), (b, y) in itertools.combinations(ends, 2) if a < b and x > y)
    return total


def _sweep(order: list[list[int]], pred: list[list[int]], succ: list[list[int]]) -> None:
    """One barycentre pass down then up, in place: each node moves to the mean
    place of its neighbours in the layer just done (nodes without any keep
    theirs; ties keep the current order, so the result is deterministic)."""
    for rng, nbrs, step in (
        (range(1, len(order)), pred, -1),
        (range(len(order) - 2, -1, -1), succ, 1),
    ):
        for li in rng:
            at = {v: i for i, v in enumerate(order[li + step])}
            keys = {
                v: (float(np.mean([at[w] for w in nbrs[v]])) if nbrs[v] else float(i), i)
                for i, v in enumerate(order[li])
            }
            order[li].sort(key=keys.__getitem__)


def _pair_cost(a: int, b: int, sides: list[tuple[list[list[int]], dict[int, int]]]) -> int:
    """Crossings among the edges of `a` and `b` when `a` comes first."""
    return sum(1 for nbrs, at in sides for x in nbrs[a] for y in nbrs[b] if at[x] > at[y])


def _transpose(order: list[list[int]], pred: list[list[int]], succ: list[list[int]]) -> None:
    """Swap neighbours within a layer while that removes crossings."""
    improved = True
    while improved:
        improved = False
        for li, layer in enumerate(order):
            sides = []
            if li > 0:
                sides.append((pred, {v: i for i, v in enumerate(order[li - 1])}))
            if li + 1 < len(order):
                sides.append((succ, {v: i for i, v in enumerate(order[li + 1])}))
            for i in range(len(layer) - 1):
                a, b = layer[i], layer[i + 1]
                if _pair_cost(b, a, sides) < _pair_cost(a, b, sides):
                    layer[i], layer[i + 1] = b, a
                    improved = True


def _project(desired: list[float], gaps: list[float]) -> list[float]:
    """The positions closest to `desired` (least squares) that keep the order
    and leave `gaps[i]` between node i and i+1: pool-adjacent-violators on
    desired − offset."""
    offsets = np.concatenate([[0.0], np.cumsum(gaps)])
    target = np.asarray(desired) - offsets
    blocks: list[list[float]] = []  # [sum, count]
    for t in target:
        blocks.append([float(t), 1.0])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    fitted = [s / c for s, c in blocks for _ in range(int(c))]
    return [float(y + o) for y, o in zip(fitted, offsets, strict=True)]


def layered_layout(
    nodes: Sequence[str], edges: Sequence[tuple[str, str]], *, sweeps: int = 12
) -> Layering:
    """Layers, order and positions for the DAG `edges` ((source, target):
    prerequisite, then the element that needs it) over `nodes`.

    Raises ValueError for an edge to an unknown node or a cycle.
    """
    names = list(dict.fromkeys(nodes))
    index = {n: i for i, n in enumerate(names)}
    unique = list(dict.fromkeys((s, t) for s, t in edges))
    for s, t in unique:
        for end in (s, t):
            if end not in index:
                raise ValueError(f"edge {s} → {t}: {end!r} is not a node")
    preds: dict[str, list[str]] = {n: [] for n in names}
    for s, t in unique:
        preds[t].append(s)
    try:
        topo = list(TopologicalSorter(preds).static_order())
    except CycleError as exc:
        cycle = " → ".join(reversed(exc.args[1]))
        raise ValueError(f"the graph has a cycle: {cycle}") from None
    layer: dict[str, int] = {}
    for n in topo:
        layer[n] = 1 + max((layer[p] for p in preds[n]), default=-1)

    # The layered graph: real nodes first, then one waypoint per layer an edge
    # passes through.
    lay = [layer[n] for n in names]
    pred: list[list[int]] = [[] for _ in names]
    succ: list[list[int]] = [[] for _ in names]
    chains: dict[tuple[str, str], list[int]] = {}
    for s, t in unique:
        chain = [index[s]]
        for li in range(layer[s] + 1, layer[t]):
            lay.append(li)
            pred.append([])
            succ.append([])
            chain.append(len(lay) - 1)
        chain.append(index[t])
        for a, b in itertools.pairwise(chain):
            succ[a].append(b)
            pred[b].append(a)
        chains[(s, t)] = chain
    depth = max(lay, default=-1) + 1
    order: list[list[int]] = [[] for _ in range(depth)]
    for v, li in enumerate(lay):
        order[li].append(v)

    best, best_cross = [list(o) for o in order], _crossings(order, succ)
    for _ in range(sweeps):
        _sweep(order, pred, succ)
        _transpose(order, pred, succ)
        cross = _crossings(order, succ)
        if cross < best_cross:
            best, best_cross = [list(o) for o in order], cross
    order = best

    real = len(names)
    gaps = [
        [GAP_NODES if a < real and b < real else GAP_WAYPOINT for a, b in itertools.pairwise(o)]
        for o in order
    ]
    pos = [0.0] * len(lay)
    for o, g in zip(order, gaps, strict=True):
        for v, p in zip(o, _project([0.0] * len(o), g), strict=True):
            pos[v] = p
    # Pull every node towards its neighbours (left, then right, then both), so
    # edges run straight where the order allows.
    passes: list[tuple[range, tuple[list[list[int]], ...]]]
    passes = [(range(1, depth), (pred,)), (range(depth - 2, -1, -1), (succ,))] * 4
    passes.append((range(depth), (pred, succ)))
    for layers, sides in passes:
        for li in layers:
            desired = []
            for v in order[li]:
                around = [pos[w] for nbrs in sides for w in nbrs[v]]
                desired.append(float(np.mean(around)) if around else pos[v])
            for v, p in zip(order[li], _project(desired, gaps[li]), strict=True):
                pos[v] = p
    low = min(pos, default=0.0)
    position = {n: pos[index[n]] - low for n in names}
    routes = {edge: tuple((lay[v], pos[v] - low) for v in chain) for edge, chain in chains.items()}
    return Layering(layer, position, routes, best_cross)


@dataclass(frozen=True)
class _Placed:
    """Node centres and edge curves (cubic Bézier: 3k+1 points) in inches."""

    centres: dict[str, Point]
    curves: dict[tuple[str, str], list[Point]]
    width: float
    height: float
    engine: str


def _smooth(points: Sequence[Point]) -> list[Point]:
    """Bézier control points through `points`, level at each one (edges
    leave and enter boxes horizontally)."""
    out = [points[0]]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        dx = (x1 - x0) / 2
        out += [(x0 + dx, y0), (x1 - dx, y1), (x1, y1)]
    return out


# Cached (the arguments are tuples, the result is only read): a report draws
# one graph per model on the same elements and boxes.
@functools.lru_cache(maxsize=8)
def _place_layered(
    nodes: tuple[str, ...], edges: tuple[tuple[str, str], ...], box: Point
) -> _Placed:
    lay = layered_layout(nodes, edges)
    bw, bh = box
    row = bh / ROW_FILL
    pitch = bw + RANK_GAP_IN
    top = max(lay.position.values(), default=0.0)

    def at(li: int, p: float) -> Point:
        return (MARGIN_IN + bw / 2 + li * pitch, MARGIN_IN + bh / 2 + (top - p) * row)

    centres = {n: at(lay.layer[n], lay.position[n]) for n in lay.layer}
    curves = {}
    for edge, route in lay.routes.items():
        points = [at(li, p) for li, p in route]
        points[0] = (points[0][0] + bw / 2, points[0][1])
        points[-1] = (points[-1][0] - bw / 2, points[-1][1])
        curves[edge] = _smooth(points)
    depth = max(lay.layer.values(), default=0) + 1
    width = 2 * MARGIN_IN + depth * pitch - RANK_GAP_IN
    height = 2 * MARGIN_IN + bh + top * row
    return _Placed(centres, curves, width, height, "layered layout")


def _quote(name: str) -> str:
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _place_dot(
    dot: str, nodes: Sequence[str], edges: Sequence[tuple[str, str]], box: Point
) -> _Placed | None:
    """graphviz's placement (`dot -Tplain`, inches, y up), or None when dot
    fails; node names travel as `n0, n1…` so no id needs quoting rules."""
    names = list(dict.fromkeys(nodes))
    key = {n: f"n{i}" for i, n in enumerate(names)}
    back = {v: k for k, v in key.items()}
    bw, bh = box
    lines = [
        "digraph steer {",
        f"  graph [rankdir=LR, ranksep={RANK_GAP_IN:.3f}, "
        f"nodesep={bh * (1 / ROW_FILL - 1):.3f}, splines=spline];",
        f'  node [shape=box, fixedsize=true, width={bw:.3f}, height={bh:.3f}, label=""];',
        *(f"  {key[n]};" for n in names),
        *(f"  {key[s]} -> {key[t]};" for s, t in dict.fromkeys(edges)),
        "}",
    ]
    try:
        done = subprocess.run(
            [dot, "-Tplain"], input="\n".join(lines), capture_output=True, text=True,
            timeout=DOT_TIMEOUT_S, check=False,
        )  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    try:
        return _parse_plain(done.stdout, back)
    except (ValueError, IndexError, KeyError):
        return None


def _parse_plain(text: str, back: Mapping[str, str]) -> _Placed:
    """Read `dot -Tplain` output: `graph scale w h`, `node name x y w h …`,
    `edge tail head n x1 y1 … xn yn …` (inches; edges as B-spline control
    points, which are cubic Bézier pieces)."""
    width = height = 0.0
    centres: dict[str, Point] = {}
    curves: dict[tuple[str, str], list[Point]] = {}
    for line in text.splitlines():
        tok = line.split()
        if not tok:
            continue
        if tok[0] == "graph":
            width, height = float(tok[2]), float(tok[3])
        elif tok[0] == "node":
            centres[back[tok[1]]] = (float(tok[2]) + MARGIN_IN, float(tok[3]) + MARGIN_IN)
        elif tok[0] == "edge":
            n = int(tok[3])
            xy = [float(v) for v in tok[4 : 4 + 2 * n]]
            pairs = zip(xy[::2], xy[1::2], strict=True)
            points = [(x + MARGIN_IN, y + MARGIN_IN) for x, y in pairs]
            if (n - 1) % 3:
                raise ValueError(f"an edge of {n} control points is not cubic Bézier pieces")
            curves[(back[tok[1]], back[tok[2]])] = points
    if set(centres) != set(back.values()):
        raise ValueError("dot left out a node")
    return _Placed(centres, curves, width + 2 * MARGIN_IN, height + 2 * MARGIN_IN, "graphviz dot")


def default_label(element: str) -> str:
    """The element id without its benchmark ('steer.3.1.e' → '3.1.e')."""
    for prefix in ("steer.", "steer-me."):
        if element.startswith(prefix):
            return element[len(prefix) :]
    return element


def _text_colour(rgb: tuple[float, float, float]) -> str:
    # Relative luminance (sRGB weights, gamma ignored): white on dark fills.
    return "white" if 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] < 0.45 else "black"


def dependency_graph_figure(
    nodes: Sequence[str],
    edges: Sequence[tuple[str, str]],
    values: Mapping[str, float | None],
    *,
    metric: str = "normalized_accuracy",
    title: str = "",
    labels: Mapping[str, str] | None = None,
    engine: Engine = "auto",
    urls: Mapping[str, str] | None = None,
) -> Figure:
    """`nodes` (elements) joined by `edges` (prerequisite, element), each node
    coloured by `values` (None or absent: not graded). `engine`: "dot" for
    graphviz (falls back to "layered" when the binary is missing or fails),
    "layered" for the built-in layout, "auto" (default) for dot when on PATH.
    `urls`: a link per node, followed from the SVG."""
    if not nodes:
        return message_figure("nothing to plot: no element of the taxonomy was graded")
    names = list(dict.fromkeys(nodes))
    shown = {n: (labels or {}).get(n, default_label(n)) for n in names}
    number = {n: values.get(n) for n in names}
    # round() first so that a tiny negative score reads 0.00, not -0.00.
    texts = {
        n: f"{shown[n]}\n{'–' if v is None else f'{round(v, 2) + 0.0:.2f}'}"
        for n, v in number.items()
    }
    widest = max(text_width_in(line, NODE_FONT) for t in texts.values() for line in t.split("\n"))
    box = (widest + 2 * BOX_PAD_IN, 2 * LINE_IN + 2 * BOX_PAD_IN)
    dot = shutil.which("dot") if engine in ("auto", "dot") else None
    placed = (_place_dot(dot, names, edges, box) if dot else None) or _place_layered(
        tuple(names), tuple((s, t) for s, t in edges), box
    )

    finite = [v for v in number.values() if v is not None and np.isfinite(v)]
    norm = Normalize(vmin=min([0.0, *finite]), vmax=max([1.0, *finite]))
    cmap = colormaps["cividis"]
    # Room around the graph: the title above; the colour bar, its label and
    # the note below. The figure is at least wide enough for those.
    fig_w = max(placed.width + 2 * MARGIN_IN, 6.0)
    title_lines = wrap_to(title, fig_w - 2 * MARGIN_IN, FONT + 1) if title else []
    top_in = MARGIN_IN + len(title_lines) * (FONT + 1) / 72 * 1.3 + 0.05
    bottom_in = BAR_Y_IN + 0.35
    fig_h = placed.height + top_in + bottom_in
    fig = new_figure(fig_w, fig_h)
    fig.set_layout_engine("none")  # placed by hand, in inches
    left = (fig_w - placed.width) / 2
    ax = fig.add_axes(
        (left / fig_w, bottom_in / fig_h, placed.width / fig_w, placed.height / fig_h)
    )
    ax.set_xlim(0, placed.width)
    ax.set_ylim(0, placed.height)
    ax.set_axis_off()
    ax.set_xticks([])  # off is not enough: the ticks would still hold labels
    ax.set_yticks([])
    for (s, t), points in sorted(placed.curves.items()):
        codes = [MplPath.MOVETO] + [MplPath.CURVE4] * (len(points) - 1)
        ax.add_patch(
            FancyArrowPatch(
                path=MplPath(points, codes), arrowstyle="-|>", mutation_scale=7,
                color=EDGE_COLOUR, linewidth=0.6, zorder=1, gid=f"edge-{s}--{t}",
            )
        )  # fmt: skip
    bw, bh = box
    for n in names:
        x, y = placed.centres[n]
        v = number[n]
        fill = MISSING if v is None or not np.isfinite(v) else cmap(norm(v))
        ax.add_patch(
            FancyBboxPatch(
                (x - bw / 2, y - bh / 2), bw, bh, boxstyle="round,pad=0,rounding_size=0.04",
                facecolor=fill, edgecolor="#4d4d4d", linewidth=0.5, zorder=2, gid=f"node-{n}",
                url=(urls or {}).get(n),
            )
        )  # fmt: skip
        ax.text(x, y, texts[n], ha="center", va="center", fontsize=NODE_FONT, zorder=3,
                color=_text_colour(to_rgb(fill)), linespacing=1.15, gid=f"label-{n}")  # fmt: skip
    if title_lines:
        fig.text(0.5, 1 - MARGIN_IN / fig_h, "\n".join(title_lines), ha="center", va="top",
                 fontsize=FONT + 1)  # fmt: skip
    bar_w = min(placed.width, 3.6)
    cax = fig.add_axes(((fig_w - bar_w) / 2 / fig_w, BAR_Y_IN / fig_h, bar_w / fig_w, 0.12 / fig_h))
    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), cax=cax, orientation="horizontal")
    bar.set_label(METRIC_LABELS.get(metric, metric).replace("\n", " "), fontsize=FONT)
    bar.ax.tick_params(labelsize=FONT)
    graded = sum(v is not None for v in number.values())
    note = (
        f"arrows: prerequisite → the element that needs it · {len(names)} elements, "
        f"{graded} graded · {placed.engine}"
    )
    fig.text(0.5, 0.1 / fig_h, "\n".join(wrap_to(note, fig_w - 2 * MARGIN_IN)), ha="center",
             va="bottom", fontsize=FONT)  # fmt: skip
    beside_bar = (((fig_w + bar_w) / 2 + 0.1) / fig_w, (BAR_Y_IN + 0.06) / fig_h)
    fig.legend([Patch(facecolor=MISSING, edgecolor="#4d4d4d", linewidth=0.5)], ["not graded"],
               loc="center left", bbox_to_anchor=beside_bar, fontsize=FONT, frameon=False,
               handlelength=1.2)  # fmt: skip
    return fig
