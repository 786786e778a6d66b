"""Bootstrap intervals: 1,000 resamples of per-element normalized accuracy on
1 million responses (120 elements), steer against the numpy bootstrap a user
would write. Target: under 0.3 s on 2 cores for the whole `score` call.

Normalized accuracy is a mean of per-question values from a handful of
distinct ones (1, −1/(k−1) for each option count k, 0 for a no-answer), so
steer draws each replicate as one exact multinomial over those values:
its cost does not grow with the rows. The numpy loop resamples indices.

    python -m pytest benches/bench_bootstrap.py --benchmark-enable -s
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from steer.score import score
from synthetic import response_table

N_ROWS = 1_000_000
RESAMPLES = 1000


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return response_table(N_ROWS, seed=2)


def numpy_bootstrap(table: pa.Table, resamples: int, seed: int = 0) -> dict[str, tuple]:
    """Per element: resample questions with replacement, recompute normalized
    accuracy over the questions asked (a no-answer scores 0), take the
    2.5/97.5 percentiles."""
    rng = np.random.default_rng(seed)
    element = table["element"].combine_chunks()
    codes = element.indices.to_numpy()
    chosen = table["chosen_index"].to_numpy()
    correct = table["correct_index"].to_numpy()
    k = table["n_options"].to_numpy()
    answered = chosen >= 0
    score_ = np.where(chosen == correct, 1.0, np.where(answered, -1.0 / (k - 1), 0.0))
    out = {}
    for g, name in enumerate(element.dictionary.to_pylist()):
        idx = np.flatnonzero(codes == g)
        s = score_[idx]
        reps = np.empty(resamples)
        for b in range(resamples):
            draw = rng.integers(0, len(idx), len(idx))
            reps[b] = s[draw].mean()
        out[name] = tuple(np.percentile(reps, [2.5, 97.5]))
    return out


def test_bootstrap_per_element(benchmark: Any, table: pa.Table) -> None:
    def ours() -> pa.Table:
        return score(
            table, by=["element"], metrics=["normalized_accuracy"], bootstrap=RESAMPLES, seed=0
        )

    result = benchmark.pedantic(ours, rounds=3, iterations=1)
    t_steer = benchmark.stats.stats.min
    # The same call without intervals: what the bootstrap itself adds.
    t0 = time.perf_counter()
    score(table, by=["element"], metrics=["normalized_accuracy"], ci=None)
    t_plain = time.perf_counter() - t0
    # The numpy loop is slow: time 50 resamples and scale to 1,000.
    t0 = time.perf_counter()
    theirs = numpy_bootstrap(table, 50)
    t_numpy = (time.perf_counter() - t0) * RESAMPLES / 50
    # Same statistic, different random draws: the intervals must roughly agree.
    for row in result.to_pylist():
        lo, hi = theirs[row["element"]]
        width = hi - lo
        assert abs(row["normalized_accuracy_lo"] - lo) < 0.5 * width
        assert abs(row["normalized_accuracy_hi"] - hi) < 0.5 * width
    print(
        f"\n{RESAMPLES} bootstrap resamples of per-element normalized accuracy, "
        f"{N_ROWS:,} rows, 120 elements:\n"
        f"  steer score + bootstrap {t_steer:.3f} s (target < 0.3 s on 2 cores), "
        f"of which scoring alone {t_plain:.3f} s\n"
        f"  numpy loop {t_numpy:.1f} s (extrapolated from 50 resamples)\n"
        f"  numpy/steer = {t_numpy / t_steer:.0f}× faster"
    )
