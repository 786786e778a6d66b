"""GitHub Actions workflow commands: one annotation per diagnostic, pointing at
the rubric file and line (errors, warnings, notices).

Every field comes from user data (rubric, model and check names, messages), so
every field is escaped as the runner requires: `%`, CR and LF everywhere, and
also `:` and `,` in properties. Nothing a name holds can end a command early or
start a new one (`x%0A::error::…` stays text)."""

from __future__ import annotations

from steer.report.formats._common import summary
from steer.rubric import GradeResult

_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def _data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: GradeResult) -> str:
    lines = []
    for d in result.diagnostics:
        loc = d.location
        who = f"[{d.who}] " if d.model else ""
        hint = f" — {d.hint}" if d.hint else ""
        lines.append(
            f"::{_LEVEL[d.severity]} file={_prop(loc.file)},line={loc.line},col={loc.column},"
            f"title={_prop(d.code)}::{_data(f'{d.code} {who}{d.message}{hint}')}"
        )
    grades = ", ".join(f"{c.title} {c.letter}" for c in result.cards)
    lines.append(_data(f"steer grade ({result.rubric_name}): {grades}. {summary(result)}"))
    return "\n".join(lines) + "\n"
