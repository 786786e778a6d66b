"""TPL006 percent-form: a phrasing asks for a percentage but the answer is
not stored as one.

The convention (issue 21 §3): a percentage answer is stored as a fraction
with `formats = { <answer var> = "percent" }`, so its options print "12.34%"
and its free-text form is `percent` (a reply "12.34%" or "12.34" reads
12.34, compared with the key 0.1234 as 12.34). A template whose phrasing asks
for "the percentage", "in percent" or "%" while its answer's form is `number`
or `money` stores the answer in other units, and a correct free-text reply
"12.34%" is read as 0.1234 and not credited.

Only what a phrasing asks is read: its questions (sentences with "?") and
instructions ("Give…", "Answer…", "Round…", "Express…", "State…", "Report…",
"Enter…"). A stated quantity (`{rate}%`, `{t} percent`, "a 1% rise") is not
an ask, nor is an elasticity (a ratio of percentage changes), and a phrasing
that asks for a decimal ("as a decimal", "give a
decimal": an elasticity phrased as "by what percentage … per 1%") is exempt.
"""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as pc

from steer.templates._coverage import finding, line_of
from steer.templates._load import Template

_STATED = re.compile(
    r"(\{[^{}]*\}|\d+(?:\.\d+)?|\b(?:one|a|ten|each)\b)\s*"
    r"(?:%|\\%|per\s?cent(?:age points?)?\b)",
    re.IGNORECASE,
)
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_SENTENCE = re.compile(r"[^.?!]+[.?!]?")
_INSTRUCTION = re.compile(
    r"^\s*(give|answer|round|express|state|report|enter|write)\b", re.IGNORECASE
)
_PERCENT = re.compile(r"\bper\s?cent(age)?s?\b|%", re.IGNORECASE)
# An elasticity is a ratio of percentage changes, never a percentage itself.
_RATIO = re.compile(r"\belasticity\b|percent(age)? change.*percent(age)? change", re.IGNORECASE)
_DECIMAL = re.compile(r"\bdecimal\b(?!s? places?)|\bas a (fraction|number|ratio)\b", re.IGNORECASE)


def asks_for_percent(phrasing: str) -> bool:
    """Whether a phrasing asks for its answer as a percentage."""
    text = _PLACEHOLDER.sub("X", _STATED.sub(" ", phrasing))
    if _DECIMAL.search(text):
        return False
    asks = [s for s in _SENTENCE.findall(text) if "?" in s or _INSTRUCTION.match(s)]
    return any(_PERCENT.search(s) and not _RATIO.search(s) for s in asks)


def percent_findings(template: Template, table: pa.Table, file_text: str) -> list[str]:
    """TPL006 for one template, given questions rendered from it: a numeric
    answer whose form is not `percent`, asked for by a phrasing as a percentage."""
    if not table.num_rows or "answer_value" not in table.column_names:
        return []
    numeric = table.filter(pc.is_valid(table["answer_value"]))
    if not numeric.num_rows:
        return []
    forms = (
        set(pc.unique(numeric["answer_form"]).to_pylist())
        if "answer_form" in (numeric.column_names)
        else {"number"}
    )
    if forms == {"percent"}:
        return []
    t = template.spec
    form = "/".join(sorted(str(f) for f in forms))
    out = []
    for phrasing in t.phrasings:
        if not asks_for_percent(phrasing):
            continue
        needle = phrasing[:40]
        out.append(
            finding(
                template.source,
                line_of(file_text, needle, template.line) or template.line,
                "TPL006",
                f"template {t.id!r} asks for a percentage but its answer's form is {form!r} "
                "(a reply '12.34%' is read as 0.1234 and not credited)",
                "store the answer as a fraction and declare formats = { <answer var> = "
                "\"percent\" } (options then print '12.34%'), or ask for a decimal",
            )
        )
        break  # one finding per template: the fix is in the template, not per phrasing
    return out
