"""The report's diagnostics, grouped: by rule (most severe first, then the
rule's code), and within a rule by element; each finding about a model and
an element links to that cell's answers."""

from __future__ import annotations

from collections.abc import Callable
from html import escape
from itertools import groupby

from steer.report.formats._common import grouped_diagnostics, rule_name
from steer.rubric._diagnostic import Diagnostic


def diagnostics_section(
    diagnostics: list[Diagnostic], link: Callable[[Diagnostic], str | None]
) -> str:
    """`link(d)`: the anchor of the cell a finding is about, or None."""
    if not diagnostics:
        return "<p>No diagnostics.</p>"
    out = []
    for severity, code, items in grouped_diagnostics(diagnostics):
        rows = []
        for element, findings in groupby(items, key=lambda d: d.element or ""):
            listed = list(findings)
            for i, d in enumerate(listed):
                anchor = link(d)
                where = f'<a href="#{anchor}">answers</a>' if anchor else escape(str(d.location))
                head = (
                    f'<td rowspan="{len(listed)}">{escape(element) or "—"}</td>' if i == 0 else ""
                )
                hint = f"<br><small>{escape(d.hint)}</small>" if d.hint else ""
                rows.append(
                    f"<tr>{head}<td>{escape(d.who) or '—'}</td>"
                    f"<td>{escape(d.message)}{hint}</td><td>{where}</td></tr>"
                )
        elements = len({d.element for d in items if d.element})
        about = f" · {elements} element{'s' if elements != 1 else ''}" if elements else ""
        # Errors and warnings start open; info is folded.
        opened = " open" if severity != "info" else ""
        out.append(
            f'<details class="rule"{opened}><summary><span class="sev-{severity}">{severity}'
            f"</span> <b>{escape(code)}</b> {escape(rule_name(code))} — {len(items)} finding"
            f"{'s' if len(items) != 1 else ''}{about}</summary>"
            "<table><tr><th>element</th><th>model</th><th>finding</th><th>where</th></tr>"
            f"{''.join(rows)}</table></details>"
        )
    return "".join(out)
