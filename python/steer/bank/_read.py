"""Read tables from Parquet and JSON Lines files with one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.json as pajson
import pyarrow.parquet as pq

from steer._scan import check_bytes
from steer.errors import FileFormatError, row_location
from steer.schema._columns import first_true

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
    require_regular(path)
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        try:
            table = pq.read_table(path)
        except (pa.ArrowInvalid, OSError) as exc:
            raise FileFormatError(
                f"not a readable Parquet file ({exc})", source=str(path)
            ) from None
        check_utf8(table, str(path))
        return table
    if suffix in JSONL_SUFFIXES:
        return read_jsonl(path)
    raise FileFormatError(
        f"unsupported file type {suffix or '(none)'!r}; use .parquet or .jsonl",
        source=str(path),
    )


def require_regular(path: Path) -> None:
    """Refuse a path that exists but is not a regular file (a FIFO would block
    the read forever, a device like /dev/zero never ends)."""
    if path.exists() and not path.is_dir() and not path.is_file():
        raise FileFormatError(
            "not a regular file (a pipe, device or socket); give a .parquet or .jsonl file",
            source=str(path),
        )


def read_jsonl(path: Path) -> pa.Table:
    """Parse JSON Lines with Arrow; on failure, locate the bad line in Python."""
    if path.stat().st_size == 0:
        return pa.table({})
    data = path.read_bytes()
    # Arrow's reader overflows the C stack on deep nesting (a crash, not an
    # error) and would import bytes that are not UTF-8: refuse both first.
    check_bytes(data, str(path))
    try:
        return pajson.read_json(pa.BufferReader(data))
    except pa.ArrowInvalid as exc:
        # Arrow's messages give no line number; find it (error path only).
        raise _locate_jsonl_error(path, str(exc)) from None


def check_utf8(table: pa.Table, source: str) -> None:
    """Raise `FileFormatError` naming the first row and column holding a string
    that is not UTF-8 (Parquet readers do not check; the bytes would fail much
    later, far from the file)."""
    for name in table.column_names:
        column = table[name]
        if not _has_strings(column.type):
            continue
        try:
            column.validate(full=True)
            continue
        except pa.ArrowInvalid:
            pass
        row = _bad_row(column.combine_chunks())
        raise FileFormatError(
            "is not valid UTF-8 text",
            source=source,
            where=row_location(source, max(row, 0)),
            field=name,
        )


def _has_strings(kind: pa.DataType) -> bool:
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        return True
    if pa.types.is_dictionary(kind):
        return _has_strings(kind.value_type)
    return any(_has_strings(kind.field(i).type) for i in range(kind.num_fields))


def _valid(array: pa.Array) -> bool:
    try:
        array.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _bad_row(array: pa.Array) -> int:
    """Index of the first element of `array` holding invalid UTF-8 (-1: none),
    found by bisecting with Arrow's vectorised validation, never a row loop."""
    kind = array.type
    if pa.types.is_string(kind) or pa.types.is_large_string(kind):
        if _valid(array):
            return -1
        lo, hi = 0, len(array)  # the first bad element is in [lo, hi)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if _valid(array.slice(lo, mid - lo)):
                lo = mid
            else:
                hi = mid
        return lo
    if pa.types.is_dictionary(kind):
        bad = _bad_row(array.dictionary)
        return -1 if bad < 0 else first_true(pc.equal(array.indices, bad))
    if isinstance(array, pa.StructArray):
        found = [r for r in (_bad_row(f) for f in array.flatten()) if r >= 0]
        return min(found, default=-1)
    if pa.types.is_list(kind) or pa.types.is_large_list(kind) or pa.types.is_fixed_size_list(kind):
        inner = _bad_row(array.flatten())
        if inner < 0:
            return -1
        return int(pc.list_parent_indices(array)[inner].as_py())
    return -1


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
