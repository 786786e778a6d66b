"""The answers behind a report cell: for each (card, element), the questions
it was graded on, wrong ones first, with the exact prompt sent, the raw and
parsed reply, the probabilities and the key.

Selection is vectorised over the responses (sort, then a position within
each cell); Python touches only the rows shown. Transcripts are found the
same way: pyarrow's JSON reader reads every line's question ids, and only
the lines shown are decoded in full.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
from pydantic import ValidationError

from steer.run._transcripts import TRANSCRIPTS
from steer.schema.transcript import Transcript

#: Outcomes, in the order a reader wants them: what went wrong first.
OUTCOMES = ("error", "no answer", "wrong", "right")


@dataclass
class Answer:
    question_id: str
    run_id: str
    sample: int
    outcome: str
    chosen: int | None
    correct: int
    probs: list[float] | None
    response: str | None
    error: str | None
    options: list[str] | None = None
    option_tags: list[str] | None = None
    template: str | None = None
    explanation: str | None = None
    transcript: Transcript | None = None


@dataclass
class CellAnswers:
    title: str
    element: str
    n: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    shown: list[Answer] = field(default_factory=list)


def _titles(table: pa.Table) -> pa.Array:
    """The card title of each row: model, and ' · adaptation' when there is
    one. Labels are built once per card and spread by the rows' card codes
    (building a label string per row costs a second per million rows)."""
    from steer.score._coverage import card_codes
    from steer.score._outcomes import adaptation_labels

    if not table.num_rows:
        return pa.array([], pa.string())
    codes, first = card_codes(table)
    firsts = table.take(pa.array(first))
    model = firsts["model"].cast(pa.string()).to_pylist()
    if "adaptation" in table.column_names:
        labels = pc.fill_null(adaptation_labels(firsts["adaptation"]), "").to_pylist()
    else:
        labels = [""] * len(first)
    titles = [f"{m} · {a}" if a else str(m) for m, a in zip(model, labels, strict=True)]
    return pa.DictionaryArray.from_arrays(pa.array(codes, pa.int32()), pa.array(titles))


def _outcome(table: pa.Table) -> np.ndarray:
    """Index into OUTCOMES per row."""
    n = table.num_rows
    chosen = table["chosen_index"].to_numpy(zero_copy_only=False)
    correct = table["correct_index"].to_numpy(zero_copy_only=False)
    chosen = np.where(np.isnan(chosen.astype(float)), -1, chosen).astype(np.int64)
    error = np.zeros(n, dtype=bool)
    if "error" in table.column_names:
        error = pc.fill_null(pc.is_valid(table["error"]), False).to_numpy(zero_copy_only=False)
    out = np.where(chosen == correct, 3, 2)
    out = np.where(chosen < 0, 1, out)
    return np.where(error, 0, out)


def select_answers(table: pa.Table, per_cell: int = 5) -> dict[tuple[str, str], CellAnswers]:
    """For each (card title, element): counts by outcome and up to `per_cell`
    answers to show, those not right first (right ones only where none is wrong)."""
    if table is None or not table.num_rows:
        return {}
    table = table.filter(pc.is_valid(table["correct_index"]))  # answer-graded rows
    if not table.num_rows:
        return {}
    titles = _titles(table).cast(pa.string())
    outcome = _outcome(table)
    key = pc.binary_join_element_wise(titles, table["element"], "\x1f")
    codes = pc.dictionary_encode(key).combine_chunks()
    group = codes.indices.to_numpy(zero_copy_only=False)
    labels = codes.dictionary.to_pylist()
    order = np.lexsort((np.arange(len(group)), outcome, group))
    g_sorted = group[order]
    starts = np.r_[0, np.flatnonzero(g_sorted[1:] != g_sorted[:-1]) + 1]
    sizes = np.diff(np.r_[starts, len(g_sorted)])
    position = np.arange(len(g_sorted)) - np.repeat(starts, sizes)
    counts = np.zeros((len(labels), len(OUTCOMES)), dtype=np.int64)
    np.add.at(counts, (group, outcome), 1)
    not_right = counts[:, :3].sum(axis=1)
    # Right answers are shown only in cells with nothing else to show.
    show_right = not_right[g_sorted] == 0
    keep = (position < per_cell) & ((outcome[order] < 3) | show_right)
    rows = order[keep]
    out: dict[tuple[str, str], CellAnswers] = {}
    for i, label in enumerate(labels):
        title, element = label.split("\x1f", 1)
        out[(title, element)] = CellAnswers(
            title, element, int(counts[i].sum()),
            {name: int(c) for name, c in zip(OUTCOMES, counts[i], strict=True) if c},
        )  # fmt: skip
    picked = table.take(pa.array(rows)).to_pylist()
    for row, g, o in zip(picked, group[rows], outcome[rows], strict=True):
        title, element = labels[g].split("\x1f", 1)
        out[(title, element)].shown.append(
            Answer(
                question_id=row["question_id"],
                run_id=row.get("run_id") or "",
                sample=int(row.get("sample") or 0),
                outcome=OUTCOMES[o],
                chosen=row["chosen_index"] if (row["chosen_index"] or 0) >= 0 else None,
                correct=row["correct_index"],
                probs=row.get("option_probs"),
                response=row.get("response_text"),
                error=row.get("error"),
            )
        )
    return out


def _run_dirs(runs: list[str]) -> dict[str, Path]:
    """run_id → directory, for the run directories among `runs`."""
    out: dict[str, Path] = {}
    for run in runs:
        path = Path(run)
        manifest = path / "manifest.json"
        if not manifest.is_file():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and isinstance(data.get("run_id"), str):
            out[data["run_id"]] = path
            bank = data.get("bank_path")
            if isinstance(bank, str):
                # Recorded relative to where `steer run` ran: here, or beside the runs.
                found = [p for p in (Path(bank), path.parent / bank, path.parent.parent / bank)
                         if p.is_file()]  # fmt: skip
                if found:
                    out[f"\x1fbank:{data['run_id']}"] = found[0]
    return out


_IDS = pa.schema([("question_ids", pa.list_(pa.string())), ("sample", pa.int64())])


def _transcripts(path: Path, wanted: set[tuple[str, int]]) -> dict[tuple[str, int], Transcript]:
    """The last transcript of each wanted (question id, sample) in a run's
    transcripts.jsonl; lines cut short by a kill or unreadable are skipped."""
    try:
        data = path.read_bytes()
    except OSError:
        return {}
    data = data[: data.rfind(b"\n") + 1]  # a kill can leave the last line unfinished
    if not data or not wanted:
        return {}
    try:
        ids = pj.read_json(
            pa.BufferReader(data),
            parse_options=pj.ParseOptions(explicit_schema=_IDS, unexpected_field_behavior="ignore"),
        )
    except pa.ArrowInvalid:
        return {}
    lengths = pc.list_value_length(ids["question_ids"]).to_numpy(zero_copy_only=False)
    line_of = np.repeat(np.arange(ids.num_rows), np.nan_to_num(lengths).astype(np.int64))
    flat = pc.list_flatten(ids["question_ids"])
    hit = pc.is_in(flat, value_set=pa.array(sorted({q for q, _ in wanted}))).to_numpy(
        zero_copy_only=False
    )
    lines = sorted(set(line_of[hit].tolist()))
    ends = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == ord("\n"))
    starts = np.r_[0, ends[:-1] + 1]
    found: dict[tuple[str, int], Transcript] = {}
    for line in lines:  # only the lines shown: a handful per cell
        try:
            t = Transcript.model_validate_json(data[starts[line] : ends[line]])
        except ValidationError:
            continue
        for q in t.question_ids:
            if (q, t.sample) in wanted:
                found[(q, t.sample)] = t  # later lines win: the current attempt
    return found


def _bank_rows(bank: Path, ids: set[str]) -> dict[str, dict[str, Any]]:
    """Options, distractor tags, template and worked answer of the questions shown."""
    import pyarrow.parquet as pq

    wanted = ["question_id", "options", "option_tags", "template_id", "explanation"]
    try:
        names = pq.read_schema(bank).names
        table = pq.read_table(bank, columns=[c for c in wanted if c in names])
    except (OSError, pa.ArrowException):
        return {}
    table = table.filter(pc.is_in(table["question_id"], value_set=pa.array(sorted(ids))))
    return {r["question_id"]: r for r in table.to_pylist()}


def attach_sources(cells: dict[tuple[str, str], CellAnswers], runs: list[str]) -> None:
    """Fill each shown answer's transcript and option texts from its run directory."""
    dirs = _run_dirs(runs)
    by_run: dict[str, list[Answer]] = {}
    for cell in cells.values():
        for a in cell.shown:
            by_run.setdefault(a.run_id, []).append(a)
    for run_id, answers in by_run.items():
        folder = dirs.get(run_id)
        if folder is None:
            continue
        found = _transcripts(folder / TRANSCRIPTS, {(a.question_id, a.sample) for a in answers})
        bank = dirs.get(f"\x1fbank:{run_id}")
        rows = _bank_rows(bank, {a.question_id for a in answers}) if bank else {}
        for a in answers:
            a.transcript = found.get((a.question_id, a.sample))
            row = rows.get(a.question_id, {})
            a.options, a.option_tags = row.get("options"), row.get("option_tags")
            a.template, a.explanation = row.get("template_id"), row.get("explanation")


def answers_for_report(table: Any, runs: list[str], per_cell: int = 5) -> dict[
    tuple[str, str], CellAnswers
]:  # fmt: skip
    cells = select_answers(table, per_cell)
    attach_sources(cells, runs)
    return cells
