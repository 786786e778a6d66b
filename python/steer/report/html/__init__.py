"""`steer report`: one self-contained HTML page (inline CSS, JS and SVG).

Sections (each an element with a stable id, which tests look for):
`summary`, `drilldown` (settings → modules → elements), `heatmap`,
`by-grade` (accuracy by grade level with the random-guess line), `fragility`
(worst domain against mean), `dependency-graph`, `diagnostics`.
"""

from __future__ import annotations

from html import escape

from steer.report.formats._common import coverage_line
from steer.report.html._charts import dependency_graph, heatmap, line_chart, scatter
from steer.report.html._colour import score_colour
from steer.report.html._style import CSS, JS
from steer.rubric import GradeResult
from steer.score import score
from steer.taxonomy import Taxonomy, element_order, load_taxonomy


def _num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or x != x else f"{x:.{digits}f}"


def _by_grade(
    result: GradeResult,
) -> tuple[dict[str, list[tuple[float, float]]], list[tuple[float, float]]]:
    """Exact match per model by grade level, and the random-guess rate by grade."""
    table = result.responses
    if table is None or "grade" not in table.column_names or not table.num_rows:
        return {}, []
    # One series per card: adaptations of a model are never pooled.
    by = ["model", "adaptation"] if "adaptation" in table.column_names else ["model"]
    scored = score(table, by=[*by, "grade"], metrics=["exact_match"], ci=None).to_pylist()
    series: dict[str, list[tuple[float, float]]] = {}
    random: dict[float, list[float]] = {}
    for r in scored:
        if r["grade"] is None or r["exact_match"] is None or r["exact_match"] != r["exact_match"]:
            continue
        name = f"{r['model']} · {r['adaptation']}" if r.get("adaptation") else str(r["model"])
        series.setdefault(name, []).append((float(r["grade"]), float(r["exact_match"])))
        if r["n_units"]:  # sum_p_random covers every question asked, like exact_match
            random.setdefault(float(r["grade"]), []).append(r["sum_p_random"] / r["n_units"])
    reference = [(g, sum(v) / len(v)) for g, v in sorted(random.items())]
    return series, reference


def _drilldown(result: GradeResult, taxonomy: Taxonomy) -> str:
    models = [c.title for c in result.cards]
    present = {e for c in result.cards for e in c.elements}
    out = []
    for setting in taxonomy.settings.values():
        mods = [m for m in taxonomy.modules.values() if m.setting == setting.id]
        mods = [m for m in mods if any(e.module == m.id and e.id in present for e in taxonomy)]
        if not mods:
            continue
        out.append(
            f'<details open class="setting"><summary>{escape(setting.id)}'
            f" {escape(setting.name)}</summary>"
        )
        for m in mods:
            out.append(
                f'<details class="module"><summary>{escape(m.id)} {escape(m.name)}</summary>'
            )
            head = "".join(f"<th>{escape(x)}</th>" for x in models)
            out.append(f'<table class="elements"><tr><th>element</th><th>n</th>{head}</tr>')
            for e in taxonomy:
                if e.module != m.id or e.id not in present:
                    continue
                cells = []
                n = 0
                for c in result.cards:
                    es = c.elements.get(e.id)
                    v = es.value(result.metric) if es else None
                    n = max(n, es.n if es else 0)
                    worst = f" · worst {escape(es.worst_domain)}" if es and es.worst_domain else ""
                    cells.append(
                        f'<td><span class="swatch" style="background:{score_colour(v)}"></span> '
                        f"{_num(v)}<small>{worst}</small></td>"
                    )
                out.append(
                    f"<tr><td>{escape(e.id)} {escape(e.name)}</td><td>{n}</td>{''.join(cells)}</tr>"
                )
            out.append("</table></details>")
        out.append("</details>")
    return "".join(out) or "<p>No element of the taxonomy was graded.</p>"


def _graphs(result: GradeResult, taxonomy: Taxonomy) -> str:
    present = sorted(
        {e for c in result.cards for e in c.elements if e in taxonomy}, key=element_order
    )
    nodes: list[str] = []
    edges: set[tuple[str, str]] = set()
    for e in present:
        sub = taxonomy.prerequisites(e)
        nodes += [n for n in sub.nodes if n not in nodes]
        edges.update(sub.edges)
    order = {e: i for i, e in enumerate(taxonomy.topological_order())}
    nodes.sort(key=lambda n: order.get(n, 0))
    layer: dict[str, int] = {}
    for n in nodes:
        reqs = [r for (a, r) in edges if a == n]
        layer[n] = 1 + max((layer[r] for r in reqs if r in layer), default=-1)
    options = "".join(f"<option>{escape(c.title)}</option>" for c in result.cards)
    svgs = [
        dependency_graph(
            c.title,
            nodes,
            layer,
            sorted(edges),
            {
                n: (c.elements[n].value("normalized_accuracy") if n in c.elements else None)
                for n in nodes
            },
        )
        for c in result.cards
    ]
    return (
        f'<label>model <select id="graph-model">{options}</select></label>'
        f'<div class="scroll">{"".join(svgs)}</div>'
        "<p class=meta>Arrows run from a prerequisite to the element that needs it; "
        "colour is normalized accuracy (red: random guessing or worse, green: perfect, grey: "
        "not in the runs).</p>"
    )


def build_report(
    result: GradeResult, taxonomy: Taxonomy | None = None, *, fits_html: str = ""
) -> str:
    """The whole page as one string (UTF-8 HTML, no external references);
    `fits_html` (steer.fit._report.fit_sections_html) adds the utility
    parameters' figures and table."""
    taxonomy = taxonomy or load_taxonomy()
    models = [c.title for c in result.cards]
    order = {e: i for i, e in enumerate(taxonomy.elements)}
    elements = sorted(
        {e for c in result.cards for e in c.elements}, key=lambda e: (order.get(e, 1 << 30), e)
    )
    values = {
        (c.title, e): c.elements[e].value(result.metric) for c in result.cards for e in c.elements
    }
    cards = "".join(
        f'<div class="card"><div>{escape(c.title)}</div><div'
        f' class="letter">{escape(c.letter)}</div>'
        f"<div>score {_num(c.score)} · GPA {_num(c.gpa, 2)}</div>"
        f'<div class="meta">{escape(coverage_line(c))}</div></div>'
        for c in result.cards
    )
    series, reference = _by_grade(result)
    points: list[tuple[str, str, float, float]] = []
    for c in result.cards:
        for e, es in sorted(c.elements.items(), key=lambda kv: element_order(kv[0])):
            mean, worst = es.value("normalized_accuracy"), es.worst_domain_value
            if mean is not None and worst is not None and worst == worst:
                points.append((c.title, e, mean, worst))
    diag_rows = "".join(
        f'<tr><td class="sev-{d.severity}">{d.severity}</td><td>{escape(d.code)}</td>'
        f"<td>{escape(d.who)}</td><td>{escape(d.message)}</td>"
        f"<td>{escape(str(d.location))}</td></tr>"
        for d in result.diagnostics
    )
    sections_html = []
    for c in result.cards:
        rows = []
        stack = [(0, s) for s in reversed(c.sections)]
        while stack:
            depth, s = stack.pop()
            rows.append(
                f"<tr><td>{'&nbsp;' * 4 * depth}{escape(s.name)}</td><td>{s.weight:g}</td>"
                f"<td>{_num(s.score)}</td><td>{escape(s.letter)}</td>"
                f"<td>{len(s.present)}/{len(s.selected)}</td></tr>"
            )
            stack += [(depth + 1, ch) for ch in reversed(s.children)]
        sections_html.append(
            f"<h3>{escape(c.title)}</h3><table><tr><th>section</th><th>weight</th><th>score</th>"
            f"<th>grade</th><th>elements</th></tr>{''.join(rows)}</table>"
        )
    by_grade = line_chart(
        series,
        reference,
        x_label="grade level",
        y_label="exact match",
        reference_label="random guess",
    )
    body = f"""
<header><h1>steer report — {escape(result.rubric_name)}</h1>
<p class="meta">rubric {escape(result.rubric_file)} · metric {escape(result.metric)} ·
runs {escape(", ".join(result.runs))}</p></header>
<section id="summary"><h2>Report cards</h2><div class="cards">{cards}</div>
{"".join(sections_html)}</section>
<section id="drilldown"><h2>Settings → modules → elements</h2>
{_drilldown(result, taxonomy)}</section>
<section id="heatmap"><h2>Models × elements</h2>
<div class="scroll">{heatmap(models, elements, values)}</div></section>
<section id="by-grade"><h2>Accuracy by grade level</h2>
{by_grade}</section>
<section id="fragility"><h2>Worst domain against mean</h2>{scatter(points, models)}
<p class="meta">Points far below the dashed diagonal are elements whose worst domain lags
their mean.</p></section>
<section id="dependency-graph"><h2>Dependency graph</h2>{_graphs(result, taxonomy)}</section>
{f'<section id="fits"><h2>Utility parameters</h2>{fits_html}</section>' if fits_html else ""}
<section id="diagnostics"><h2>Diagnostics ({len(result.diagnostics)})</h2>
<table><tr><th>severity</th><th>code</th><th>model</th><th>message</th><th>where</th></tr>{diag_rows}</table></section>
"""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>steer report — {escape(result.rubric_name)}</title>"
        f"<style>{CSS}</style><script>{JS}</script></head><body>{body}</body></html>\n"
    )
