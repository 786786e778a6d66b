"""Majority vote over 5 members of a 10,000-question bank: steer's vote and
crowd-gain (`steer.run.majority_vote`, `crowd_gain`) beside polars computing
the same plurality (group by question, most frequent answer) in one run.

Run: python -m pytest benches/bench_collective.py --benchmark-enable -s
 (or: python benches/bench_collective.py)

Target from the issue: the vote adds under 1 s of scoring time. Nothing
asserts; reported are both times and their ratio.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pyarrow as pa

from steer.run import crowd_gain, majority_vote
from steer.schema import RESPONSE_SCHEMA, Adaptation

N_QUESTIONS = 10_000
MEMBERS = 5


def member_table(seed: int = 0) -> pa.Table:
    rng = np.random.default_rng(seed)
    n = N_QUESTIONS * MEMBERS
    qid = np.repeat(np.arange(N_QUESTIONS), MEMBERS)
    n_options = np.repeat(rng.integers(2, 6, N_QUESTIONS), MEMBERS)
    right = rng.random(n) < 0.6
    chosen = np.where(right, 0, rng.integers(0, n_options))
    adaptation = Adaptation().model_dump()
    columns: dict[str, Any] = {name: pa.nulls(n, RESPONSE_SCHEMA.field(name).type)
                               for name in RESPONSE_SCHEMA.names}  # fmt: skip
    columns.update(
        run_id=pa.array(["m"] * n), model=pa.array(["agent:x"] * n),
        backend=pa.array(["agent"] * n),
        adaptation=pa.array([adaptation] * n, RESPONSE_SCHEMA.field("adaptation").type),
        question_id=pa.array([f"q{i:05d}" for i in qid]),
        base_id=pa.array([f"q{i:05d}" for i in qid]),
        part=pa.array(np.zeros(n, np.int32)), element=pa.array(["steer.1.1.a"] * n),
        domain=pa.array(["d"] * n), type=pa.array(["t"] * n), perspective=pa.array(["first"] * n),
        grade=pa.array(np.ones(n, np.int32)), n_options=pa.array(n_options.astype(np.int32)),
        chosen_index=pa.array(chosen.astype(np.int32)),
        correct_index=pa.array(np.zeros(n, np.int32)),
        sample=pa.array(np.tile(np.arange(MEMBERS), N_QUESTIONS).astype(np.int32)),
        recorded_at=pa.array(np.zeros(n)),
    )  # fmt: skip
    arrays = [pa.array(columns[f.name]).cast(f.type) if not isinstance(columns[f.name], pa.Array)
              else columns[f.name].cast(f.type) for f in RESPONSE_SCHEMA]  # fmt: skip
    return pa.Table.from_arrays(arrays, schema=RESPONSE_SCHEMA)


def run_steer(table: pa.Table, gain: bool = True) -> float:
    t0 = time.perf_counter()
    vote = majority_vote(table, f"majority:{MEMBERS}")
    if gain:
        crowd_gain(table, vote)
    return time.perf_counter() - t0


def run_polars(table: pa.Table) -> float:
    import polars as pl

    df = pl.from_arrow(table.select(["question_id", "chosen_index", "correct_index"]))
    assert isinstance(df, pl.DataFrame)
    t0 = time.perf_counter()
    votes = (
        df.filter(pl.col("chosen_index") >= 0)
        .group_by("question_id", "chosen_index")
        .len()
        .sort(["question_id", "len"], descending=[False, True])
        .group_by("question_id", maintain_order=True)
        .first()
    )
    members = df.group_by("question_id").agg(
        (pl.col("chosen_index") == pl.col("correct_index")).mean().alias("acc")
    )
    joined = votes.join(members, on="question_id").join(
        df.group_by("question_id").agg(pl.col("correct_index").first()), on="question_id"
    )
    (joined["chosen_index"] == joined["correct_index"]).mean()
    return time.perf_counter() - t0


def measure() -> str:
    table = member_table()
    run_steer(table)
    run_polars(table)
    steer = min(run_steer(table) for _ in range(3))
    vote_only = min(run_steer(table, gain=False) for _ in range(3))
    polars = min(run_polars(table) for _ in range(3))
    return "\n".join(
        [
            f"majority of {MEMBERS} over {N_QUESTIONS} questions ({table.num_rows} member rows)",
            f"steer vote + crowd gain (2,000 bootstrap) : {steer * 1e3:8.1f} ms  (target < 1 s)",
            f"steer vote alone                         : {vote_only * 1e3:8.1f} ms",
            f"polars plurality + accuracies (no interval): {polars * 1e3:8.1f} ms",
            f"ratio steer/polars                       : {steer / polars:8.2f}",
        ]
    )


def test_bench_collective(benchmark: Any) -> None:
    report: list[str] = []
    benchmark.pedantic(lambda: report.append(measure()), rounds=1, iterations=1)
    print("\n" + report[-1])


if __name__ == "__main__":
    print(measure())
