"""Conform Arrow tables to steer's schemas, column by column, without row loops.

A table read from a user's file is checked against a target schema: missing
required columns, columns that cannot be cast to the declared type, and
missing optional columns (filled with nulls / defaults) are all handled here,
with errors naming the file and the column.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import FileFormatError, row_location


@dataclass(frozen=True)
class Column:
    """A column of a steer table: Arrow type, whether a file must have it, default."""

    name: str
    type: pa.DataType
    required: bool = True
    default: Any = None
    nullable: bool = True
    doc: str = ""

    @property
    def field(self) -> pa.Field:
        return pa.field(self.name, self.type, nullable=self.nullable or not self.required)


def schema_of(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([c.field for c in columns])


def _cast(values: pa.ChunkedArray, column: Column, source: str) -> pa.ChunkedArray:
    if values.type == column.type:
        return values
    try:
        return values.cast(column.type, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError):
        raise FileFormatError(
            f"expected {column.type}, got {values.type}", source=source, field=column.name
        ) from None


def conform(
    table: pa.Table,
    columns: tuple[Column, ...],
    source: str,
    renames: Mapping[str, str] | None = None,
) -> pa.Table:
    """Return `table` with exactly `columns`, in order, cast to their types.

    Unknown columns are dropped. Raises `FileFormatError` naming `source` and
    the column for a missing required column, an uncastable type, or nulls in a
    non-nullable column (with the first offending row).
    """
    if renames:
        table = table.rename_columns([renames.get(n, n) for n in table.column_names])
    n = table.num_rows
    arrays = []
    for column in columns:
        if column.name in table.column_names:
            values = _cast(table.column(column.name), column, source)
        elif column.required:
            raise FileFormatError("missing required column", source=source, field=column.name)
        else:
            # A constant column is one repeat, not a Python list of n values.
            values = (
                pa.chunked_array([pa.repeat(pa.scalar(column.default, type=column.type), n)])
                if column.default is not None
                else pa.chunked_array([pa.nulls(n, type=column.type)])
            )
        _check_finite(values, column.name, source)
        if not column.nullable and values.null_count:
            row = first_true(pc.is_null(values))
            raise FileFormatError(
                "value is missing (null)",
                source=source,
                where=row_location(source, row),
                field=column.name,
            )
        arrays.append(values)
    return pa.table(arrays, schema=schema_of(columns))


def _check_finite(values: pa.ChunkedArray, name: str, source: str) -> None:
    """Refuse NaN and ±inf in a float (or list-of-float) column: no steer number
    (probability, cost, latency, answer value) can be one, and NaN would be read
    downstream as a missing value. Null is the way to say "no value"."""
    flat = values
    kind = values.type
    nested = pa.types.is_list(kind) or pa.types.is_large_list(kind)
    if nested:
        if not pa.types.is_floating(kind.value_type):
            return
        flat = values.combine_chunks().flatten()
    elif not pa.types.is_floating(kind):
        return
    bad = pc.invert(pc.is_finite(flat))
    position = first_true(bad)
    if position < 0:
        return
    value = flat[position].as_py()
    row = (
        int(pc.list_parent_indices(values.combine_chunks())[position].as_py())
        if nested
        else position
    )
    if name == "option_probs":  # worded like the engine's range check
        problem = f"probability {value} is " + (
            "not a number" if value != value else "outside [0, 1]"
        )
    else:
        problem = f"{value} is not a finite number (write null for no value)"
    raise FileFormatError(
        problem,
        source=source,
        where=row_location(source, row),
        field=name,
    )


def true_indices(mask: pa.ChunkedArray | pa.Array) -> pa.Array | pa.ChunkedArray:
    """Positions of the true values of a boolean array (null counts as false).

    A chunked array with no chunks (what filtering a table to no rows gives)
    never reaches `indices_nonzero`: pyarrow releases before the fix of
    apache/arrow#51018 crash the process on it."""
    if isinstance(mask, pa.ChunkedArray) and mask.num_chunks == 0:
        return pa.array([], type=pa.uint64())
    return pc.indices_nonzero(pc.fill_null(mask, False))


def first_true(mask: pa.ChunkedArray | pa.Array) -> int:
    """Index of the first true value of a boolean array (-1 when none)."""
    indices = true_indices(mask)
    return int(indices[0].as_py()) if len(indices) else -1
