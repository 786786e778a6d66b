"""`steer show RUN QUESTION_ID`: the transcript of one question — the exact
messages sent, the sampling parameters, the raw reply and the parsed answer."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from steer._suggest import did_you_mean
from steer.errors import InputError
from steer.schema.transcript import Transcript


def _time(unix: float) -> str:
    return dt.datetime.fromtimestamp(unix, dt.UTC).isoformat(timespec="seconds")


def render(t: Transcript) -> list[str]:
    """A transcript as text lines for a terminal."""
    lines = [
        f"run {t.run_id} · {t.model} · {t.adaptation.label()} · sample {t.sample}",
        f"questions {', '.join(t.question_ids)} · started {_time(t.started_at)} · "
        f"took {t.finished_at - t.started_at:.2f} s",
    ]
    for row in t.given or []:
        lines += ["", "── given to the agent", *(f"  {k}: {v}" for k, v in row.items())]
    for i, ex in enumerate(t.exchanges, 1):
        head = f"── request {i} ({ex.kind})"
        lines += ["", f"{head}: {ex.params}"]
        for m in ex.messages:
            lines.append(f"[{m.get('role', '?')}]")
            lines += [f"  {line}" for line in m.get("content", "").splitlines() or [""]]
        if ex.error is not None:
            lines.append(f"── error: {ex.error}")
        else:
            cost = "" if ex.cost_usd is None else f", ${ex.cost_usd:.6f}"
            origin = "cache" if ex.cached else f"{ex.latency_s:.2f} s"
            lines.append(
                f"── reply ({origin}, {ex.tokens_in} tokens in, {ex.tokens_out} out{cost})"
            )
            lines += [f"  {line}" for line in (ex.reply_text or "").splitlines() or [""]]
        if ex.raw_reply is not None and (ex.error is not None or ex.reply_text is None):
            lines += ["── raw reply", f"  {ex.raw_reply[:2000]}"]
    lines.append("")
    for a in t.answers:
        chosen = (
            "no answer"
            if a.chosen_index == -1
            else "no listed option (wrong)"
            if a.chosen_index == -2
            else f"option {a.chosen_index}"
        )
        probs = "" if a.option_probs is None else f", probs {[round(p, 3) for p in a.option_probs]}"
        error = "" if a.error is None else f" ({a.error})"
        lines.append(f"answer {a.question_id}: {chosen}{probs}{error}")
    return lines


@click.command("show")
@click.argument("run", type=click.Path(file_okay=False, path_type=Path))
@click.argument("question_id")
@click.option("--json", "as_json", is_flag=True, help="Print the transcript as JSON.")
def show_cmd(run: Path, question_id: str, as_json: bool) -> None:
    """Print the transcript of QUESTION_ID in run directory RUN."""
    from steer.run import JOURNAL, read_journal
    from steer.run._transcripts import TRANSCRIPTS, find_transcript

    path = run / TRANSCRIPTS
    if not run.is_dir():
        raise InputError(f"{run}: no such run directory")
    if not path.exists():
        raise InputError(
            f"{path}: no transcripts (the run was made before steer kept them, or asked nothing)"
        )
    found = find_transcript(path, question_id)
    if found is None:
        known = read_journal(run / JOURNAL).table["question_id"].to_pylist()
        close = did_you_mean(question_id, [str(k) for k in known], n=3)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else ""
        raise InputError(f"{path}: no transcript for question {question_id!r}{hint}")
    if as_json:
        click.echo(found.model_dump_json(indent=2))
        return
    for line in render(found):
        click.echo(line)
