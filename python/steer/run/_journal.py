"""The append-only JSONL journal a run writes as responses arrive.

Each line is one response row. Lines are appended in batches and fsynced, so
a crash loses at most the batch in flight; a line cut short by a kill is
detected (no trailing newline), reported and trimmed before appending again.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.json as pajson

from steer.schema import RESPONSE_COLUMNS, RESPONSE_SCHEMA, conform


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
    """Read a journal; bad or truncated lines are skipped and reported by number."""
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
        table = pajson.read_json(io.BytesIO(body))
    except pa.ArrowInvalid:
        table, bad = _read_line_by_line(body)
        problems.extend(f"{path}:{n}: {why}; line skipped" for n, why in bad)
    return JournalRead(conform(table, RESPONSE_COLUMNS, str(path)), problems, cut)


def _read_line_by_line(body: bytes) -> tuple[pa.Table, list[tuple[int, str]]]:
    rows, bad = [], []
    for number, line in enumerate(body.decode("utf-8", errors="replace").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            bad.append((number, f"invalid JSON ({exc.msg})"))
            continue
        if not isinstance(row, dict):
            bad.append((number, "not a JSON object"))
            continue
        rows.append(row)
    return pa.Table.from_pylist(rows) if rows else RESPONSE_SCHEMA.empty_table(), bad
