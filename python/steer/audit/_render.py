"""The audit report as text (one screen), markdown, JSON or CSV."""

from __future__ import annotations

import csv
import io
from typing import Literal

from steer._json import dumps
from steer.audit._audit import (
    BALANCE_CODES,
    MAX_OTHER_SHARE,
    MAX_TWO_OPTION_SHARE,
    PERSPECTIVE_TOLERANCE,
    AuditReport,
    ElementAudit,
)
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
    "other",
    "persp ±",
    "2-opt",
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
        fmt(e.other_share, 2),
        fmt(e.perspective_spread, 2),
        fmt(e.two_option_share, 2),
    ]


def _summary(report: AuditReport) -> str:
    counts = {s: sum(e.status == s for e in report.elements) for s in ("fail", "pass", "too small")}
    n = len(report.elements)
    return (
        f"{n} element{'s' if n != 1 else ''}: {counts['fail']} fail, {counts['pass']} pass, "
        f"{counts['too small']} too small to judge (fail: a blind agent beats chance by more "
        f"than {report.threshold * 100:g} points; judged from {report.min_n} held-out questions)"
    )


def _graded(report: AuditReport, width: int = 100) -> list[str]:
    """Lines on the graded learner: overall, and the modules over and within
    the bar (wrapped to `width`)."""
    g = report.learner_grade
    if g is None:
        return []
    verdict = "FAIL" if g.over else "pass"
    overall = "—" if g.score is None else f"{g.score:.2f} ({g.letter})"
    lines = [
        f"graded blind learner: {verdict} — {overall} overall under {g.rubric} "
        f"({g.metric}; random guessing scores 0; bar {g.max_score:g} overall, "
        f"{g.max_module_score:g} per module)"
    ]
    for label, group in (
        ("over the bar", [m for m in g.modules if m.over]),
        ("within", [m for m in g.modules if not m.over]),
    ):
        if not group:
            continue
        line = f"  {label}:"
        for i, m in enumerate(group):
            item = f" {m.name} {m.score:.2f}" + ("," if i < len(group) - 1 else "")
            if len(line) + len(item) > width:
                lines.append(line)
                line = "   "
            line += item
        lines.append(line)
    return lines


# Code → (column, ElementAudit field with the value).
_FINDING_VALUE = {
    "BAL001": ("other", "other_share"),
    "BAL002": ("persp ±", "perspective_spread"),
    "BAL003": ("2-opt", "two_option_share"),
}


def _findings(report: AuditReport, width: int = 100) -> list[str]:
    """The BAL findings grouped by code, one wrapped line each: the elements
    and their values (the full messages are in the JSON report)."""
    out = []
    for code, (column, attribute) in _FINDING_VALUE.items():
        hits = [e for e in report.elements if any(f" {code} " in f for f in e.findings)]
        if not hits:
            continue
        name = BALANCE_CODES[code]
        limit = {
            "BAL001": f"under {MAX_OTHER_SHARE:.2f}",
            "BAL002": f"at most {PERSPECTIVE_TOLERANCE:.2f}",
            "BAL003": f"at most {MAX_TWO_OPTION_SHARE:.2f}",
        }[code]
        line = f"{code} {name} ({column} {limit}): {len(hits)} element(s):"
        for i, e in enumerate(hits):
            item = f" {e.element} {fmt(getattr(e, attribute), 2)}" + (
                "," if i < len(hits) - 1 else ""
            )
            if len(line) + len(item) > width:
                out.append(line)
                line = "   "
            line += item
        out.append(line)
    return out


def render(report: AuditReport, fmt_name: Format) -> str:
    if fmt_name == "json":
        return dumps(report.model_dump(mode="json"), indent=2) + "\n"
    if fmt_name == "csv":
        return _csv(report)
    rows = [_row(e) for e in report.elements]
    if fmt_name == "markdown":
        lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        tail = [f"\n{_summary(report)}."]
        g = report.learner_grade
        if g is not None:
            tail.append("\n\n" + _graded(report)[0])
            tail.append("\n\n| module | score | letter | over the bar |\n|---|---|---|---|")
            tail += [
                f"\n| {m.name} | {m.score:.2f} | {m.letter} | {'yes' if m.over else ''} |"
                for m in g.modules
            ]
            tail.append("\n")
        tail += [f"\n- {f}" for f in _findings(report, width=10**9)]
        tail += [f"\n> note: {n}" for n in report.notes]
        return "\n".join(lines) + "\n" + "".join(tail) + "\n"
    table = render_table(HEADER, rows, "lrllrrlrrlrrrr")
    graded = "".join(f"{line}\n" for line in _graded(report))
    findings = "".join(f"{f}\n" for f in _findings(report))
    notes = graded + findings + "".join(f"note: {n}\n" for n in report.notes)
    legend = (
        "worst agent: the flagged agent with the largest gap, else the most credible gap; "
        "(k) = held-out questions where it had a preference\n"
        "other: distractors tagged `other`; persp ±: largest deviation from an even fifth "
        "per perspective; 2-opt: two-option share where the template offers more\n"
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
            "other_share",
            "perspective_spread",
            "two_option_share",
        ]
    )
    extra = {
        e.element: [_opt(e.other_share), _opt(e.perspective_spread), _opt(e.two_option_share)]
        for e in report.elements
    }
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
                    *extra[e.element],
                ]
            )
    g = report.learner_grade
    if g is not None:
        # The graded learner: normalized scores, where random guessing is 0.
        for name, score, lo, hi, over in [
            ("overall", g.score, None, None, g.score is not None and g.score > g.max_score),
            *((f"module:{m.name}", m.score, m.low, m.high, m.over) for m in g.modules),
        ]:
            w.writerow(
                [name, "graded", "", "", "graded-learner", g.rubric, "", _opt(score), "0",
                 _opt(score), _opt(lo), _opt(hi), int(over), "", "", ""]
            )  # fmt: skip
    return buf.getvalue()


def _opt(x: float | None) -> str:
    return "" if x is None else f"{x:.6f}"
