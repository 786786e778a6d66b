"""Pieces shared by the report-card renderers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import groupby

from steer._json import plain_zero
from steer.rubric import GradeResult, ModelCard, SectionScore
from steer.rubric._diagnostic import SEVERITY_ORDER, Diagnostic
from steer.rubric.rules._codes import CODES


def num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or x != x else plain_zero(f"{x:.{digits}f}")  # never "-0.000"


def interval(lo: float | None, hi: float | None) -> str:
    return "" if lo is None or hi is None else f"[{num(lo)}, {num(hi)}]"


def coverage_line(card: ModelCard) -> str:
    """'answered 55/61 asked · asked 61/610 of the bank · no-answer rate 0.098'."""
    cov = card.coverage
    if cov is None:
        return "coverage unknown"
    return f"{cov.describe()} · no-answer rate {num(cov.no_answer_rate)}"


def walk(sections: list[SectionScore], depth: int = 0) -> Iterator[tuple[int, SectionScore]]:
    """Sections depth-first with their nesting depth."""
    for s in sections:
        yield depth, s
        yield from walk(s.children, depth + 1)


def summary(result: GradeResult) -> str:
    """'Found 1 error, 2 warnings and 3 notes.' or 'All checks passed.'"""
    counts = result.counts()
    if not any(counts.values()):
        return "All checks passed."
    parts = []
    for key, word in (("error", "error"), ("warning", "warning"), ("info", "note")):
        n = counts[key]
        if n:
            parts.append(f"{n} {word}{'' if n == 1 else 's'}")
    joined = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"Found {joined}."


def rule_name(code: str) -> str:
    return CODES[code].name if code in CODES else "rubric-check"


def statistics(result: GradeResult) -> list[tuple[int, str, str, str]]:
    """(count, code, severity, name) per code, most frequent first (like ruff)."""
    counts = Counter((d.code, d.severity) for d in result.diagnostics)
    rows = [(n, code, sev, rule_name(code)) for (code, sev), n in counts.items()]
    return sorted(rows, key=lambda r: (-r[0], r[1]))


def grouped_diagnostics(
    diagnostics: Iterable[Diagnostic],
) -> list[tuple[str, str, list[Diagnostic]]]:
    """(severity, code, findings) groups, most severe first, then by code;
    findings within a group by element, then card and message."""
    ordered = sorted(
        diagnostics,
        key=lambda d: (SEVERITY_ORDER[d.severity], d.code, d.element or "", d.who, d.message),
    )
    return [
        (severity, code, list(items))
        for (severity, code), items in groupby(ordered, key=lambda d: (d.severity, d.code))
    ]
