"""The terminal report card: sections and elements per model, then diagnostics."""

from __future__ import annotations

from steer.report._table import render_table
from steer.report.formats._common import (
    coverage_line,
    grouped_diagnostics,
    interval,
    num,
    rule_name,
    statistics,
    summary,
    walk,
)
from steer.rubric import GradeResult
from steer.taxonomy import element_order


def render_text(result: GradeResult, show_statistics: bool = False) -> str:
    """Plain text, stable for snapshots (no colours, times or absolute paths)."""
    out = [
        f"steer grade — rubric {result.rubric_name} ({result.rubric_file}), metric {result.metric}",
        f"runs: {', '.join(result.runs)}",
    ]
    for card in result.cards:
        gpa = num(card.gpa, 2)
        out += ["", f"{card.title} — grade {card.letter}, score {num(card.score)}, GPA {gpa}"]
        out += [f"coverage: {coverage_line(card)}", ""]
        rows = [
            [
                "  " * depth + s.name,
                f"{s.weight:g}",
                num(s.score),
                interval(s.lo, s.hi),
                s.letter,
                f"{len(s.present)}/{len(s.selected)}",
            ]
            for depth, s in walk(card.sections)
        ]
        header = ["section", "weight", "score", "interval", "grade", "elements"]
        out.append(render_table(header, rows, "lrrrlr"))
        elements = [
            [
                es.element,
                es.name,
                str(es.n),
                num(es.value(result.metric)),
                interval(*es.bounds.get(result.metric, (None, None))),
                f"{es.worst_domain} ({num(es.worst_domain_value)})" if es.worst_domain else "—",
            ]
            for _, es in sorted(card.elements.items(), key=lambda kv: element_order(kv[0]))
        ]
        if elements:
            out += [""]
            head = ["element", "name", "n", result.metric, "interval", "worst domain"]
            out.append(render_table(head, elements, "llrrrl"))
    out.append("")
    # Grouped like the HTML report: by rule, most severe first, then element.
    for severity, code, items in grouped_diagnostics(result.diagnostics):
        name = rule_name(code)
        count = f"{len(items)} finding{'s' if len(items) != 1 else ''}"
        out.append(f"{code} {name} ({severity}) — {count}")
        out += [f"  {d.line()}" for d in items]
    if show_statistics and result.diagnostics:
        out += ["", "statistics:"]
        out += [f"{n:>5}  {code:<7} {sev:<8} {name}" for n, code, sev, name in statistics(result)]
    if result.diagnostics:
        out.append("")
    out.append(summary(result))
    return "\n".join(out) + "\n"
