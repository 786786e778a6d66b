"""TPL002 perspective-unrealised: does each rendered perspective show its person?

A question drawn for the first person must say "I" or "my", for the second
person "you" or "your", for the named woman one of the women's names or
she/her, for the named man one of the men's names or he/his; an anonymous
question shows none of these. A perspective label the text does not carry
measures nothing (issue 20 §4: 21 of 156 labels were not realised).

Each failing render is traced to the phrasing it was worded with (the one
whose fixed words it shares most, as the language checker does) and
reported once per phrasing and perspective with the file line of that
phrasing.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from steer.templates._coverage import finding
from steer.templates._lint import _line, _segments
from steer.templates._load import Template
from steer.templates._perspective import MEN, WOMEN

# RE2 patterns, matched against the question text of every part of a question.
_FIRST = r"\b(?:I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b"
_SECOND = r"\b[Yy]ou(?:r|rs|rself)?\b"
_WOMAN = rf"\b(?:{'|'.join(WOMEN)}|[Ss]he|[Hh]er|[Hh]ers|[Hh]erself)\b"
_MAN = rf"\b(?:{'|'.join(MEN)}|[Hh]e|[Hh]is|[Hh]im|[Hh]imself)\b"
SHOWS = {"first": _FIRST, "second": _SECOND, "woman": _WOMAN, "man": _MAN}
WHAT = {
    "first": "'I' or 'my'",
    "second": "'you' or 'your'",
    "woman": "a woman's name or 'she'/'her'",
    "man": "a man's name or 'he'/'his'",
    "anonymous": "no person (no I/my, you/your, names, she/her or he/his)",
}


def question_texts(table: pa.Table) -> pa.Table:
    """One row per question (base_id): its perspective and the text of all its
    parts joined."""
    grouped = table.select(["base_id", "perspective", "question_text"]).group_by(
        ["base_id", "perspective"], use_threads=False
    )
    out = grouped.aggregate([("question_text", "list")])
    joined = pc.binary_join(out["question_text_list"], "\n")
    return pa.table({"perspective": out["perspective"], "text": joined})


def realised(perspective: str, texts: pa.Array) -> pa.Array:
    """Per text: does it show `perspective`'s person (boolean array)?"""
    if perspective == "anonymous":
        anyone = "|".join(SHOWS.values())
        return pc.invert(pc.match_substring_regex(texts, anyone))
    return pc.match_substring_regex(texts, SHOWS[perspective])


def perspective_findings(template: Template, table: pa.Table, file_text: str) -> list[str]:
    """TPL002 findings for questions rendered from `template` (`table`, as
    `generate_questions` returns it)."""
    t = template.spec
    # A template without the rotation may still label its questions with one.
    labels = t.perspectives or ([t.perspective] if t.perspective in WHAT else [])
    if not labels or table.num_rows == 0:
        return []
    questions = question_texts(table)
    phrasings = [(p, _segments(p)) for p in t.phrasings]
    out = []
    for perspective in labels:
        mine = questions.filter(pc.equal(questions["perspective"], perspective))
        if mine.num_rows == 0:
            continue
        texts = mine["text"].combine_chunks()
        ok = realised(perspective, texts)
        bad = pc.filter(texts, pc.invert(ok)).to_pylist()
        if not bad:
            continue
        by_phrasing: dict[str, int] = {}
        for text in bad:
            best = max(phrasings, key=lambda ps: sum(len(s) for s in ps[1] if s in text))[0]
            by_phrasing[best] = by_phrasing.get(best, 0) + 1
        for phrasing, count in by_phrasing.items():
            line = _line(file_text, phrasing, "", template.line or 1) or template.line
            shown = phrasing if len(phrasing) <= 70 else phrasing[:70] + "…"
            out.append(
                finding(
                    template.source,
                    line,
                    "TPL002",
                    f"template {t.id!r}: perspective {perspective!r} is not realised in "
                    f"{count} of {mine.num_rows} renders (need {WHAT[perspective]} in every "
                    f"one) by phrasing {shown!r}",
                    "name the person with {Agent}/{agent}, {subject}, {possessive} "
                    "instead of fixed words"
                    if perspective != "anonymous"
                    else "drop fixed 'you'/'I' and gendered words; use {agent}, {subject}",
                )
            )
    return out
