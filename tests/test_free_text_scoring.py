"""A free-text answer that names no option (chosen_index −2) is answered and
wrong in every consumer; wrong answers carry error types counted in the Rust
scorer (issue 21 §3, §7, Bad input)."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.adapt._free import judge_reply, judge_words, read_free_reply
from steer.run._rows import error_type
from steer.schema import NO_ANSWER, OFF_OPTIONS, RESPONSE_SCHEMA, Response
from steer.score import merge_cells, score
from steer.score._coverage import question_counts
from steer.score._errors import bank_error_types, with_bank_columns
from steer.score._outcomes import question_outcomes
from steer.stats import compare

ADAPT = {"format": "free", "shots": 0, "cot": "none", "prob_mode": "conditioning", "order": None}


def table(rows: list[dict[str, Any]]) -> pa.Table:
    """A RESPONSE_SCHEMA table; each row dict gives chosen/correct/n (and more)."""
    full = []
    for i, r in enumerate(rows):
        full.append(
            {
                "run_id": "r",
                "model": r.get("model", "m"),
                "backend": "agent",
                "adaptation": ADAPT,
                "question_id": r.get("question_id", f"q{i}"),
                "base_id": r.get("base_id", ""),
                "part": r.get("part", 0),
                "element": r.get("element", "steer-me.A.1"),
                "n_options": r["n"],
                "chosen_index": r["chosen"],
                "correct_index": r["correct"],
                "consistency_rule": r.get("rule"),
                "error_type": r.get("error_type"),
                "sample": 0,
            }
        )
    cols = {
        f.name: pa.array([row.get(f.name) for row in full], f.type)
        if f.name in full[0]
        else pa.nulls(len(full), f.type)
        for f in RESPONSE_SCHEMA
    }
    return pa.table(cols, schema=RESPONSE_SCHEMA)


def reference(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Plain per-question scoring: −1 no answer; −2 and any other index ≠ key wrong."""
    n = len(rows)
    right = sum(r["chosen"] == r["correct"] for r in rows)
    silent = sum(r["chosen"] == NO_ANSWER for r in rows)
    norm = strict = gap = 0.0
    for r in rows:
        p = 1 / r["n"]
        pen = p / (1 - p) if p < 1 else 1.0
        gap += (r["chosen"] == r["correct"]) - p
        if r["chosen"] == r["correct"]:
            norm += 1
            strict += 1
        elif r["chosen"] == NO_ANSWER:
            strict -= pen
        else:  # answered and wrong, off-options (−2) included
            norm -= pen
            strict -= pen
    return {
        "exact_match": right / n,
        "normalized_accuracy": norm / n,
        "normalized_accuracy_strict": strict / n,
        "gap": gap / n,
        "no_answer_rate": silent / n,
    }


METRICS = ["exact_match", "normalized_accuracy", "normalized_accuracy_strict", "gap"]


def test_off_options_is_answered_and_wrong_in_the_rust_scorer() -> None:
    rows = [
        {"n": 4, "chosen": 0, "correct": 0},
        {"n": 4, "chosen": OFF_OPTIONS, "correct": 0},
        {"n": 4, "chosen": NO_ANSWER, "correct": 0},
        {"n": 4, "chosen": 2, "correct": 0},
    ]
    out = score(table(rows), by=["model"], metrics=[*METRICS, "no_answer_rate"], ci=None)
    got = out.to_pylist()[0]
    assert got["n_no_answer"] == 1  # the off-options answer is not a no-answer
    assert got["no_answer_rate"] == pytest.approx(0.25)
    assert got["exact_match"] == pytest.approx(0.25)
    # right +1, two wrong −1/3 each, no-answer 0 (strict: −1/3)
    assert got["normalized_accuracy"] == pytest.approx((1 - 2 / 3) / 4)
    assert got["normalized_accuracy_strict"] == pytest.approx((1 - 1) / 4)
    # Counted as a plain wrong answer: replacing -2 by a wrong option changes nothing.
    swapped = [dict(r, chosen=3) if r["chosen"] == OFF_OPTIONS else r for r in rows]
    again = score(table(swapped), by=["model"], metrics=METRICS, ci=None).to_pylist()[0]
    for m in METRICS:
        assert again[m] == pytest.approx(got[m])


rows_strategy = st.lists(
    st.integers(2, 6).flatmap(
        lambda n: st.fixed_dictionaries(
            {
                "n": st.just(n),
                "correct": st.integers(0, n - 1),
                "chosen": st.integers(OFF_OPTIONS, n - 1),
            }
        )
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(rows_strategy)
def test_scores_with_the_sentinel_match_a_plain_reference(rows: list[dict[str, Any]]) -> None:
    got = score(table(rows), by=["model"], metrics=[*METRICS, "no_answer_rate"], ci=None)
    want = reference(rows)
    for name, value in want.items():
        assert got[name][0].as_py() == pytest.approx(value, abs=1e-12), name


def test_consistency_with_an_off_options_part_is_a_violation() -> None:
    # Two parts that must agree ("same:01"); both off the options is not agreement.
    def group(chosen: tuple[int, int], qid: str) -> list[dict[str, Any]]:
        return [
            {"n": 3, "chosen": c, "correct": None, "rule": "same:01", "base_id": qid,
             "part": p, "question_id": f"{qid}.{p}"}
            for p, c in enumerate(chosen)
        ]  # fmt: skip

    rows = group((OFF_OPTIONS, OFF_OPTIONS), "a") + group((1, 1), "b")
    got = score(table(rows), by=["model"], metrics=["consistency", "no_answer_rate"], ci=None)
    row = got.to_pylist()[0]
    assert row["consistency"] == pytest.approx(0.5)
    assert row["n_no_answer"] == 0


def test_per_question_outcomes_and_paired_tests_see_an_answer() -> None:
    rows = [{"n": 4, "chosen": c, "correct": 0} for c in (OFF_OPTIONS, NO_ANSWER, 0, 1)]
    out = question_outcomes(table(rows)).sort_by("question")
    answered = dict(zip(out["question"].to_pylist(), out["answered"].to_pylist(), strict=True))
    assert answered == {"q0": 1.0, "q1": 0.0, "q2": 1.0, "q3": 1.0}
    norm = dict(
        zip(out["question"].to_pylist(), out["normalized_accuracy"].to_pylist(), strict=True)
    )
    assert norm["q0"] == pytest.approx(-1 / 3) and norm["q1"] == 0.0
    # Paired: a model answering off the options scores below one staying silent.
    silent = table([{"n": 4, "chosen": NO_ANSWER, "correct": 0, "model": "a"}] * 1)
    off = table([{"n": 4, "chosen": OFF_OPTIONS, "correct": 0, "model": "b"}])
    res = compare(
        question_outcomes(silent), question_outcomes(off), "normalized_accuracy", resamples=50
    )
    assert res["n"][0].as_py() == 1
    assert res["b"][0].as_py() == pytest.approx(-1 / 3)
    assert res["a"][0].as_py() == 0.0


def test_the_rubric_no_answer_count_treats_off_options_as_answered() -> None:
    # RAT013 (no-answer rate) reads these per-card counts.
    rows = [{"n": 4, "chosen": c, "correct": 0} for c in (OFF_OPTIONS, NO_ANSWER, 0, 1)]
    ((graded, answered),) = question_counts(table(rows)).values()
    assert (graded, answered) == (4, 3)


def test_response_rows_validate_the_sentinel() -> None:
    base = {
        "run_id": "r", "model": "m", "backend": "agent", "adaptation": ADAPT,
        "question_id": "q", "element": "e", "n_options": 3, "correct_index": 0,
    }  # fmt: skip
    assert Response(**base, chosen_index=OFF_OPTIONS).chosen_index == -2
    with pytest.raises(ValueError):
        Response(**base, chosen_index=-3)
    bad = table([{"n": 3, "chosen": -3, "correct": 0}])
    with pytest.raises(Exception, match="chosen_index"):
        score(bad, by=["model"], ci=None)


# --- judging replies --------------------------------------------------------------------


def test_a_wrong_number_is_answered_a_reply_without_one_is_not() -> None:
    options = ["$100", "$150", "$50"]
    assert judge_reply(120.0, options, 0, 100.0, "money") == OFF_OPTIONS
    assert judge_reply(None, options, 0, 100.0, "money") == NO_ANSWER
    q = {"options": options, "correct_index": 0, "answer_value": 100.0, "answer_form": "money"}
    assert read_free_reply("I get $120.", q) == (OFF_OPTIONS, 120.0)
    assert read_free_reply("no idea", q) == (NO_ANSWER, None)
    assert read_free_reply("ANSWER: $150", q) == (1, 150.0)


@pytest.mark.parametrize(
    ("reply", "chosen"),
    [
        ("ANSWER: complements", 1),
        ("They are **substitutes**.", 0),
        ("\\boxed{Neither}", 2),
        ("Not substitutes: ANSWER: complements", 1),  # the answer line wins
        ("I cannot tell", NO_ANSWER),
        ("", NO_ANSWER),
    ],
)
def test_categorical_replies_are_judged_by_the_option_words(reply: str, chosen: int) -> None:
    assert judge_words(reply, ["substitutes", "complements", "neither"]) == chosen


def test_nested_option_words_prefer_the_longer_name() -> None:
    options = ["returns", "increasing returns", "decreasing returns"]
    assert judge_words("ANSWER: increasing returns", options) == 1
    assert judge_words("ANSWER: returns", options) == 0


# --- error types ------------------------------------------------------------------------

TAGS = ["key", "swapped_prices+wrong_tens_digit", "", "forgot_half"]


def test_error_type_of_a_recorded_answer() -> None:
    q = {"correct_index": 0, "option_tags": TAGS}
    assert error_type(q, 0) is None
    assert error_type(q, NO_ANSWER) is None
    assert error_type(q, 1) == "swapped_prices"
    assert error_type(q, 2) == "untagged"
    assert error_type(q, 3) == "forgot_half"
    assert error_type(q, OFF_OPTIONS) == "off_options"
    assert error_type({"correct_index": None, "option_tags": TAGS}, 1) is None


def _bank(n: int) -> pa.Table:
    return pa.table(
        {
            "question_id": [f"q{i}" for i in range(n)],
            "option_tags": [TAGS] * n,
            "answer_value": [1.0 if i % 3 else None for i in range(n)],
        }
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(OFF_OPTIONS, 3), min_size=1, max_size=30), st.integers(0, 3))
def test_bank_error_types_match_the_recorded_ones(chosen: list[int], group_mod: int) -> None:
    rows = [{"n": 4, "chosen": c, "correct": 0} for c in chosen]
    got = bank_error_types(table(rows), _bank(len(rows))).to_pylist()
    q = {"correct_index": 0, "option_tags": TAGS}
    assert got == [error_type(q, c) for c in chosen]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(OFF_OPTIONS, 3), st.sampled_from("ab")), min_size=1,
                max_size=40))  # fmt: skip
def test_error_rates_match_a_plain_count_and_merge_by_adding(
    answers: list[tuple[int, str]],
) -> None:
    q = {"correct_index": 0, "option_tags": TAGS}
    rows = [
        {"n": 4, "chosen": c, "correct": 0, "element": e, "error_type": error_type(q, c)}
        for c, e in answers
    ]
    t = table(rows)
    out = score(t, by=["element"], metrics=["exact_match", "error_rate"], ci=None)
    for r in out.to_pylist():
        mine = [row for row in rows if row["element"] == r["element"]]
        counts = Counter(row["error_type"] for row in mine if row["error_type"])
        got = {k.removeprefix("n_error:"): v for k, v in r.items() if k.startswith("n_error:")}
        assert {k: v for k, v in got.items() if v} == dict(counts)
        for tag, k in counts.items():
            assert r[f"error_rate:{tag}"] == pytest.approx(k / len(mine))
        # The rates of a group add up to its wrong answers (no no-answers here).
        wrong = sum(v for k, v in r.items() if k.startswith("error_rate:"))
        assert wrong == pytest.approx(1 - r["exact_match"] - r["n_no_answer"] / len(mine))
    # Halves scored apart and merged equal the whole.
    half = len(rows) // 2
    parts = [
        score(table(p), by=["element"], metrics=["error_rate"], ci=None)
        for p in (rows[:half], rows[half:])
        if p
    ]
    merged = merge_cells(parts, ["element"], ["error_rate"]).to_pylist()
    whole = {r["element"]: r for r in out.to_pylist()}
    for r in merged:
        for k, v in r.items():
            if k.startswith(("n_error:", "error_rate:")) and v:
                assert whole[r["element"]][k] == pytest.approx(v), k


def test_tables_without_error_types_get_them_from_the_bank() -> None:
    rows = [{"n": 4, "chosen": c, "correct": 0} for c in (1, 2, OFF_OPTIONS, NO_ANSWER, 0, 3)]
    t = table(rows).drop_columns(["error_type"])
    filled = with_bank_columns(t, _bank(len(rows)))
    assert filled["error_type"].to_pylist() == [
        "swapped_prices", "untagged", "off_options", None, None, "forgot_half",
    ]  # fmt: skip
    assert filled["answer_kind"].to_pylist() == [
        "categorical", "numeric", "numeric", "categorical", "numeric", "numeric",
    ]  # fmt: skip
    out = score(filled, by=["answer_kind"], metrics=["exact_match", "error_rate"], ci=None)
    assert out["answer_kind"].to_pylist() == ["categorical", "numeric"]
    assert np.isclose(out["exact_match"].to_pylist()[1], 1 / 4)


def test_a_model_reply_off_the_options_is_recorded_end_to_end() -> None:
    import asyncio

    from steer.adapt import Completion
    from steer.adapt._conversation import converse
    from steer.run._rows import response_row
    from steer.schema import Adaptation
    from steer.schema.transcript import PartAnswer

    q = {
        "question_id": "q1", "base_id": "q1", "part": 0, "element": "steer-me.A.45",
        "domain": "food", "type": "linear", "perspective": "first", "grade": 12,
        "question_text": "What price clears the market?", "options": ["$10", "$12", "$8"],
        "option_tags": ["key", "forgot_half", "swapped_prices"], "correct_index": 0,
        "consistency_rule": None, "answer_value": 10.0, "answer_form": "money",
        "answer_tolerance": None,
    }  # fmt: skip

    async def call(messages: object, kind: object) -> Completion:
        return Completion("The price works out to \\boxed{$17.50}.")

    adaptation = Adaptation(format="free")
    (answer,) = asyncio.run(converse(call, [q], adaptation))
    assert (answer.chosen_index, answer.answer_read) == (OFF_OPTIONS, 17.5)
    row = response_row("r", "m", "fake", adaptation, q, answer)
    assert row["error_type"] == "off_options" and row["answer_read"] == 17.5
    assert Response(**row).chosen_index == OFF_OPTIONS
    assert PartAnswer(question_id="q1", chosen_index=OFF_OPTIONS).chosen_index == -2
    scored = score(table([{"n": 3, "chosen": OFF_OPTIONS, "correct": 0,
                           "error_type": row["error_type"]}]),
                   by=["model"], metrics=["exact_match", "no_answer_rate", "error_rate"],
                   ci=None).to_pylist()[0]  # fmt: skip
    assert scored["no_answer_rate"] == 0.0 and scored["error_rate:off_options"] == 1.0
