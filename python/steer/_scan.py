"""Byte-level guards run before a parser sees a user's file.

Arrow's JSON reader crashes the process (a C++ stack overflow) on JSON nested
thousands of levels deep, Python's `json` and `tomllib` raise `RecursionError`,
and bytes that are not UTF-8 are otherwise imported and fail much later. One
linear pass in Rust (`steer._native.scan_json`) finds either problem and says
where, so the error names the file and line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from steer._native import scan_json
from steer.errors import FileFormatError

# Deep enough for any real bank, response table, rubric or LLM reply (they nest
# three or four levels), far below where recursive parsers fail (~1,000).
MAX_DEPTH = 64


def check_bytes(data: bytes, source: str, *, max_depth: int = MAX_DEPTH) -> None:
    """Raise `FileFormatError` at `source:line:col` when `data` is not UTF-8 or
    nests `[`/`{` more than `max_depth` levels (outside JSON strings)."""
    problem = scan_json(data, max_depth)
    if problem is None:
        return
    kind, line, column = problem
    message = (
        f"nested more than {max_depth} levels deep"
        if kind == "depth"
        else "is not valid UTF-8 text"
    )
    start = _line_start(data, line)
    end = data.find(b"\n", start)
    field = key_at(data[start : end if end >= 0 else len(data)], column)
    raise FileFormatError(message, source=source, where=f"line {line}:{column}", field=field)


def _line_start(data: bytes, line: int) -> int:
    """Byte offset where 1-based `line` starts (vectorised: no loop over lines)."""
    if line <= 1:
        return 0
    newlines = np.flatnonzero(np.frombuffer(data, dtype=np.uint8) == 0x0A)
    return int(newlines[line - 2]) + 1


def key_at(line: bytes, column: int) -> str | None:
    """The top-level key of the JSON object on `line` whose value holds byte
    `column` (1-based), or None. Error path only: it walks one line."""
    depth, key, last, in_string, escaped, start = 0, None, None, False, False, 0
    for i, b in enumerate(line[: column - 1]):
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:  # backslash
                escaped = True
            elif b == 0x22:  # closing quote
                in_string = False
                last = line[start:i]
        elif b == 0x22:
            in_string, start = True, i + 1
        elif b in b"[{":
            depth += 1
        elif b in b"]}":
            depth -= 1
        elif b == 0x3A and depth == 1 and last is not None:  # ':' after a key
            key = last.decode("utf-8", "replace")
    return key


def read_checked(path: Path, source: str | None = None) -> bytes:
    """The bytes of `path`, checked with `check_bytes` (named as `source`)."""
    data = path.read_bytes()
    check_bytes(data, source or str(path))
    return data


def decode_checked(data: bytes, source: str) -> str:
    """`data` as text; bad UTF-8 is a `FileFormatError` at its line and column
    (for formats, like TOML and templates, whose nesting is checked elsewhere)."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise FileFormatError(
            "is not valid UTF-8 text", source=source, where=f"line {line}:{column}"
        ) from None
