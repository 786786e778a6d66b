"""`steer report`: one self-contained HTML page (inline CSS, JS and SVG).

Sections (each an element with a stable id, which tests look for):
`summary`, `drilldown` (settings → modules → elements), `metadata` (what
produced the numbers), `heatmap`, `by-grade` (the rubric's metric by grade
level, with intervals), `fragility` (worst domain against mean),
`dependency-graph`, `diagnostics` (grouped by rule), `answers` (the questions
behind each cell, with prompt and reply). Heatmap cells, element scores and
diagnostics link to their cell's answers.
"""

from __future__ import annotations

from html import escape

from steer.report._answers import answers_for_report
from steer.report._metadata import build_info, coverage, run_metadata
from steer.report.formats._common import coverage_line
from steer.report.formats._common import num as _num
from steer.report.html._answers_section import answers_section, cell_anchor
from steer.report.html._charts import dependency_graph, scatter
from steer.report.html._colour import score_colour
from steer.report.html._diagnostics_section import diagnostics_section
from steer.report.html._style import CSS, JS
from steer.rubric import GradeResult
from steer.rubric._diagnostic import Diagnostic
from steer.score import score
from steer.taxonomy import Taxonomy, element_order, load_taxonomy

#: Answers shown per model × element in the page (wrong ones first), and in
#: all: a report of many models and elements shows fewer per cell (at least
#: one) so that the page stays a file a browser opens quickly.
PER_CELL = 5
MAX_ANSWERS = 1500


def _by_grade(result: GradeResult) -> str:
    """The rubric's metric by grade level per card, with bootstrap intervals."""
    import pyarrow as pa

    from steer.view import figure_svg, grade_curve_figure

    table = result.responses
    if table is None or "grade" not in table.column_names or not table.num_rows:
        return "<p>No graded question has a grade level.</p>"
    # One series per card: adaptations of a model are never pooled.
    by = ["model", "adaptation"] if "adaptation" in table.column_names else ["model"]
    metric = result.metric
    scored = score(table, by=[*by, "grade"], metrics=[metric], bootstrap=1000, seed=0)
    t = scored.to_pydict()
    adaptations = t.get("adaptation", [None] * scored.num_rows)
    series = pa.table(
        {
            "series": [f"{m} · {a}" if a else m for m, a in
                       zip(t["model"], adaptations, strict=True)],
            "grade": t["grade"], "value": t[metric],
            "lo": t.get(f"{metric}_lo", [None] * scored.num_rows),
            "hi": t.get(f"{metric}_hi", [None] * scored.num_rows),
            "n": t["n_units"],
        }
    )  # fmt: skip
    series = series.filter(pa.compute.is_valid(series["grade"]))
    return f'<div class="figure">{figure_svg(grade_curve_figure(series, metric))}</div>'


def _metadata(result: GradeResult) -> str:
    version, commit = build_info()
    blocks = []
    for m in run_metadata(result.runs, result.responses):
        revision = f" (revision {m.revision})" if m.revision else ""
        fields = [
            ("model", f"{m.model}{revision}"), ("backend", m.backend),
            ("adaptation", m.adaptation), ("sampling", m.sampling),
            ("bank", f"{m.bank} · sha256 {m.bank_sha256}…"),
            ("seeds", f"bank {m.generation_seed} · run {m.seed}"),
            ("answers", f"{m.answers:,} in {m.elements} elements"),
            ("answered (UTC)", f"{m.first} → {m.last}"),
            ("tokens", f"{m.tokens_in:,} in · {m.tokens_out:,} out"),
            ("cost", "—" if m.cost_usd is None else f"${m.cost_usd:,.4f}"),
            ("run by", f"steer {m.steer_version} · {m.created_at}"),
        ]  # fmt: skip
        rows = "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in fields)
        blocks.append(
            f'<div class="run-meta"><b>{escape(m.run_id)}</b> <small>{escape(m.path)}</small>'
            f"<table>{rows}</table></div>"
        )
    covered = coverage(result.responses).items()
    cover = "".join(f"<li>{escape(name)}s {escape(text)}</li>" for name, text in covered)
    runs = (
        f'<div class="cards">{"".join(blocks)}</div>'
        if blocks
        else "<p>No run manifest among the inputs (response files only).</p>"
    )
    return (
        f'<p class="meta">Report written by steer {escape(version)} (commit {escape(commit)}); '
        f"rubric {escape(result.rubric_file)}, metric {escape(result.metric)}.</p>"
        f'{runs}<ul class="meta">{cover}</ul>'
    )


def _drilldown(result: GradeResult, taxonomy: Taxonomy, linked: set[tuple[str, str]]) -> str:
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
            # Many models make a wide table: it scrolls in its own box.
            out.append(
                f'<div class="scroll"><table class="elements"><tr><th>element</th><th>n</th>'
                f"{head}</tr>"
            )
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
                    shown = _num(v)
                    if (c.title, e.id) in linked:
                        shown = f'<a href="#{cell_anchor(c.title, e.id)}">{shown}</a>'
                    cells.append(
                        f'<td><span class="swatch" style="background:{score_colour(v)}"></span> '
                        f"{shown}<small>{worst}</small></td>"
                    )
                out.append(
                    f"<tr><td>{escape(e.id)} {escape(e.name)}</td><td>{n}</td>{''.join(cells)}</tr>"
                )
            out.append("</table></div></details>")
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
    n_cells = sum(len(c.elements) for c in result.cards)
    per_cell = max(1, min(PER_CELL, MAX_ANSWERS // max(n_cells, 1)))
    cells = answers_for_report(result.responses, result.runs, per_cell)
    urls = {key: f"#{cell_anchor(*key)}" for key in cells}
    points: list[tuple[str, str, float, float]] = []
    for c in result.cards:
        for e, es in sorted(c.elements.items(), key=lambda kv: element_order(kv[0])):
            mean, worst = es.value("normalized_accuracy"), es.worst_domain_value
            if mean is not None and worst is not None and worst == worst:
                points.append((c.title, e, mean, worst))

    def link(d: Diagnostic) -> str | None:
        """The answers of the cell a finding is about. Findings name the
        adaptation only where a model has several, so match cards by model."""
        if not d.model or not d.element:
            return None
        titles = [
            c.title for c in result.cards
            if c.model == d.model and d.adaptation in (None, c.adaptation)
        ]  # fmt: skip
        key = (titles[0], d.element) if len(titles) == 1 else None
        return cell_anchor(*key) if key in cells else None

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
    from steer.view import figure_svg, heatmap_figure

    metric_title = result.metric.replace("_", " ").capitalize()
    heat = figure_svg(heatmap_figure(models, elements, values, metric=result.metric, urls=urls))
    body = f"""
<header><h1>steer report — {escape(result.rubric_name)}</h1>
<p class="meta">rubric {escape(result.rubric_file)} · metric {escape(result.metric)} ·
runs {escape(", ".join(result.runs))}</p></header>
<section id="summary"><h2>Report cards</h2><div class="cards">{cards}</div>
{"".join(sections_html)}</section>
<section id="drilldown"><h2>Settings → modules → elements</h2>
{_drilldown(result, taxonomy, set(cells))}</section>
<section id="metadata"><h2>What produced these numbers</h2>{_metadata(result)}</section>
<section id="heatmap"><h2>Models × elements</h2>
<p class="meta">Click a cell for the answers behind it.</p>
<div class="scroll figure">{heat}</div></section>
<section id="by-grade"><h2>{escape(metric_title)} by grade level</h2>
{_by_grade(result)}</section>
<section id="fragility"><h2>Worst domain against mean</h2>{scatter(points, models)}
<p class="meta">Points far below the dashed diagonal are elements whose worst domain lags
their mean.</p></section>
<section id="dependency-graph"><h2>Dependency graph</h2>{_graphs(result, taxonomy)}</section>
{f'<section id="fits"><h2>Utility parameters</h2>{fits_html}</section>' if fits_html else ""}
<section id="diagnostics"><h2>Diagnostics ({len(result.diagnostics)})</h2>
{diagnostics_section(result.diagnostics, link)}</section>
<section id="answers"><h2>Answers behind each cell</h2>{answers_section(cells, per_cell)}</section>
"""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>steer report — {escape(result.rubric_name)}</title>"
        f"<style>{CSS}</style><script>{JS}</script></head><body>{body}</body></html>\n"
    )
