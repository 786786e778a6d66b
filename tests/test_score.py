"""steer.score.score against a plain-Python reference on random response tables."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.errors import UnknownNameError
from steer.schema import RESPONSE_SCHEMA, Adaptation
from steer.score import score
from steer.taxonomy import load_taxonomy

COUNTS = ("n_rows", "n_no_answer", "n_correct", "sum_norm", "sum_norm_strict")
ELEMENTS = ["steer.1.1.c", "steer.2.4.b", "steer.3.1.b", "steer.3.1.c", "steer-me.A.3"]
GROUPINGS = [
    ["model"],
    ["element"],
    ["domain"],
    ["grade"],
    ["module"],
    ["setting"],
    ["adaptation"],
    ["model", "element"],
    ["model", "domain", "grade"],
    ["setting", "adaptation", "model"],
    ["module", "grade", "domain"],
    ["element", "module", "setting"],
]

# --- building response tables ---------------------------------------------------------------


def response_table(columns: dict[str, Sequence[Any]]) -> pa.Table:
    """A table with RESPONSE_SCHEMA from the given columns; the rest are null."""
    n = len(columns["chosen_index"])
    arrays = [
        pa.array(columns[f.name], type=f.type) if f.name in columns else pa.nulls(n, f.type)
        for f in RESPONSE_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=RESPONSE_SCHEMA)


def rows_to_table(rows: list[dict[str, Any]]) -> pa.Table:
    names = rows[0].keys() if rows else ("chosen_index",)
    return response_table({name: [r[name] for r in rows] for name in names})


adaptations = st.fixed_dictionaries(
    {
        "format": st.sampled_from(["mc", "free"]),
        "shots": st.sampled_from([0, 3]),
        "cot": st.sampled_from(["none", "shown"]),
        "prob_mode": st.sampled_from(["conditioning", "mixing"]),
    }
)


@st.composite
def response_rows(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 6))
    correct = draw(st.one_of(st.integers(0, n - 1), st.none() | st.integers(0, n - 1)))
    return {
        "run_id": "run",
        "model": draw(st.sampled_from(["alpha", "beta", "gamma"])),
        "backend": "agent",
        "adaptation": draw(adaptations),
        "question_id": f"q{draw(st.integers(0, 9))}",
        "element": draw(st.sampled_from(ELEMENTS)),
        "domain": draw(st.sampled_from(["finance", "sports", ""])),
        "grade": draw(st.sampled_from([None, 3, 4, 5])),
        "n_options": n,
        "chosen_index": draw(st.integers(-1, n - 1)),
        "correct_index": correct,
    }


tables = st.lists(response_rows(), max_size=60)

# --- the reference -------------------------------------------------------------------------


def group_key(row: dict[str, Any], column: str) -> Any:
    taxonomy = load_taxonomy()
    if column == "module":
        return taxonomy.elements[row["element"]].module
    if column == "setting":
        return taxonomy.elements[row["element"]].setting
    if column == "adaptation":
        return Adaptation(**row["adaptation"]).label()
    return row[column]


def reference(rows: list[dict[str, Any]], by: list[str]) -> dict[tuple[Any, ...], dict[str, float]]:
    out: dict[tuple[Any, ...], dict[str, float]] = {}
    for row in rows:
        cell = out.setdefault(
            tuple(group_key(row, c) for c in by),
            {
                "n_rows": 0,
                "n_units": 0,
                "n_no_answer": 0,
                "n_correct": 0,
                "sum_norm": 0.0,
                "strict": 0.0,
            },
        )
        cell["n_rows"] += 1
        if row["correct_index"] is None:  # no key: counted, not scored
            continue
        n, chosen, correct = row["n_options"], row["chosen_index"], row["correct_index"]
        wrong = 1.0 / (n - 1) if n > 1 else 1.0
        cell["n_units"] += 1
        if chosen == -1:
            cell["n_no_answer"] += 1
            cell["strict"] -= wrong
        elif chosen == correct:
            cell["n_correct"] += 1
            cell["sum_norm"] += 1.0
            cell["strict"] += 1.0
        else:
            cell["sum_norm"] -= wrong
            cell["strict"] -= wrong
    for cell in out.values():  # over questions asked: a no-answer is wrong / chance
        asked = cell["n_units"]
        cell["exact_match"] = cell["n_correct"] / asked if asked else math.nan
        cell["normalized_accuracy"] = cell["sum_norm"] / asked if asked else math.nan
        cell["strict_accuracy"] = cell["strict"] / cell["n_units"] if cell["n_units"] else math.nan
    return out


def by_key(scored: pa.Table, by: list[str]) -> dict[tuple[Any, ...], dict[str, Any]]:
    rows = scored.to_pylist()
    keyed = {tuple(r[c] for c in by): r for r in rows}
    assert len(keyed) == len(rows), "duplicate group keys"
    return keyed


def same(a: float | None, b: float) -> bool:
    a = math.nan if a is None else a  # undefined rates come out as nulls
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


# --- tests --------------------------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(tables, st.sampled_from(GROUPINGS))
def test_score_matches_reference(rows: list[dict[str, Any]], by: list[str]) -> None:
    scored = score(rows_to_table(rows), by=by)
    assert scored.column_names[: len(by)] == by
    assert {*COUNTS, "exact_match", "normalized_accuracy"} <= set(scored.column_names)
    got = by_key(scored, by)
    ref = reference(rows, by)
    assert set(got) == set(ref)
    for key, cell in ref.items():
        out = got[key]
        for name in ("n_rows", "n_units", "n_no_answer", "n_correct"):
            assert out[name] == cell[name], (key, name)
        assert same(out["sum_norm"], cell["sum_norm"]), key
        assert same(out["sum_norm_strict"], cell["strict"]), key
        assert same(out["exact_match"], cell["exact_match"]), key
        assert same(out["normalized_accuracy"], cell["normalized_accuracy"]), key
        strict = out["sum_norm_strict"] / out["n_units"] if out["n_units"] else math.nan
        assert same(strict, cell["strict_accuracy"]), key
    # Groups come out sorted by their keys (nulls last).
    keys = [tuple(r[c] for c in by) for r in scored.to_pylist()]
    assert keys == sorted(
        keys, key=lambda k: tuple((v is None, v if v is not None else 0) for v in k)
    )


@settings(max_examples=60, deadline=None)
@given(tables, st.sampled_from(GROUPINGS), st.data())
def test_scores_of_parts_add_up_to_the_whole(
    rows: list[dict[str, Any]], by: list[str], data: st.DataObject
) -> None:
    cut = data.draw(st.integers(0, len(rows)))
    table = rows_to_table(rows)
    whole = by_key(score(table, by=by), by)
    merged: dict[tuple[Any, ...], dict[str, float]] = {}
    for part in (table.slice(0, cut), table.slice(cut)):
        for key, cell in by_key(score(part, by=by), by).items():
            into = merged.setdefault(key, dict.fromkeys(COUNTS, 0))
            for name in COUNTS:
                into[name] += cell[name]
    assert set(merged) == set(whole)
    for key, cell in whole.items():
        for name in ("n_rows", "n_no_answer", "n_correct"):
            assert merged[key][name] == cell[name]
        for name in ("sum_norm", "sum_norm_strict"):
            assert merged[key][name] == pytest.approx(cell[name], rel=1e-12, abs=1e-12)


def _row(**values: Any) -> dict[str, Any]:
    row = {
        "run_id": "run",
        "model": "m",
        "backend": "agent",
        "adaptation": {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "mixing"},
        "question_id": "q",
        "element": "steer.3.1.b",
        "domain": "",
        "grade": None,
        "n_options": 4,
        "chosen_index": 0,
        "correct_index": 0,
    }
    return row | values


def test_hand_computed_example() -> None:
    rows = [
        _row(chosen_index=2, correct_index=2),  # right: +1
        _row(chosen_index=1, correct_index=2),  # wrong among 4: -1/3
        _row(chosen_index=-1, correct_index=2),  # no answer: wrong, chance 0 (strict: -1/3)
        _row(model="n", n_options=2, chosen_index=1, correct_index=0),  # wrong among 2: -1
        _row(model="n", n_options=1, chosen_index=-1, correct_index=0),  # one option, no answer
    ]
    got = by_key(score(rows_to_table(rows), by=["model"]), ["model"])
    m, n = got[("m",)], got[("n",)]
    assert (m["n_rows"], m["n_no_answer"], m["n_correct"]) == (3, 1, 1)
    assert m["exact_match"] == pytest.approx(1 / 3)
    assert m["normalized_accuracy"] == pytest.approx((1 - 1 / 3) / 3)
    assert m["sum_norm_strict"] == pytest.approx(1 - 2 / 3)
    assert (n["n_rows"], n["n_no_answer"], n["n_correct"]) == (2, 1, 0)
    assert n["normalized_accuracy"] == -0.5
    assert n["sum_norm_strict"] == pytest.approx(-2.0)


def test_rows_without_a_key_are_counted_but_not_scored() -> None:
    graded = [_row(chosen_index=i % 4, correct_index=1) for i in range(8)]
    ungraded = [_row(model="keyless", correct_index=None, chosen_index=1)] * 3
    mixed = [_row(chosen_index=3, correct_index=None)] * 5
    both = by_key(score(rows_to_table(graded + ungraded + mixed), by=["model"]), ["model"])
    alone = by_key(score(rows_to_table(graded), by=["model"]), ["model"])
    m, m_alone = both[("m",)], alone[("m",)]
    assert m["n_rows"] == 13 and m["n_unscored"] == 5
    for name in (
        "n_units",
        "n_correct",
        "n_no_answer",
        "sum_norm",
        "exact_match",
        "normalized_accuracy",
    ):
        assert m[name] == m_alone[name], name
    keyless = both[("keyless",)]
    assert keyless["n_units"] == 0 and keyless["n_unscored"] == 3
    assert keyless["exact_match"] is None and keyless["normalized_accuracy"] is None


def test_derived_group_columns() -> None:
    rows = [
        _row(element="steer.3.1.b"),
        _row(element="steer.3.1.c", chosen_index=1),
        _row(element="steer.2.4.b", adaptation=_row()["adaptation"] | {"shots": 3}),
        _row(element="steer-me.A.3", chosen_index=-1),
    ]
    table = rows_to_table(rows)
    modules = by_key(score(table, by=["module"]), ["module"])
    assert modules[("steer.3.1",)]["n_rows"] == 2
    assert modules[("steer.3.1",)]["n_correct"] == 1
    assert set(modules) == {("steer.3.1",), ("steer.2.4",), ("steer-me.1.1",)}
    settings_ = by_key(score(table, by=["setting"]), ["setting"])
    assert set(settings_) == {("steer.3",), ("steer.2",), ("steer-me.1",)}
    adapted = score(table, by=["adaptation"])
    assert adapted["n_rows"].to_pylist() == [3, 1]
    labels = adapted["adaptation"].to_pylist()
    assert labels == [
        "mc;shots=0;cot=none;prob=mixing",
        "mc;shots=3;cot=none;prob=mixing",
    ]


def test_unknown_group_column_suggests() -> None:
    table = rows_to_table([_row()])
    with pytest.raises(UnknownNameError) as info:
        score(table, by=["model", "elemnt"])
    assert info.value.kind == "column"
    assert "element" in info.value.suggestions
    assert "did you mean" in str(info.value) and "'element'" in str(info.value)
    with pytest.raises(UnknownNameError) as info:
        score(table, by=["modul"])
    assert "module" in info.value.suggestions  # derived columns are suggested too


def test_uniform_random_chooser_scores_zero() -> None:
    rng = np.random.default_rng(2024)
    n = 200_000
    n_options = rng.integers(2, 7, size=n)
    correct = rng.integers(0, n_options)
    chosen = np.where(rng.random(n) < 0.05, -1, rng.integers(0, n_options))
    adaptation = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
    table = response_table(
        {
            "run_id": ["run"] * n,
            "model": ["agent:random"] * n,
            "backend": ["agent"] * n,
            "adaptation": [adaptation] * n,
            "question_id": [f"q{i}" for i in range(n)],
            "element": ["steer.3.1.b"] * n,
            "n_options": n_options,
            "chosen_index": chosen,
            "correct_index": correct,
        }
    )
    (row,) = score(table, by=["model"]).to_pylist()
    answered = chosen != -1
    assert row["n_rows"] == n and row["n_no_answer"] == n - answered.sum()
    # Var of one score is 1/(n-1) ≤ 1, so the mean's sd is below 0.0025.
    assert abs(row["normalized_accuracy"]) < 0.015
    # Over every question asked, a no-answer wrong.
    expected_em = np.mean(np.where(answered, 1 / n_options, 0.0))
    assert row["exact_match"] == pytest.approx(expected_em, abs=0.01)
    # No answer counts as wrong in the strict sum, so it is clearly negative.
    strict = row["sum_norm_strict"] / n
    expected_strict = -np.mean(np.where(answered, 0.0, 1 / (n_options - 1)))
    assert strict == pytest.approx(expected_strict, abs=0.015)

    perfect = table.set_column(
        table.schema.get_field_index("chosen_index"),
        RESPONSE_SCHEMA.field("chosen_index"),
        pa.array(correct, pa.int32()),
    )
    (best,) = score(perfect, by=["model"]).to_pylist()
    assert best["exact_match"] == 1.0 and best["normalized_accuracy"] == 1.0


def test_top_level_steer_score_is_the_scoring_function() -> None:
    import steer

    rows = [_row(chosen_index=i % 4, correct_index=1) for i in range(8)]
    table = rows_to_table(rows)
    assert steer.score(table, by=["model"]).equals(score(table, by=["model"]))
