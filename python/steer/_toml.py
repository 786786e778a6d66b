"""Read TOML data files with errors that point at `file:line:column`."""

from __future__ import annotations

import re
import tomllib
from typing import Any

from steer.errors import FileFormatError

_AT = re.compile(r"\s*\(at line (\d+), column (\d+)\)$")


def parse_toml(text: str, source: str) -> dict[str, Any]:
    """Parse `text`; a syntax error becomes `FileFormatError` at `source:line:col`."""
    try:
        return tomllib.loads(text)
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
