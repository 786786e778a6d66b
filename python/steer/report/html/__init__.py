"""`steer report`: one self-contained HTML page (inline CSS, JS and SVG).

Sections (each an element with a stable id, which tests look for):
`summary`, `drilldown` (settings → modules → elements), `metadata` (what
produced the numbers), `heatmap`, `by-grade` (the rubric's metric by grade
level, with intervals), `compare` (the metric per model and each model's
paired difference from the best), `fragility` (the metric by domain,
question type and perspective), `calibration` (reliability diagrams),
`dependency-graph` (one model's scores on the prerequisite graph, picked
from a list), `diagnostics` (grouped by rule), `answers` (the questions
behind each cell, with prompt and reply). Every chart is a `steer.view`
figure, the same as `steer plot` draws. Heatmap cells, dependency-graph
elements, element scores and diagnostics link to their cell's answers.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from typing import TYPE_CHECKING

from steer.report._answers import answers_for_report
from steer.report._figures import grade_curve_of, heatmap_of
from steer.report._games import games_section
from steer.report._metadata import build_info, coverage, run_metadata
from steer.report.formats._common import coverage_line, interval
from steer.report.formats._common import num as _num
from steer.report.html._answers_section import answers_section, cell_anchor
from steer.report.html._colour import score_colour
from steer.report.html._diagnostics_section import diagnostics_section
from steer.report.html._style import CSS, JS
from steer.rubric import GradeResult
from steer.rubric._diagnostic import Diagnostic
from steer.taxonomy import Taxonomy, load_taxonomy

if TYPE_CHECKING:
    import pyarrow as pa
    from matplotlib.figure import Figure

    from steer.play import RCTable
    from steer.report._answers import CellAnswers
    from steer.rubric._model import RegressionOptions

#: Answers shown per model × element in the page (wrong ones first), and in
#: all: a report of many models and elements shows fewer per cell (at least
#: one) so that the page stays a file a browser opens quickly.
PER_CELL = 5
MAX_ANSWERS = 1500


def _by_grade(result: GradeResult) -> str:
    """The rubric's metric by grade level per card, with bootstrap intervals."""
    from steer.view import figure_svg

    fig = grade_curve_of(result)
    if fig is None:
        return "<p>No graded question has a grade level.</p>"
    return f'<div class="figure">{figure_svg(fig)}</div>'


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
                    if es is not None and v is not None:
                        bounds = es.bounds.get(result.metric, (None, None))
                        shown += f" <small>{interval(*bounds)}</small>"
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


def _inline(result: GradeResult, draw: Callable[[pa.Table], Figure]) -> str:
    """A figure of the graded responses, in a box that scrolls when it is wide."""
    from steer.view import figure_svg

    if result.responses is None:
        return "<p>No graded responses to draw.</p>"
    return f'<div class="scroll figure">{figure_svg(draw(result.responses))}</div>'


def _graphs(
    result: GradeResult, taxonomy: Taxonomy, cells: dict[tuple[str, str], CellAnswers]
) -> str:
    """One dependency graph per card, coloured by the rubric's metric; the
    list shows one at a time (the script in `_style`)."""
    from steer.view import dependency_graph_of, figure_svg

    if not result.cards:
        return "<p>No model in these runs.</p>"
    # Every card's graph has the same elements, so switching compares like with like.
    graded = {e for c in result.cards for e in c.elements}
    options = "".join(f"<option>{escape(c.title)}</option>" for c in result.cards)
    graphs = []
    for i, c in enumerate(result.cards):
        urls = {e: f"#{cell_anchor(c.title, e)}" for e in graded if (c.title, e) in cells}
        fig = dependency_graph_of(c, result.metric, taxonomy, graded=graded, urls=urls)
        svg = figure_svg(fig, id_prefix=f"graph{i}-")
        # All but the first wait in a <template> until picked: a graph is
        # thousands of SVG elements, too many to hold one per model in the page.
        graphs.append(
            f'<div class="dependency-graph" data-model="{escape(c.title)}">'
            f"{svg if i == 0 else f'<template>{svg}</template>'}</div>"
        )
    return (
        f'<label>model <select id="graph-model">{options}</select></label>'
        f'<div class="scroll figure">{"".join(graphs)}</div>'
        "<p class=meta>Click an element for the answers behind it.</p>"
    )


def _games(result: GradeResult, published: RCTable | None = None) -> str:
    """Each game's players beside the published human baseline, and with
    `published` beside the published models ("" when no game run)."""
    found = games_section(result.runs, published)
    if not found.tables and not found.skipped:
        return ""

    def table(header: list[str], rows: list[tuple[str, list[str]]]) -> str:
        head = "".join(f"<th>{escape(h)}</th>" for h in header)
        body = ""
        for kind, cells in rows:
            cls = f' class="{kind}"' if kind else ""
            body += f"<tr{cls}>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"
        return f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'

    parts = []
    for t in found.tables:
        rows = [("", r) for r in t.rows]
        if t.human is not None:
            rows.append(("human", t.human))
        if t.published is not None:
            rows.append(("published", t.published))
        notes = "".join(f"<li>{escape(n)}</li>" for n in t.notes)
        parts.append(
            f'<h3>{escape(t.game)}</h3>{table(t.header, rows)}<ul class="meta">{notes}</ul>'
        )
    parts += [f'<p class="meta">{escape(s)}</p>' for s in found.skipped]
    if found.domains is not None:
        d = found.domains
        parts.append(
            f'<h3 id="game-domains">Rationality Check domain scores</h3>'
            f'<p class="meta">{escape(d.note)}</p>{table(d.header, [("", r) for r in d.rows])}'
        )
    beside = (
        "beside the human baseline and the published models of Rationality Check "
        "(their <code>fin</code> values: min · median · max, and the models nearest each "
        "player)"
        if published is not None
        else "beside the human baseline Rationality Check publishes"
    )
    return (
        '<section id="games"><h2>Games</h2><p class="meta">Each player\'s metrics, averaged '
        "over samples with 95% bootstrap intervals (as <code>steer score GAME_RUN</code>), "
        f"{beside}.</p>"
        f"{''.join(parts)}</section>"
    )


def build_report(
    result: GradeResult,
    taxonomy: Taxonomy | None = None,
    *,
    fits_html: str = "",
    regression: RegressionOptions | None = None,
    published: RCTable | None = None,
) -> str:
    """The whole page as one string (UTF-8 HTML, no external references);
    `fits_html` (steer.fit._report.fit_sections_html) adds the utility
    parameters' figures and table; `regression`: the rubric's
    `rules.regression` options, for the model comparison's paired test
    (default: the rubric defaults); `published`: Rationality Check's game
    table, whose models the games section shows beside the players."""
    taxonomy = taxonomy or load_taxonomy()
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
                f"<td>{_num(s.score)}</td><td>{interval(s.lo, s.hi)}</td>"
                f"<td>{escape(s.letter)}</td><td>{len(s.present)}/{len(s.selected)}</td></tr>"
            )
            stack += [(depth + 1, ch) for ch in reversed(s.children)]
        sections_html.append(
            f"<h3>{escape(c.title)}</h3><table><tr><th>section</th><th>weight</th><th>score</th>"
            f"<th>95% interval</th><th>grade</th><th>elements</th></tr>{''.join(rows)}</table>"
        )
    from steer.view import calibration_of, compare_of, figure_svg, robustness_of

    metric = result.metric
    metric_title = result.metric.replace("_", " ").capitalize()
    heat = figure_svg(heatmap_of(result, urls))
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
<section id="compare"><h2>Models compared</h2>
{_inline(result, lambda t: compare_of(t, metric, regression=regression, banks=result.banks))}
</section>
<section id="fragility"><h2>Robustness by domain, question type and perspective</h2>
{_inline(result, lambda t: robustness_of(t, metric))}</section>
<section id="calibration"><h2>Calibration</h2>{_inline(result, calibration_of)}</section>
<section id="dependency-graph"><h2>Dependency graph</h2>
{_graphs(result, taxonomy, cells)}</section>
{f'<section id="fits"><h2>Utility parameters</h2>{fits_html}</section>' if fits_html else ""}
{_games(result, published)}
<section id="diagnostics"><h2>Diagnostics ({len(result.diagnostics)})</h2>
{diagnostics_section(result.diagnostics, link)}</section>
<section id="answers"><h2>Answers behind each cell</h2>{answers_section(cells, per_cell)}</section>
"""
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>steer report — {escape(result.rubric_name)}</title>"
        f"<style>{CSS}</style><script>{JS}</script></head><body>{body}</body></html>\n"
    )
