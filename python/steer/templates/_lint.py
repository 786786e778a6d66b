"""Run the language checker over a template's rendered questions.

Each rendered text (question, option, explanation) is checked by `check_text`;
a finding is traced back to the wording that produced it (the phrasing,
choice, part or explanation whose fixed words it shares most) and reported
with the file and line of that wording, once per wording, slip and check.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import pyarrow as pa
import pyarrow.compute as pc

from steer.templates._language import (
    Finding,
    check_antecedent,
    check_question_start,
    check_text,
)
from steer.templates._load import Template
from steer.templates._text import _compiled


def _wordings(template: Template) -> list[str]:
    t = template.spec
    texts = [*t.phrasings, *(c.text for c in t.choices)]
    texts += [p.text for p in t.parts] + [o for p in t.parts for o in p.options]
    if t.explanation:
        texts.append(t.explanation)
    return texts


def _segments(wording: str) -> list[str]:
    literals, _names = _compiled(wording)
    out = []
    for i, literal in enumerate(literals):
        trimmed = literal
        if i > 0:
            trimmed = re.sub(r"^\S*\s*", "", trimmed)
        if i < len(literals) - 1:
            trimmed = re.sub(r"\s*\S*$", "", trimmed)
        if len(trimmed) >= 4:
            out.append(trimmed)
    return out


def _line(file_text: str, wording: str, near: str, start: int) -> int | None:
    """The file line holding the part of `wording` around `near` (or its first
    line)."""
    lines = file_text.splitlines()
    for needle in (near, wording):
        for piece in needle.split("\n"):
            piece = piece.strip()[:40]
            if len(piece) < 4:
                continue
            for number in range(max(start - 1, 0), len(lines)):
                if piece in lines[number]:
                    return number + 1
    return None


def _texts(table: pa.Table) -> Iterable[str]:
    columns = set(table.column_names)
    for name in ("question_text", "explanation"):
        if name in columns:
            yield from (x for x in table.column(name).to_pylist() if x)
    if "options" in columns:
        for options in table.column("options").to_pylist():
            yield from options or ()


def _named_questions(table: pa.Table) -> Iterable[tuple[str, str]]:
    """(text of all parts joined, perspective) per question told about a named
    woman or man."""
    if "perspective" not in table.column_names or table.num_rows == 0:
        return
    named = table.filter(pc.is_in(table["perspective"], pa.array(["woman", "man"])))
    if named.num_rows == 0:
        return
    grouped = named.select(["base_id", "perspective", "question_text"]).group_by(
        ["base_id", "perspective"], use_threads=False
    )
    out = grouped.aggregate([("question_text", "list")])
    joined = pc.binary_join(out["question_text_list"], "\n").to_pylist()
    yield from zip(joined, out["perspective"].to_pylist(), strict=True)


def _findings(table: pa.Table) -> Iterable[tuple[str, Finding]]:
    for text in dict.fromkeys(_texts(table)):
        for finding in check_text(text):
            yield text, finding
    if "question_text" in table.column_names:
        for text in dict.fromkeys(table.column("question_text").to_pylist()):
            for finding in check_question_start(text or ""):
                yield text, finding
    for text, perspective in dict.fromkeys(_named_questions(table)):
        for finding in check_antecedent(text, perspective):
            yield text, finding


def lint_rendered(template: Template, table: pa.Table, file_text: str) -> list[str]:
    """One message per slip found in `table` (questions rendered from
    `template`), naming the file and line of the wording responsible."""
    wordings = [(w, _segments(w)) for w in _wordings(template)]
    # (line, check, slip with its numbers masked) → (finding, renders, a text)
    seen: dict[tuple[int | None, str, str], tuple[Finding, int, str]] = {}
    for text, finding in _findings(table):
        at = text.find(finding.text)
        best, best_score, near = None, 0, ""
        for wording, segments in wordings:
            found = [(text.find(s), s) for s in segments]
            score = sum(len(s) for pos, s in found if pos >= 0)
            if score > best_score:
                best, best_score = wording, score
                before = [(pos, s) for pos, s in found if 0 <= pos <= max(at, 0)]
                near = max(before)[1] if before else ""
        line = _line(file_text, best, near, template.line or 1) if best else None
        line = line or template.line
        key = (line, finding.check, re.sub(r"\d[\d,.]*", "N", finding.text))
        first, count, example = seen.get(key, (finding, 0, text))
        seen[key] = (first, count + 1, example)
    messages = []
    for (line, check, _masked), (finding, count, text) in seen.items():
        where = f"{template.source}:{line}" if line else template.source
        times = f" ({count} renders)" if count > 1 else ""
        at = text.find(finding.text)
        context = text[max(at - 30, 0) : at + len(finding.text) + 30].replace("\n", " ")
        messages.append(
            f"{where}: {check}: {finding.text!r} in template {template.spec.id!r}{times}: "
            f"{finding.hint}; in …{context}…"
        )
    return messages
