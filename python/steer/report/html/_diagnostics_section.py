"""The report's diagnostics, grouped: by rule (most severe first, then the
rule's code), and within a rule by element; each finding about a model and
an element links to that cell's answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from html import escape
from itertools import groupby

from steer.rubric._diagnostic import SEVERITY_ORDER, Diagnostic


def grouped(diagnostics: Iterable[Diagnostic]) -> list[tuple[str, str, list[Diagnostic]]]:
    """(severity, code, findings) groups, most severe first; findings by element."""
    ordered = sorted(
        diagnostics,
        key=lambda d: (SEVERITY_ORDER[d.severity], d.code, d.element or "", d.who, d.message),
    )
    return [
        (severity, code, list(items))
        for (severity, code), items in groupby(ordered, key=lambda d: (d.severity, d.code))
    ]


def diagnostics_section(
    diagnostics: list[Diagnostic], link: Callable[[Diagnostic], str | None]
) -> str:
    """`link(d)`: the anchor of the cell a finding is about, or None."""
    if not diagnostics:
        return "<p>No diagnostics.</p>"
    out = []
    for severity, code, items in grouped(diagnostics):
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
            f"</span> <b>{escape(code)}</b> — {len(items)} finding"
            f"{'s' if len(items) != 1 else ''}{about}</summary>"
            "<table><tr><th>element</th><th>model</th><th>finding</th><th>where</th></tr>"
            f"{''.join(rows)}</table></details>"
        )
    return "".join(out)
