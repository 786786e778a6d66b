"""Read tables from Parquet and JSON Lines files with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.json as pajson
import pyarrow.parquet as pq

from steer.errors import FileFormatError

PARQUET_SUFFIXES = {".parquet", ".pq"}
JSONL_SUFFIXES = {".jsonl", ".ndjson", ".json"}


def read_table(path: str | Path) -> pa.Table:
    """Read a Parquet or JSONL file into an Arrow table.

    Errors name the file and, for JSONL, the first offending line.
    """
    path = Path(path)
    if not path.exists():
        raise FileFormatError("no such file", source=str(path))
    if path.is_dir():
        raise FileFormatError(
            "is a directory, expected a .parquet or .jsonl file", source=str(path)
        )
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        try:
            return pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise FileFormatError(
                f"not a readable Parquet file ({exc})", source=str(path)
            ) from None
    if suffix in JSONL_SUFFIXES:
        return read_jsonl(path)
    raise FileFormatError(
        f"unsupported file type {suffix or '(none)'!r}; use .parquet or .jsonl",
        source=str(path),
    )


def read_jsonl(path: Path) -> pa.Table:
    """Parse JSON Lines with Arrow; on failure, locate the bad line in Python."""
    if path.stat().st_size == 0:
        return pa.table({})
    try:
        return pajson.read_json(path)
    except pa.ArrowInvalid as exc:
        # Arrow's messages give no line number; find it (error path only).
        raise _locate_jsonl_error(path, str(exc)) from None


def _locate_jsonl_error(path: Path, arrow_message: str) -> FileFormatError:
    kinds: dict[str, tuple[str, int]] = {}
    with path.open(encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                return FileFormatError(
                    f"invalid JSON ({exc.msg} at column {exc.colno})",
                    source=str(path),
                    where=f"line {number}",
                )
            if not isinstance(row, dict):
                return FileFormatError(
                    "each line must be a JSON object", source=str(path), where=f"line {number}"
                )
            for key, value in row.items():
                kind = _json_kind(value)
                if kind == "null":
                    continue
                seen = kinds.setdefault(key, (kind, number))
                if seen[0] != kind and {seen[0], kind} != {"int", "float"}:
                    return FileFormatError(
                        f"is {kind} here but {seen[0]} on line {seen[1]}",
                        source=str(path),
                        where=f"line {number}",
                        field=key,
                    )
    return FileFormatError(f"cannot read JSON lines ({arrow_message})", source=str(path))


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "object"
