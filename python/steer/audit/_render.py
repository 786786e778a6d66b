"""The audit report as text (one screen), markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io
from typing import Literal

from steer._json import dumps
from steer.audit._audit import AuditReport, ElementAudit
from steer.report import render_table
from steer.report._table import fmt

Format = Literal["text", "json", "csv", "markdown"]
HEADER = [
    "element",
    "n",
    "status",
    "worst agent",
    "acc",
    "chance",
    "gap [95% CI]",
    "key pos p",
    "key texts",
    "options",
    "yes",
]


def _signed(x: float) -> str:
    text = f"{x:+.2f}"
    return "+0.00" if text == "-0.00" else text


def _row(e: ElementAudit) -> list[str]:
    w = e.worst
    options = " ".join(f"{k}:{v}" for k, v in sorted(e.option_counts.items()))
    return [
        e.element,
        str(e.n),
        e.status.upper() if e.status == "fail" else e.status,
        (w.agent + ("" if w.n == e.n else f" ({w.n})")) if w else "—",
        fmt(w.accuracy, 2) if w else "—",
        fmt(w.chance, 2) if w else "—",
        f"{_signed(w.gap)} [{_signed(w.gap_low)}, {_signed(w.gap_high)}]" if w else "—",
        fmt(e.key_position_p, 3),
        fmt(e.key_text_diversity, 2),
        options,
        fmt(e.yes_share, 2),
    ]


def _summary(report: AuditReport) -> str:
    counts = {s: sum(e.status == s for e in report.elements) for s in ("fail", "pass", "too small")}
    n = len(report.elements)
    return (
        f"{n} element{'s' if n != 1 else ''}: {counts['fail']} fail, {counts['pass']} pass, "
        f"{counts['too small']} too small to judge (fail: a blind agent beats chance by more "
        f"than {report.threshold * 100:g} points; judged from {report.min_n} held-out questions)"
    )


def render(report: AuditReport, fmt_name: Format) -> str:
    if fmt_name == "json":
        return dumps(report.model_dump(mode="json"), indent=2) + "\n"
    if fmt_name == "csv":
        return _csv(report)
    rows = [_row(e) for e in report.elements]
    if fmt_name == "markdown":
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        tail = [f"\n{_summary(report)}."] + [f"\n> note: {n}" for n in report.notes]
        return "\n".join(lines) + "\n" + "".join(tail) + "\n"
    table = render_table(HEADER, rows, "lrllrrlrrlr")
    notes = "".join(f"note: {n}\n" for n in report.notes)
    legend = (
        "worst agent: the flagged agent with the largest gap, else the most credible gap; "
        "(k) = held-out questions where it had a preference\n"
    )
    return f"{report.bank}: shortcut audit\n\n{table}\n\n{_summary(report)}\n{legend}{notes}"


def _csv(report: AuditReport) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "element",
            "grading",
            "n_element",
            "status",
            "agent",
            "family",
            "n",
            "accuracy",
            "chance",
            "gap",
            "gap_low",
            "gap_high",
            "flagged",
        ]
    )
    for e in report.elements:
        for a in e.agents:
            w.writerow(
                [
                    e.element,
                    e.grading,
                    e.n,
                    e.status,
                    a.agent,
                    a.family,
                    a.n,
                    f"{a.accuracy:.6f}",
                    f"{a.chance:.6f}",
                    f"{a.gap:.6f}",
                    f"{a.gap_low:.6f}",
                    f"{a.gap_high:.6f}",
                    int(a.flagged),
                ]
            )
    return buf.getvalue()
