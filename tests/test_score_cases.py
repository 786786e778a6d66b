"""Hand-computed cases for every scoring metric, with the arithmetic in comments;
merging scored cells; Wilson intervals; the percentile bootstrap."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native
from steer.errors import InputError
from steer.score import ADDITIVE, merge_cells, score
from test_score_reference import by_key, close, response_rows, response_table

CELL_METRICS = [
    "exact_match",
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "gap",
    "no_answer_rate",
    "consistency",
    "ece",
    "brier",
    "epa",
    "invalid_mass",
]
MC = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
_counter = iter(range(10**9))


def row(**values: Any) -> dict[str, Any]:
    """One response row; every question gets its own base_id unless given one."""
    i = next(_counter)
    base = {
        "run_id": "run",
        "model": "m",
        "backend": "agent",
        "adaptation": MC,
        "question_id": f"q{i}",
        "base_id": f"b{i}",
        "part": 0,
        "element": "steer.3.1.b",
        "domain": "d",
        "type": "standard",
        "perspective": "first",
        "grade": 5,
        "n_options": 4,
        "chosen_index": 0,
        "correct_index": 0,
        "consistency_rule": None,
        "option_probs": None,
    }
    return base | values


def parts(n_options: list[int], chosen: list[int], correct: list[int | None], **values: Any):
    """The rows of one multi-part question."""
    i = next(_counter)
    return [
        row(base_id=f"multi{i}", part=p, n_options=k, chosen_index=c, correct_index=key, **values)
        for p, (k, c, key) in enumerate(zip(n_options, chosen, correct, strict=True))
    ]


def one(rows: list[dict[str, Any]], metrics: list[str], by: tuple[str, ...] = ("model",), **kw):
    return by_key(score(response_table(rows), by=by, metrics=metrics, **kw), by)


# --- accuracy-type metrics ---------------------------------------------------------------------


def test_accuracy_metrics_by_hand() -> None:
    rows = [
        row(n_options=4, chosen_index=2, correct_index=2),  # right, p = 1/4: +1
        row(n_options=4, chosen_index=1, correct_index=2),  # wrong, p = 1/4: −(1/4)/(3/4) = −1/3
        row(n_options=2, chosen_index=0, correct_index=1),  # wrong, p = 1/2: −1
        row(n_options=1, chosen_index=0, correct_index=0),  # one option, right, p = 1: +1
        row(n_options=4, chosen_index=-1, correct_index=0),  # unanswered: strict −1/3
        row(n_options=1, chosen_index=-1, correct_index=0),  # one option unanswered: strict −1
        row(n_options=3, chosen_index=2, correct_index=None),  # no key: unscored
    ]
    (m,) = one(rows, CELL_METRICS).values()
    assert (m["n_rows"], m["n_units"], m["n_unscored"]) == (7, 6, 1)
    assert (m["n_no_answer"], m["n_correct"]) == (2, 2)
    # Over the 6 questions asked, 2 right; a no-answer is wrong.
    assert m["exact_match"] == pytest.approx(1 / 3)
    # A no-answer scores chance (0): (1 − 1/3 − 1 + 1 + 0 + 0) / 6 = (2/3) / 6 = 1/9
    assert m["normalized_accuracy"] == pytest.approx(1 / 9, abs=1e-12)
    # A no-answer scores wrong: (2/3 − 1/3 − 1) / 6 = (−2/3) / 6 = −1/9
    assert m["normalized_accuracy_strict"] == pytest.approx(-1 / 9, abs=1e-12)
    # Σp over all asked = 1/4 + 1/4 + 1/2 + 1 + 1/4 + 1 = 3.25; gap = (2 − 3.25) / 6
    assert m["sum_p_random"] == pytest.approx(3.25, abs=1e-12)
    assert m["gap"] == pytest.approx(-5 / 24, abs=1e-12)
    assert m["no_answer_rate"] == pytest.approx(2 / 6)
    # No consistency questions, no probabilities: undefined, not zero.
    for name in ("consistency", "ece", "brier", "epa", "invalid_mass"):
        assert m[name] is None, name


def test_multi_part_questions_count_once() -> None:
    rows = [
        # p = 1/2 · 1/3 = 1/6; both parts right: +1
        *parts([2, 3], [1, 2], [1, 2]),
        # one part wrong: wrong, −(1/6)/(5/6) = −1/5
        *parts([2, 3], [1, 0], [1, 2]),
        # one part unanswered: unanswered, strict −1/5
        *parts([2, 3], [-1, 2], [1, 2]),
        # the keyless second part is unscored; the unit is the first part only:
        # p = 1/4, right: +1
        *parts([4, 3], [3, 0], [3, None]),
    ]
    (m,) = one(rows, CELL_METRICS).values()
    assert (m["n_rows"], m["n_units"], m["n_unscored"]) == (8, 4, 1)
    assert (m["n_correct"], m["n_no_answer"]) == (2, 1)
    assert m["exact_match"] == pytest.approx(2 / 4)
    # (1 − 1/5 + 0 + 1) / 4 = 1.8 / 4 = 0.45
    assert m["normalized_accuracy"] == pytest.approx(0.45, abs=1e-12)
    # (1.8 − 1/5) / 4 = 0.4
    assert m["normalized_accuracy_strict"] == pytest.approx(0.4, abs=1e-12)
    # gap: (2 − (1/6 + 1/6 + 1/6 + 1/4)) / 4 = (2 − 3/4) / 4 = 5/16
    assert m["gap"] == pytest.approx(5 / 16, abs=1e-12)
    assert m["no_answer_rate"] == pytest.approx(1 / 4)


def test_consistency_groups() -> None:
    def group(rule: str, n_options: list[int], chosen: list[int]) -> list[dict[str, Any]]:
        return [
            r | {"consistency_rule": rule}
            for r in parts(n_options, chosen, [None] * len(chosen), model="c")
        ]

    rows = [
        # same:01 on 3 × 3 options: 3 of 9 combinations agree, p = 1/3. Consistent: +1.
        *group("same:01", [3, 3], [2, 2]),
        # Inconsistent: −(1/3)/(2/3) = −1/2.
        *group("same:01", [3, 3], [2, 1]),
        # flip:01 on 2 and 3 options: part 1 must choose 2 − c0, c0 ∈ {0, 1} → 2 of 6,
        # p = 1/3. Choices 0 → 2: consistent, +1.
        *group("flip:01", [2, 3], [0, 2]),
        # same:01,12 on 2 × 2 × 2: (0,0,0), (1,1,1) of 8, p = 1/4. (1,1,0): −(1/4)/(3/4) = −1/3.
        *group("same:01,12", [2, 2, 2], [1, 1, 0]),
        # flip:01;same:12 on 2 × 2 × 2: c1 = 1 − c0 and c2 = c1 → 2 of 8, p = 1/4.
        # A part the rule needs is unanswered: unanswered (strict −1/3).
        *group("flip:01;same:12", [2, 2, 2], [0, -1, 1]),
    ]
    (m,) = one(rows, CELL_METRICS).values()
    assert (m["n_rows"], m["n_units"], m["n_consistency"], m["n_consistent"]) == (12, 5, 5, 2)
    assert (m["n_correct"], m["n_no_answer"], m["n_unscored"]) == (2, 1, 0)
    # consistency = consistent / consistency-graded questions = 2 / 5
    assert m["consistency"] == pytest.approx(0.4)
    # (1 − 1/2 + 1 − 1/3 + 0) / 5 = (7/6) / 5 = 7/30
    assert m["normalized_accuracy"] == pytest.approx(7 / 30, abs=1e-12)
    # (7/6 − 1/3) / 5 = (5/6) / 5 = 1/6
    assert m["normalized_accuracy_strict"] == pytest.approx(1 / 6, abs=1e-12)
    # Σp over all asked = 1/3 + 1/3 + 1/3 + 1/4 + 1/4 = 3/2; gap = (2 − 3/2) / 5 = 1/10
    assert m["sum_p_random"] == pytest.approx(3 / 2, abs=1e-12)
    assert m["gap"] == pytest.approx(1 / 10, abs=1e-12)


def test_rows_sharing_a_blank_base_id_stay_separate_questions() -> None:
    """Regression: a model's score must not change when an unrelated multi-part
    question is added to the table (it collapsed blank-base_id rows into one unit)."""
    alone = [row(model="m", base_id="", chosen_index=i % 2) for i in range(4)]  # 2 of 4 right
    # The same single-part question asked four times in one run (repeats).
    repeats = [
        row(model="m", base_id="same", question_id="same/0", chosen_index=i % 2) for i in range(4)
    ]
    other = parts([2, 2], [0, 0], [0, 0], model="other")
    for rows in (alone, alone + other, repeats, repeats + other):
        m = one(rows, ["exact_match"])[("m",)]
        assert (m["n_units"], m["n_correct"], m["exact_match"]) == (4, 2, 0.5)


# --- calibration --------------------------------------------------------------------------------

CALIBRATION_ROWS = [
    # probabilities, key; conf (top option after renormalising), top right?
    ([0.9, 0.1], 0),  # conf .9, right; bin (M=10) 9
    ([0.8, 0.2], 1),  # conf .8, wrong; bin 8
    ([0.35, 0.65], 1),  # conf .65, right; bin 6
    ([0.3, 0.3, 0.4], 0),  # conf .4 on option 2, wrong; bin 4
    ([0.2, 0.6], 1),  # sums to .8: → (.25, .75), conf .75, right; bin 7; missing mass .2
]


def calibration_table() -> list[dict[str, Any]]:
    rows = [
        row(n_options=len(p), chosen_index=0, correct_index=key, option_probs=p)
        for p, key in CALIBRATION_ROWS
    ]
    return [
        *rows,
        row(n_options=2, option_probs=[math.nan, 0.5]),  # NaN: counted invalid, left out
        row(n_options=2, option_probs=[0.0, 0.0]),  # sums to 0: invalid
        row(n_options=2, option_probs=[0.5, None]),  # a null inside the list: invalid
        row(n_options=2, option_probs=None),  # no probabilities: not counted at all
        row(n_options=2, chosen_index=-1, option_probs=[1.0, 0.0]),  # unanswered: left out
        row(n_options=2, correct_index=None, option_probs=[1.0, 0.0]),  # no key: left out
    ]


def test_calibration_metrics_by_hand() -> None:
    (m,) = one(
        calibration_table(), ["ece", "ece_equal_mass", "brier", "epa", "invalid_mass"]
    ).values()
    assert (m["n_prob"], m["n_prob_invalid"], m["n_top_correct"]) == (5, 3, 3)
    # ECE (M = 10): every row is alone in its bin,
    # (|1 − .9| + |0 − .8| + |1 − .65| + |0 − .4| + |1 − .75|) / 5 = (.1 + .8 + .35 + .4 + .25) / 5
    assert m["ece"] == pytest.approx(1.9 / 5, abs=1e-12)
    assert [m[f"ece_n_{b}"] for b in range(10)] == [0, 0, 0, 0, 1, 0, 1, 1, 1, 1]
    # Equal-mass (M = 10, n = 5): bins ⌊b·5/10⌋..⌊(b+1)·5/10⌋ hold one row every other
    # bin, so it equals the equal-width value here.
    assert m["ece_equal_mass"] == pytest.approx(1.9 / 5, abs=1e-12)
    # Brier: (.1² + .1²)/2 = .01; (.8² + .8²)/2 = .64; (.35² + .35²)/2 = .1225;
    # (.7² + .3² + .4²)/3 = .74/3; (.25² + .25²)/2 = .0625 → mean of the five
    brier = (0.01 + 0.64 + 0.1225 + 0.74 / 3 + 0.0625) / 5
    assert m["brier"] == pytest.approx(brier, abs=1e-12)
    # EPA: (.9 + .2 + .65 + .3 + .75) / 5 = 2.8 / 5
    assert m["epa"] == pytest.approx(0.56, abs=1e-12)
    # Missing mass |1 − Σp|: only the last row, .2, over 5 rows.
    assert m["invalid_mass"] == pytest.approx(0.04, abs=1e-12)
    assert m["sum_conf"] == pytest.approx(0.9 + 0.8 + 0.65 + 0.4 + 0.75, abs=1e-12)


def test_ece_with_few_bins_by_hand() -> None:
    rows = calibration_table()
    # M = 2, equal width: bin 0 = {.4 (wrong)} → |0 − .4| = .4;
    # bin 1 = {.9 ✓, .8 ✗, .65 ✓, .75 ✓} → |3 − 3.1| = .1; ECE = .5 / 5 = .1
    (m,) = one(rows, ["ece", "ece_equal_mass"], bins=2).values()
    assert m["ece"] == pytest.approx(0.1, abs=1e-12)
    assert [m["ece_n_0"], m["ece_n_1"], m["ece_acc_0"], m["ece_acc_1"]] == [1, 4, 0, 3]
    # M = 3, equal mass: sorted confidences .4 ✗, .65 ✓, .75 ✓, .8 ✗, .9 ✓;
    # cuts at ⌊b·5/3⌋ = 0, 1, 3, 5: {.4} → .4; {.65, .75} → |2 − 1.4| = .6;
    # {.8, .9} → |1 − 1.7| = .7; ECE = 1.7 / 5 = .34
    # M = 3, equal width: [0, 1/3) empty; [1/3, 2/3) = {.4 ✗, .65 ✓} → |1 − 1.05| = .05;
    # [2/3, 1] = {.75 ✓, .8 ✗, .9 ✓} → |2 − 2.45| = .45; ECE = .5 / 5 = .1
    (m,) = one(rows, ["ece", "ece_equal_mass"], bins=3).values()
    assert m["ece_equal_mass"] == pytest.approx(0.34, abs=1e-12)
    assert m["ece"] == pytest.approx(0.1, abs=1e-12)
    # M = 1: one bin, |3 − 3.5| / 5 = .1 for both variants.
    (m,) = one(rows, ["ece", "ece_equal_mass"], bins=1).values()
    assert m["ece"] == pytest.approx(0.1, abs=1e-12)
    assert m["ece_equal_mass"] == pytest.approx(0.1, abs=1e-12)


def test_confidence_of_one_falls_in_the_last_bin_and_ties_go_to_the_first_option() -> None:
    rows = [
        row(n_options=2, correct_index=0, option_probs=[1.0, 0.0]),  # conf 1 → bin 9, right
        row(n_options=2, correct_index=1, option_probs=[0.5, 0.5]),  # tie → option 0, wrong
        row(n_options=3, correct_index=0, option_probs=[0.3, 0.3, 0.3]),  # → 1/3 each, right
    ]
    (m,) = one(rows, ["ece", "epa"]).values()
    assert m["ece_n_9"] == 1 and m["ece_acc_9"] == 1
    assert m["ece_n_5"] == 1 and m["ece_acc_5"] == 0  # conf .5 → ⌊5⌋
    assert m["ece_n_3"] == 1 and m["ece_acc_3"] == 1  # conf 1/3 → ⌊3.33⌋
    assert m["n_top_correct"] == 2
    # (|1 − 1| + |0 − .5| + |1 − 1/3|) / 3 = (.5 + 2/3) / 3 = 7/18
    assert m["ece"] == pytest.approx(7 / 18, abs=1e-12)
    # EPA: (1 + .5 + 1/3) / 3 = 11/18; missing mass of the last row: |1 − .9| = .1
    assert m["epa"] == pytest.approx(11 / 18, abs=1e-12)
    assert m["sum_invalid_mass"] == pytest.approx(0.1, abs=1e-12)


def test_without_any_probabilities_calibration_is_null() -> None:
    names = ["ece", "ece_equal_mass", "brier", "epa", "invalid_mass"]
    (m,) = one([row(), row(chosen_index=1)], names).values()
    assert m["n_prob"] == 0 and m["n_prob_invalid"] == 0
    assert all(m[k] is None for k in names)
    # All rows NaN: also null, and counted as invalid.
    (m,) = one([row(n_options=2, option_probs=[math.nan] * 2)], ["ece", "brier"]).values()
    assert (m["n_prob"], m["n_prob_invalid"], m["ece"], m["brier"]) == (0, 1, None, None)


# --- robustness ---------------------------------------------------------------------------------


def answers(right: int, wrong: int, unanswered: int = 0, **values: Any) -> list[dict[str, Any]]:
    """Four-option questions: right +1, wrong −1/3."""
    return (
        [row(chosen_index=0, **values) for _ in range(right)]
        + [row(chosen_index=1, **values) for _ in range(wrong)]
        + [row(chosen_index=-1, **values) for _ in range(unanswered)]
    )


def test_domain_type_perspective_robustness_with_argmin() -> None:
    rows = [
        # model a, strict normalized accuracy (a no-answer is wrong, −1/3):
        # finance (2 − 0)/2 = 1; sports (1 − 2/3)/3 = 1/9;
        # health (0 − 1/3 − 1/3)/2 = −1/3 → min −1/3, health
        *answers(2, 0, domain="finance", type="standard", perspective="first", model="a"),
        *answers(1, 2, domain="sports", type="twist", perspective="first", model="a"),
        *answers(0, 1, 1, domain="health", type="standard", perspective="second", model="a"),
        # model b: only unanswered in "void" (−1/3) and finance (1 − 1/3)/2 = 1/3
        *answers(0, 0, 2, domain="void", type="standard", perspective="first", model="b"),
        *answers(1, 1, domain="finance", type="standard", perspective="first", model="b"),
    ]
    metrics = ["domain_robustness", "type_robustness", "perspective_robustness"]
    got = one(rows, metrics)
    a, b = got[("a",)], got[("b",)]
    assert a["domain_robustness"] == pytest.approx(-1 / 3)
    assert a["domain_robustness_argmin"] == "health"
    # types of a: standard = finance + health = (2 − 2/3)/4 = 1/3; twist = 1/9 → twist
    assert a["type_robustness"] == pytest.approx(1 / 9)
    assert a["type_robustness_argmin"] == "twist"
    # perspectives of a: first = (3 − 2/3)/5 = 7/15; second = −1/3 → second
    assert a["perspective_robustness"] == pytest.approx(-1 / 3)
    assert a["perspective_robustness_argmin"] == "second"
    # Not answering cannot hide a domain, nor raise it above a wrong answer:
    # b's silent "void" scores as if every answer were wrong, and is its worst.
    assert b["domain_robustness"] == pytest.approx(-1 / 3)
    assert b["domain_robustness_argmin"] == "void"
    # Grouped by the dimension itself, robustness is the group's own value.
    by_domain = one(rows, ["domain_robustness", "normalized_accuracy_strict"], by=("domain",))
    for key, cell in by_domain.items():
        assert close(cell["domain_robustness"], cell["normalized_accuracy_strict"])
        assert cell["domain_robustness_argmin"] == key[0]
    assert by_domain[("void",)]["domain_robustness"] == pytest.approx(-1 / 3)


def test_robustness_of_a_group_with_a_null_key() -> None:
    """Regression: an Arrow join dropped the value of groups whose key is null."""
    rows = answers(1, 1, domain="x", grade=None) + answers(1, 0, domain="y", grade=None)
    rows += answers(0, 1, domain="x", grade=4)
    got = one(rows, ["domain_robustness"], by=("grade",))
    # grade null: x = (1 − 1/3)/2 = 1/3, y = 1 → 1/3 at x; grade 4: x = −1/3
    assert got[(None,)]["domain_robustness"] == pytest.approx(1 / 3)
    assert got[(None,)]["domain_robustness_argmin"] == "x"
    assert got[(4,)]["domain_robustness"] == pytest.approx(-1 / 3)


def test_dependency_robustness_on_the_nash_chain() -> None:
    # steer.3.1.f (pure Nash) requires 3.1.e, which requires 3.1.d, which requires 3.1.b;
    # 3.1.b requires 3.1.a and through it 1.2.a and 1.5.a, none of them scored here.
    rows = [
        *answers(1, 1, element="steer.3.1.f"),  # (1 − 1/3)/2 = 1/3
        *answers(1, 0, element="steer.3.1.e"),  # 1
        *answers(1, 3, element="steer.3.1.d"),  # (1 − 1)/4 = 0
        *answers(0, 1, element="steer.3.1.b"),  # −1/3
        *answers(0, 0, 3, element="steer.3.1.a"),  # unanswered only: 0 (chance)
        # Another model, where every element scores 1: no inversions at all.
        *answers(1, 0, element="steer.3.1.f", model="n"),
        *answers(1, 0, element="steer.3.1.b", model="n"),
    ]
    got = one(rows, ["dependency_robustness"], by=("model", "element"))
    dep = {k: v["dependency_robustness"] for k, v in got.items()}
    # 3.1.f: 3.1.e (1) scores higher: skipped; 3.1.d: 1/3 − 0; 3.1.b: 1/3 − (−1/3);
    # 3.1.a: 1/3 − 0 → 1/3 + 2/3 + 1/3 = 4/3
    assert dep[("m", "steer.3.1.f")] == pytest.approx(4 / 3, abs=1e-12)
    # 3.1.e: 3.1.d: 1 − 0; 3.1.b: 1 + 1/3; 3.1.a: 1 − 0 → 10/3
    assert dep[("m", "steer.3.1.e")] == pytest.approx(10 / 3, abs=1e-12)
    # 3.1.d: 3.1.b: 0 + 1/3; 3.1.a ties (0), not below
    assert dep[("m", "steer.3.1.d")] == pytest.approx(1 / 3, abs=1e-12)
    # 3.1.b: its prerequisite 3.1.a (0, never answered) scores above it → 0
    assert dep[("m", "steer.3.1.b")] == 0.0
    assert dep[("m", "steer.3.1.a")] == 0.0  # no scored prerequisites
    assert dep[("n", "steer.3.1.f")] == 0.0 and dep[("n", "steer.3.1.b")] == 0.0
    with pytest.raises(InputError, match="element"):
        score(response_table(rows), by=["model"], metrics=["dependency_robustness"])


# --- merging cells --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    response_rows(),
    st.sampled_from([["model"], ["element", "grade"], ["domain", "adaptation"], ["module"]]),
    st.data(),
)
def test_merged_cells_equal_the_concatenated_table(
    rows: list[dict[str, Any]], by: list[str], data: st.DataObject
) -> None:
    # Split by question (base_id) so no multi-part question straddles the halves.
    bases = sorted({r["base_id"] for r in rows})
    left = set(data.draw(st.lists(st.sampled_from(bases), unique=True))) if bases else set()
    halves = [[r for r in rows if (r["base_id"] in left) == side] for side in (True, False)]
    scored = [score(response_table(h), by=by, metrics=CELL_METRICS, ci=None) for h in halves]
    merged = by_key(merge_cells(scored, by, CELL_METRICS), by)
    whole = by_key(score(response_table(rows), by=by, metrics=CELL_METRICS, ci=None), by)
    assert set(merged) == set(whole)
    for key, cell in whole.items():
        for name in [*ADDITIVE, *CELL_METRICS, *(c for c in cell if c.startswith("ece_"))]:
            if name.startswith("n_") or name.startswith(("ece_n_", "ece_acc_")):
                assert merged[key][name] == cell[name], (key, name)
            else:
                assert close(merged[key][name], cell[name]), (key, name)


# --- Wilson intervals ---------------------------------------------------------------------------


@pytest.mark.parametrize(("k", "n"), [(0, 1), (1, 1), (7, 10), (0, 20), (20, 20), (33, 100)])
@pytest.mark.parametrize("level", [0.9, 0.95, 0.99])
def test_wilson_interval_matches_scipy_and_the_formula(k: int, n: int, level: float) -> None:
    silent = min(2, n - k)  # k right of the n asked: the unanswered ones are failures
    rows = answers(k, n - k - silent) + answers(0, 0, silent)
    (m,) = one(rows, ["exact_match"], ci=level).values()
    want = scipy.stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    assert m["exact_match_wilson_lo"] == pytest.approx(want.low, abs=1e-12)
    assert m["exact_match_wilson_hi"] == pytest.approx(want.high, abs=1e-12)
    # (p̂ + z²/2n ± z √(p̂(1−p̂)/n + z²/4n²)) / (1 + z²/n)
    z = scipy.stats.norm.ppf(0.5 + level / 2)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert m["exact_match_wilson_lo"] == pytest.approx(max(0.0, centre - half), abs=1e-12)
    assert m["exact_match_wilson_hi"] == pytest.approx(min(1.0, centre + half), abs=1e-12)


def test_wilson_by_hand_and_when_undefined() -> None:
    # k = 7, n = 10, z = 1.959964: p̂ = .7, z²/n = .384146, centre = (.7 + .192073)/1.384146
    # = .644493, half = 1.959964·√(.021 + .0096036)/1.384146 = 1.959964·.174939/1.384146
    # = .247715 → [.396778, .892209]
    (m,) = one(answers(7, 3), ["exact_match"]).values()
    assert m["exact_match_wilson_lo"] == pytest.approx(0.396778, abs=1e-6)
    assert m["exact_match_wilson_hi"] == pytest.approx(0.892209, abs=1e-6)
    # Nothing answered is 0 of 3, not undefined.
    (m,) = one(answers(0, 0, 3), ["exact_match"]).values()
    assert m["exact_match_wilson_lo"] == 0.0 and m["exact_match_wilson_hi"] > 0.4
    # Nothing scored (no key) is undefined.
    (m,) = one([row(chosen_index=0, correct_index=None)], ["exact_match"]).values()
    assert m["exact_match_wilson_lo"] is None and m["exact_match_wilson_hi"] is None
    (m,) = one(answers(3, 1), ["exact_match"], ci=None).values()
    assert "exact_match_wilson_lo" not in m


# --- bootstrap ------------------------------------------------------------------------------------

BOOT_METRICS = ["exact_match", "normalized_accuracy", "normalized_accuracy_strict", "gap"]


def native_columns(groups: np.ndarray, n_options: np.ndarray, chosen: np.ndarray) -> dict:
    """Plain columns for the native engine (every row keyed with option 0)."""
    return {
        "group": np.ascontiguousarray(groups, dtype=np.uint32),
        "n_groups": int(groups.max()) + 1,
        "n_options": np.ascontiguousarray(n_options, dtype=np.int32),
        "chosen": np.ascontiguousarray(chosen, dtype=np.int32),
        "correct": np.zeros(len(groups), dtype=np.int32),
    }


def bootstrap_rows() -> list[dict[str, Any]]:
    rng = np.random.default_rng(7)
    rows = []
    for model, skill in (("a", 0.8), ("b", 0.4)):
        for _ in range(60):
            u = rng.random()
            chosen = -1 if u > 0.95 else (0 if u < skill else 1)
            rows.append(row(model=model, chosen_index=chosen))
    rows += answers(10, 0, model="perfect")  # constant: every resample is the same
    return rows


def test_bootstrap_is_seeded() -> None:
    table = response_table(bootstrap_rows())

    def run(seed: int) -> pa.Table:
        return score(table, by=["model"], metrics=BOOT_METRICS, bootstrap=200, seed=seed)

    a, b, c = run(1), run(1), run(2)
    assert a.equals(b)
    bounds = [f"{m}_{side}" for m in BOOT_METRICS for side in ("lo", "hi")]
    assert a.select(bounds).slice(0, 2) != c.select(bounds).slice(0, 2)
    for r in a.to_pylist():
        for m in BOOT_METRICS:
            assert r[f"{m}_lo"] <= r[m] + 1e-12 and r[m] <= r[f"{m}_hi"] + 1e-12, (r["model"], m)
    perfect = by_key(a, ["model"])[("perfect",)]
    for m in BOOT_METRICS:  # a constant group has a zero-width interval
        assert perfect[f"{m}_lo"] == perfect[f"{m}_hi"] == perfect[m], m


def test_bootstrap_percentiles_are_numpy_percentiles_of_the_replicates() -> None:
    rng = np.random.default_rng(3)
    n = 500
    groups = rng.integers(0, 3, n)
    n_options = rng.integers(2, 6, n)
    chosen = np.where(rng.random(n) < 0.1, -1, np.where(rng.random(n) < 0.5, 0, 1))
    cols = native_columns(groups, n_options, chosen)
    res = _native.bootstrap_ci(
        cols, BOOT_METRICS, resamples=300, seed=11, level=0.9, keep_replicates=True
    )
    reps = res["replicates"]
    assert reps.shape == (len(BOOT_METRICS), 3, 300)
    lo, hi = np.percentile(reps, [5, 95], axis=2)  # numpy's default: linear interpolation
    np.testing.assert_allclose(res["lo"], lo, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["hi"], hi, rtol=0, atol=1e-12)
    again = _native.bootstrap_ci(
        cols, BOOT_METRICS, resamples=300, seed=11, level=0.9, keep_replicates=True
    )
    np.testing.assert_array_equal(again["replicates"], reps)
    other = _native.bootstrap_ci(
        cols, BOOT_METRICS, resamples=300, seed=12, level=0.9, keep_replicates=True
    )
    assert not np.array_equal(other["replicates"], reps)


def test_bootstrap_spread_matches_a_numpy_bootstrap() -> None:
    rng = np.random.default_rng(5)
    n = 400
    n_options = rng.integers(2, 6, n)
    chosen = np.where(rng.random(n) < 0.55, 0, 1)
    cols = native_columns(np.zeros(n, dtype=np.uint32), n_options, chosen)
    res = _native.bootstrap_ci(
        cols, ["normalized_accuracy"], resamples=2000, seed=0, keep_replicates=True
    )
    ours = res["replicates"][0, 0]
    # The same data resampled with numpy: per-question score +1 or −1/(n−1).
    per_question = np.where(chosen == 0, 1.0, -1.0 / (n_options - 1))
    draws = rng.integers(0, n, size=(2000, n))
    theirs = per_question[draws].mean(axis=1)
    assert ours.mean() == pytest.approx(per_question.mean(), abs=0.01)
    assert ours.std() == pytest.approx(theirs.std(), rel=0.15)
    assert ours.std() == pytest.approx(per_question.std() / math.sqrt(n), rel=0.15)


def test_bootstrap_resamples_whole_questions() -> None:
    """Multi-part questions are resampled as units: a group whose questions are
    all right has a zero-width interval even though its parts are many rows."""
    rows = [r for _ in range(20) for r in parts([2, 3], [1, 2], [1, 2], model="m")]
    rows += [r for i in range(20) for r in parts([2, 2], [i % 2, 0], [0, 0], model="half")]
    got = one(rows, ["exact_match", "normalized_accuracy"], bootstrap=300, seed=4)
    m, half = got[("m",)], got[("half",)]
    assert m["exact_match_lo"] == m["exact_match_hi"] == 1.0
    assert half["exact_match"] == 0.5
    assert half["exact_match_lo"] < 0.5 < half["exact_match_hi"]
