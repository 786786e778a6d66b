"""Per-question outcomes and the per-cell paired comparison, against plain
Python references over hypothesis-generated response tables."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from steer.errors import InputError
from steer.score._outcomes import question_outcomes
from steer.stats import compare, compare_sides

BANK = "f" * 64
ADAPT = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
LABEL = "mc;shots=0;cot=none;prob=conditioning"


def table(rows: list[dict[str, object]]) -> pa.Table:
    cols: dict[str, list[object]] = defaultdict(list)
    for r in rows:
        for k, v in r.items():
            cols[k].append(v)
    types = {"part": pa.int32(), "n_options": pa.int32(), "chosen_index": pa.int32()}
    types |= {"correct_index": pa.int32(), "sample": pa.int32()}
    return pa.table({k: pa.array(v, types.get(k)) for k, v in cols.items()})


def row(
    element: str,
    base: str,
    part: int,
    chosen: int,
    correct: int | None,
    n: int = 4,
    *,
    model: str = "m",
    sample: int = 0,
    rule: str | None = None,
) -> dict[str, object]:
    return {
        "run_id": "r",
        "model": model,
        "adaptation": ADAPT,
        "bank_sha256": BANK,
        "question_id": f"{element}/{base}/{part}",
        "base_id": base,
        "part": part,
        "element": element,
        "n_options": n,
        "chosen_index": chosen,
        "correct_index": correct,
        "consistency_rule": rule,
        "sample": sample,
    }


def reference(rows: list[dict[str, object]]) -> dict[tuple[str, str], dict[str, float]]:
    """Plain loops: a question is its base when any part > 0, else its id."""
    rows = [r for r in rows if r["correct_index"] is not None and r["consistency_rule"] is None]
    multi = {(r["element"], r["base_id"]) for r in rows if int(r["part"]) > 0}  # type: ignore[call-overload]
    per: dict[tuple[str, str], dict[int, list[dict[str, object]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for r in rows:
        q = r["base_id"] if (r["element"], r["base_id"]) in multi else r["question_id"]
        per[(str(r["element"]), str(q))][int(r["sample"])].append(r)  # type: ignore[call-overload]
    out = {}
    for key, samples in per.items():
        acc: dict[str, list[float]] = defaultdict(list)
        for parts in samples.values():
            answered = all(int(p["chosen_index"]) >= 0 for p in parts)  # type: ignore[call-overload]
            right = answered and all(p["chosen_index"] == p["correct_index"] for p in parts)
            p_random = float(np.prod([1 / int(p["n_options"]) for p in parts]))  # type: ignore[call-overload]
            penalty = p_random / (1 - p_random) if p_random < 1 else 1.0
            acc["exact_match"].append(float(right))
            acc["normalized_accuracy"].append(1.0 if right else (-penalty if answered else 0.0))
            acc["normalized_accuracy_strict"].append(1.0 if right else -penalty)
            acc["gap"].append(float(right) - p_random)
            acc["answered"].append(float(answered))
        out[key] = {k: float(np.mean(v)) for k, v in acc.items()} | {"n_samples": len(samples)}
    return out


@st.composite
def responses(draw: st.DrawFn) -> list[dict[str, object]]:
    rows = []
    for q in range(draw(st.integers(1, 25))):
        element = draw(st.sampled_from(["steer.1.1.a", "steer.1.1.c"]))
        parts = draw(st.integers(1, 3))
        samples = draw(st.integers(1, 2))
        n = draw(st.integers(2, 5))
        rule = draw(st.sampled_from([None, None, None, "all_equal"]))
        for s in range(samples):
            for p in range(parts):
                correct = draw(st.sampled_from([None, 0, 1])) if rule is None else None
                chosen = draw(st.integers(-1, n - 1))
                rows.append(row(element, f"b{q}", p, chosen, correct, n, sample=s, rule=rule))
    return rows


@settings(max_examples=120, deadline=None)
@given(responses())
def test_outcomes_match_the_plain_reference(rows: list[dict[str, object]]) -> None:
    got = question_outcomes(table(rows)).to_pylist()
    expected = reference(rows)
    assert {(r["element"], r["question"]) for r in got} == set(expected)
    for r in got:
        want = expected[(r["element"], r["question"])]
        assert (r["model"], r["adaptation"], r["bank_sha256"]) == ("m", LABEL, BANK)
        for name, value in want.items():
            assert r[name] == pytest.approx(value), name


def test_multi_part_counts_once_and_no_answer_is_wrong() -> None:
    rows = [
        row("steer.1.1.a", "x", 0, 1, 1),
        row("steer.1.1.a", "x", 1, 2, 3),  # second part wrong: the question is wrong
        row("steer.1.1.a", "y", 0, -1, 0),  # no answer
        row("steer.1.1.a", "z", 0, 0, 0),
    ]
    out = {r["question"]: r for r in question_outcomes(table(rows)).to_pylist()}
    assert set(out) == {"x", "steer.1.1.a/y/0", "steer.1.1.a/z/0"}
    assert out["x"]["exact_match"] == 0.0
    assert out["x"]["normalized_accuracy"] == pytest.approx(-(1 / 16) / (15 / 16))
    no = out["steer.1.1.a/y/0"]
    assert (no["exact_match"], no["normalized_accuracy"], no["answered"]) == (0.0, 0.0, 0.0)
    assert no["normalized_accuracy_strict"] == pytest.approx(-1 / 3)
    assert no["gap"] == pytest.approx(-0.25)


def test_bank_fills_rows_without_a_fingerprint() -> None:
    t = table([row("steer.1.1.a", "q", 0, 0, 0)]).drop_columns(["bank_sha256"])
    assert question_outcomes(t, bank="a" * 64)["bank_sha256"].to_pylist() == ["a" * 64]
    assert question_outcomes(t.slice(0, 0)).num_rows == 0


def side(outcomes: dict[str, tuple[str, int]], model: str) -> pa.Table:
    """question → (element, chosen) with key 0; chosen −1 is a no-answer."""
    rows = [row(e, q, 0, c, 0, model=model) for q, (e, c) in outcomes.items()]
    return question_outcomes(table(rows))


@settings(max_examples=60, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from([f"q{i}" for i in range(40)]),
        st.tuples(st.sampled_from(["steer.1.1.a", "steer.1.1.c"]), st.integers(-1, 1)),
        min_size=1,
    ),
    st.dictionaries(st.sampled_from([f"q{i}" for i in range(40)]), st.integers(-1, 1)),
)
def test_compare_pairs_only_common_questions_against_statsmodels(
    a_side: dict[str, tuple[str, int]], b_choice: dict[str, int]
) -> None:
    b_side = {q: (a_side[q][0], c) for q, c in b_choice.items() if q in a_side}
    if not b_side:
        return
    result = compare(side(a_side, "a"), side(b_side, "b"), "exact_match").to_pylist()
    p_raw = []
    for r in result:
        common = [q for q in b_side if a_side[q][0] == r["cell"]]
        x = np.array([a_side[q][1] == 0 for q in common], float)  # a no-answer (−1) is wrong
        y = np.array([b_side[q][1] == 0 for q in common], float)
        assert r["n"] == len(common)
        assert r["diff"] == pytest.approx(float((y - x).mean()))
        b, c = int(((x == 1) & (y == 0)).sum()), int(((x == 0) & (y == 1)).sum())
        assert (r["a_only"], r["b_only"], r["test"]) == (b, c, "mcnemar")
        assert r["p"] == pytest.approx(mcnemar([[0, b], [c, 0]], exact=True).pvalue)
        p_raw.append(r["p"])
    holm = multipletests(p_raw, method="holm")[1]
    assert [r["p_adjusted"] for r in result] == pytest.approx(list(holm))


def test_cells_do_not_depend_on_row_order_or_on_other_cells() -> None:
    rng = np.random.default_rng(3)
    rows_a, rows_b = [], []
    for i in range(90):
        element = ("steer.1.1.a", "steer.1.1.c", "steer.2.2.a")[i % 3]
        rows_a.append(row(element, f"q{i}", 0, int(rng.integers(-1, 4)), 0, model="a"))
        rows_b.append(row(element, f"q{i}", 0, int(rng.integers(-1, 4)), 0, model="b"))
    a, b = question_outcomes(table(rows_a)), question_outcomes(table(rows_b))
    full = compare(a, b, "normalized_accuracy", correction="none").to_pylist()
    shuffled = question_outcomes(table([rows_b[i] for i in rng.permutation(90)]))
    assert compare(a, shuffled, "normalized_accuracy", correction="none").to_pylist() == full
    # Without the other elements, one cell's interval and p-value are unchanged.
    alone = question_outcomes(table([r for r in rows_b if r["element"] == "steer.1.1.c"]))
    (cell,) = compare(a, alone, "normalized_accuracy", correction="none").to_pylist()
    assert cell == next(c for c in full if c["cell"] == "steer.1.1.c")


def test_sides_with_several_cards_pair_by_model_and_adaptation() -> None:
    def side_of(chosen: dict[str, int]) -> pa.Table:
        rows = [
            row("steer.1.1.a", f"q{i}", 0, c, 0, model=m)
            for m, c in chosen.items()
            for i in range(30)
        ]
        return question_outcomes(table(rows))

    out = compare_sides(side_of({"x": 0, "y": 0}), side_of({"x": 0, "y": 1}), "exact_match")
    got = [(c["model_a"], c["model_b"], c["diff"]) for c in out.to_pylist()]
    assert got == [("x", "x", 0.0), ("y", "y", -1.0)]
    # One card per side: paired whatever the names.
    (one,) = compare_sides(side_of({"x": 0}), side_of({"z": 1}), "exact_match").to_pylist()
    assert (one["model_a"], one["model_b"], one["diff"]) == ("x", "z", -1.0)
    with pytest.raises(InputError, match=f"no partner on the other side: x · {LABEL}"):
        compare_sides(side_of({"x": 0, "y": 0}), side_of({"y": 0}), "exact_match")
