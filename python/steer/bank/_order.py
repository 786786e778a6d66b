"""Seeded option order: permute each question's options, recorded in the bank.

A bank's authors often put the key at a fixed position (last in expectation
questions, first in theory-of-mind ones), so a model that always picks one
letter would look competent. `permute_options` shuffles the options of every
question with a seeded permutation and records it in `option_order`: for each
displayed position, the index the option had before. `correct_index` and
`option_tags` move with their options; the `payload` (the structured problem)
keeps the original order, which `option_order` maps to (`in_payload_order`).

The permutation of a question depends only on the seed, its group key and the
option position, never on the other rows: the sort key of position j is a
64-bit mix of (seed, hash of the group key, j). Parts of one group (the parts
of a multi-part question, the questions of a consistency group) share their
keys, so parts with as many options share one permutation and parts with
fewer options keep the same relative order. Vectorised: the string hash runs
over character positions, the permutation is one lexsort over every option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

# The default seed of `steer bank import` (documented in its --help).
DEFAULT_ORDER_SEED = 20241125

_FNV_OFFSET = np.uint64(0xCBF29CE484222325)
_FNV_PRIME = np.uint64(0x100000001B3)
_MASK64 = (1 << 64) - 1


def _fnv1a(strings: pa.Array) -> np.ndarray:
    """64-bit FNV-1a of each string's UTF-8 bytes (uint64 per row). The loop
    runs over character positions (bounded by the longest key), not rows."""
    strings = strings.cast(pa.string())
    if isinstance(strings, pa.ChunkedArray):
        strings = strings.combine_chunks()
    strings = pc.fill_null(strings, "")
    n = len(strings)
    buffers = strings.buffers()
    offsets = np.frombuffer(buffers[1], dtype=np.int32)[strings.offset : strings.offset + n + 1]
    offsets = offsets.astype(np.int64)
    raw = (
        np.frombuffer(buffers[2], dtype=np.uint8)
        if buffers[2] is not None
        else np.zeros(0, np.uint8)
    )
    starts, lengths = offsets[:-1], np.diff(offsets)
    h = np.full(n, _FNV_OFFSET, dtype=np.uint64)
    longest = int(lengths.max()) if n else 0
    with np.errstate(over="ignore"):
        for k in range(longest):
            live = lengths > k
            byte = raw[starts[live] + k].astype(np.uint64)
            h[live] = (h[live] ^ byte) * _FNV_PRIME
    return h


def _splitmix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser: a well-mixed 64-bit value per input."""
    with np.errstate(over="ignore"):
        z = x + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def group_keys(table: pa.Table) -> pa.Array:
    """Which rows share a permutation: the consistency group where there is
    one, else the question (`element/base_id`), so every part of a multi-part
    question moves together."""
    base = pc.binary_join_element_wise(
        table["element"].cast(pa.string()), table["base_id"].cast(pa.string()), "/"
    )
    if "consistency_group" in table.column_names:
        group = table["consistency_group"].cast(pa.string())
        key = pc.binary_join_element_wise(table["element"].cast(pa.string()), group, "#")
        base = pc.if_else(pc.is_null(group), base, key)
    return base.combine_chunks() if isinstance(base, pa.ChunkedArray) else base


def seeded_orders(keys: pa.Array, n_options: np.ndarray, seed: int) -> np.ndarray:
    """Flattened permutations, one per row: for row r, the values at
    `offsets[r]:offsets[r+1]` (offsets = cumsum of `n_options`) are, for each
    displayed position, the original option index."""
    n_options = np.asarray(n_options, dtype=np.int64)
    total = int(n_options.sum())
    parents = np.repeat(np.arange(len(n_options), dtype=np.int64), n_options)
    offsets = np.concatenate([[0], np.cumsum(n_options)])
    position = np.arange(total, dtype=np.int64) - offsets[parents]
    seed_mix = _splitmix(np.array([seed & _MASK64], dtype=np.uint64))[0]
    h = _fnv1a(keys)
    with np.errstate(over="ignore"):
        mixed = _splitmix(h[parents] ^ seed_mix) + position.astype(np.uint64)
    sort_key = _splitmix(mixed)
    order = np.lexsort((sort_key, parents))
    return np.asarray(position[order], dtype=np.int64)


def permute_options(
    table: pa.Table, seed: int, rules: Any | None = None
) -> tuple[pa.Table, list[tuple[int, str]]]:
    """`table` with each question's options in a seeded order (see the module
    docstring), `correct_index`, `option_tags` and `option_order` rewritten.

    An `option_order` already present is composed with the new one, so it
    still maps displayed positions to the payload's order. `rules`, when
    given, is called as `rules(rule, perms)` with a consistency group's rule
    and its parts' permutations (perms[p][old] = new) and returns the rewritten
    rule; the return value lists (first row, new rule) per rewritten group.
    """
    n = table.num_rows
    if n == 0:
        return table, []
    n_opts = np.asarray(pc.list_value_length(table["options"]), dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(n_opts)])
    parents = np.repeat(np.arange(n, dtype=np.int64), n_opts)
    local = seeded_orders(group_keys(table), n_opts, seed)
    for column in ("options", "option_tags"):
        if column in table.column_names:
            moved = _permute_lists(table[column], local, n_opts)
            if moved is not None:
                table = table.set_column(table.column_names.index(column), column, moved)
    # Where each original option now sits: inverse[offset + old] = new.
    inverse = np.empty(len(local), dtype=np.int64)
    inverse[local + offsets[parents]] = np.arange(len(local), dtype=np.int64) - offsets[parents]
    if "correct_index" in table.column_names:
        correct = table["correct_index"].combine_chunks().cast(pa.int32())
        valid = np.asarray(pc.is_valid(correct), dtype=bool)
        old = np.asarray(pc.fill_null(correct, 0), dtype=np.int64)
        ok = valid & (old >= 0) & (old < n_opts)
        new = old.copy()
        new[ok] = inverse[offsets[:-1][ok] + old[ok]]
        array = pa.array(new.astype(np.int32), pa.int32(), mask=~valid)
        table = table.set_column(table.column_names.index("correct_index"), "correct_index", array)
    composed = local
    if "option_order" in table.column_names:
        previous = table["option_order"].combine_chunks()
        prev_lengths = np.asarray(pc.fill_null(pc.list_value_length(previous), -1))
        # A recorded order of the right length maps on to the payload: compose.
        row_has = (prev_lengths == n_opts)[parents]
        if row_has.any():
            flat_prev = np.asarray(pc.list_flatten(previous), dtype=np.int64)
            prev_offsets = np.concatenate([[0], np.cumsum(np.maximum(prev_lengths, 0))])
            composed = local.copy()
            composed[row_has] = flat_prev[prev_offsets[parents[row_has]] + local[row_has]]
        table = table.drop_columns(["option_order"])
    order_array = pa.ListArray.from_arrays(
        pa.array(offsets.astype(np.int32), pa.int32()),
        pa.array(composed.astype(np.int32), pa.int32()),
    )
    table = table.append_column("option_order", order_array)
    rewritten: list[tuple[int, str]] = []
    if rules is not None and "consistency_rule" in table.column_names:
        rewritten = _rewrite_rules(table, local, offsets, rules)
        if rewritten:
            column = table["consistency_rule"].to_pylist()
            for row, rule in rewritten:
                column[row] = rule
            table = table.set_column(
                table.column_names.index("consistency_rule"),
                "consistency_rule",
                pa.array(column, pa.string()),
            )
    return table, rewritten


def _permute_lists(
    column: pa.ChunkedArray, local: np.ndarray, n_opts: np.ndarray
) -> pa.Array | None:
    """A list column (one entry per option) in the new order; null lists stay
    null. None when some list's length is not its row's option count (left
    for validation to report)."""
    values = column.combine_chunks()
    valid = np.asarray(pc.is_valid(values), dtype=bool)
    lengths = np.asarray(pc.fill_null(pc.list_value_length(values), 0), dtype=np.int64)
    if not valid.any() or (lengths[valid] != n_opts[valid]).any():
        return None
    kept = np.where(valid, n_opts, 0)
    offsets = np.concatenate([[0], np.cumsum(kept)])
    parents = np.repeat(np.arange(len(n_opts), dtype=np.int64), n_opts)
    slots = valid[parents]
    take = local[slots] + offsets[parents[slots]]
    flat = pc.list_flatten(values)
    return pa.ListArray.from_arrays(
        pa.array(offsets.astype(np.int32), pa.int32()),
        pc.take(flat, pa.array(take, pa.int64())),
        type=values.type,
        mask=pa.array(~valid),
    )


def _rewrite_rules(
    table: pa.Table, local: np.ndarray, offsets: np.ndarray, rules: Any
) -> list[tuple[int, str]]:
    """Rewrite the rule of every consistency group (a loop over groups, which
    are few: the rows of one group are found with one sort)."""
    rule = table["consistency_rule"]
    has = np.flatnonzero(np.asarray(pc.is_valid(rule), dtype=bool))
    if not len(has):
        return []
    keys = group_keys(table).take(pa.array(has))
    parts = np.asarray(pc.fill_null(table["part"].take(pa.array(has)), 0), dtype=np.int64)
    encoded = pc.dictionary_encode(keys)
    codes = np.asarray(encoded.indices, dtype=np.int64)
    order = np.lexsort((parts, codes))
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    out: list[tuple[int, str]] = []
    rules_of = rule.take(pa.array(has)).to_pylist()
    for members in np.split(order, bounds):
        rows = has[members]
        perms: list[list[int]] = []
        for r in rows:
            shown = local[offsets[r] : offsets[r + 1]]
            inv = [0] * len(shown)
            for new, old in enumerate(shown.tolist()):
                inv[old] = new
            perms.append(inv)
        text = rules_of[int(members[0])]
        new_rule = rules(text, perms)
        for r, m in zip(rows, members, strict=True):
            if rules_of[int(m)] is not None:
                out.append((int(r), new_rule))
    return out


def in_payload_order(question: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of one question (a row dict) with its options, tags and key put
    back in the order of its payload (undoing `option_order`)."""
    q = dict(question)
    order: Sequence[int] | None = q.get("option_order")
    if not order:
        return q
    n = len(order)
    options: list[Any] = [None] * n
    for shown, original in enumerate(order):
        options[original] = q["options"][shown]
    q["options"] = options
    if q.get("option_tags") is not None:
        tags: list[Any] = [None] * n
        for shown, original in enumerate(order):
            tags[original] = q["option_tags"][shown]
        q["option_tags"] = tags
    if q.get("correct_index") is not None:
        q["correct_index"] = order[q["correct_index"]]
    q["option_order"] = None
    return q


def bad_order_row(options: pa.ChunkedArray, order: pa.ChunkedArray) -> int:
    """First row whose `option_order` is not a permutation of its option
    positions (−1 when every recorded order is one; null orders are fine)."""
    values = order.combine_chunks()
    valid = np.asarray(pc.is_valid(values), dtype=bool)
    if not valid.any():
        return -1
    n_opts = np.asarray(pc.list_value_length(options), dtype=np.int64)
    lengths = np.asarray(pc.fill_null(pc.list_value_length(values), 0), dtype=np.int64)
    wrong = valid & (lengths != n_opts)
    flat = np.asarray(pc.fill_null(pc.list_flatten(values), -1), dtype=np.int64)
    parents = np.repeat(np.arange(len(lengths), dtype=np.int64), np.where(valid, lengths, 0))
    out_of_range = (flat < 0) | (flat >= n_opts[parents])
    wrong[parents[out_of_range]] = True
    # In range and as many as the options: a permutation iff no value repeats.
    codes = parents * (int(n_opts.max()) + 1) + np.clip(flat, 0, None)
    distinct = np.bincount(parents[np.unique(codes, return_index=True)[1]], minlength=len(lengths))
    wrong |= valid & (distinct != lengths)
    bad = np.flatnonzero(wrong)
    return int(bad[0]) if len(bad) else -1
