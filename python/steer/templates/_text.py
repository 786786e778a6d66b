"""Placeholder substitution for template wording.

Templates are data: `{name}` is replaced by a sampled value and nothing else
happens — no attribute access, indexing, format specs or expressions (which
`str.format` would allow). `{{` and `}}` stand for literal braces.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

_TOKEN = re.compile(r"\{\{|\}\}|\{([A-Za-z_][A-Za-z0-9_]*)\}|\{[^{}]*\}|[{}]")


class PlaceholderError(ValueError):
    """A malformed or unknown placeholder; `.name` is the offending token."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


def placeholders(text: str) -> list[str]:
    """The placeholder names used in `text`, in order of appearance."""
    names = []
    for match in _TOKEN.finditer(text):
        token = match.group(0)
        if token in ("{{", "}}"):
            continue
        if match.group(1) is None:
            raise PlaceholderError(
                f"malformed placeholder {token!r}: use {{name}} with a plain name "
                "(write {{ or }} for a literal brace)",
                token,
            )
        names.append(match.group(1))
    return names


def render(text: str, values: Mapping[str, object]) -> str:
    """Replace each `{name}` in `text` by `str(values[name])`."""

    def substitute(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = match.group(1)
        if name is None:
            raise PlaceholderError(f"malformed placeholder {token!r}", token)
        if name not in values:
            raise PlaceholderError(f"unknown variable {{{name}}}", name)
        return str(values[name])

    return _TOKEN.sub(substitute, text)
