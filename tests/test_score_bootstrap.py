"""Bootstrap intervals: every metric has one, a group's interval depends only on
its own questions and key, and the exact multinomial path agrees in law with
plain resampling of questions (numpy references, scipy for the binomial)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from grade_helpers import steer
from steer import _native
from steer.score import score
from test_score_cases import answers, native_columns, parts, row
from test_score_reference import ALL_METRICS, by_key, response_rows, response_table

EVERY_METRIC = [*ALL_METRICS, "dependency_robustness"]
COUNT_METRICS = [
    "exact_match",
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "gap",
    "no_answer_rate",
]


def mixed_rows(seed: int = 0, models: tuple[str, ...] = ("a", "b", "c")) -> list[dict[str, Any]]:
    """Single-part answers with probabilities across domains, types and
    perspectives, plus multi-part and consistency-graded questions."""
    rng = np.random.default_rng(seed)
    rows: list[dict[str, Any]] = []
    for m, model in enumerate(models):
        for element in ("steer.3.1.b", "steer.3.1.a"):
            for i in range(40):
                k = int(rng.integers(2, 5))
                u = rng.random()
                chosen = -1 if u < 0.1 else (0 if u < 0.4 + 0.15 * m else int(rng.integers(1, k)))
                probs = rng.random(k) + (chosen == 0)
                rows.append(
                    row(
                        model=model,
                        element=element,
                        n_options=k,
                        chosen_index=chosen,
                        correct_index=0,
                        domain=("finance", "sports", "health")[i % 3],
                        type=("standard", "twist")[i % 2],
                        perspective=("first", "third")[(i // 2) % 2],
                        option_probs=list(probs / probs.sum()),
                    )
                )
        for i in range(6):
            rows += parts([2, 3], [i % 2, (i + 1) % 3], [1, 2], model=model)
            rows += [
                r | {"consistency_rule": "same:01"}
                for r in parts([3, 3], [i % 3, (i * 2) % 3 - (i == 4)], [None, None], model=model)
            ]
    return rows


def bounds(table: pa.Table, by: list[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    keyed = by_key(table, by)
    return {
        key: {c: v for c, v in r.items() if c.endswith(("_lo", "_hi"))} for key, r in keyed.items()
    }


def run(rows: list[dict[str, Any]], by: list[str], **kw: Any) -> pa.Table:
    # Dependency robustness compares elements, so it needs them among the keys.
    metrics = [m for m in EVERY_METRIC if "element" in by or m != "dependency_robustness"]
    return score(response_table(rows), by=by, metrics=metrics, bootstrap=300, seed=5, **kw)


def test_every_metric_has_an_interval() -> None:
    by = ["model", "element"]
    got = by_key(run(mixed_rows(), by), by)
    for key, r in got.items():
        for metric in EVERY_METRIC:
            lo, hi = r[f"{metric}_lo"], r[f"{metric}_hi"]
            if r[metric] is None:  # undefined (no consistency question here): no interval
                assert lo is None and hi is None, (key, metric)
                continue
            assert lo is not None and hi is not None, (key, metric)
            assert lo <= hi, (key, metric)
    assert any(r["consistency"] is not None for r in got.values())


def test_shuffling_rows_and_tables_changes_no_interval() -> None:
    rows = mixed_rows()
    by = ["model", "element"]
    want = bounds(run(rows, by), by)
    order = np.random.default_rng(1).permutation(len(rows))
    assert bounds(run([rows[i] for i in order], by), by) == want
    # The same rows as two input tables, in either order.
    half = len(rows) // 2
    tables = [
        response_table([rows[i] for i in order[:half]]),
        response_table([rows[i] for i in order[half:]]),
    ]
    for inputs in (tables, tables[::-1]):
        got = score(inputs, by=by, metrics=EVERY_METRIC, bootstrap=300, seed=5)
        assert bounds(got, by) == want


@settings(max_examples=25, deadline=None)
@given(
    response_rows(max_questions=15),
    st.sampled_from([["model"], ["model", "element"], ["domain"], ["element", "adaptation"]]),
    st.randoms(use_true_random=False),
)
def test_any_table_keeps_its_estimates_and_intervals_when_shuffled(
    rows: list[dict[str, Any]], by: list[str], rnd: Any
) -> None:
    """Multi-part and consistency questions, missing and odd probabilities,
    empty groups: a shuffled table scores the same, bounds included."""
    metrics = [m for m in EVERY_METRIC if "element" in by or m != "dependency_robustness"]

    def scored(rs: list[dict[str, Any]]) -> dict[tuple[Any, ...], dict[str, Any]]:
        table = response_table(rs)
        return by_key(score(table, by=by, metrics=metrics, bootstrap=40, seed=3), by)

    shuffled = list(rows)
    rnd.shuffle(shuffled)
    want, got = scored(rows), scored(shuffled)
    assert set(got) == set(want)
    for key, cell in want.items():
        for name, value in cell.items():
            other = got[key][name]
            if name.endswith(("_lo", "_hi")) or name.startswith("n_") or name == "ece_equal_mass":
                assert other == value, (key, name)
            elif isinstance(value, float):  # sums: the order of additions may differ
                assert other == pytest.approx(value, rel=1e-9, abs=1e-12), (key, name)


def test_steer_score_bootstrap_ignores_the_order_of_files_and_rows(tmp_path: Path) -> None:
    """The command line, on Parquet files: the same rows split over two files,
    given in either order and shuffled within, print the same intervals."""
    rows = mixed_rows()
    order = np.random.default_rng(2).permutation(len(rows))
    half = len(rows) // 2
    pq.write_table(response_table(rows[:half]), tmp_path / "a.parquet")
    pq.write_table(response_table(rows[half:]), tmp_path / "b.parquet")
    pq.write_table(response_table([rows[i] for i in order[:half]]), tmp_path / "c.parquet")
    pq.write_table(response_table([rows[i] for i in order[half:]]), tmp_path / "d.parquet")
    metrics = ",".join(m for m in EVERY_METRIC if m != "dependency_robustness")

    def intervals(*files: str) -> list[dict[str, Any]]:
        result = steer(
            "score", *files, "--by", "model", "--metric", metrics, "--bootstrap", "200",
            "--format", "json", cwd=tmp_path,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        got = json.loads(result.stdout)
        records = got if isinstance(got, list) else got["rows"]
        return [
            {k: v for k, v in r.items() if k == "model" or k.endswith(("_lo", "_hi"))}
            for r in records
        ]

    want = intervals("a.parquet", "b.parquet")
    assert want and all(r["normalized_accuracy_lo"] is not None for r in want)
    assert intervals("b.parquet", "a.parquet") == want
    assert intervals("d.parquet", "c.parquet") == want


def test_removing_other_groups_changes_no_interval() -> None:
    by = ["model"]
    everyone = bounds(run(mixed_rows(), by), by)
    alone = bounds(run([r for r in mixed_rows() if r["model"] == "b"], by), by)
    assert alone[("b",)] == everyone[("b",)]
    # A new model beside them leaves theirs alone too.
    more = bounds(run(mixed_rows(models=("a", "b", "c", "d")), by), by)
    assert {k: more[k] for k in everyone} == everyone


def test_a_metric_interval_does_not_depend_on_the_other_metrics() -> None:
    rows = mixed_rows()
    alone = {
        m: bounds(
            score(response_table(rows), by=["model"], metrics=[m], bootstrap=200, seed=1),
            ["model"],
        )
        for m in ("normalized_accuracy", "consistency", "ece")
    }
    together = bounds(
        score(response_table(rows), by=["model"], metrics=EVERY_METRIC[:11], bootstrap=200, seed=1),
        ["model"],
    )
    for m, got in alone.items():
        for key, cell in got.items():
            assert cell == {c: together[key][c] for c in cell}, (m, key)


def test_seed_and_key_decide_the_stream() -> None:
    rows = [r for r in mixed_rows() if r["model"] in ("a", "b")]
    renamed = [r | {"model": "z" if r["model"] == "a" else r["model"]} for r in rows]
    base = bounds(run(rows, ["model"]), ["model"])
    other = bounds(run(renamed, ["model"]), ["model"])
    assert other[("b",)] == base[("b",)]
    assert other[("z",)] != base[("a",)]  # same data, another key: another stream


def test_robustness_interval_is_the_minimum_of_the_finer_cells() -> None:
    """Each finer cell is resampled by itself, seeded by its own key, so its
    replicates are those of scoring by the finer key directly, and a replicate
    of the minimum is at most every cell's: both bounds are at most the finer
    cells' bounds, and equal them for a group with a single finer cell. The
    minimum is of strict normalized accuracy (a no-answer is wrong)."""
    rows = mixed_rows()
    coarse = by_key(run(rows, ["model"]), ["model"])
    fine = by_key(run(rows, ["model", "domain"]), ["model", "domain"])
    for (model, _), cell in fine.items():
        for side in ("lo", "hi"):
            bound = coarse[(model,)][f"domain_robustness_{side}"]
            assert bound <= cell[f"normalized_accuracy_strict_{side}"] + 1e-12
    for key, cell in fine.items():  # grouped by the dimension: the cell itself
        for side in ("lo", "hi"):
            assert (
                cell[f"domain_robustness_{side}"] == cell[f"normalized_accuracy_strict_{side}"]
            ), key
    one_domain = [r | {"domain": "only"} for r in rows if r["model"] == "a"]
    got = by_key(run(one_domain, ["model"]), ["model"])[("a",)]
    direct = by_key(run(one_domain, ["model", "domain"]), ["model", "domain"])[("a", "only")]
    for side in ("lo", "hi"):
        assert got[f"domain_robustness_{side}"] == direct[f"normalized_accuracy_strict_{side}"]


def test_dependency_interval_on_a_chain() -> None:
    rows = [
        *answers(8, 2, 0, element="steer.3.1.b"),
        *answers(2, 8, 0, element="steer.3.1.a"),
        *answers(10, 0, 0, element="steer.1.2.a", model="n"),
    ]
    got = by_key(
        score(
            response_table(rows),
            by=["model", "element"],
            metrics=["dependency_robustness"],
            bootstrap=400,
            seed=3,
        ),
        ["model", "element"],
    )
    b = got[("m", "steer.3.1.b")]
    assert 0 < b["dependency_robustness_lo"] <= b["dependency_robustness"]
    assert b["dependency_robustness"] <= b["dependency_robustness_hi"]
    # Nothing scored below it: every replicate is 0.
    a = got[("m", "steer.3.1.a")]
    assert a["dependency_robustness_lo"] == a["dependency_robustness_hi"] == 0.0


# --- the multinomial path against plain resampling -------------------------------------


def per_question(n_options: np.ndarray, chosen: np.ndarray) -> dict[str, np.ndarray]:
    """Per-question values of each count metric (key: option 0), asked questions."""
    right = chosen == 0
    silent = chosen == -1
    p = 1.0 / n_options
    penalty = np.where(p < 1, p / np.where(p < 1, 1 - p, 1), 1.0)
    return {
        "exact_match": right.astype(float),
        "normalized_accuracy": np.where(right, 1.0, np.where(silent, 0.0, -penalty)),
        "normalized_accuracy_strict": np.where(right, 1.0, -penalty),
        "gap": right - p,
        "no_answer_rate": silent.astype(float),
    }


def test_multinomial_replicates_equal_plain_resampling_in_law() -> None:
    """Means and variances of 4,000 replicates agree with resampling question
    indices in numpy, for every count metric (5 standard errors)."""
    rng = np.random.default_rng(8)
    n, b = 300, 4000
    n_options = rng.integers(1, 6, n)
    chosen = np.where(rng.random(n) < 0.15, -1, np.where(rng.random(n) < 0.5, 0, 1))
    chosen = np.where(n_options == 1, np.minimum(chosen, 0), chosen)
    res = _native.bootstrap_ci(
        native_columns(np.zeros(n), n_options, chosen),
        COUNT_METRICS,
        resamples=b,
        seed=2,
        keep_replicates=True,
        group_keys=["g"],
    )
    values = per_question(n_options, chosen)
    draws = rng.integers(0, n, size=(b, n))
    for k, metric in enumerate(COUNT_METRICS):
        ours = res["replicates"][k, 0]
        theirs = values[metric][draws].mean(axis=1)
        se = values[metric].std() / np.sqrt(n)
        assert abs(ours.mean() - values[metric].mean()) < 5 * se / np.sqrt(b) + 1e-12, metric
        assert abs(theirs.mean() - values[metric].mean()) < 5 * se / np.sqrt(b) + 1e-12, metric
        # Variance of a sample variance of b draws: about 2σ⁴/b.
        assert ours.var() == pytest.approx(theirs.var(), rel=5 * np.sqrt(2 / b) * 2), metric
        assert ours.var() == pytest.approx(se**2, rel=5 * np.sqrt(2 / b)), metric


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(1, 5), st.integers(-1, 4)), min_size=1, max_size=60),
    st.integers(0, 2**32),
)
def test_count_replicates_are_means_of_the_question_values(
    questions: list[tuple[int, int]], seed: int
) -> None:
    """Every replicate is a mean of n of the group's per-question values: n
    times it is a whole-number mix of the distinct values, exactly."""
    n_options = np.array([k for k, _ in questions])
    chosen = np.array([min(c, k - 1) for k, c in questions])
    n = len(questions)
    res = _native.bootstrap_ci(
        native_columns(np.zeros(n), n_options, chosen),
        COUNT_METRICS,
        resamples=30,
        seed=seed,
        keep_replicates=True,
    )
    values = per_question(n_options, chosen)
    point = by_key(
        score(
            response_table(
                [
                    row(n_options=int(k), chosen_index=int(c), correct_index=0)
                    for k, c in zip(n_options, chosen, strict=True)
                ]
            ),
            by=["model"],
            metrics=COUNT_METRICS,
        ),
        ["model"],
    )[("m",)]
    for k, metric in enumerate(COUNT_METRICS):
        v = values[metric]
        assert point[metric] == pytest.approx(v.mean(), abs=1e-12), metric
        reps = res["replicates"][k, 0]
        assert np.all(reps >= v.min() - 1e-12) and np.all(reps <= v.max() + 1e-12), metric
        if metric in ("exact_match", "no_answer_rate"):  # k of n, exactly
            counts = reps * n
            np.testing.assert_allclose(counts, np.round(counts), atol=1e-9)
    for k, metric in enumerate(COUNT_METRICS):  # one value throughout: no spread
        if np.ptp(values[metric]) == 0:
            assert res["lo"][k, 0] == pytest.approx(res["hi"][k, 0], abs=1e-12), metric


# --- the binomial sampler and the paired kernel -----------------------------------------


@pytest.mark.parametrize(
    ("n", "p"),
    [(1, 0.5), (12, 0.2), (40, 0.05), (60, 0.4), (500, 0.3), (5000, 0.5), (10_000, 0.93)],
)
def test_binomial_draws_follow_scipy_binom(n: int, p: float) -> None:
    """Chi-square goodness of fit of 200,000 draws against scipy.stats.binom
    (cells of expected count ≥ 20 pooled), in the inversion and BTRS regimes."""
    size = 200_000
    draws = _native.binomial_draws(n, p, size, seed=n)
    assert draws.min() >= 0 and draws.max() <= n
    lo, hi = int(scipy.stats.binom.ppf(1e-4, n, p)), int(scipy.stats.binom.ppf(1 - 1e-4, n, p))
    edges = np.arange(lo, hi + 1)
    expected = scipy.stats.binom.pmf(edges, n, p) * size
    expected[0] += scipy.stats.binom.cdf(lo - 1, n, p) * size
    expected[-1] += scipy.stats.binom.sf(hi, n, p) * size
    observed = np.bincount(np.clip(draws, lo, hi) - lo, minlength=len(edges)).astype(float)
    # Pool neighbouring cells until each expects at least 20.
    obs_pooled, exp_pooled, o, e = [], [], 0.0, 0.0
    for oi, ei in zip(observed, expected, strict=True):
        o, e = o + oi, e + ei
        if e >= 20:
            obs_pooled.append(o)
            exp_pooled.append(e)
            o, e = 0.0, 0.0
    if e and exp_pooled:
        obs_pooled[-1] += o
        exp_pooled[-1] += e
    if len(exp_pooled) > 1:
        exp = np.array(exp_pooled) * size / sum(exp_pooled)
        result = scipy.stats.chisquare(obs_pooled, exp)
        assert result.pvalue > 1e-4, (n, p, result)
    assert draws.mean() == pytest.approx(n * p, abs=6 * np.sqrt(n * p * (1 - p) / size) + 1e-9)


def test_paired_bootstrap_is_plain_paired_resampling_in_law() -> None:
    rng = np.random.default_rng(4)
    n, b = 250, 4000
    a = (rng.random(n) < 0.7).astype(float)
    base = np.where(rng.random(n) < 0.8, a, 1 - a)
    ours = _native.paired_bootstrap(a, base, resamples=b, seed=9, key="m|steer.3.1.b")
    assert ours.shape == (b, 2)
    diff = ours[:, 0] - ours[:, 1]
    draws = rng.integers(0, n, size=(b, n))
    theirs = a[draws].mean(axis=1) - base[draws].mean(axis=1)
    se = (a - base).std() / np.sqrt(n)
    assert abs(diff.mean() - (a - base).mean()) < 5 * se / np.sqrt(b)
    assert diff.var() == pytest.approx(theirs.var(), rel=0.2)
    # Paired: both sides are means over the same questions.
    assert np.corrcoef(ours[:, 0], ours[:, 1])[0, 1] > 0.3
    # Reproducible, independent of question order, and keyed.
    order = rng.permutation(n)
    again = _native.paired_bootstrap(
        a[order], base[order], resamples=b, seed=9, key="m|steer.3.1.b"
    )
    np.testing.assert_array_equal(again, ours)
    other = _native.paired_bootstrap(a, base, resamples=b, seed=9, key="other")
    assert not np.array_equal(other, ours)


def test_key_hash_is_stable() -> None:
    # Pinned: a group's interval is reproducible across versions only if this is.
    assert _native.key_hash("steer") == 0xCD6AAF4E0C9679F0
    assert _native.key_hash("model=a") != _native.key_hash("model=b")
