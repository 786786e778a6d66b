"""Inline SVG charts (no scripts needed to draw them)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from steer.report.formats._common import num as _num
from steer.report.html._colour import model_colour, score_colour


def heatmap(
    models: Sequence[str], elements: Sequence[str], values: dict[tuple[str, str], float | None]
) -> str:
    """Models (rows) × elements (columns), each cell coloured by its score."""
    cell, left, top = 22, 150, 110
    width = left + cell * len(elements) + 10
    height = top + cell * len(models) + 10
    out = [
        f'<svg class="heatmap" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" role="img" aria-label="heatmap of models by elements">'
    ]
    for j, element in enumerate(elements):
        x = left + j * cell + cell / 2
        out.append(
            f'<text x="{x:.0f}" y="{top - 6}" transform="rotate(-60 {x:.0f} {top - 6})" '
            f'font-size="10">{escape(element)}</text>'
        )
    for i, model in enumerate(models):
        y = top + i * cell
        out.append(
            f'<text x="{left - 6}" y="{y + 15}" text-anchor="end"'
            f' font-size="11">{escape(model)}</text>'
        )
        for j, element in enumerate(elements):
            v = values.get((model, element))
            out.append(
                f'<rect x="{left + j * cell}" y="{y}" width="{cell - 2}" height="{cell - 2}" '
                f'fill="{score_colour(v)}"><title>{escape(model)} · {escape(element)}: '
                f"{_num(v)}</title></rect>"
            )
    out.append("</svg>")
    return "".join(out)


def line_chart(
    series: dict[str, list[tuple[float, float]]],
    reference: list[tuple[float, float]],
    *,
    x_label: str,
    y_label: str,
    reference_label: str,
) -> str:
    """Lines per series over x, with a dashed reference line (e.g. random guessing)."""
    w, h, left, bottom, top, right = 560, 300, 50, 40, 30, 150
    xs = [x for pts in [*series.values(), reference] for x, _ in pts] or [0.0, 1.0]
    x0, x1 = min(xs), max(xs)
    if x1 == x0:
        x1 = x0 + 1

    def px(x: float) -> float:
        return left + (x - x0) / (x1 - x0) * (w - left - right)

    def py(y: float) -> float:
        return top + (1 - max(0.0, min(1.0, y))) * (h - top - bottom)

    out = [
        f'<svg class="line-chart" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'role="img" aria-label="{escape(y_label)} by {escape(x_label)}">',
        f'<line x1="{left}" y1="{py(0)}" x2="{w - right}" y2="{py(0)}" stroke="#999"/>',
        f'<line x1="{left}" y1="{py(0)}" x2="{left}" y2="{py(1)}" stroke="#999"/>',
    ]
    for t in (0, 0.25, 0.5, 0.75, 1):
        out.append(
            f'<text x="{left - 6}" y="{py(t) + 4:.1f}" text-anchor="end"'
            f' font-size="10">{t:g}</text>'
        )
    for x in sorted(set(xs)):
        out.append(
            f'<text x="{px(x):.1f}" y="{h - bottom + 14}" text-anchor="middle"'
            f' font-size="10">{x:g}</text>'
        )
    out.append(
        f'<text x="{(left + w - right) / 2}" y="{h - 6}" text-anchor="middle"'
        f' font-size="11">{escape(x_label)}</text>'
    )
    out.append(f'<text x="4" y="{top - 16}" font-size="11">{escape(y_label)}</text>')

    def poly(points: list[tuple[float, float]], colour: str, extra: str = "") -> str:
        coords = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in sorted(points))
        return (
            f'<polyline points="{coords}" fill="none" stroke="{colour}" stroke-width="2" {extra}/>'
        )

    legend_y = top + 10
    for k, (name, points) in enumerate(series.items()):
        colour = model_colour(k)
        out.append(poly(points, colour, f'class="series" data-model="{escape(name)}"'))
        for x, y in points:
            out.append(
                f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3"'
                f' fill="{colour}"><title>{escape(name)}, grade {x:g}: {_num(y)}</title></circle>'
            )
        out.append(
            f'<text x="{w - right + 10}" y="{legend_y}" font-size="11"'
            f' fill="{colour}">{escape(name)}</text>'
        )
        legend_y += 16
    if reference:
        out.append(poly(reference, "#555", 'stroke-dasharray="6 4" class="random-guess"'))
        out.append(
            f'<text x="{w - right + 10}" y="{legend_y}" font-size="11" fill="#555">- -'
            f" {escape(reference_label)}</text>"
        )
    out.append("</svg>")
    return "".join(out)


def scatter(points: list[tuple[str, str, float, float]], models: Sequence[str]) -> str:
    """Worst domain (y) against mean (x) per model × element, with the diagonal."""
    w, h, pad = 420, 420, 45
    lo = min([0.0, *(p[2] for p in points), *(p[3] for p in points)])

    def p(v: float) -> float:
        return pad + (v - lo) / (1 - lo) * (w - 2 * pad)

    out = [
        f'<svg class="scatter" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        'role="img" aria-label="worst domain against mean">',
        f'<line x1="{p(lo)}" y1="{h - p(lo)}" x2="{p(1)}" y2="{h - p(1)}" stroke="#bbb"'
        f' stroke-dasharray="4 3"/>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{w - pad}" y2="{h - pad}" stroke="#999"/>',
        f'<line x1="{pad}" y1="{h - pad}" x2="{pad}" y2="{pad}" stroke="#999"/>',
        f'<text x="{w / 2}" y="{h - 10}" text-anchor="middle" font-size="11">mean normalized'
        f" accuracy</text>",
        f'<text x="12" y="{pad - 10}" font-size="11">worst domain</text>',
    ]
    index = {m: i for i, m in enumerate(models)}
    for model, element, mean, worst in points:
        out.append(
            f'<circle cx="{p(mean):.1f}" cy="{h - p(worst):.1f}" r="4" '
            f'fill="{model_colour(index[model])}" fill-opacity="0.75"><title>{escape(model)} · '
            f"{escape(element)}: mean {_num(mean)}, worst {_num(worst)}</title></circle>"
        )
    out.append("</svg>")
    return "".join(out)


def dependency_graph(
    model: str,
    nodes: list[str],
    layer: dict[str, int],
    edges: list[tuple[str, str]],
    values: dict[str, float | None],
) -> str:
    """Elements placed in columns by prerequisite depth, arrows from each
    prerequisite to what needs it, nodes coloured by score (grey: not run)."""
    columns: dict[int, list[str]] = {}
    for n in nodes:
        columns.setdefault(layer[n], []).append(n)
    col_w, row_h, pad = 150, 34, 20
    height = pad * 2 + row_h * max((len(c) for c in columns.values()), default=1)
    width = pad * 2 + col_w * (max(columns, default=0) + 1)
    pos = {}
    for c, names in columns.items():
        for r, n in enumerate(names):
            pos[n] = (pad + c * col_w, pad + r * row_h)
    out = [
        f'<svg class="dependency-graph" data-model="{escape(model)}" '
        f'xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
        f'aria-label="dependency graph for {escape(model)}">'
    ]
    for element, prereq in edges:
        (x1, y1), (x2, y2) = pos[prereq], pos[element]
        out.append(
            f'<line x1="{x1 + 110}" y1="{y1 + 12}" x2="{x2}" y2="{y2 + 12}" stroke="#888" '
            'stroke-width="1"/>'
        )
    for n in nodes:
        x, y = pos[n]
        v = values.get(n)
        out.append(
            f'<g class="node"><rect x="{x}" y="{y}" width="110" height="24" rx="4" '
            f'fill="{score_colour(v)}"/><text x="{x + 55}" y="{y + 16}" text-anchor="middle" '
            f'font-size="10" fill="#fff">{escape(n)}</text><title>{escape(n)}:'
            f" {_num(v)}</title></g>"
        )
    out.append("</svg>")
    return "".join(out)
