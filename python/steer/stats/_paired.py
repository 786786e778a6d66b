"""Compare two sides question by question: per cell, the paired difference
B − A of a per-question outcome, its interval, a raw and an adjusted p-value.

Questions are paired on (bank fingerprint, element, question id); only those
present on both sides count (a response table holds a row, possibly a
no-answer, for every question its run was asked). Exact match is tested with
McNemar's exact test when every outcome is 0/1 (one sample per question);
other metrics, and averaged repeated samples, with the paired bootstrap. The
interval is always the paired bootstrap's percentile interval.
"""

from __future__ import annotations

from typing import TypedDict

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.stats._bootstrap import paired_bootstrap
from steer.stats._mcnemar import mcnemar_exact
from steer.stats._multitest import Correction, adjust

PAIR_KEYS = ["bank_sha256", "element", "question"]
COLUMNS = (
    "cell", "n", "a", "b", "diff", "lo", "hi", "p", "p_adjusted", "test", "a_only", "b_only",
)  # fmt: skip


class PairedOptions(TypedDict, total=False):
    """`compare`'s keyword options, for callers that pass them through."""

    by: str
    level: float
    correction: Correction
    resamples: int
    seed: int


def paired_values(a: pa.Table, b: pa.Table, metric: str) -> pa.Table:
    """The questions on both sides: PAIR_KEYS, `a` and `b` (the metric's values)."""
    left = a.select([*PAIR_KEYS, metric]).rename_columns([*PAIR_KEYS, "a"])
    right = b.select([*PAIR_KEYS, metric]).rename_columns([*PAIR_KEYS, "b"])
    joined = left.join(right, PAIR_KEYS, join_type="inner", use_threads=False)
    return joined.sort_by([(k, "ascending") for k in PAIR_KEYS])


def compare(
    a: pa.Table,
    b: pa.Table,
    metric: str,
    *,
    by: str = "element",
    level: float = 0.05,
    correction: Correction = "holm",
    resamples: int = 2000,
    seed: int = 0,
) -> pa.Table:
    """Paired B − A per cell of two question-outcome tables (see
    `steer.score.question_outcomes`), one side each.

    Cells are elements (`by="element"`) or one cell "all" (`by="all"`).
    `level` also sets the interval's confidence (1 − level).
    Returns COLUMNS, one row per cell, sorted by cell; `a_only` / `b_only`
    count discordant questions right only on that side (exact match).
    """
    pairs = paired_values(a, b, metric)
    if by not in ("element", "all"):
        raise ValueError(f"by must be 'element' or 'all', got {by!r}")
    if by == "element":
        cell = pairs["element"]
    else:
        cell = pa.array(np.full(pairs.num_rows, "all", dtype=object), pa.string())
    names = sorted(set(pc.unique(cell).to_pylist())) if pairs.num_rows else []
    encoded = pc.index_in(cell, value_set=pa.array(names, pa.string())).to_numpy(
        zero_copy_only=False
    )
    av = pairs["a"].to_numpy()
    bv = pairs["b"].to_numpy()
    order = np.argsort(encoded, kind="stable")
    bounds = np.searchsorted(encoded[order], np.arange(len(names) + 1))
    rows: dict[str, list[object]] = {c: [] for c in COLUMNS}
    for i, name in enumerate(names):  # one iteration per cell, not per row
        idx = order[bounds[i] : bounds[i + 1]]
        x, y = av[idx], bv[idx]
        boot = paired_bootstrap(
            x, y, resamples=resamples, level=1 - level, seed=seed, key=f"{metric}/{name}"
        )
        a_only = int(np.sum((x == 1) & (y == 0)))
        b_only = int(np.sum((x == 0) & (y == 1)))
        binary = bool(np.all((x == 0) | (x == 1)) and np.all((y == 0) | (y == 1)))
        if metric == "exact_match" and binary:
            p, test = mcnemar_exact(a_only, b_only), "mcnemar"
        else:
            p, test = boot.p, "bootstrap"
        for column, value in zip(
            COLUMNS,
            (name, idx.size, float(x.mean()), float(y.mean()), boot.mean, boot.lo, boot.hi,
             p, None, test, a_only, b_only),
            strict=True,
        ):  # fmt: skip
            rows[column].append(value)
    rows["p_adjusted"] = list(adjust(np.asarray(rows["p"], dtype=np.float64), correction))
    types = {"cell": pa.string(), "n": pa.int64(), "test": pa.string()}
    types |= {"a_only": pa.int64(), "b_only": pa.int64()}
    return pa.table({c: pa.array(v, types.get(c, pa.float64())) for c, v in rows.items()})


def significant_drops(table: pa.Table, level: float) -> pa.Table:
    """Rows where B is below A and the adjusted p-value is below `level`."""
    mask = pc.and_(pc.less(table["diff"], 0), pc.less(table["p_adjusted"], level))
    return table.filter(pc.fill_null(mask, False))
