"""Which codes run, like ruff's `select`/`ignore`: entries are codes or
prefixes (`RAT`, `RAT00`, `ALL`); an ignore beats a select; per-model ignores
apply to models whose name matches the glob."""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field


def _matches(code: str, entries: list[str]) -> bool:
    return any(e == "ALL" or code.startswith(e) for e in entries)


@dataclass
class Selection:
    select: list[str] = field(default_factory=lambda: ["ALL"])
    ignore: list[str] = field(default_factory=list)
    per_model_ignores: dict[str, list[str]] = field(default_factory=dict)

    def enabled(self, code: str, model: str | None = None) -> bool:
        """Whether diagnostics with `code` (for `model`) are reported."""
        if not _matches(code, self.select) or _matches(code, self.ignore):
            return False
        if model is None:
            return True
        return not any(
            fnmatch.fnmatchcase(model, pattern) and _matches(code, codes)
            for pattern, codes in self.per_model_ignores.items()
        )
