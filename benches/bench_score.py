"""Scoring 10 million responses: steer vs polars vs duckdb vs the numpy floor.

The full metric set (exact match, normalized accuracy and its strict and gap
variants, no-answer rate, ECE over 10 bins, Brier, EPA) grouped by
model × element × domain, computed by each tool in the same run; the
numbers are checked equal before any time is reported.

    python -m pytest benches/bench_score.py --benchmark-enable -s
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import Any

import duckdb
import numpy as np
import polars as pl
import pyarrow as pa
import pytest

from steer.score import score
from synthetic import response_table

N_ROWS = 10_000_000
KEYS = ["model", "element", "domain"]
METRICS = [
    "exact_match",
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "gap",
    "no_answer_rate",
    "ece",
    "brier",
    "epa",
]
BINS = 10


@pytest.fixture(scope="module")
def table() -> pa.Table:
    return response_table(N_ROWS, seed=1)


def best_of(fn: Callable[[], Any], repeat: int = 3) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def steer_metrics(table: pa.Table) -> pa.Table:
    return score(table, by=KEYS, metrics=METRICS, ci=None, bins=BINS)


def polars_metrics(df: pl.DataFrame) -> pl.DataFrame:
    k, c, o = pl.col("n_options"), pl.col("correct_index"), pl.col("chosen_index")
    p = pl.col("option_probs")
    answered = o >= 0
    psum = p.list.sum()
    rows = (
        df.lazy()
        .with_columns(
            answered=answered,
            right=answered & (o == c),
            pen=pl.when(k > 1).then(1.0 / (k - 1)).otherwise(1.0),
            has_p=p.is_not_null() & answered & (psum > 0),
            conf=p.list.max() / psum,
            topc=p.list.arg_max() == c,
            pc=p.list.get(c) / psum,
            sq=p.list.eval(pl.element() * pl.element()).list.sum() / (psum * psum),
        )
        .with_columns(
            brier=(pl.col("sq") - 2 * pl.col("pc") + 1) / k,
            bin=(pl.col("conf") * BINS).floor().clip(upper_bound=BINS - 1),
        )
    )
    ece = (
        rows.filter(pl.col("has_p"))
        .group_by([*KEYS, "bin"])
        .agg(sc=pl.col("conf").sum(), sa=pl.col("topc").sum())
        .group_by(KEYS)
        .agg(gap=(pl.col("sa") - pl.col("sc")).abs().sum())
    )
    a, r, pen, hp = pl.col("answered"), pl.col("right"), pl.col("pen"), pl.col("has_p")
    main = rows.group_by(KEYS).agg(
        n_units=pl.len(),
        n_no_answer=(~a).sum(),
        n_correct=r.sum(),
        sum_norm=pl.when(a).then(pl.when(r).then(1.0).otherwise(-pen)).otherwise(0.0).sum(),
        sum_strict=pl.when(r).then(1.0).otherwise(-pen).sum(),
        sum_p=(1.0 / k).sum(),
        n_prob=hp.sum(),
        sum_pc=pl.when(hp).then(pl.col("pc")).otherwise(0.0).sum(),
        sum_brier=pl.when(hp).then(pl.col("brier")).otherwise(0.0).sum(),
    )
    # Every answer metric is over the questions asked (a no-answer counts).
    asked = pl.col("n_units")
    return (
        main.join(ece, on=KEYS, how="left")
        .select(
            *KEYS,
            exact_match=pl.col("n_correct") / asked,
            normalized_accuracy=pl.col("sum_norm") / asked,
            normalized_accuracy_strict=pl.col("sum_strict") / asked,
            gap=(pl.col("n_correct") - pl.col("sum_p")) / asked,
            no_answer_rate=pl.col("n_no_answer") / pl.col("n_units"),
            ece=pl.col("gap") / pl.col("n_prob"),
            brier=pl.col("sum_brier") / pl.col("n_prob"),
            epa=pl.col("sum_pc") / pl.col("n_prob"),
        )
        .collect()
    )


DUCKDB_SQL = f"""
WITH r AS (
  SELECT model, element, domain, n_options AS k, chosen_index AS o, correct_index AS c,
         chosen_index >= 0 AS answered,
         chosen_index >= 0 AND chosen_index = correct_index AS rt,
         CASE WHEN n_options > 1 THEN 1.0 / (n_options - 1) ELSE 1.0 END AS pen,
         option_probs AS p, list_sum(option_probs) AS psum
  FROM t),
r2 AS (
  SELECT *, p IS NOT NULL AND answered AND psum > 0 AS has_p,
         list_max(p) / psum AS conf,
         list_position(p, list_max(p)) - 1 = c AS topc,
         p[c + 1] / psum AS pc,
         list_sum(list_transform(p, lambda x: x * x)) / (psum * psum) AS sq
  FROM r),
r3 AS (SELECT *, (sq - 2 * pc + 1) / k AS brier,
              LEAST(FLOOR(conf * {BINS}), {BINS - 1}) AS bin FROM r2),
bins AS (SELECT model, element, domain, bin, SUM(conf) AS sc, SUM(topc::INT) AS sa
         FROM r3 WHERE has_p GROUP BY ALL),
ece AS (SELECT model, element, domain, SUM(ABS(sa - sc)) AS gap FROM bins GROUP BY ALL),
main AS (
  SELECT model, element, domain, COUNT(*) AS n_units,
         SUM((NOT answered)::INT) AS n_no_answer, SUM(rt::INT) AS n_correct,
         SUM(CASE WHEN NOT answered THEN 0 WHEN rt THEN 1.0 ELSE -pen END) AS sum_norm,
         SUM(CASE WHEN rt THEN 1.0 ELSE -pen END) AS sum_strict,
         SUM(1.0 / k) AS sum_p,
         SUM(has_p::INT) AS n_prob,
         SUM(CASE WHEN has_p THEN pc ELSE 0 END) AS sum_pc,
         SUM(CASE WHEN has_p THEN brier ELSE 0 END) AS sum_brier
  FROM r3 GROUP BY ALL)
SELECT main.model::VARCHAR AS model, main.element::VARCHAR AS element,
       main.domain::VARCHAR AS domain,
       n_correct / n_units AS exact_match,
       sum_norm / n_units AS normalized_accuracy,
       sum_strict / n_units AS normalized_accuracy_strict,
       (n_correct - sum_p) / n_units AS gap,
       n_no_answer / n_units AS no_answer_rate,
       gap / n_prob AS ece, sum_brier / n_prob AS brier, sum_pc / n_prob AS epa
FROM main LEFT JOIN ece USING (model, element, domain)
"""


def duckdb_metrics(t: pa.Table) -> pa.Table:
    return duckdb.sql(DUCKDB_SQL).arrow().read_all()


def numpy_floor(table: pa.Table) -> float:
    """Sum every numeric column the metrics read: the cost of touching the data."""
    total = 0.0
    for name in ("n_options", "chosen_index", "correct_index"):
        total += table[name].combine_chunks().to_numpy().sum()
    for name in KEYS:
        total += table[name].combine_chunks().indices.to_numpy().sum()
    probs = table["option_probs"].combine_chunks()
    total += probs.values.to_numpy().sum() + probs.offsets.to_numpy().sum()
    return total


def _sorted(t: pa.Table) -> pa.Table:
    t = t.select([*KEYS, *METRICS])
    for k in KEYS:
        t = t.set_column(t.column_names.index(k), k, t[k].cast(pa.string()))
    return t.sort_by([(k, "ascending") for k in KEYS])


def test_full_metric_set_vs_polars_and_duckdb(benchmark: Any, table: pa.Table) -> None:
    ours = benchmark.pedantic(steer_metrics, args=(table,), rounds=3, iterations=1)
    df = pl.from_arrow(table)
    theirs_pl = polars_metrics(df).to_arrow()
    theirs_db = duckdb_metrics(table)
    a, b, c = _sorted(ours), _sorted(theirs_pl), _sorted(theirs_db)
    assert a.num_rows == b.num_rows == c.num_rows == 20 * 120 * 12
    for name in METRICS:
        x = a[name].to_numpy(zero_copy_only=False)
        np.testing.assert_allclose(
            b[name].to_numpy(zero_copy_only=False),
            x,
            rtol=1e-9,
            atol=1e-9,
            err_msg=f"polars {name}",
        )
        np.testing.assert_allclose(
            c[name].to_numpy(zero_copy_only=False),
            x,
            rtol=1e-9,
            atol=1e-9,
            err_msg=f"duckdb {name}",
        )
    t_steer = benchmark.stats.stats.min
    t_polars = best_of(lambda: polars_metrics(df))
    t_duckdb = best_of(lambda: duckdb_metrics(table))
    t_floor = best_of(lambda: numpy_floor(table), repeat=5)
    print(
        f"\n{N_ROWS:,} rows, {a.num_rows:,} groups (model × element × domain), "
        f"{len(METRICS)} metrics:\n"
        f"  steer  {t_steer:7.3f} s\n"
        f"  polars {t_polars:7.3f} s   steer/polars = {t_steer / t_polars:.2f}\n"
        f"  duckdb {t_duckdb:7.3f} s   steer/duckdb = {t_steer / t_duckdb:.2f}\n"
        f"  numpy column sums (floor) {t_floor:.3f} s   steer/floor = {t_steer / t_floor:.2f}"
    )


# --- coverage, keys and dedupe on -------------------------------------------------------------
# Two inputs of 5M rows each answering one bank (250k questions × 20 models):
# a run and its rerun, given together with `--bank` and `--dedupe latest`.
# Each drops 1% of its answers (completed with no-answer rows from the bank);
# the rerun is recorded later and changes 30% of the answers, so the kept rows
# decide the metrics. Polars does the same: anti-join for the missing
# questions, then keep the latest row per key.
N_KEYED = int(os.environ.get("STEER_BENCH_KEYED_ROWS", str(N_ROWS)))
MODELS = 20


def keyed_inputs(n: int, seed: int) -> tuple[pa.Table, pa.Table, pa.Table]:
    rng = np.random.default_rng(seed)
    per_input = n // 2
    n_questions = per_input // MODELS
    qids = pa.array([f"q{i:07d}" for i in range(n_questions)])
    q_options = rng.integers(2, 6, n_questions, dtype=np.int32)
    offsets = np.zeros(n_questions + 1, dtype=np.int32)
    np.cumsum(q_options, out=offsets[1:])
    bank = pa.table(
        {
            "question_id": qids,
            "base_id": qids,
            "part": np.zeros(n_questions, np.int32),
            "element": pa.array([f"steer.x.{i:03d}" for i in rng.integers(0, 120, n_questions)]),
            "domain": pa.array([f"domain-{i:03d}" for i in rng.integers(0, 12, n_questions)]),
            "options": pa.ListArray.from_arrays(
                pa.array(offsets), pa.nulls(int(offsets[-1]), pa.string())
            ),
            "correct_index": (rng.random(n_questions) * q_options).astype(np.int32),
        }
    )
    rows = np.arange(per_input)

    def one(seed: int, recorded: float, change: float) -> pa.Table:
        t = response_table(per_input, seed=seed)
        t = t.set_column(
            t.schema.get_field_index("model"),
            "model",
            pa.DictionaryArray.from_arrays(
                pa.array((rows % MODELS).astype(np.int32)),
                pa.array([f"model-{i:03d}" for i in range(MODELS)]),
            ),
        )
        t = t.append_column(
            "question_id",
            pa.DictionaryArray.from_arrays(pa.array((rows // MODELS).astype(np.int32)), qids),
        )
        t = t.append_column("sample", pa.array(np.zeros(per_input, np.int32)))
        t = t.append_column("recorded_at", pa.array(np.full(per_input, recorded)))
        if change:
            moved = rng.random(per_input) < change
            chosen = t["chosen_index"].to_numpy()
            right = t["correct_index"].to_numpy()
            t = t.set_column(
                t.schema.get_field_index("chosen_index"),
                "chosen_index",
                pa.array(np.where(moved, right, chosen).astype(np.int32)),
            )
        return t.filter(pa.array(rng.random(per_input) >= 0.01))

    return bank, one(seed + 1, 1.0, 0.0), one(seed + 2, 2.0, 0.3)


def steer_keyed(bank: pa.Table, a: pa.Table, b: pa.Table) -> pa.Table:
    return score([a, b], by=KEYS, metrics=METRICS, ci=None, bins=BINS, bank=bank, dedupe="latest")


def polars_keyed(bank: pl.DataFrame, inputs: list[pl.DataFrame]) -> pl.DataFrame:
    key = ["question_id", "model", "sample"]
    parts = []
    for df in inputs:
        # Every bank question each model of this input lacks: a no-answer row.
        missing = (
            bank.join(df.select("model").unique(), how="cross")
            .join(df.select("question_id", "model"), on=["question_id", "model"], how="anti")
            .select(
                "question_id",
                "model",
                "element",
                "domain",
                n_options=pl.col("options").list.len().cast(pl.Int32),
                correct_index="correct_index",
                chosen_index=pl.lit(-1, pl.Int32),
                sample=pl.lit(0, pl.Int32),
                real=pl.lit(False),
            )
        )
        parts += [df.with_columns(real=pl.lit(True)), missing]
    rows = pl.concat(parts, how="diagonal_relaxed").with_row_index("order")
    latest = (
        rows.with_columns(rec=pl.col("recorded_at").fill_null(-np.inf))
        .sort([*key, "real", "rec", "order"])
        .unique(subset=key, keep="last")
    )
    return polars_metrics(latest)


def test_coverage_keys_and_dedupe_vs_polars(benchmark: Any) -> None:
    bank, a, b = keyed_inputs(N_KEYED, seed=5)
    ours = benchmark.pedantic(steer_keyed, args=(bank, a, b), rounds=2, iterations=1)
    # Categorical keys on both sides, as steer's dictionary columns.
    bank_pl = pl.from_arrow(bank).with_columns(
        pl.col("question_id", "element", "domain").cast(pl.Categorical)
    )
    inputs = [pl.from_arrow(t) for t in (a, b)]
    theirs = polars_keyed(bank_pl, inputs)
    x, y = _sorted(ours), _sorted(theirs.to_arrow())
    assert x.num_rows == y.num_rows
    for name in METRICS:
        np.testing.assert_allclose(
            y[name].to_numpy(zero_copy_only=False),
            x[name].to_numpy(zero_copy_only=False),
            rtol=1e-9,
            atol=1e-9,
            err_msg=f"polars {name}",
        )
    t_steer = benchmark.stats.stats.min
    t_polars = best_of(lambda: polars_keyed(bank_pl, inputs), repeat=2)
    print(
        f"\n{a.num_rows + b.num_rows:,} rows in two inputs, {bank.num_rows:,} questions "
        f"× {MODELS} models, --bank and --dedupe latest, {len(METRICS)} metrics:\n"
        f"  steer  {t_steer:7.3f} s\n"
        f"  polars {t_polars:7.3f} s   polars/steer = {t_polars / t_steer:.2f}×"
    )
