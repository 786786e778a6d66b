"""Inline SVG charts (no scripts needed to draw them)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from steer.report.formats._common import num as _num
from steer.report.html._colour import model_colour, score_colour


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
