"""Where each key and array item of a TOML document sits (line, column).

`tomllib` returns plain values without positions, so this scans the text. It
understands table headers, arrays of tables (`[[section]]`, nested
`[[section.section]]`), dotted keys and string items of arrays spanning lines;
paths match pydantic's error locations, e.g. `("section", 0, "weight")`.
"""

from __future__ import annotations

import re

Path = tuple[str | int, ...]
Position = tuple[int, int]

_KEY = r'(?:"[^"]*"|\'[^\']*\'|[A-Za-z0-9_\-]+)'
_DOTTED = rf"{_KEY}(?:\s*\.\s*{_KEY})*"
_ARRAY_HEADER = re.compile(rf"\[\[\s*({_DOTTED})\s*\]\]")
_TABLE_HEADER = re.compile(rf"\[\s*({_DOTTED})\s*\]")
_ASSIGN = re.compile(rf"({_DOTTED})\s*=\s*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'')


def _split(dotted: str) -> list[str]:
    return [p.strip().strip("\"'") for p in re.findall(_KEY, dotted)]


def _depth(text: str) -> int:
    """Net bracket depth of a value fragment, ignoring strings and comments."""
    text = _STRING.sub("", text).split("#", 1)[0]
    return text.count("[") + text.count("{") - text.count("]") - text.count("}")


def locate_keys(text: str) -> dict[Path, Position]:
    """Map every key path (and string array item) to its 1-based (line, column)."""
    positions: dict[Path, Position] = {}
    arrays: dict[Path, int] = {}

    def resolve(names: list[str]) -> Path:
        path: Path = ()
        for name in names:
            path = (*path, name)
            if path in arrays:
                path = (*path, arrays[path])
        return path

    current: Path = ()
    value_path: Path | None = None
    item = 0
    depth = 0
    for lineno, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if depth > 0 and value_path is not None:
            for found in _STRING.finditer(line):
                positions.setdefault((*value_path, item), (lineno, found.start() + 1))
                item += 1
            depth += _depth(line)
            continue
        if not stripped or stripped.startswith("#"):
            continue
        if header := _ARRAY_HEADER.match(stripped):
            names = _split(header.group(1))
            key = (*resolve(names[:-1]), names[-1])
            arrays[key] = arrays.get(key, -1) + 1
            current = (*key, arrays[key])
            positions[current] = (lineno, indent + 1)
            positions.setdefault(key, (lineno, indent + 1))
            continue
        if table := _TABLE_HEADER.match(stripped):
            current = resolve(_split(table.group(1)))
            positions[current] = (lineno, indent + 1)
            continue
        if assign := _ASSIGN.match(stripped):
            value_path = (*current, *_split(assign.group(1)))
            positions[value_path] = (lineno, indent + 1)
            value = stripped[assign.end() :]
            strings = list(_STRING.finditer(value))
            for item, found in enumerate(strings):
                positions[(*value_path, item)] = (lineno, indent + assign.end() + found.start() + 1)
            item = len(strings)
            depth = _depth(value)
    return positions


def nearest(positions: dict[Path, Position], path: Path) -> Position:
    """The position of `path`, else of its closest enclosing key, else 1:1."""
    for end in range(len(path), 0, -1):
        if path[:end] in positions:
            return positions[path[:end]]
    return (1, 1)
