"""Placeholder substitution for template wording.

Templates are data: `{name}` is replaced by a sampled value and nothing else
happens — no attribute access, indexing, format specs or expressions (which
`str.format` would allow). `{{` and `}}` stand for literal braces.
"""

from __future__ import annotations

import functools
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


@functools.lru_cache(maxsize=8192)
def _compiled(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`text` split once into literal runs around its placeholder names
    (`len(literals) == len(names) + 1`): wordings are rendered many times."""
    literals: list[str] = []
    names: list[str] = []
    run: list[str] = []
    pos = 0
    for match in _TOKEN.finditer(text):
        run.append(text[pos : match.start()])
        pos = match.end()
        token = match.group(0)
        if token in ("{{", "}}"):
            run.append(token[0])
            continue
        if match.group(1) is None:
            raise PlaceholderError(f"malformed placeholder {token!r}", token)
        literals.append("".join(run))
        names.append(match.group(1))
        run = []
    run.append(text[pos:])
    literals.append("".join(run))
    return tuple(literals), tuple(names)


def render(text: str, values: Mapping[str, object]) -> str:
    """Replace each `{name}` in `text` by `str(values[name])`."""
    literals, names = _compiled(text)
    out = [literals[0]]
    for name, literal in zip(names, literals[1:], strict=True):
        try:
            value = values[name]
        except KeyError:
            raise PlaceholderError(f"unknown variable {{{name}}}", name) from None
        out.append(str(value))
        out.append(literal)
    return "".join(out)
