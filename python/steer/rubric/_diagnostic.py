"""Diagnostics: one finding, with a stable code, a severity and a place."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from steer.errors import InputError

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}


@dataclass(frozen=True)
class Location:
    """A place in a rubric file: `file` as shown to the user, 1-based line and column."""

    file: str
    line: int = 1
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True)
class Diagnostic:
    """One finding. `model`/`element` are None for findings about the rubric itself."""

    code: str
    severity: Severity
    message: str
    location: Location
    model: str | None = None
    element: str | None = None
    hint: str | None = None
    adaptation: str | None = None  # of the card the finding is about

    @property
    def who(self) -> str:
        """The card a finding is about: `model · adaptation`, or "" for the rubric."""
        if not self.model:
            return ""
        return f"{self.model} · {self.adaptation}" if self.adaptation else self.model

    def line(self) -> str:
        """The ruff-style one-liner: `file:line:col: CODE [model · adaptation] message — hint`."""
        who = f"[{self.who}] " if self.model else ""
        hint = f" — {self.hint}" if self.hint else ""
        return f"{self.location}: {self.code} {who}{self.message}{hint}"

    def sort_key(self) -> tuple[object, ...]:
        return (
            self.model or "",
            self.adaptation or "",
            SEVERITY_ORDER[self.severity],
            self.code,
            self.element or "",
            self.location.line,
            self.message,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "hint": self.hint,
            "model": self.model,
            "adaptation": self.adaptation,
            "element": self.element,
            "file": self.location.file,
            "line": self.location.line,
            "column": self.location.column,
        }


class RubricError(InputError):
    """A rubric (or config) file with errors; `diagnostics` lists all of them."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        self.diagnostics = diagnostics
        super().__init__(diagnostics[0].line() if diagnostics else "invalid rubric")
