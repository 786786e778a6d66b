"""Read TOML data files with errors that point at `file:line:column`."""

from __future__ import annotations

import re
import tomllib
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from steer._native import scan_json
from steer._scan import MAX_DEPTH, decode_checked
from steer.errors import FileFormatError

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def read_toml_text(path: Path | Traversable, source: str) -> str:
    """The text of a TOML file; bytes that are not UTF-8 are a `FileFormatError`
    at their line and column instead of a `UnicodeDecodeError`."""
    return decode_checked(path.read_bytes(), source)


def check_depth(text: str, source: str) -> None:
    """Reject arrays / inline tables nested more than `MAX_DEPTH` deep before
    `tomllib` (which recurses once per level) sees them. The scan counts
    brackets outside double-quoted strings, so only a file with more than
    `MAX_DEPTH` unbalanced brackets inside comments or literal strings could be
    refused wrongly."""
    problem = scan_json(text.encode("utf-8", "surrogatepass"), MAX_DEPTH)
    if problem is not None and problem[0] == "depth":
        raise FileFormatError(
            f"nested more than {MAX_DEPTH} levels deep",
            source=source,
            where=f"line {problem[1]}:{problem[2]}",
        )


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse `text`; a syntax error becomes `FileFormatError` at `source:line:col`."""
    check_depth(text, source)
    try:
        return tomllib.loads(text)
    except RecursionError:  # the depth check should make this unreachable
        raise FileFormatError("nested too deeply", source=source) from None
    except tomllib.TOMLDecodeError as exc:
        message = str(exc)
        at = _AT.search(message)
        if at is None:
            raise FileFormatError(f"invalid TOML: {message}", source=source) from None
        raise FileFormatError(
            f"invalid TOML: {message[: at.start()]}",
            source=source,
            where=f"line {at.group(1)}:{at.group(2)}",
        ) from None
