"""Personas for a collective's members: `steer run BANK --collective majority:N
--personas default|FILE`.

A persona file is TOML (the shipped one is `personas/default.toml`), nothing
in it evaluated as code: one ``[[persona]]`` table per persona, each with

``id``
    a slug (lower-case letters, digits and '-', at most 64), unique in the
    file; recorded in the member's adaptation (`…;persona=ID`).
``text``
    who is answering, in a few sentences ("You are a retired actuary …"); put
    before the system prompt of every conversation the member has.

and no other key. Member i of a collective answers as the file's i-th
persona. Every problem is one `FileFormatError` naming the file, the line of
the entry (where the entry is a ``[[persona]]`` table) and the field.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steer._suggest import did_you_mean
from steer._toml import parse_toml, read_toml_text
from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.schema.response import PERSONA_ID

PERSONAS_DIR = Path(__file__).with_name("personas")
MAX_PERSONAS = 1000
#: The longest persona text (characters): a description, not a document.
MAX_TEXT = 4000
_FIELDS = ("id", "text")
_HEADER = re.compile(r"^[ \t]*\[\[[ \t]*(?:persona|\"persona\")[ \t]*\]\]")


@dataclass(frozen=True)
class Persona:
    """One persona: its id and the text a member answering as it is given."""

    id: str
    text: str

    @property
    def sha256(self) -> str:
        """Fingerprint of the text (the member's manifest records it)."""
        return hashlib.sha256(self.text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class PersonaFile:
    """A persona file as read: where it came from and what it holds."""

    source: str  # "steer:NAME" for a shipped file, else the resolved path
    path: Path
    sha256: str  # of the file's bytes
    personas: tuple[Persona, ...]

    def for_members(self, n: int, collective: str) -> list[Persona]:
        """The personas of members 0..n-1 (member i gets the i-th); a file with
        fewer than `n` is an InputError naming it and the count."""
        if len(self.personas) < n:
            have = f"{len(self.personas)} persona" + ("" if len(self.personas) == 1 else "s")
            raise InputError(
                f"{self.path}: has {have}, but --collective {collective} needs {n} (one per member)"
            )
        return list(self.personas[:n])


def shipped_personas() -> dict[str, Path]:
    """The persona files that ship with steer, by name."""
    return {p.stem: p for p in sorted(PERSONAS_DIR.glob("*.toml"))}


def load_personas(name_or_path: str | Path) -> PersonaFile:
    """A shipped persona file by name (`default`), or the file at a path (a
    name with '/' or ending in .toml)."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text:
        path = Path(name_or_path)
        if not path.is_file():
            raise InputError(f"{path}: no such persona file")
        source = str(path.resolve())
    else:
        shipped = shipped_personas()
        if text not in shipped:
            raise UnknownNameError("persona file", text, did_you_mean(text, shipped))
        path, source = shipped[text], f"steer:{text}"
    raw = path.read_bytes()
    body = read_toml_text(path, str(path))
    return PersonaFile(
        source=source,
        path=path,
        sha256=hashlib.sha256(raw).hexdigest(),
        personas=parse_personas(body, str(path)),
    )


def parse_personas(text: str, source: str) -> tuple[Persona, ...]:
    """The personas of a persona file's `text` (`source` names it in errors)."""
    data = parse_toml(text, source)
    lines = text.splitlines()
    headers = [n for n, line in enumerate(lines) if _HEADER.match(line)]
    for key in data:
        if key != "persona":
            raise FileFormatError(
                "unknown key (a persona file holds [[persona]] tables only)",
                source=source,
                where=_line_of(lines, key, 0, headers[0] if headers else len(lines)),
                field=key,
            )
    entries = data.get("persona")
    if entries is None:
        raise FileFormatError("no [[persona]] tables", source=source, field="persona")
    if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        raise FileFormatError(
            "write each persona as a [[persona]] table", source=source, field="persona"
        )
    if len(entries) > MAX_PERSONAS:
        raise FileFormatError(
            f"{len(entries)} personas; at most {MAX_PERSONAS}", source=source, field="persona"
        )
    spans = (
        list(zip(headers, [*headers[1:], len(lines)], strict=True))
        if len(headers) == len(entries)
        else None  # written another way (an inline array): no lines to point at
    )
    out: list[Persona] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        span = spans[i] if spans else None

        def fail(problem: str, key: str | None, i: int = i, span: Any = span) -> FileFormatError:
            where = None
            if span is not None:
                where = _line_of(lines, key, *span) if key else f"line {span[0] + 1}"
            field = f"persona[{i}].{key}" if key else f"persona[{i}]"
            return FileFormatError(problem, source=source, where=where, field=field)

        for key in entry:
            if key not in _FIELDS:
                hint = did_you_mean(key, list(_FIELDS))
                more = f" — did you mean {hint[0]!r}?" if hint else ""
                raise fail(f"unknown key (a persona has id and text){more}", key)
        for key in _FIELDS:
            if key not in entry:
                raise fail("is required", key)
            if not isinstance(entry[key], str):
                raise fail(f"must be text, got {type(entry[key]).__name__}", key)
        pid, body = entry["id"], entry["text"].strip()
        if not PERSONA_ID.match(pid):
            raise fail(f"{pid!r}: lower-case letters, digits and '-' (at most 64)", "id")
        if pid in seen:
            raise fail(f"{pid!r} repeats the id of persona[{seen[pid]}]", "id")
        if not body:
            raise fail("is empty", "text")
        if len(body) > MAX_TEXT:
            raise fail(f"{len(body)} characters; at most {MAX_TEXT}", "text")
        seen[pid] = i
        out.append(Persona(pid, body))
    return tuple(out)


def _line_of(lines: list[str], key: str, start: int, stop: int) -> str | None:
    """`line N` of the first `key = …` in lines[start:stop] (else the span's
    first line, when it is a table's header; else None)."""
    name = rf"(?:{re.escape(key)}|\"{re.escape(key)}\")"
    pattern = re.compile(rf"^[ \t]*(?:{name}[ \t]*=|\[[ \t]*{name}[ \t]*\])")
    for n in range(start, stop):
        if pattern.match(lines[n]):
            return f"line {n + 1}"
    if start < len(lines) and _HEADER.match(lines[start]):
        return f"line {start + 1}"
    return None
