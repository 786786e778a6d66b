"""Gather response tables from files, run directories or memory, remembering
where each row came from so errors can name the file and its row."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc

from steer._suggest import did_you_mean
from steer.errors import FileFormatError, InputError, row_location

REQUIRED = ("n_options", "chosen_index", "correct_index")
# Columns the engine reads as numbers, and those that may not hold nulls.
NUMERIC = ("n_options", "chosen_index", "correct_index", "part", "option_probs")
NOT_NULL = ("n_options", "chosen_index")
# What multi-part and consistency-graded questions are identified by.
UNIT_KEYS = ("run_id", "element", "base_id", "part")

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


def load_responses(inputs: ResponseInput | Sequence[ResponseInput] | Loaded) -> Loaded:
    """Concatenate response tables; paths may be Parquet/JSONL files or run dirs.

    An already `Loaded` input is returned as it is, so a caller that reports
    the reading problems first does not read the files twice.
    """
    if isinstance(inputs, Loaded):
        return inputs
    items = [inputs] if isinstance(inputs, pa.Table | str | Path) else list(inputs)
    if not items:
        raise InputError("no response tables given")
    tables, sources, problems = [], [], []
    for item in items:
        if isinstance(item, pa.Table):
            table, name = item, "<table>"
        else:
            table, found = _read(item)
            problems.extend(found)
            name = str(item)
        missing = [c for c in REQUIRED if c not in table.column_names]
        if missing:
            hint = did_you_mean(missing[0], table.column_names)
            extra = f" — did you mean {hint[0]!r}?" if hint else ""
            raise FileFormatError(f"missing required column{extra}", source=name, field=missing[0])
        tables.append(_checked(table, name))
        sources.append(Source(name, table.num_rows))
    if len(tables) == 1:
        return Loaded(tables[0], sources, problems)
    try:
        table = pa.concat_tables(tables, promote_options="permissive")
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise InputError(f"response tables do not share a schema ({exc})") from None
    return Loaded(table, sources, problems)


def _read(path: str | Path) -> tuple[pa.Table, list[str]]:
    """`read_responses`, with 'did you mean' added when a required column is
    missing but a column of the file has a close name (error path only)."""
    from steer.bank import read_table
    from steer.run import read_responses

    try:
        return read_responses(path)
    except FileFormatError as exc:
        if exc.problem != "missing required column" or not exc.field or Path(path).is_dir():
            raise
        try:
            names = read_table(path).column_names
        except InputError:
            raise exc from None
        hint = did_you_mean(exc.field, names)
        if not hint:
            raise
        raise FileFormatError(
            f"missing required column — did you mean {hint[0]!r}?",
            source=exc.source,
            where=exc.where,
            field=exc.field,
        ) from None


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


def _checked(table: pa.Table, source: str) -> pa.Table:
    """Cast the columns the engine reads to their schema types (files were
    conformed already; in-memory tables may hold strings or floats), with
    errors naming the column, so no Arrow exception escapes."""
    from steer.schema import RESPONSE_SCHEMA

    for name in NUMERIC:
        if name not in table.column_names:
            continue
        values = table[name]
        target = RESPONSE_SCHEMA.field(name).type
        if values.type != target:
            try:
                values = values.cast(target, safe=True)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
                raise FileFormatError(
                    f"expected {target}, got {values.type}", source=source, field=name
                ) from None
            table = table.set_column(table.schema.get_field_index(name), name, values)
        if name in NOT_NULL and values.null_count:
            row = int(pc.indices_nonzero(pc.is_null(values))[0].as_py())
            raise FileFormatError(
                "value is missing (null)",
                source=source,
                where=row_location(source, row),
                field=name,
            )
    multi = "part" in table.column_names and (pc.max(table["part"]).as_py() or 0) > 0
    rules = table["consistency_rule"] if "consistency_rule" in table.column_names else None
    if multi or (rules is not None and rules.null_count < table.num_rows):
        for name in UNIT_KEYS:
            if name not in table.column_names:
                raise FileFormatError(
                    "missing column, needed to group the parts of multi-part and "
                    "consistency-graded questions",
                    source=source,
                    field=name,
                )
    return table
