"""Integer group codes for group-by over any response columns, vectorised."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer._suggest import did_you_mean
from steer.errors import InputError, UnknownNameError

# Derived grouping columns computed from others.
DERIVED = ("module", "setting", "adaptation")


def _column(table: pa.Table, name: str) -> pa.ChunkedArray:
    if name == "adaptation":
        # Same text as Adaptation.label(): "mc;shots=0;cot=none;prob=conditioning".
        a = table["adaptation"]

        def part(field: str, prefix: str) -> pa.ChunkedArray:
            values = pc.struct_field(a, field).cast(pa.string())
            return pc.binary_join_element_wise(prefix, values, "") if prefix else values

        return pc.binary_join_element_wise(
            part("format", ""),
            part("shots", "shots="),
            part("cot", "cot="),
            part("prob_mode", "prob="),
            ";",
        )
    if name in ("module", "setting"):
        from steer.taxonomy import load_taxonomy

        taxonomy = load_taxonomy()
        elements = pc.unique(table["element"]).to_pylist()
        mapped = [getattr(taxonomy.elements[e], name) if e in taxonomy else e for e in elements]
        idx = pc.index_in(table["element"], value_set=pa.array(elements, pa.string()))
        # Take from a chunked array: the result is chunked and typed as is (wrapping
        # it again converted value by value and lost the type of an empty table).
        return pc.take(pa.chunked_array([mapped], pa.string()), idx)
    if name not in table.column_names:
        raise UnknownNameError("column", name, did_you_mean(name, [*table.column_names, *DERIVED]))
    return table[name]


def _compact(combined: np.ndarray, space: int) -> tuple[np.ndarray, np.ndarray]:
    """First row of each distinct code (in code order) and dense codes per row."""
    n = len(combined)
    if space <= max(4 * n, 1 << 20):
        # Linear time: mark the codes present, number them, and find each
        # code's first row by assigning row numbers back to front.
        present = np.bincount(combined, minlength=space) > 0
        number = np.cumsum(present) - 1
        first_of = np.empty(space, dtype=np.int64)
        first_of[combined[::-1]] = np.arange(n - 1, -1, -1)
        return first_of[present], number[combined]
    _, first, dense = np.unique(combined, return_index=True, return_inverse=True)
    return first, dense


def group_codes(table: pa.Table, by: list[str]) -> tuple[np.ndarray, pa.Table]:
    """Dense codes (uint32, one per row) and the table of distinct keys.

    Each column is dictionary-encoded; codes combine them in mixed radix and
    are then made dense, so the work is a few numpy passes, never a row loop.
    """
    if not by:
        raise InputError("group by at least one column (e.g. model or element)")
    n = table.num_rows
    combined = np.zeros(n, dtype=np.int64)
    columns = []
    space = 1
    for name in by:
        values = _column(table, name)
        columns.append(values)
        encoded = pc.dictionary_encode(values).combine_chunks()
        idx = np.asarray(pc.fill_null(encoded.indices, -1), dtype=np.int64) + 1  # null → 0
        combined = combined * (len(encoded.dictionary) + 1) + idx
        space *= len(encoded.dictionary) + 1
    first, dense = _compact(combined, space)
    keys = {}
    for name, values in zip(by, columns, strict=True):
        picked = pc.take(values, pa.array(first))
        if pa.types.is_dictionary(picked.type):  # plain values sort and print
            picked = picked.cast(picked.type.value_type)
        keys[name] = picked
    return dense.astype(np.uint32).reshape(-1), pa.table(keys)
