"""What `steer view` reads, each piece on first use: the responses (with
every asked question, as `steer score` counts them), the banks' texts for
search and for a question's options, and per run an index of its
transcripts. Filters and search are Arrow kernels over whole columns."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pj
import pyarrow.parquet as pq
from pydantic import ValidationError

from steer.report._answers import OUTCOMES, _outcome, _run_dirs, _titles
from steer.run._transcripts import TRANSCRIPTS
from steer.schema.transcript import Transcript

#: Columns a filter may name, and how its value is read from the query string.
FILTERS = ("card", "element", "domain", "grade", "outcome", "error_type")
PAGE = 50


@dataclass(frozen=True)
class Query:
    card: str = ""
    element: str = ""
    domain: str = ""
    grade: int | None = None
    outcome: str = ""
    error_type: str = ""
    text: str = ""
    page: int = 0


class _TranscriptIndex:
    """Where each question's transcript lines are in one run's file."""

    def __init__(self, path: Path) -> None:
        self.path = path
        data = path.read_bytes() if path.is_file() else b""
        self.data = data[: data.rfind(b"\n") + 1]
        if not self.data:
            self.ids = pa.array([], pa.string())
            self.lines = np.zeros(0, dtype=np.int64)
            return
        schema = pa.schema([("question_ids", pa.list_(pa.string()))])
        table = pj.read_json(
            pa.BufferReader(self.data),
            parse_options=pj.ParseOptions(
                explicit_schema=schema, unexpected_field_behavior="ignore"
            ),
        )
        lengths = pc.fill_null(pc.list_value_length(table["question_ids"]), 0)
        self.lines = np.repeat(np.arange(table.num_rows), lengths.to_numpy(zero_copy_only=False))
        self.ids = pc.list_flatten(table["question_ids"]).combine_chunks()
        ends = np.flatnonzero(np.frombuffer(self.data, dtype=np.uint8) == ord("\n"))
        self.ends = ends
        self.starts = np.r_[0, ends[:-1] + 1]

    def find(self, question_id: str, sample: int) -> Transcript | None:
        hits = np.flatnonzero(pc.equal(self.ids, question_id).to_numpy(zero_copy_only=False))
        found = None
        for line in sorted(set(self.lines[hits].tolist())):  # a handful: retries of one question
            try:
                t = Transcript.model_validate_json(self.data[self.starts[line] : self.ends[line]])
            except ValidationError:
                continue
            if t.sample == sample:
                found = t  # the last attempt wins
        return found


class ViewerData:
    def __init__(self, runs: list[Path], bank: Path | None = None) -> None:
        self.runs = runs
        self.bank = bank
        self._lock = threading.Lock()
        self._transcripts: dict[str, _TranscriptIndex] = {}

    @cached_property
    def loaded(self) -> Any:
        from steer.score import load_responses

        return load_responses(self.runs, bank=self.bank)

    @cached_property
    def table(self) -> pa.Table:
        """The responses with each row's card title and outcome (see OUTCOMES)."""
        table = self.loaded.table
        graded = pc.is_valid(table["correct_index"]).to_numpy(zero_copy_only=False)
        outcome = np.where(graded, _outcome(table), -1)  # -1: consistency-graded
        table = table.append_column("card", _titles(table))
        labels = pa.array([*OUTCOMES, "consistency"])
        return table.append_column(
            "outcome", labels.take(pa.array(np.where(outcome < 0, 4, outcome)))
        )

    @cached_property
    def dirs(self) -> dict[str, Path]:
        return _run_dirs([str(r) for r in self.runs])

    @cached_property
    def texts(self) -> pa.Table:
        """question_id, question_text, options, option_tags, template_id,
        explanation of every bank the runs answered (or --bank)."""
        paths = {p for k, p in self.dirs.items() if k.startswith("\x1fbank:")}
        if self.bank is not None:
            paths.add(self.bank)
        wanted = ["question_id", "question_text", "options", "option_tags", "template_id",
                  "explanation"]  # fmt: skip
        tables = []
        for path in sorted(paths):
            try:
                names = pq.read_schema(path).names
                tables.append(pq.read_table(path, columns=[c for c in wanted if c in names]))
            except (OSError, pa.ArrowException):
                continue
        if not tables:
            return pa.table({"question_id": pa.array([], pa.string()),
                             "question_text": pa.array([], pa.string())})  # fmt: skip
        return pa.concat_tables(tables, promote_options="permissive")

    def choices(self, column: str) -> list[str]:
        table = self.table
        if column not in table.column_names:
            return []
        values = pc.unique(table[column].drop_null()).to_pylist()
        return [str(v) for v in sorted(values, key=lambda v: (isinstance(v, str), v))]

    def select(self, q: Query) -> tuple[int, pa.Table]:
        """(rows matching, the page of them)."""
        table = self.table
        mask = None

        def both(m: Any) -> None:
            nonlocal mask
            mask = m if mask is None else pc.and_(mask, m)

        for name in ("card", "element", "domain", "outcome", "error_type"):
            value = getattr(q, name)
            if value and name in table.column_names:
                both(pc.equal(table[name].cast(pa.string()), value))
        if q.grade is not None and "grade" in table.column_names:
            both(pc.equal(table["grade"], q.grade))
        if q.text:
            texts = self.texts
            hit = pc.match_substring(texts["question_text"], q.text, ignore_case=True)
            ids = texts["question_id"].filter(pc.fill_null(hit, False))
            both(pc.is_in(table["question_id"], value_set=ids.combine_chunks()))
        chosen = table if mask is None else table.filter(pc.fill_null(mask, False))
        return chosen.num_rows, chosen.slice(q.page * PAGE, PAGE)

    def row(self, run_id: str, question_id: str, sample: int) -> dict[str, Any] | None:
        table = self.table
        mask = pc.and_(pc.equal(table["question_id"], question_id),
                       pc.equal(pc.fill_null(table["sample"], 0), sample))  # fmt: skip
        if "run_id" in table.column_names and run_id:
            mask = pc.and_(mask, pc.equal(table["run_id"].cast(pa.string()), run_id))
        rows = table.filter(pc.fill_null(mask, False)).to_pylist()
        return rows[-1] if rows else None

    def bank_row(self, question_id: str) -> dict[str, Any]:
        texts = self.texts
        rows = texts.filter(pc.equal(texts["question_id"], question_id)).to_pylist()
        return rows[0] if rows else {}

    def transcript(self, run_id: str, question_id: str, sample: int) -> Transcript | None:
        folder = self.dirs.get(run_id)
        if folder is None:
            return None
        with self._lock:
            index = self._transcripts.get(run_id)
            if index is None:
                index = self._transcripts[run_id] = _TranscriptIndex(folder / TRANSCRIPTS)
        return index.find(question_id, sample)
