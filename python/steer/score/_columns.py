"""Turn a response table into the plain arrays the Rust engine reads.

Group keys become int32 dictionary indices (Arrow dictionary columns are used
as they are; others are dictionary-encoded once) and are combined into dense
codes in Rust. Integer columns and the option-probability list are handed
over as numpy views of the Arrow buffers wherever the types already match.
Nothing here loops over rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer._suggest import did_you_mean
from steer.errors import InputError, UnknownNameError

ADAPTATION_FIELDS = ("format", "shots", "cot", "prob_mode")
DERIVED = ("module", "setting", "adaptation")


@dataclass
class Prepared:
    """Everything one scoring call needs: native columns and the group keys."""

    columns: dict[str, Any]
    keys: pa.Table
    n_groups: int


def _numpy(values: pa.ChunkedArray | pa.Array, dtype: type, fill: int | None = None) -> np.ndarray:
    arr = values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values
    if fill is not None and arr.null_count:
        arr = pc.fill_null(arr, fill)
    target = pa.from_numpy_dtype(dtype)
    if arr.type != target:
        arr = arr.cast(target)
    return np.ascontiguousarray(arr.to_numpy(zero_copy_only=False))


def _dictionary(values: pa.ChunkedArray) -> tuple[np.ndarray, pa.Array]:
    """int32 indices (−1 for null) and the dictionary of a column."""
    if not pa.types.is_dictionary(values.type):
        values = pc.dictionary_encode(values)
    arr = (
        values.unify_dictionaries().combine_chunks()
        if isinstance(values, pa.ChunkedArray)
        else values
    )
    if isinstance(arr, pa.ChunkedArray):  # an empty chunked array
        arr = arr.combine_chunks() if arr.num_chunks else pa.array([], arr.type)
    indices = _numpy(arr.indices, np.int32, fill=-1)
    return indices, arr.dictionary


def _mapped(
    indices: np.ndarray,
    dictionary: pa.Array,
    mapping: list[Any],
) -> tuple[np.ndarray, pa.Array]:
    """Re-key a column through a per-dictionary-value mapping (e.g. element → module)."""
    target = pc.dictionary_encode(pa.array(mapping, pa.string()))
    lookup = np.append(_numpy(target.indices, np.int32), np.int32(-1))  # index −1 → null
    return np.ascontiguousarray(lookup[indices], dtype=np.int32), target.dictionary


def key_columns(table: pa.Table, by: list[str]) -> list[tuple[str, np.ndarray, pa.Array]]:
    """(name, indices, dictionary) for every key column, derived ones included."""
    from steer.taxonomy import load_taxonomy

    out = []
    for name in by:
        if name == "adaptation":
            struct = table["adaptation"]
            for field in ADAPTATION_FIELDS:
                idx, dictionary = _dictionary(pc.struct_field(struct, field))
                out.append((f"adaptation.{field}", idx, dictionary))
        elif name in ("module", "setting"):
            idx, dictionary = _dictionary(table["element"])
            taxonomy = load_taxonomy()
            mapping = [
                getattr(taxonomy.elements[e], name) if e in taxonomy else e
                for e in dictionary.to_pylist()
            ]
            out.append((name, *_mapped(idx, dictionary, mapping)))
        elif name in table.column_names:
            out.append((name, *_dictionary(table[name])))
        else:
            raise UnknownNameError(
                "column", name, did_you_mean(name, [*table.column_names, *DERIVED])
            )
    return out


def _key_table(
    keys: list[tuple[str, np.ndarray, pa.Array]], first: np.ndarray, by: list[str]
) -> pa.Table:
    """The distinct key values of each group, decoded, in group-code order."""
    decoded: dict[str, pa.Array] = {}
    for name, idx, dictionary in keys:
        picked = idx[first]
        if len(dictionary) == 0:  # an all-null column
            values = pa.nulls(len(first), dictionary.type)
        else:
            values = pc.take(dictionary, pa.array(np.where(picked < 0, 0, picked)))
        decoded[name] = pc.if_else(pa.array(picked < 0), pa.scalar(None, values.type), values)
    columns = {}
    for name in by:
        if name == "adaptation":
            parts = [
                decoded["adaptation.format"].cast(pa.string()),
                pc.binary_join_element_wise(
                    "shots=", decoded["adaptation.shots"].cast(pa.string()), ""
                ),
                pc.binary_join_element_wise(
                    "cot=", decoded["adaptation.cot"].cast(pa.string()), ""
                ),
                pc.binary_join_element_wise(
                    "prob=", decoded["adaptation.prob_mode"].cast(pa.string()), ""
                ),
            ]
            columns[name] = pc.binary_join_element_wise(*parts, ";")
        else:
            columns[name] = decoded[name]
    return pa.table(columns)


def prepare(table: pa.Table, by: list[str]) -> Prepared:
    """Native columns and group keys for scoring `table` grouped by `by`."""
    if not by:
        raise InputError("group by at least one column (e.g. model or element)")
    keys = key_columns(table, by)
    codes, first = _native.encode_groups([k[1] for k in keys], [len(k[2]) for k in keys])
    n_groups = len(first)
    columns: dict[str, Any] = {
        "group": codes,
        "n_groups": n_groups,
        "n_options": _numpy(table["n_options"], np.int32),
        "chosen": _numpy(table["chosen_index"], np.int32),
        "correct": _numpy(table["correct_index"], np.int32, fill=-1),
    }
    if "option_probs" in table.column_names and table["option_probs"].null_count < len(table):
        probs = table["option_probs"].combine_chunks()
        if probs.type.value_type != pa.float64():
            probs = probs.cast(pa.list_(pa.float64()))
        columns["probs_offsets"] = _numpy(probs.offsets, np.int32)
        values = probs.values
        if values.null_count:  # a null inside a list is an unusable probability
            values = pc.fill_null(values, np.nan)
        columns["probs_values"] = _numpy(values, np.float64)
        columns["probs_valid"] = _numpy(pc.is_valid(probs), np.bool_)
    columns.update(_units(table, codes, n_groups))
    return Prepared(columns, _key_table(keys, first, by), n_groups)


def _units(table: pa.Table, codes: np.ndarray, n_groups: int) -> dict[str, Any]:
    """Unit columns when some question has several parts or a consistency rule.

    Rows sharing (group, run_id, element, base_id) form one unit only when one
    of them has part > 0 or a consistency rule; any other row is a question of
    its own, exactly as when the table has no multi-part question at all. (A
    row's score must not depend on unrelated rows elsewhere in the table:
    single-part rows that share a blank base_id are separate questions.)
    """
    multi = "part" in table.column_names and (pc.max(table["part"]).as_py() or 0) > 0
    rules_col = table["consistency_rule"] if "consistency_rule" in table.column_names else None
    has_rules = rules_col is not None and rules_col.null_count < len(table)
    if not (multi or has_rules):
        return {}
    parts = [(codes.astype(np.int32), n_groups)]
    for name in ("run_id", "element", "base_id"):
        idx, dictionary = _dictionary(table[name])
        parts.append((idx, len(dictionary)))
    key, first = _native.encode_groups([p[0] for p in parts], [p[1] for p in parts])
    n_keys = len(first)
    part = _numpy(table["part"], np.int32)
    grouped = part > 0
    rule_idx, rules = None, []
    if has_rules:
        assert rules_col is not None
        rule_idx, dictionary = _dictionary(rules_col)
        rules = [str(r) for r in dictionary.to_pylist()]
        grouped |= rule_idx >= 0
    key_grouped = np.bincount(key, weights=grouped, minlength=n_keys) > 0
    alone = ~key_grouped[key]
    unit = key.astype(np.int64)
    unit[alone] = n_keys + np.arange(int(alone.sum()))  # one unit per lone row
    n_units = n_keys + int(alone.sum())  # keys of lone rows stay empty (skipped)
    unit_rule = np.full(n_units, -1, dtype=np.int32)
    if rule_idx is not None:
        unit_rule[:n_keys] = rule_idx[first]
    return {
        "unit": np.ascontiguousarray(unit, dtype=np.uint32),
        "n_units": n_units,
        "part": part,
        "unit_rule": unit_rule,
        "rules": rules,
    }
