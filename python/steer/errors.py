"""The exceptions steer raises.

The base classes are created by the Rust extension (so core errors map onto
them directly) and re-exported here; Python-side refinements subclass them.
Every `InputError` renders as one line naming the file, the place in it and
the field, which is what the CLI prints before exiting with status 2.
"""

from __future__ import annotations

from steer._native import InputError, InternalError, SolverError, SteerError

__all__ = [
    "FileFormatError",
    "InputError",
    "InternalError",
    "SolverError",
    "SteerError",
    "UnknownNameError",
    "format_location",
    "row_location",
]


def format_location(
    source: str | None = None, where: str | None = None, field: str | None = None
) -> str:
    """Join the known parts of a location.

    Line positions read like compilers and linters (`file.toml:12`); table rows
    like `bank.parquet: row 3`; the field follows (`field 'correct_index'`).
    """
    head = source or ""
    if where:
        if where.startswith("line "):
            head = f"{head}:{where[5:]}" if head else where
        else:
            head = f"{head}: {where}" if head else where
    parts = [p for p in (head, f"field {field!r}" if field else None) if p]
    return ": ".join(parts)


def row_location(source: str, row: int) -> str:
    """How to point at 0-based table row `row` of `source`: a line number for
    JSON Lines files (one row per line), else the row index."""
    if source.endswith((".jsonl", ".ndjson", ".json")):
        return f"line {row + 1}"
    return f"row {row}"


class FileFormatError(InputError):
    """A file that cannot be read as what it claims to be.

    `source` is the path, `where` a place in it (``line 12``, ``row 3``,
    ``12:5``), `field` the column or key at fault.
    """

    def __init__(
        self,
        message: str,
        *,
        source: str | None = None,
        where: str | None = None,
        field: str | None = None,
    ) -> None:
        self.source = source
        self.where = where
        self.field = field
        self.problem = message
        location = format_location(source, where, field)
        super().__init__(f"{location}: {message}" if location else message)


class UnknownNameError(InputError, KeyError):
    """A name (element id, backend, solver, rule, ...) that is not registered."""

    def __init__(self, kind: str, name: str, suggestions: list[str]) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = suggestions
        hint = ""
        if suggestions:
            quoted = ", ".join(f"{s!r}" for s in suggestions)
            hint = f" — did you mean {quoted}?"
        super().__init__(f"unknown {kind} {name!r}{hint}")

    def __str__(self) -> str:  # KeyError would otherwise quote the message
        return str(self.args[0])
