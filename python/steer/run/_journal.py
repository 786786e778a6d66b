"""The append-only JSONL journal a run writes as responses arrive.

Each line is one response row. Lines are appended in batches and fsynced, so
a crash loses at most the batch in flight; a line cut short by a kill is
detected (no trailing newline), reported and trimmed before appending again.
A line that is not a response row (bad JSON, invalid UTF-8, a field of the
wrong type) is reported by number and skipped, never blocking a resume.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.json as pajson
from pydantic import ValidationError

from steer._native import scan_json
from steer._scan import MAX_DEPTH
from steer.errors import InputError
from steer.schema import RESPONSE_COLUMNS, RESPONSE_SCHEMA, Response, conform


@dataclass
class JournalRead:
    table: pa.Table
    problems: list[str] = field(default_factory=list)
    complete_bytes: int = 0  # length of the prefix made of whole lines


def append_rows(path: Path, rows: Iterable[dict[str, Any]]) -> None:
    """Append rows as JSON lines and fsync before returning."""
    data = "".join(json.dumps(r, separators=(",", ":"), allow_nan=False) + "\n" for r in rows)
    with path.open("a", encoding="utf-8") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def trim_partial_line(path: Path, complete_bytes: int) -> None:
    """Cut a trailing partial line (left by a kill) so appends start clean."""
    if path.exists() and path.stat().st_size > complete_bytes:
        with path.open("r+b") as fh:
            fh.truncate(complete_bytes)
            fh.flush()
            os.fsync(fh.fileno())


def read_journal(path: Path) -> JournalRead:
    """Read a journal; bad or truncated lines are skipped and reported by
    number. The journal is append-only, so a question asked again
    (`--retry-errors`) has several rows: the last one per response key
    (run, model, adaptation, bank, question_id, sample) wins."""
    raw = path.read_bytes() if path.exists() else b""
    cut = raw.rfind(b"\n") + 1
    problems = []
    if cut < len(raw):
        line_no = raw[:cut].count(b"\n") + 1
        problems.append(f"{path}:{line_no}: truncated line ignored (the run was interrupted)")
    body = raw[:cut]
    if not body.strip():
        return JournalRead(RESPONSE_SCHEMA.empty_table(), problems, cut)
    try:
        # Arrow's reader overflows its stack on deeply nested JSON (a crash,
        # not an exception) and accepts bad UTF-8: scan first.
        if scan_json(body, MAX_DEPTH) is not None:
            raise pa.ArrowInvalid("unsafe bytes")
        table = pajson.read_json(
            io.BytesIO(body),
            parse_options=pajson.ParseOptions(
                explicit_schema=RESPONSE_SCHEMA, unexpected_field_behavior="error"
            ),
        )
        table = conform(table, RESPONSE_COLUMNS, str(path))
    except (pa.ArrowException, InputError):
        # Some line is not a response row: find which, one line at a time.
        table, bad = _read_line_by_line(body)
        problems.extend(f"{path}:{n}: {why}; line skipped" for n, why in bad)
    return JournalRead(_last_per_key(table), problems, cut)


# A response's key within one run: a run asks a question sample again only
# with --retry-errors, and the later row supersedes the earlier one. The
# model, adaptation and bank are part of the key so that a JSONL table holding
# several runs (read through here too) never loses one run's rows to another.
_KEY = ("run_id", "model", "bank_sha256", "question_id", "sample")


def _last_per_key(table: pa.Table) -> pa.Table:
    if table.num_rows < 2:
        return table
    adaptation = table["adaptation"].combine_chunks()
    keys = {name: table[name] for name in _KEY if name in table.column_names}
    for part in adaptation.type:
        keys[f"adaptation.{part.name}"] = adaptation.field(part.name)
    keys["_row"] = pa.array(np.arange(table.num_rows, dtype=np.int64))
    indexed = pa.table(keys)
    last = indexed.group_by([k for k in keys if k != "_row"], use_threads=False).aggregate(
        [("_row", "max")]
    )
    if last.num_rows == table.num_rows:
        return table
    return table.take(np.sort(last["_row_max"].to_numpy()))


def _read_line_by_line(body: bytes) -> tuple[pa.Table, list[tuple[int, str]]]:
    rows, bad = [], []
    for number, line in enumerate(body.split(b"\n"), 1):
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append((number, f"invalid UTF-8 at byte {exc.start}"))
            continue
        try:
            row = Response.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            if first["type"] == "json_invalid":
                detail = first["msg"].removeprefix("Invalid JSON: ")
                what = f"invalid JSON ({detail})"
            elif first["type"] == "model_type":
                what = "not a JSON object"
            else:
                what = f"field {where!r}: {first['msg']}" if where else first["msg"]
            bad.append((number, what))
            continue
        rows.append(row.model_dump())
    if not rows:
        return RESPONSE_SCHEMA.empty_table(), bad
    table = pa.Table.from_pylist(rows, schema=RESPONSE_SCHEMA)
    return table, bad
