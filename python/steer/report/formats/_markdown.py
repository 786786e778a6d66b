"""The report card as GitHub-flavoured Markdown (also the job summary)."""

from __future__ import annotations

from steer.report._metadata import run_metadata
from steer.report.formats._common import coverage_line, interval, num, summary, walk
from steer.rubric import GradeResult

_ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(result: GradeResult) -> str:
    out = [
        f"# steer report card — {result.rubric_name}",
        "",
        f"Rubric `{result.rubric_file}`, metric `{result.metric}`; runs: "
        + ", ".join(f"`{r}`" for r in result.runs),
        "",
        "| model | grade | score | GPA | no-answer rate |",
        "|---|:-:|--:|--:|--:|",
    ]
    out += [
        f"| {_cell(c.title)} | **{c.letter}** | {num(c.score)} | {num(c.gpa, 2)} | "
        f"{num(c.coverage.no_answer_rate if c.coverage else None)} |"
        for c in result.cards
    ]
    runs = run_metadata(result.runs, result.responses)
    if runs:
        # What produced the numbers (the full table is in `steer report`).
        out += ["", "| run | model | adaptation | bank | seeds bank / run | answers | steer |",
                "|---|---|---|---|---|--:|---|"]  # fmt: skip
        for m in runs:
            revision = f" (rev {m.revision})" if m.revision else ""
            bank = f"`{m.bank_sha256}`" if m.bank_sha256 else "—"
            out.append(
                f"| {_cell(m.path)} | {_cell(m.model + revision)} | {_cell(m.adaptation)} | "
                f"{bank} | {m.generation_seed} / {m.seed} | {m.answers:,} | "
                f"{_cell(m.steer_version) or '—'} |"
            )
    for card in result.cards:
        out += [
            "",
            f"## {_cell(card.title)}",
            "",
            f"Coverage: {_cell(coverage_line(card))}.",
            "",
            "| section | weight | score | interval | grade |",
        ]
        out.append("|---|--:|--:|--:|:-:|")
        for depth, s in walk(card.sections):
            name = "&nbsp;&nbsp;" * depth + _cell(s.name)
            out.append(
                f"| {name} | {s.weight:g} | {num(s.score)} | {interval(s.lo, s.hi)} | {s.letter} |"
            )
    out += ["", "## Diagnostics", ""]
    out += [
        f"- {_ICON[d.severity]} `{d.code}` {'**' + _cell(d.who) + '** ' if d.model else ''}"
        f"{d.message} (`{d.location}`)"
        for d in result.diagnostics
    ]
    out += ["", summary(result)]
    return "\n".join(out) + "\n"
