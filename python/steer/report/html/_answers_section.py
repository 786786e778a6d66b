"""The report's `answers` section: for each model × element cell, the
questions behind it (wrong ones first) with the exact prompt, the reply as
received and as read, the probabilities, the key and where the question
came from. Every cell is a `<details>` with a stable id that the heatmap,
the tables and the diagnostics link to; opening a link opens the cell."""

from __future__ import annotations

import hashlib
from html import escape

from steer.report._answers import Answer, CellAnswers
from steer.schema.transcript import Transcript

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def cell_anchor(title: str, element: str) -> str:
    """A stable id for a (card title, element) cell, safe in HTML and URLs."""
    digest = hashlib.blake2b(f"{title}\x1f{element}".encode(), digest_size=6).hexdigest()
    return f"cell-{digest}"


def _option(a: Answer, i: int | None) -> str:
    if i is None:
        return "no answer"
    text = a.options[i] if a.options and 0 <= i < len(a.options) else f"option {i + 1}"
    return f"{LETTERS[i] if i < len(LETTERS) else i}. {text}"


def _options_list(a: Answer) -> str:
    if not a.options:
        return ""
    items = []
    for i, text in enumerate(a.options):
        marks = []
        if i == a.correct:
            marks.append("key")
        if i == a.chosen:
            marks.append("chosen")
        tag = a.option_tags[i] if a.option_tags and i < len(a.option_tags) else ""
        p = a.probs[i] if a.probs and i < len(a.probs) else None
        extra = "".join(
            [
                f' <span class="mark">{" · ".join(marks)}</span>' if marks else "",
                f" <small>p = {p:.3f}</small>" if p is not None else "",
                f" <small>({escape(tag)})</small>" if tag and tag != "correct" else "",
            ]
        )
        classes = " ".join(marks)
        items.append(f'<li class="{classes}">{escape(text)}{extra}</li>')
    return f'<dt>options</dt><dd><ol type="A">{"".join(items)}</ol></dd>'


def _transcript(t: Transcript | None) -> str:
    if t is None:
        return "<dt>prompt</dt><dd>no transcript in the run directory</dd>"
    out = []
    for row in t.given or []:
        shown = "\n".join(f"{k}: {v}" for k, v in row.items())
        out.append(f"<dt>given to the agent</dt><dd><pre>{escape(shown)}</pre></dd>")
    for i, ex in enumerate(t.exchanges, 1):
        messages = "".join(
            f'<div class="msg"><b>{escape(m.get("role", "?"))}</b>'
            f"<pre>{escape(m.get('content', ''))}</pre></div>"
            for m in ex.messages
        )
        params = escape(", ".join(f"{k}={v}" for k, v in ex.params.items()))
        out.append(f"<dt>request {i} ({ex.kind}) <small>{params}</small></dt><dd>{messages}</dd>")
        if ex.error is not None:
            out.append(f"<dt>error</dt><dd><pre>{escape(ex.error)}</pre></dd>")
        else:
            raw = ex.raw_reply if ex.raw_reply is not None else ex.reply_text
            out.append(f"<dt>reply {i}</dt><dd><pre>{escape(raw or '')}</pre></dd>")
    return "".join(out)


def _answer(a: Answer) -> str:
    if a.outcome in ("wrong", "right"):
        verdict = f"{a.outcome}: chose {_option(a, a.chosen)}"
        if a.outcome == "wrong":
            verdict += f"; key {_option(a, a.correct)}"
    else:
        verdict = f"{a.outcome}; key {_option(a, a.correct)}"
    sample = f" · sample {a.sample}" if a.sample else ""
    read = escape(a.response or "") if a.response is not None else "—"
    source = f"<dt>template</dt><dd>{escape(a.template)}</dd>" if a.template else ""
    worked = f"<dt>worked answer</dt><dd>{escape(a.explanation)}</dd>" if a.explanation else ""
    error = f"<dt>error</dt><dd>{escape(a.error)}</dd>" if a.error else ""
    return (
        f'<details class="answer {a.outcome.replace(" ", "-")}"><summary>'
        f"<code>{escape(a.question_id)}</code>{escape(sample)} — {escape(verdict)}</summary>"
        f"<dl>{_options_list(a)}<dt>reply as read</dt><dd>{read}</dd>{error}"
        f"{_transcript(a.transcript)}{source}{worked}</dl></details>"
    )


def answers_section(cells: dict[tuple[str, str], CellAnswers], per_cell: int) -> str:
    if not cells:
        return "<p>No answer-graded question in these runs.</p>"
    out = [
        f'<p class="meta">Up to {per_cell} answers per model × element, those that are not '
        "right first (right ones only where every answer is right); `steer show RUN "
        "QUESTION_ID` prints any other.</p>"
    ]
    for (title, element), cell in sorted(cells.items()):
        counts = ", ".join(f"{n} {name}" for name, n in cell.counts.items())
        out.append(
            f'<details class="cell" id="{cell_anchor(title, element)}"><summary>'
            f"{escape(title)} · <b>{escape(element)}</b>: {escape(counts)} "
            f"(of {cell.n})</summary>{''.join(_answer(a) for a in cell.shown)}</details>"
        )
    return "".join(out)
