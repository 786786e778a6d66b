"""Exact match and normalized accuracy per group (sums computed in steer-core)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.score._groups import group_codes

COUNT_COLUMNS = ("n_rows", "n_no_answer", "n_correct", "sum_norm", "sum_norm_strict")


def score(responses: pa.Table, by: Sequence[str] = ("model", "element")) -> pa.Table:
    """One row per group: the `by` keys, additive counts and sums, and the rates
    `exact_match` and `normalized_accuracy` (over answered rows).

    Consistency-graded parts (no key) are left out here.
    """
    by = list(by)
    table = responses.filter(pc.is_valid(responses["correct_index"]))
    codes, keys = group_codes(table, by)

    def col(name: str) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(table[name], dtype=np.int64))

    sums = _native.accuracy_by_group(
        codes, keys.num_rows, col("chosen_index"), col("correct_index"), col("n_options")
    )
    out = keys
    for name in COUNT_COLUMNS:
        out = out.append_column(name, pa.array(sums[name]))
    answered = sums["n_rows"] - sums["n_no_answer"]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = out.append_column("exact_match", pa.array(sums["n_correct"] / answered))
        out = out.append_column("normalized_accuracy", pa.array(sums["sum_norm"] / answered))
    return out.sort_by([(name, "ascending") for name in by])
