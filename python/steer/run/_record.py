"""The record file a directory made of runs keeps (`play.json`, `game.json`,
`survey.json`, `collective.json`): what was played or asked, so that the same
command resumes and a different one is refused instead of mixing runs."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from steer._atomic import atomic_text
from steer.errors import FileFormatError, InputError

M = TypeVar("M", bound=BaseModel)


def read_record(path: Path, model: type[M], what: str, command: str) -> M:
    """The record at `path`; a missing one says how to make it, an unreadable
    one is a `FileFormatError` naming the file."""
    if not path.is_file():
        raise InputError(
            f"{path.parent}: not a {what} run (no {path.name}); make one with {command}"
        )
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:  # also bad UTF-8 and pydantic's ValidationError
        first = str(exc).splitlines()[0]
        raise FileFormatError(f"not a valid {what} record ({first})", source=str(path)) from None


def refuse_other_run(path: Path, record: BaseModel, fields: Sequence[str], what: str) -> None:
    """When `path` already holds a record, every one of `fields` must match
    `record`'s: the directory holds this run (resume it), not another one."""
    if not path.is_file():
        return
    was = read_record(path, type(record), what, "steer")
    for name in fields:
        if getattr(was, name) != getattr(record, name):
            raise InputError(
                f"{path.parent}: holds another {what} run ({name} was {getattr(was, name)!r}, "
                f"now {getattr(record, name)!r}); use another --out directory"
            )


def write_record(path: Path, record: BaseModel) -> None:
    with atomic_text(path) as fh:
        fh.write(record.model_dump_json(indent=2) + "\n")
