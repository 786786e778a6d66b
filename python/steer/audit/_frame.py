"""A bank flattened to one row per option, with the blind features the agents read.

Everything is computed column-wise with Arrow compute and numpy: no Python loop
over questions or options.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._split import halves

# Options that decline to answer: "cannot be determined", "nothing follows"…
CANNOT_TELL = (
    r"cannot be determined|can't be determined|cannot be compared|nothing follows"
    r"|not enough information|cannot be (?:known|told|said)|cannot tell|no conclusion follows"
)
# A number as written in options and stems, thousands separators removed first.
NUMBER_TOKEN = r"^-?[0-9]+(?:\.[0-9]+)?$"

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
B = npt.NDArray[np.bool_]


def masked(text: pa.Array) -> pa.Array:
    """Lower case, every run of digits replaced by `0`: the decisive numbers go."""
    lowered = pc.utf8_lower(text)
    return pc.replace_substring_regex(lowered, r"[0-9]+(?:[.,][0-9]+)*", "0")


def _numbers(text: pa.Array) -> tuple[I64, F64, F64, I64]:
    """Per string: parent index of each number token, count, largest, smallest."""
    # Thousands separators go first ("1,234,567" → "1234567"); RE2 has no
    # look-behind, so any comma before three digits is taken as one.
    plain = pc.replace_substring_regex(text, r",([0-9]{3})", r"\1")
    tokens = pc.split_pattern_regex(plain, r"[^0-9.\-]+")
    parent = pc.list_parent_indices(tokens).to_numpy()
    flat = pc.list_flatten(tokens)
    flat = pc.utf8_trim(flat, ".")
    ok = pc.match_substring_regex(flat, NUMBER_TOKEN).to_numpy(zero_copy_only=False)
    values = pc.cast(pc.filter(flat, ok), pa.float64()).to_numpy()
    parent = parent[ok]
    n = len(text)
    count = np.bincount(parent, minlength=n).astype(np.int64)
    largest = np.full(n, -np.inf)
    smallest = np.full(n, np.inf)
    np.maximum.at(largest, parent, values)
    np.minimum.at(smallest, parent, values)
    return parent, largest, smallest, count


@dataclass
class OptionFrame:
    """Question rows (prefix `q_`) and their options flattened (prefix `o_`).

    `o_row[j]` is the question row of option j; `q_start[i]` the first option
    of row i (options of a row are contiguous, in order).
    """

    table: pa.Table
    q_element: I64  # element code
    elements: list[str]
    q_n: I64  # option count
    q_key: I64  # correct index, -1 for consistency-graded
    q_answer: B  # answer-graded
    q_unit: I64  # unit code (consistency group or element/base_id)
    n_units: int
    q_part: I64
    q_half: npt.NDArray[np.int8]
    q_start: I64
    stem_masked: pa.Array
    o_row: I64
    o_pos: I64
    o_text: pa.Array
    o_masked: pa.Array
    o_len: F64
    o_nnum: F64
    o_max: F64  # -inf without numbers
    o_min: F64  # +inf without numbers
    o_is_key: B
    # Derived arrays that several agents read (word overlaps, set items).
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def n_rows(self) -> int:
        return len(self.q_n)

    def rows_of(self, per_row: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """Broadcast a per-row array to options."""
        return per_row[self.o_row]


def unit_keys(table: pa.Table) -> pa.Array:
    """Consistency group where there is one, else element/base_id."""
    base = pc.binary_join_element_wise(table["element"], table["base_id"], "/")
    group = table["consistency_group"]
    key = pc.if_else(pc.is_null(group), base, pc.binary_join_element_wise("cg:", group, ""))
    return key.combine_chunks() if isinstance(key, pa.ChunkedArray) else key


def build_frame(table: pa.Table, seed: int = 0) -> OptionFrame:
    """Flatten a validated bank (see `steer.bank.read_bank`)."""
    table = table.combine_chunks()
    n_rows = table.num_rows
    options = table["options"].chunk(0) if table.num_rows else pa.array([], pa.list_(pa.string()))
    q_n = pc.list_value_length(options).to_numpy(zero_copy_only=False).astype(np.int64)
    q_start = np.concatenate([[0], np.cumsum(q_n)[:-1]]).astype(np.int64) if n_rows else q_n
    key_col = table["correct_index"]
    q_key = pc.fill_null(key_col, -1).to_numpy().astype(np.int64)
    q_answer = pc.equal(pc.fill_null(table["grading"], "answer"), "answer").to_numpy()
    q_answer = q_answer & (q_key >= 0)
    el = pc.dictionary_encode(table["element"]).combine_chunks()
    elements = el.dictionary.to_pylist()
    q_element = el.indices.to_numpy().astype(np.int64)
    units = pc.dictionary_encode(unit_keys(table))
    q_unit = units.indices.to_numpy().astype(np.int64)
    n_units = len(units.dictionary)
    # A question is its stem and its options: equal ones share a half.
    content = pc.binary_join_element_wise(
        table["question_text"], pc.binary_join(table["options"], "\x1f"), "\x1e"
    )
    q_half = halves(content, q_unit, n_units, seed)

    o_row = pc.list_parent_indices(options).to_numpy().astype(np.int64)
    o_text = pc.list_flatten(options)
    o_pos = np.arange(len(o_row), dtype=np.int64) - q_start[o_row]
    _, largest, smallest, count = _numbers(o_text)
    o_masked = pc.utf8_trim_whitespace(masked(o_text))
    return OptionFrame(
        table=table,
        q_element=q_element,
        elements=elements,
        q_n=q_n,
        q_key=q_key,
        q_answer=q_answer,
        q_unit=q_unit,
        n_units=n_units,
        q_part=pc.fill_null(table["part"], 0).to_numpy().astype(np.int64),
        q_half=q_half,
        q_start=q_start,
        stem_masked=masked(table["question_text"].combine_chunks()),
        o_row=o_row,
        o_pos=o_pos,
        o_text=o_text,
        o_masked=o_masked,
        o_len=pc.utf8_length(o_text).to_numpy().astype(np.float64),
        o_nnum=count.astype(np.float64),
        o_max=largest,
        o_min=smallest,
        o_is_key=o_pos == q_key[o_row],
    )
