"""Gather response tables from files, run directories or memory, remembering
where each row came from so errors can name the file and its row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from steer._suggest import did_you_mean
from steer.errors import FileFormatError, InputError, row_location

REQUIRED = ("n_options", "chosen_index", "correct_index")

ResponseInput = pa.Table | str | Path


@dataclass(frozen=True)
class Source:
    name: str
    rows: int


@dataclass
class Loaded:
    table: pa.Table
    sources: list[Source]
    problems: list[str]

    def locate(self, row: int) -> tuple[str, int]:
        """(source name, row within it) of a row of the concatenated table."""
        for source in self.sources:
            if row < source.rows:
                return source.name, row
            row -= source.rows
        return "<responses>", row


def load_responses(inputs: ResponseInput | Sequence[ResponseInput]) -> Loaded:
    """Concatenate response tables; paths may be Parquet/JSONL files or run dirs."""
    from steer.run import read_responses

    items = [inputs] if isinstance(inputs, pa.Table | str | Path) else list(inputs)
    if not items:
        raise InputError("no response tables given")
    tables, sources, problems = [], [], []
    for item in items:
        if isinstance(item, pa.Table):
            table, name = item, "<table>"
        else:
            table, found = read_responses(item)
            problems.extend(found)
            name = str(item)
        missing = [c for c in REQUIRED if c not in table.column_names]
        if missing:
            hint = did_you_mean(missing[0], table.column_names)
            extra = f" — did you mean {hint[0]!r}?" if hint else ""
            raise FileFormatError(f"missing required column{extra}", source=name, field=missing[0])
        tables.append(table)
        sources.append(Source(name, table.num_rows))
    if len(tables) == 1:
        return Loaded(tables[0], sources, problems)
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"response tables do not share a schema ({exc})") from None
    return Loaded(table, sources, problems)


def row_error(exc: Exception, loaded: Loaded) -> Exception:
    """Turn a native row error (with .row/.field) into one naming file and row."""
    row = getattr(exc, "row", None)
    if row is None:
        return exc
    name, local = loaded.locate(int(row))
    return FileFormatError(
        getattr(exc, "problem", str(exc)),
        source=name,
        where=row_location(name, local),
        field=getattr(exc, "field", None),
    )
