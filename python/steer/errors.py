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
]


def format_location(
    source: str | None = None, where: str | None = None, field: str | None = None
) -> str:
    """Join the known parts of a location as `file:where: field`."""
    head = ":".join(str(p) for p in (source, where) if p not in (None, ""))
    parts = [p for p in (head, f"field {field!r}" if field else None) if p]
    return ": ".join(parts)


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
