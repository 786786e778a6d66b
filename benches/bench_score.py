"""Scoring 10 million responses: steer vs polars vs duckdb vs the numpy floor.

The full metric set (exact match, normalized accuracy and its strict and gap
variants, no-answer rate, ECE over 10 bins, Brier, EPA) grouped by
model × element × domain, computed by each tool in the same run; the
numbers are checked equal before any time is reported.

    python -m pytest benches/bench_score.py --benchmark-enable -s
"""

from __future__ import annotations

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
        sum_p=pl.when(a).then(1.0 / k).otherwise(0.0).sum(),
        n_prob=hp.sum(),
        sum_pc=pl.when(hp).then(pl.col("pc")).otherwise(0.0).sum(),
        sum_brier=pl.when(hp).then(pl.col("brier")).otherwise(0.0).sum(),
    )
    ans = pl.col("n_units") - pl.col("n_no_answer")
    return (
        main.join(ece, on=KEYS, how="left")
        .select(
            *KEYS,
            exact_match=pl.col("n_correct") / ans,
            normalized_accuracy=pl.col("sum_norm") / ans,
            normalized_accuracy_strict=pl.col("sum_strict") / pl.col("n_units"),
            gap=(pl.col("n_correct") - pl.col("sum_p")) / ans,
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
         SUM(CASE WHEN answered THEN 1.0 / k ELSE 0 END) AS sum_p,
         SUM(has_p::INT) AS n_prob,
         SUM(CASE WHEN has_p THEN pc ELSE 0 END) AS sum_pc,
         SUM(CASE WHEN has_p THEN brier ELSE 0 END) AS sum_brier
  FROM r3 GROUP BY ALL)
SELECT main.model::VARCHAR AS model, main.element::VARCHAR AS element,
       main.domain::VARCHAR AS domain,
       n_correct / (n_units - n_no_answer) AS exact_match,
       sum_norm / (n_units - n_no_answer) AS normalized_accuracy,
       sum_strict / n_units AS normalized_accuracy_strict,
       (n_correct - sum_p) / (n_units - n_no_answer) AS gap,
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
