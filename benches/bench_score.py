"""Grouped accuracy: steer's Rust scorer vs pyarrow's group_by on the same table.

Run: python -m pytest benches/bench_score.py --benchmark-enable -s
"""

from __future__ import annotations

import time

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from steer.score import score

N_ROWS = 1_000_000


@pytest.fixture(scope="module")
def responses() -> pa.Table:
    rng = np.random.default_rng(0)
    n_options = rng.integers(2, 6, N_ROWS)
    correct = (rng.random(N_ROWS) * n_options).astype(np.int64)
    chosen = np.where(
        rng.random(N_ROWS) < 0.6, correct, (rng.random(N_ROWS) * n_options).astype(np.int64)
    )
    chosen[rng.random(N_ROWS) < 0.02] = -1
    return pa.table(
        {
            "model": pa.array(rng.integers(0, 20, N_ROWS).astype(str)).dictionary_encode(),
            "element": pa.array(rng.integers(0, 120, N_ROWS).astype(str)).dictionary_encode(),
            "n_options": n_options,
            "chosen_index": chosen,
            "correct_index": correct,
        }
    )


def pyarrow_reference(t: pa.Table) -> pa.Table:
    answered = pc.not_equal(t["chosen_index"], -1)
    right = pc.and_(answered, pc.equal(t["chosen_index"], t["correct_index"]))
    wrong = pc.and_(answered, pc.invert(right))
    penalty = pc.divide(1.0, pc.subtract(t["n_options"].cast(pa.float64()), 1.0))
    norm = pc.if_else(right, 1.0, pc.if_else(wrong, pc.negate(penalty), 0.0))
    work = pa.table(
        {
            "model": t["model"],
            "element": t["element"],
            "answered": answered,
            "right": right,
            "norm": norm,
        }
    )
    return work.group_by(["model", "element"]).aggregate(
        [("answered", "sum"), ("right", "sum"), ("norm", "sum")]
    )


def best_of(fn, repeat: int = 3) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def test_score_vs_pyarrow(benchmark, responses: pa.Table) -> None:  # type: ignore[no-untyped-def]
    ours = benchmark(score, responses, ["model", "element"])
    theirs = pyarrow_reference(responses)
    assert ours.num_rows == theirs.num_rows
    t_steer = best_of(lambda: score(responses, ["model", "element"]))
    t_arrow = best_of(lambda: pyarrow_reference(responses))
    print(
        f"\nscore {N_ROWS:,} rows by model×element: steer {t_steer * 1e3:.1f} ms, "
        f"pyarrow {t_arrow * 1e3:.1f} ms, ratio steer/pyarrow = {t_steer / t_arrow:.2f}"
    )
