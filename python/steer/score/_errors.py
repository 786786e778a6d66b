"""Error types of wrong answers, and the numeric / categorical split.

A wrong answer's error type is the tag of the option it chose (a digit slip
`x+wrong_tens_digit` counts under `x`; `untagged` when the option has no
tag), or `off_options` for an answer that named no option (`chosen_index`
−2, a free-text number matching neither the key nor a distractor). Right
answers, no-answers and parts without a key have none. The runner records
the type as it records the response (`error_type`); for tables without the
column the loader fills it from the bank the responses answered, and the
scorer counts wrong answers per (group, type) in the Rust core.

`answer_kind` says whether a question is `numeric` (it has an
`answer_value`) or `categorical` (none: its free-text reply is judged by the
option's words); STEER-ME reports the two apart, so `--by answer_kind`
splits them. Nothing here loops over rows.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.schema import NO_ANSWER, OFF_OPTIONS, OFF_OPTIONS_TAG

UNTAGGED = "untagged"
ERROR_PREFIX = "n_error:"
RATE_PREFIX = "error_rate:"


def _wrong(table: pa.Table) -> np.ndarray:
    chosen = np.asarray(pc.fill_null(table["chosen_index"], NO_ANSWER), dtype=np.int64)
    correct_col = table["correct_index"]
    keyed = np.asarray(pc.is_valid(correct_col), dtype=bool)
    correct = np.asarray(pc.fill_null(correct_col, -1), dtype=np.int64)
    out: np.ndarray = keyed & (chosen != NO_ANSWER) & (chosen != correct)
    return out


def _bank_rows(table: pa.Table, questions: pa.Table) -> tuple[np.ndarray, np.ndarray]:
    """(bank row of each response, whether its question is in the bank)."""
    ids = pc.index_in(table["question_id"], value_set=questions["question_id"].combine_chunks())
    known = np.asarray(pc.is_valid(ids), dtype=bool)
    rows = np.asarray(pc.fill_null(ids, 0), dtype=np.int64)
    return rows, known


def bank_error_types(table: pa.Table, questions: pa.Table) -> pa.Array:
    """The error type of every response row, from the bank's option tags."""
    n = table.num_rows
    chosen = np.asarray(pc.fill_null(table["chosen_index"], NO_ANSWER), dtype=np.int64)
    wrong = _wrong(table)
    out = np.full(n, None, dtype=object)
    out[wrong] = UNTAGGED
    if "option_tags" in questions.column_names and n:
        rows, known = _bank_rows(table, questions)
        tags = questions["option_tags"].combine_chunks()
        lengths = np.asarray(pc.fill_null(pc.list_value_length(tags), 0), dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        ok = wrong & known & (chosen >= 0) & (chosen < lengths[rows])
        flat = np.asarray(pc.list_flatten(tags).to_numpy(zero_copy_only=False), dtype=object)
        picked = flat[offsets[rows[ok]] + chosen[ok]]
        named = pc.list_element(
            pc.split_pattern(pa.array(picked, pa.string()), "+", max_splits=1), 0
        )
        named = pc.if_else(pc.equal(pc.fill_null(named, ""), ""), UNTAGGED, named)
        out[ok] = np.asarray(named.to_numpy(zero_copy_only=False), dtype=object)
    out[wrong & (chosen == OFF_OPTIONS)] = OFF_OPTIONS_TAG
    return pa.array(out, pa.string())


def with_bank_columns(table: pa.Table, questions: pa.Table | None) -> pa.Table:
    """`table` with `error_type` filled from the bank where the column is
    absent or empty, and `answer_kind` (numeric / categorical) where the bank
    has `answer_value`."""
    if questions is None or not table.num_rows or "question_id" not in questions.column_names:
        return table
    has_types = "error_type" in table.column_names and table["error_type"].null_count < len(table)
    if not has_types:
        types = bank_error_types(table, questions)
        if "error_type" in table.column_names:
            index = table.schema.get_field_index("error_type")
            table = table.set_column(index, "error_type", types)
        else:
            table = table.append_column("error_type", types)
    if "answer_value" in questions.column_names and "answer_kind" not in table.column_names:
        rows, known = _bank_rows(table, questions)
        numeric = np.asarray(pc.is_valid(questions["answer_value"]), dtype=bool)[rows]
        kind = np.where(numeric, "numeric", "categorical").astype(object)
        kind[~known] = None
        table = table.append_column("answer_kind", pa.array(kind, pa.string()))
    return table


def row_error_types(table: pa.Table) -> pa.Array:
    """Each row's error type for scoring: the recorded one, else (a wrong
    answer without one) `off_options` for −2 and `untagged` otherwise; null
    for rows that are not wrong."""
    wrong = _wrong(table)
    chosen = np.asarray(pc.fill_null(table["chosen_index"], NO_ANSWER), dtype=np.int64)
    fallback = np.where(chosen == OFF_OPTIONS, OFF_OPTIONS_TAG, UNTAGGED).astype(object)
    if "error_type" in table.column_names:
        recorded = table["error_type"].cast(pa.string())
        values = np.asarray(recorded.to_numpy(zero_copy_only=False), dtype=object)
        missing = np.asarray(pc.is_null(recorded), dtype=bool)
        values = np.where(missing, fallback, values)
    else:
        values = fallback
    values = values.astype(object)
    values[~wrong] = None
    return pa.array(values, pa.string())
