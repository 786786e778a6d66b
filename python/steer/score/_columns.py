"""Turn a response table into the plain arrays the Rust engine reads.

Group keys become int32 dictionary indices (Arrow dictionary columns are used
as they are; others are dictionary-encoded once). Integer columns and the
option-probability list are handed over as numpy views of the Arrow buffers
wherever the types already match. Nothing here loops over rows.
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

ADAPTATION_FIELDS = ("format", "shots", "cot", "prob_mode", "order", "collective", "persona")
DERIVED = ("module", "setting", "adaptation")
MAX_DIRECT_SPACE = 1 << 20  # steer-core metrics::MAX_DIRECT_SPACE

Key = tuple[str, np.ndarray, pa.Array]  # (name, int32 indices with −1 = null, dictionary)


@dataclass
class Prepared:
    """Native columns of one table and its group keys.

    Dense group codes (`codes()`) are built only when a computation needs them
    (multi-part units, bootstrap, equal-mass ECE); plain scoring over a small
    key space accumulates straight into the combined keys (`cells()`).
    """

    table: pa.Table
    by: list[str]
    keys: list[Key]
    columns: dict[str, Any]
    has_units: bool = False  # multi-part or consistency-graded questions present
    _codes: tuple[np.ndarray, pa.Table] | None = None

    @property
    def space(self) -> int:
        space = 1
        for _, _, dictionary in self.keys:
            space *= len(dictionary) + 1
        return space

    def codes(self) -> tuple[dict[str, Any], pa.Table]:
        """Columns with dense `group` codes (and units), and the key table."""
        if self._codes is None:
            codes, first = _native.encode_groups(
                [k[1] for k in self.keys], [len(k[2]) for k in self.keys]
            )
            self._codes = (codes, _key_values(self.keys, [k[1][first] for k in self.keys], self.by))
        codes, keys = self._codes
        columns = {**self.columns, "group": codes, "n_groups": keys.num_rows}
        if self.has_units:
            columns.update(_units(self.table, codes, keys.num_rows))
        return columns, keys

    def cells(self, bins: int) -> tuple[dict[str, np.ndarray], pa.Table]:
        """Additive cells per group and the key table, by the fastest route."""
        if not self.has_units and self.space <= MAX_DIRECT_SPACE:
            cells, present = _native.score_keyed(
                self.columns, [k[1] for k in self.keys], [len(k[2]) for k in self.keys], bins
            )
            return cells, _key_values(self.keys, _digits(self.keys, present), self.by)
        columns, keys = self.codes()
        return _native.score_cells(columns, bins), keys


def _single(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    """One contiguous array (a single chunk is used as it is, without a copy)."""
    if isinstance(values, pa.ChunkedArray):
        return values.chunk(0) if values.num_chunks == 1 else values.combine_chunks()
    return values


def _numpy(values: pa.ChunkedArray | pa.Array, dtype: type, fill: Any = None) -> np.ndarray:
    arr = _single(values)
    if fill is not None and arr.null_count:
        arr = pc.fill_null(arr, fill)
    target = pa.from_numpy_dtype(dtype)
    if arr.type != target:
        arr = arr.cast(target)
    return np.ascontiguousarray(arr.to_numpy(zero_copy_only=False))


def _dictionary(values: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, pa.Array]:
    """int32 indices (−1 for null) and the dictionary of a column."""
    if not pa.types.is_dictionary(values.type):
        # One encode of the combined column: encoding chunk by chunk and then
        # unifying the dictionaries costs three times as much (1M unique ids).
        if isinstance(values, pa.ChunkedArray) and values.num_chunks > 1:
            values = values.combine_chunks()
        values = pc.dictionary_encode(values)
    if isinstance(values, pa.ChunkedArray):
        values = (
            values.unify_dictionaries().combine_chunks()
            if values.num_chunks
            else pa.array([], values.type)
        )
    return _numpy(values.indices, np.int32, fill=-1), values.dictionary


def _mapped(indices: np.ndarray, mapping: list[Any]) -> tuple[np.ndarray, pa.Array]:
    """Re-key a column through a per-dictionary-value mapping (e.g. element → module)."""
    target = pc.dictionary_encode(pa.array(mapping, pa.string()))
    lookup = np.append(_numpy(target.indices, np.int32), np.int32(-1))  # index −1 → null
    return np.ascontiguousarray(lookup[indices], dtype=np.int32), target.dictionary


def key_columns(table: pa.Table, by: list[str]) -> list[Key]:
    """(name, indices, dictionary) for every key column, derived ones included."""
    from steer.taxonomy import load_taxonomy

    out: list[Key] = []
    for name in by:
        # Derived keys are computed unless the table already holds them as
        # plain values (a cells table keeps "adaptation" as its label).
        present = name in table.column_names
        derived = name in DERIVED and (
            not present or pa.types.is_struct(table.schema.field(name).type)
        )
        if present and not derived:
            out.append((name, *_dictionary(table[name])))
        elif name == "adaptation":
            struct = table["adaptation"]
            for field in ADAPTATION_FIELDS:
                if struct.type.get_field_index(field) < 0:  # a struct before `order`
                    values = pa.nulls(len(struct), pa.string())
                else:
                    values = pc.struct_field(struct, field)
                out.append((f"adaptation.{field}", *_dictionary(values)))
        elif name in ("module", "setting"):
            idx, dictionary = _dictionary(table["element"])
            taxonomy = load_taxonomy()
            mapping = [
                getattr(taxonomy.elements[e], name) if e in taxonomy else e
                for e in dictionary.to_pylist()
            ]
            out.append((name, *_mapped(idx, mapping)))
        else:
            raise UnknownNameError(
                "column", name, did_you_mean(name, [*table.column_names, *DERIVED])
            )
    return out


def _digits(keys: list[Key], combined: np.ndarray) -> list[np.ndarray]:
    """Per-column dictionary indices of mixed-radix keys (radix card + 1, null = 0)."""
    out: list[np.ndarray] = []
    stride = 1
    for _, _, dictionary in reversed(keys):
        out.append((combined // stride) % (len(dictionary) + 1) - 1)
        stride *= len(dictionary) + 1
    return out[::-1]


def _key_values(keys: list[Key], indices: list[np.ndarray], by: list[str]) -> pa.Table:
    """The key table: each group's decoded key values, one row per group."""
    decoded: dict[str, pa.Array] = {}
    for (name, _, dictionary), picked in zip(keys, indices, strict=True):
        if len(dictionary) == 0:  # an all-null column
            values = pa.nulls(len(picked), dictionary.type)
        else:
            values = pc.take(dictionary, pa.array(np.where(picked < 0, 0, picked)))
        decoded[name] = pc.if_else(pa.array(picked < 0), pa.scalar(None, values.type), values)
    columns = {}
    for name in by:
        if name in decoded:
            columns[name] = decoded[name]
        elif name == "adaptation":
            # Same text as Adaptation.label(): "mc;shots=0;cot=none;prob=conditioning".
            def part(field: str, prefix: str) -> pa.Array:
                text = decoded[f"adaptation.{field}"].cast(pa.string())
                return pc.binary_join_element_wise(prefix, text, "") if prefix else text

            label = pc.binary_join_element_wise(
                part("format", ""),
                part("shots", "shots="),
                part("cot", "cot="),
                part("prob_mode", "prob="),
                ";",
            )
            # `;order=…` only where the adaptation has one (labels without it
            # read as before).
            for extra in ("order", "collective", "persona"):
                value = decoded.get(f"adaptation.{extra}")
                if value is None:
                    continue
                value = value.cast(pa.string())
                label = pc.if_else(
                    pc.is_null(value),
                    label,
                    pc.binary_join_element_wise(label, pc.fill_null(value, ""), f";{extra}="),
                )
            columns[name] = label
    return pa.table(columns)


def group_key_strings(keys: pa.Table) -> list[str]:
    """One canonical string per group of a key table: `name=value` for every
    key column (value as text, null as `name` + NUL), joined by U+001E.

    It seeds the group's bootstrap stream (hashed in steer-core), so a group
    draws the same replicates whatever the row order or the other groups.
    """
    parts = []
    for name in keys.column_names:
        column = keys[name]
        text = column.cast(pa.string()) if column.type != pa.string() else column
        parts.append(
            pc.if_else(
                pc.is_null(text),
                pa.scalar(f"{name}\x00"),
                pc.binary_join_element_wise(f"{name}=", pc.fill_null(text, ""), ""),
            )
        )
    if not parts:
        return [""] * keys.num_rows
    joined = pc.binary_join_element_wise(*parts, "\x1e") if len(parts) > 1 else parts[0]
    return [str(v) for v in joined.to_pylist()]


def prepare(table: pa.Table, by: list[str]) -> Prepared:
    """Native columns and group keys for scoring `table` grouped by `by`."""
    if not by:
        raise InputError("group by at least one column (e.g. model or element)")
    columns: dict[str, Any] = {
        "n_options": _numpy(table["n_options"], np.int32),
        "chosen": _numpy(table["chosen_index"], np.int32),
        "correct": _numpy(table["correct_index"], np.int32, fill=-1),
    }
    if "option_probs" in table.column_names and table["option_probs"].null_count < len(table):
        probs = _single(table["option_probs"])
        if probs.type.value_type != pa.float64():
            probs = probs.cast(pa.list_(pa.float64()))
        values = probs.values
        if values.null_count:  # a null inside a list is an unusable probability
            values = pc.fill_null(values, np.nan)
        columns["probs_offsets"] = _numpy(probs.offsets, np.int32)
        columns["probs_values"] = _numpy(values, np.float64)
        if probs.null_count:
            columns["probs_valid"] = _numpy(pc.is_valid(probs), np.bool_)
    return Prepared(
        table, list(by), key_columns(table, list(by)), columns, has_units=_needs_units(table)
    )


def _needs_units(table: pa.Table) -> bool:
    multi = "part" in table.column_names and (pc.max(table["part"]).as_py() or 0) > 0
    rules = table["consistency_rule"] if "consistency_rule" in table.column_names else None
    return bool(multi or (rules is not None and rules.null_count < len(table)))


def _units(table: pa.Table, codes: np.ndarray, n_groups: int) -> dict[str, Any]:
    """Unit columns: a unit is one question, i.e. (group, run, element, base_id).

    Rows sharing that key form one unit only when one of them has part > 0 or
    a consistency rule; any other row is a question of its own, exactly as in
    a table without multi-part questions (so a row's score never depends on
    unrelated rows, e.g. repeats of a single-part question).
    """
    parts = [(codes.astype(np.int32), n_groups)]
    # A row without a base_id is a question of its own (keyed by question_id).
    base = table["base_id"]
    if "question_id" in table.column_names:
        blank = pc.or_kleene(pc.is_null(base), pc.equal(base, ""))
        base = pc.if_else(blank, table["question_id"], base)
    for values in (table["run_id"], table["element"], base):
        idx, dictionary = _dictionary(values)
        parts.append((idx, len(dictionary)))
    key, first = _native.encode_groups([p[0] for p in parts], [p[1] for p in parts])
    n_keys = len(first)
    part = _numpy(table["part"], np.int32)
    grouped = part > 0
    rule_idx, rules = None, []
    if "consistency_rule" in table.column_names and table["consistency_rule"].null_count < len(
        table
    ):
        rule_idx, dictionary = _dictionary(table["consistency_rule"])
        rules = [str(r) for r in dictionary.to_pylist()]
        grouped |= rule_idx >= 0
    alone = ~(np.bincount(key, weights=grouped, minlength=n_keys) > 0)[key]
    unit = key.astype(np.int64)
    unit[alone] = n_keys + np.arange(int(alone.sum()))  # one unit per lone row
    n_units = n_keys + int(alone.sum())  # the keys of lone rows stay empty (skipped)
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
