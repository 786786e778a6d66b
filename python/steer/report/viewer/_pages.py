"""The viewer's pages: the runs and their cards, a filterable list of
answers, and one answer with its prompt and reply (rendered by the same
code as the report's drill-down)."""

from __future__ import annotations

from html import escape
from typing import Any
from urllib.parse import urlencode

from steer.report._answers import OUTCOMES, Answer
from steer.report._metadata import build_info, run_metadata
from steer.report.html._answers_section import _answer
from steer.report.html._style import CSS
from steer.report.viewer._data import PAGE, Query, ViewerData

EXTRA_CSS = """
form.filters { display: flex; flex-wrap: wrap; gap: .6em; align-items: end; margin: 1em 0; }
form.filters label { display: flex; flex-direction: column; font-size: .85em; color: #555; }
td.q { text-align: left; max-width: 40em; overflow-wrap: anywhere; }
.outcome-wrong, .outcome-error, .outcome-no-answer { color: #b00020; }
"""


def page(title: str, body: str) -> str:
    version, commit = build_info()
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)} — steer view</title><style>{CSS}{EXTRA_CSS}</style></head>"
        f'<body><header><p class="meta"><a href="/">steer view</a> · steer {escape(version)} '
        f"({escape(commit)})</p><h1>{escape(title)}</h1></header>{body}</body></html>\n"
    )


def _link(path: str, **params: object) -> str:
    kept = {k: v for k, v in params.items() if v not in (None, "")}
    return f"{path}?{urlencode(kept)}" if kept else path


def index(data: ViewerData) -> str:
    table = data.table
    counts = table.group_by(["card", "outcome"]).aggregate([("question_id", "count")]).to_pylist()
    by_card: dict[str, dict[str, int]] = {}
    for r in counts:  # one row per card and outcome
        by_card.setdefault(r["card"], {})[r["outcome"]] = r["question_id_count"]
    rows = []
    for card, outcomes in sorted(by_card.items()):
        cells = "".join(
            f'<td><a href="{escape(_link("/questions", card=card, outcome=o))}">'
            f"{outcomes.get(o, 0):,}</a></td>"
            for o in (*OUTCOMES, "consistency")
        )
        total = sum(outcomes.values())
        rows.append(
            f'<tr><td><a href="{escape(_link("/questions", card=card))}">{escape(card)}</a></td>'
            f"<td>{total:,}</td>{cells}</tr>"
        )
    head = "".join(f"<th>{escape(o)}</th>" for o in (*OUTCOMES, "consistency"))
    runs = "".join(
        f"<tr><td>{escape(m.run_id)}</td><td>{escape(m.model)}</td><td>{escape(m.adaptation)}</td>"
        f"<td>{escape(m.bank)} <small>{escape(m.bank_sha256)}…</small></td>"
        f"<td>{m.answers:,}</td><td>{escape(m.first)} → {escape(m.last)}</td></tr>"
        for m in run_metadata([str(r) for r in data.runs], table)
    )
    return page(
        "Runs",
        "<h2>Answers by card</h2><p class=meta>Every question asked counts: a question with "
        "no usable reply is a no-answer. Click a number for those answers.</p>"
        f'<div class="scroll"><table><tr><th>card</th><th>asked</th>{head}</tr>'
        f"{''.join(rows)}</table></div>"
        + (
            '<h2>Runs</h2><div class="scroll"><table><tr><th>run</th><th>model</th>'
            "<th>adaptation</th><th>bank</th><th>answers</th><th>answered (UTC)</th></tr>"
            f"{runs}</table></div>"
            if runs
            else ""
        )
        + f'<p><a href="/questions">all answers</a> ({table.num_rows:,})</p>',
    )


def _select(name: str, values: list[str], current: str) -> str:
    options = ['<option value="">any</option>'] + [
        f"<option{' selected' if v == current else ''}>{escape(v)}</option>" for v in values
    ]
    return f'<label>{escape(name)}<select name="{name}">{"".join(options)}</select></label>'


def questions(data: ViewerData, q: Query) -> str:
    total, rows = data.select(q)
    form = "".join(
        [
            _select("card", data.choices("card"), q.card),
            _select("element", data.choices("element"), q.element),
            _select("domain", data.choices("domain"), q.domain),
            _select("grade", data.choices("grade"), "" if q.grade is None else str(q.grade)),
            _select("outcome", [*OUTCOMES, "consistency"], q.outcome),
            _select("error_type", data.choices("error_type"), q.error_type),
            f'<label>question text contains<input name="text" value="{escape(q.text)}"></label>',
            "<button>filter</button>",
        ]
    )
    texts = {}
    if rows.num_rows and data.texts.num_rows:
        import pyarrow.compute as pc

        found = data.texts.filter(
            pc.is_in(data.texts["question_id"], value_set=rows["question_id"])
        )
        texts = dict(zip(found["question_id"].to_pylist(), found["question_text"].to_pylist(),
                         strict=True))  # fmt: skip
    lines = []
    for r in rows.to_pylist():  # one page: at most PAGE rows
        sample = int(r.get("sample") or 0)
        href = _link("/question", run=r.get("run_id") or "", id=r["question_id"], sample=sample)
        text = texts.get(r["question_id"], "")
        short = text if len(text) <= 160 else text[:157] + "…"
        outcome = str(r["outcome"])
        lines.append(
            f'<tr><td><a href="{escape(href)}">{escape(r["question_id"])}</a></td>'
            f"<td>{escape(str(r['card']))}</td><td>{escape(str(r['element']))}</td>"
            f'<td class="outcome-{outcome.replace(" ", "-")}">{escape(outcome)}</td>'
            f"<td>{_letter(r.get('chosen_index'))} / {_letter(r.get('correct_index'))}</td>"
            f'<td class="q">{escape(short)}</td></tr>'
        )
    params = {f: getattr(q, f) for f in ("card", "element", "domain", "grade", "outcome",
                                         "error_type", "text")}  # fmt: skip
    nav = []
    if q.page > 0:
        nav.append(
            f'<a href="{escape(_link("/questions", **params, page=q.page - 1))}">← previous</a>'
        )
    if (q.page + 1) * PAGE < total:
        nav.append(f'<a href="{escape(_link("/questions", **params, page=q.page + 1))}">next →</a>')
    first = q.page * PAGE + 1 if total else 0
    return page(
        "Answers",
        f'<form class="filters" method="get" action="/questions">{form}</form>'
        f'<p class="meta" id="count">{total:,} answers; showing {first:,}–'
        f"{min(total, (q.page + 1) * PAGE):,}</p>"
        '<div class="scroll"><table><tr><th>question</th><th>card</th><th>element</th>'
        "<th>outcome</th><th>chose / key</th><th>text</th></tr>"
        f"{''.join(lines)}</table></div><p>{' · '.join(nav)}</p>",
    )


def _letter(i: Any) -> str:
    if i is None or i < 0:
        return "—"
    return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i] if i < 26 else str(i)


def question(data: ViewerData, run_id: str, question_id: str, sample: int) -> str | None:
    row = data.row(run_id, question_id, sample)
    if row is None:
        return None
    bank = data.bank_row(question_id)
    chosen = row.get("chosen_index")
    answer = Answer(
        question_id=question_id, run_id=run_id, sample=sample, outcome=str(row["outcome"]),
        chosen=chosen if chosen is not None and chosen >= 0 else None,
        correct=row.get("correct_index") if row.get("correct_index") is not None else -1,
        probs=row.get("option_probs"), response=row.get("response_text"),
        error=row.get("error"), options=bank.get("options"),
        option_tags=bank.get("option_tags"), template=bank.get("template_id"),
        explanation=bank.get("explanation"),
        transcript=data.transcript(run_id, question_id, sample),
    )  # fmt: skip
    text = bank.get("question_text")
    body = (
        f'<p class="meta">{escape(str(row["card"]))} · {escape(str(row["element"]))} · domain '
        f"{escape(str(row.get('domain')))} · grade {escape(str(row.get('grade')))}</p>"
        + (f"<h2>Question</h2><pre>{escape(text)}</pre>" if text else "")
        + f'<div id="answer">{_answer(answer).replace("<details ", "<details open ", 1)}</div>'
    )
    return page(question_id, body)
