"""Social welfare functions and axioms (STEER 4.1.a-d): the steer-core brute-force
checker against a plain-Python reference, its counterexamples, bad input, and the
generated questions' keys."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from social_axioms_reference import AXIOMS, expected_choice, relation, satisfies
from steer import _native
from steer.bank._order import in_payload_order
from steer.errors import InputError
from steer.generate import generate_bank

SIZES = [(n, m) for m in (2, 3, 4) for n in range(1, 6) if math.factorial(m) ** n <= 50_000]


@st.composite
def rules(draw: st.DrawFn) -> tuple[str, list[int], int, int]:
    n, m = draw(st.sampled_from(SIZES))
    kind = draw(
        st.sampled_from(
            [
                "scoring",
                "weighted_majority",
                "dictatorship",
                "reversed_dictatorship",
                "imposed",
                "unanimity",
                "copeland",
            ]
        )
    )
    if kind == "scoring":
        params = draw(st.lists(st.integers(-3, 6), min_size=m, max_size=m))
    elif kind == "weighted_majority":
        params = draw(st.lists(st.integers(0, 6), min_size=n, max_size=n).filter(any))
    elif kind in ("dictatorship", "reversed_dictatorship"):
        params = [draw(st.integers(0, n - 1))]
    elif kind == "imposed":
        params = draw(st.permutations(list(range(m))))
    else:
        params = []
    return kind, params, n, m


def _pos(profile: list[list[int]]) -> np.ndarray:
    return np.array([[[r.index(c) for c in range(len(r))] for r in profile]])


def _check_counterexample(kind: str, params: list[int], axiom: str, c: dict[str, Any]) -> None:
    """A reported violation really is one, by the reference relation."""
    if axiom == "nondictatorship":
        assert c["voter"] is not None and c["profile"] == []
        return
    rel = relation(kind, params, _pos(c["profile"]))[0]
    assert rel.tolist() == c["relation"]
    if axiom == "pareto":
        x, y = c["alternatives"]
        assert all(r.index(x) < r.index(y) for r in c["profile"])
        assert not (rel[x, y] and not rel[y, x])
    elif axiom == "transitivity":
        x, y, z = c["alternatives"]
        assert rel[x, y] and rel[y, z] and not rel[x, z]
    else:
        x, y = c["alternatives"]
        old, new = c["profile"][c["voter"]], c["raised"]
        assert new.index(x) < old.index(x)
        assert [a for a in new if a != x] == [a for a in old if a != x]
        raised = [new if i == c["voter"] else r for i, r in enumerate(c["profile"])]
        after = relation(kind, params, _pos(raised))[0]
        assert after.tolist() == c["raised_relation"]
        fell = (rel[x, y] and not after[x, y]) or (
            rel[x, y] and not rel[y, x] and not (after[x, y] and not after[y, x])
        )
        assert fell


@settings(max_examples=150, deadline=None)
@given(rule=rules())
def test_checker_agrees_with_reference(rule: tuple[str, list[int], int, int]) -> None:
    kind, params, n, m = rule
    got = _native.social_axioms(kind, params, n, m)
    assert sorted(got) == sorted(AXIOMS)
    for axiom in AXIOMS:
        want = satisfies(kind, tuple(params), n, m, axiom)
        assert got[axiom]["satisfied"] == want, (kind, params, n, m, axiom)
        c = got[axiom]["counterexample"]
        assert (c is None) == want
        if c is not None:
            _check_counterexample(kind, params, axiom, c)
    only = _native.social_axioms(kind, params, n, m, ["transitivity"])
    assert only == {"transitivity": got["transitivity"]}


def test_hand_checked_cases() -> None:
    def verdicts(kind: str, params: list[int], n: int = 3, m: int = 3) -> list[bool]:
        got = _native.social_axioms(kind, params, n, m)
        return [got[a]["satisfied"] for a in AXIOMS]

    # [pareto, monotonicity, transitivity, nondictatorship]
    assert verdicts("scoring", [2, 1, 0]) == [True, True, True, True]  # Borda
    assert verdicts("scoring", [1, 0, 0]) == [False, True, True, True]  # plurality
    assert verdicts("weighted_majority", [1, 5, 2]) == [True, True, True, False]
    assert verdicts("weighted_majority", [1, 1, 1]) == [True, True, False, True]  # cycle
    assert verdicts("reversed_dictatorship", [1]) == [False, False, True, True]
    assert verdicts("imposed", [1, 2, 0]) == [False, True, True, True]
    assert verdicts("unanimity", [], 4) == [True, True, False, True]
    got = _native.social_axioms("weighted_majority", [1, 5, 2], 3, 3)
    assert got["nondictatorship"]["counterexample"]["voter"] == 1


@pytest.mark.parametrize(
    ("kind", "params", "n", "m", "axioms", "needle"),
    [
        ("copeland", [], 3, 5, None, "alternatives"),
        ("copeland", [], 3, 1, None, "alternatives"),
        ("copeland", [], 6, 3, None, "voters"),
        ("copeland", [], 0, 3, None, "voters"),
        ("copeland", [], -1, 3, None, "voters"),
        ("copeland", [], 4, 4, None, "profiles"),
        ("borda", [], 3, 3, None, "unknown rule"),
        ("scoring", [2, 1], 3, 3, None, "one point value per place"),
        ("weighted_majority", [1, -1, 1], 3, 3, None, "non-negative"),
        ("dictatorship", [3], 3, 3, None, "voter index"),
        ("imposed", [0, 0, 1], 3, 3, None, "ranking of all"),
        ("unanimity", [1], 3, 3, None, "no parameters"),
        ("copeland", [], 3, 3, ["fairness"], "unknown axiom"),
    ],
)
def test_bad_input_is_an_input_error(
    kind: str, params: list[int], n: int, m: int, axioms: list[str] | None, needle: str
) -> None:
    with pytest.raises(InputError, match=needle):
        _native.social_axioms(kind, params, n, m, axioms)


@pytest.mark.parametrize("element", ["4.1.a", "4.1.b", "4.1.c", "4.1.d"])
def test_generated_questions_have_one_answer(element: str) -> None:
    # Options as the payload orders them (the bank shows them permuted).
    bank = [in_payload_order(q) for q in generate_bank([element], per_cell=6, seed=11).to_pylist()]
    assert len({q["domain"] for q in bank}) >= 3
    for q in bank:
        d = json.loads(q["payload"])
        assert q["correct_index"] == expected_choice(d), q["question_text"]
        assert q["option_tags"].count("key") == 1
        assert len(q["options"]) == 4  # a menu of four rules, or the counts 0-3
        assert "checked on all" in q["explanation"] and "{" not in q["question_text"]
        if not d["judge"]:
            # Exactly one option has the asked property, by the reference.
            want = d["ask"] == "satisfies"
            hits = [
                satisfies(r["kind"], tuple(r["params"]), d["n"], d["m"], d["axiom"]) == want
                for r in d["rules"]
            ]
            assert sum(hits) == 1


FAMILY_OF_TAG = {
    "misjudged_points_rule": "points",
    "misjudged_tied_points": "tied_points",
    "misjudged_non_monotone_points": "non_monotone_points",
    "misjudged_majority": "majority",
    "misjudged_weighted_dictator": "weighted_dictator",
    "misjudged_dictator": "dictator",
    "misjudged_reversed_ballot": "reversed",
    "misjudged_imposed_ranking": "imposed",
    "misjudged_unanimity_only": "unanimity",
    "misjudged_copeland": "copeland",
}


def test_distractors_name_the_misjudged_rule() -> None:
    bank = [in_payload_order(q) for q in generate_bank(["4.1.*"], per_cell=8, seed=2).to_pylist()]
    tags = {t for q in bank for t in q["option_tags"]}
    assert {
        "misjudged_tied_points",
        "misjudged_imposed_ranking",
        "misjudged_reversed_ballot",
        "misjudged_majority",
        "misjudged_unanimity_only",
        "misjudged_weighted_dictator",
    } <= tags
    for q in bank:
        d = json.loads(q["payload"])
        if d["judge"]:
            # A count: each wrong count is tagged by how far it is off.
            for i, tag in enumerate(q["option_tags"]):
                off = i - q["correct_index"]
                assert tag == (
                    "key" if off == 0 else f"{'over' if off > 0 else 'under'}count_by_{abs(off)}"
                )
            continue
        for i, (rule, tag) in enumerate(zip(d["rules"], q["option_tags"], strict=True)):
            if i == q["correct_index"]:
                assert tag == "key"
            elif tag != "other":
                # A wrong rule's tag names that rule, whatever the axiom asked.
                family = FAMILY_OF_TAG[tag.replace("misjudged_another_", "misjudged_")]
                assert family == rule["family"], (d["axiom"], tag, rule)
