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
import math
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
from steer._scan import MAX_DEPTH, check_bytes
from steer.errors import FileFormatError, InputError
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


def read_journal(path: Path, *, strict: bool = False) -> JournalRead:
    """Read a journal; bad or truncated lines are skipped and reported by
    number. The journal is append-only, so a question asked again
    (`--retry-errors`) has several rows: the last one per response key
    (run, model, adaptation, bank, question_id, sample) wins.

    `strict` reads a response table FILE a user gave (not a run's own
    journal): the first bad line (invalid JSON or UTF-8, too deep, a field of
    the wrong type, out of range or not finite) is a `FileFormatError` naming
    the file, line and field; the last line needs no newline; nothing is
    deduplicated (a repeated key is the loader's error to report)."""
    raw = path.read_bytes() if path.exists() else b""
    if strict:
        return JournalRead(_read_strict(raw, str(path)), [], len(raw))
    cut = raw.rfind(b"\n") + 1
    problems = []
    if cut < len(raw):
        line_no = raw[:cut].count(b"\n") + 1
        problems.append(f"{path}:{line_no}: truncated line ignored (the run was interrupted)")
    body = raw[:cut]
    if not body.strip():
        return JournalRead(RESPONSE_SCHEMA.empty_table(), problems, cut)
    try:
        table = _read_fast(body, str(path))
    except (pa.ArrowException, InputError, OverflowError):
        # Some line is not a response row: find which, one line at a time.
        table, bad = _read_line_by_line(body)
        problems.extend(
            f"{path}:{n}: {f'field {name!r}: ' if name else ''}{why}; line skipped"
            for n, why, name in bad
        )
    return JournalRead(_last_per_key(table), problems, cut)


def _read_fast(body: bytes, source: str) -> pa.Table:
    """The whole body with Arrow, conformed (raises on any bad line)."""
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
    return conform(table, RESPONSE_COLUMNS, source)


def _read_strict(raw: bytes, source: str) -> pa.Table:
    """A response table file, every line a valid row, or a one-line error."""
    if not raw.strip():
        return RESPONSE_SCHEMA.empty_table()
    check_bytes(raw, source)  # depth and UTF-8, naming line:column and key
    body = raw if raw.endswith(b"\n") else raw + b"\n"
    try:
        return _read_fast(body, source)
    except (pa.ArrowException, InputError, OverflowError):
        # Some line is bad, or leaves out a field that has a default: row by row.
        pass
    table, bad = _read_line_by_line(body, stop_at_first=True)
    if bad:
        number, why, where = bad[0]
        raise FileFormatError(why, source=source, where=f"line {number}", field=where)
    try:
        return conform(table, RESPONSE_COLUMNS, source)
    except FileFormatError as exc:
        raise _at_line(exc, body, source) from None


def _at_line(exc: FileFormatError, body: bytes, source: str) -> FileFormatError:
    """`exc` (at a table row) re-pointed at its file line, blank lines counted."""
    where = exc.where or ""
    if not where.startswith("line "):
        return exc
    row = int(where.removeprefix("line ")) - 1
    lines = [n for n, line in enumerate(body.split(b"\n"), 1) if line.strip()]
    if row >= len(lines):
        return exc
    return FileFormatError(exc.problem, source=source, where=f"line {lines[row]}", field=exc.field)


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


def _read_line_by_line(
    body: bytes, *, stop_at_first: bool = False
) -> tuple[pa.Table, list[tuple[int, str, str | None]]]:
    """The rows of the good lines, and (line, why, field) of each bad one."""
    rows, bad = [], []
    for number, line in enumerate(body.split(b"\n"), 1):
        if stop_at_first and bad:
            break
        if not line.strip():
            continue
        try:
            text = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            bad.append((number, f"invalid UTF-8 at byte {exc.start}", None))
            continue
        try:
            row = Response.model_validate_json(text)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(x) for x in first["loc"])
            if first["type"] == "json_invalid":
                detail = first["msg"].removeprefix("Invalid JSON: ")
                bad.append((number, f"invalid JSON ({detail})", None))
            elif first["type"] == "model_type":
                bad.append((number, "not a JSON object", None))
            else:
                bad.append((number, first["msg"], where or None))
            continue
        dumped = row.model_dump()
        problem = _row_problem(dumped)
        if problem is not None:
            bad.append((number, *problem))
            continue
        rows.append(dumped)
    if not rows:
        return RESPONSE_SCHEMA.empty_table(), bad
    table = pa.Table.from_pylist(rows, schema=RESPONSE_SCHEMA)
    return table, bad


def _row_problem(row: dict[str, Any]) -> tuple[str, str] | None:
    """(why, field) when a validated row does not fit the table's types: an
    integer out of range, or a float that is not finite."""
    for name, value in row.items():
        if name not in RESPONSE_SCHEMA.names or value is None:
            continue
        kind = RESPONSE_SCHEMA.field(name).type
        if pa.types.is_integer(kind) and isinstance(value, int):
            info = np.iinfo(kind.to_pandas_dtype())
            if not info.min <= value <= info.max:
                return f"{value} is out of range for {kind}", name
        values = value if isinstance(value, list) else [value]
        for v in values:
            if isinstance(v, float) and not math.isfinite(v):
                return f"{v} is not a finite number (write null for no value)", name
    return None
