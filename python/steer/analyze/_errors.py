"""The error types of wrong answers: each chosen distractor's tag.

Generated questions tag every wrong option with the error it encodes
(`option_tags`); a wrong answer is counted under its option's tag (a
digit slip of a named error, `swapped_profits+wrong_tens_digit`, under the
named error, or in full). Free-text replies reach here as the option their number
matched, so they are classified the same way. No-answers are counted apart.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class ErrorCount:
    tag: str
    count: int
    share: float  # of the wrong answers that chose a tagged option


def chosen_tags(
    question_id: pa.ChunkedArray | pa.Array,
    chosen: np.ndarray,
    bank: pa.Table,
) -> pa.Array:
    """Per response, the tag of the option it chose (null: no answer, no tag,
    or the question is not in `bank`)."""
    ids = pc.index_in(question_id, value_set=bank["question_id"].combine_chunks())
    tags = bank["option_tags"].combine_chunks() if "option_tags" in bank.column_names else None
    rows = ids.to_numpy(zero_copy_only=False)
    out = np.full(len(chosen), None, dtype=object)
    if tags is None:
        return pa.array(out, pa.string())
    known = ~pc.is_null(ids).to_numpy(zero_copy_only=False)
    bank_rows = np.where(known, np.nan_to_num(rows.astype(np.float64), nan=0), 0).astype(np.int64)
    lengths = pc.fill_null(pc.list_value_length(tags), 0).to_numpy(zero_copy_only=False)
    offsets = np.concatenate([[0], np.cumsum(lengths)])
    valid = known & (chosen >= 0) & (chosen < lengths[bank_rows])
    flat = pc.list_flatten(tags).to_numpy(zero_copy_only=False)
    where = offsets[bank_rows[valid]] + chosen[valid]
    out[valid] = flat[where]
    return pa.array(out, pa.string())


def error_counts(tags: pa.Array, *, combined: bool = False) -> list[ErrorCount]:
    """Counts of wrong answers by error tag, most frequent first. A digit slip
    of a named error (`swapped_profits+wrong_tens_digit`) counts under the
    named error unless `combined`, which keeps the full tag; either way the
    shares sum to one."""
    present = pc.drop_null(tags)
    present = present.filter(pc.not_equal(present, "key"))
    if len(present) == 0:
        return []
    if not combined:
        present = pc.list_element(pc.split_pattern(present, "+", max_splits=1), 0)
    counts = pc.value_counts(present).to_pylist()
    total = len(present)
    ordered = sorted(((c["values"], c["counts"]) for c in counts), key=lambda kv: (-kv[1], kv[0]))
    return [ErrorCount(tag, count, count / total) for tag, count in ordered]
