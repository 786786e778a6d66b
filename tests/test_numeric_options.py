"""The Rust menus of numeric questions (`steer._native.numeric_options`) keep
every invariant the Python reference (tests/numeric_options_reference.py)
states: the key once, n distinct options at least the grade's gap apart, one
precision, the key's form, the nonnegative and probability bounds, tags true
by construction; digit slips and the shared-digit rank equal the reference's;
the key's rank and its place by shared digits are spread as the reference
spreads them, over many seeds.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric_options_reference import _centre_rank, _digit_slips
from numeric_options_reference import numeric_options as reference_options
from steer import _native
from steer.errors import InputError
from steer.generate import generate_bank
from steer.generate._options import numeric_options, relative_gap
from steer.generate._registry import Instance, Resample, Solution
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._vars import evaluate
from test_distractor_tags import shared_digits, slips_between

RESAMPLE = (
    "the key sits on a rounding boundary",
    "could not find enough distinct distractors",
    "two options are closer than the grade's tolerance",
)


def number(text: str, unit: str) -> float:
    return (
        float(text.replace(unit, "", 1).replace(",", "")) if unit else float(text.replace(",", ""))
    )


def body(text: str, unit: str) -> str:
    return text.replace("-", "", 1).replace(unit, "", 1) if unit else text.lstrip("-")


@settings(max_examples=300, deadline=None)
@given(
    key=st.integers(-99_999, 999_999),
    decimals=st.sampled_from([0, 1, 2, 3]),
    relative=st.sampled_from([0.0, 0.02, 0.05]),
    nearest=st.booleans(),
    seed=st.integers(0, 2**64 - 1),
)
def test_digit_slips_are_the_references(
    key: int, decimals: int, relative: float, nearest: bool, seed: int
) -> None:
    value = key / 10**decimals
    gap = max(10.0**-decimals, relative * abs(value))
    want = _digit_slips(np.random.default_rng(0), value, decimals, gap, nearest)
    got = _native.digit_slips(value, decimals, gap, nearest, seed)
    assert sorted(got) == sorted(want)


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.floats(-1e7, 1e7, allow_nan=False), min_size=1, max_size=7, unique=True),
    decimals=st.sampled_from([0, 1, 2, 3]),
)
def test_centre_rank_is_the_references(values: list[float], decimals: int) -> None:
    assert _native.centre_rank(values, decimals) == _centre_rank(values, decimals)


def check_menu(
    made: tuple[list[str], list[str], int],
    value: float,
    decimals: int,
    gap: float,
    unit: str,
    n: int,
    named: list[tuple[float, str]],
    nonnegative: bool,
    probability: bool,
) -> None:
    """Every invariant of a menu, recomputed from its texts."""
    texts, tags, correct = made
    assert len(texts) == len(tags) == n
    assert len(set(texts)) == n
    assert tags.count("key") == 1 and tags[correct] == "key"
    values = [number(x, unit) for x in texts]
    key = round(value, decimals)
    assert values[correct] == key
    ordered = sorted(values)
    assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(ordered))
    if nonnegative:
        assert min(values) >= 0
    if probability:
        assert all(0 <= v <= 1 for v in values)
    # One precision: whole numbers shown whole, else every option at `decimals`.
    bodies = [body(x, unit) for x in texts]
    if all(v.is_integer() for v in values):
        assert all("." not in b for b in bodies)
    else:
        assert all(len(b.partition(".")[2]) == decimals for b in bodies)
    # Every option written as Python writes it.
    for x, v in zip(texts, values, strict=True):
        shown = f"{abs(v):,.0f}" if "." not in x else f"{abs(v):,.{decimals}f}"
        assert x == f"{'-' if v < 0 else ''}{unit}{shown}"
    # Tags true by construction.
    named_values = {tag: round(v, decimals) for v, tag in named if math.isfinite(v)}
    by_tag = dict(zip(tags, texts, strict=True))
    for x, v, tag in zip(texts, values, tags, strict=True):
        if tag in ("key", "other"):
            continue
        if tag in named_values:
            assert v == named_values[tag], (tag, x)
            continue
        base_tag, _, slip = tag.rpartition("+")
        base = by_tag[base_tag or "key"]
        assert slip in slips_between(body(base, unit), body(x, unit)), (texts, tags)


@settings(max_examples=400, deadline=None)
@given(
    whole=st.integers(0, 99_999),
    decimals=st.sampled_from([0, 1, 2, 3]),
    negative=st.booleans(),
    grade=st.sampled_from([3, 8]),
    n=st.integers(2, 6),
    unit=st.sampled_from(["", "$"]),
    factors=st.lists(st.floats(0.3, 2.5), max_size=5),
    seed=st.integers(0, 2**64 - 1),
)
def test_menus_keep_every_invariant(
    whole: int,
    decimals: int,
    negative: bool,
    grade: int,
    n: int,
    unit: str,
    factors: list[float],
    seed: int,
) -> None:
    value = (-1 if negative else 1) * (whole + 0.37) / 10**decimals
    named = [(value * f, f"error_{i}") for i, f in enumerate(factors)] + [(math.nan, "none")]
    made = _native.numeric_options(
        value, decimals, relative_gap(grade), not negative, False, unit, n, named, seed
    )
    if isinstance(made, str):
        assert made in RESAMPLE or made.startswith("option ")
        return
    key = round(value, decimals)
    gap = max(10.0**-decimals, relative_gap(grade) * abs(key))
    check_menu(made, value, decimals, gap, unit, n, named, not negative, False)


@settings(max_examples=200, deadline=None)
@given(
    p=st.floats(0.01, 0.99),
    n=st.integers(2, 5),
    factors=st.lists(st.floats(0.2, 3.0), max_size=4),
    seed=st.integers(0, 2**64 - 1),
)
def test_probability_menus_stay_in_the_unit_interval(
    p: float, n: int, factors: list[float], seed: int
) -> None:
    named = [(p * f, f"error_{i}") for i, f in enumerate(factors)]
    made = _native.numeric_options(p, 2, 0.02, True, True, "", n, named, seed)
    if isinstance(made, str):
        assert made in RESAMPLE
        return
    gap = max(0.01, 0.02 * abs(round(p, 2)))
    check_menu(made, p, 2, gap, "", n, named, True, True)


@settings(max_examples=300, deadline=None)
@given(
    outcomes=st.lists(st.integers(-500, 5_000), min_size=2, max_size=5, unique=True),
    weights=st.lists(st.floats(0.05, 1.0), min_size=5, max_size=5),
    decimals=st.sampled_from([0, 1, 2]),
    n=st.integers(2, 5),
    seed=st.integers(0, 2**64 - 1),
)
def test_bounded_menus_stay_within_the_answers_range(
    outcomes: list[int], weights: list[float], decimals: int, n: int, seed: int
) -> None:
    """An expectation's menu never offers a number outside its outcomes'
    range, where it would be struck on its face: the sum of the outcomes (a
    named error) is dropped there, and so is every slip or filler outside."""
    w = np.asarray(weights[: len(outcomes)])
    value = float(np.dot(outcomes, w / w.sum()))
    low, high = float(min(outcomes)), float(max(outcomes))
    named = [(float(sum(outcomes)), "forgot_probability"), (float(np.mean(outcomes)), "mean")]
    made = _native.numeric_options(
        value, decimals, 0.02, False, False, "", n, named, seed, low, high
    )
    if isinstance(made, str):
        assert made in RESAMPLE
        return
    texts, _, _ = made
    assert all(low <= number(t, "") <= high for t in texts), (texts, low, high)


def test_a_key_outside_its_bounds_is_an_input_error() -> None:
    with pytest.raises(InputError, match="outside"):
        _native.numeric_options(70.0, 0, 0.05, True, False, "", 4, [], 1, 10.0, 60.0)
    with pytest.raises(InputError, match="range"):
        _native.numeric_options(30.0, 0, 0.05, True, False, "", 4, [], 1, 60.0, 10.0)


@pytest.mark.parametrize("element", ["1.1.c", "2.4.a"])
def test_expected_value_options_lie_between_the_outcomes(element: str) -> None:
    """Every option of an expected-value question lies between the lottery's
    least and greatest outcome: a number outside is not worth computing (a
    reader found three of four options above the largest outcome)."""
    bank = generate_bank([element], per_cell=40, seed=7).to_pylist()
    checked = 0
    for q in bank:
        payload = json.loads(q["payload"])
        if not isinstance(payload, dict) or "values" not in payload:
            continue
        low, high = min(payload["values"]), max(payload["values"])
        unit = "$" if q["options"][0].lstrip("-").startswith("$") else ""
        values = [number(o.replace("-$", "$-", 1) if unit else o, unit) for o in q["options"]]
        assert all(low - 1e-9 <= v <= high + 1e-9 for v in values), (q["options"], low, high)
        checked += 1
    assert checked > 100


def test_the_same_seed_gives_the_same_menu_and_bad_sizes_are_input_errors() -> None:
    def menu(seed: int) -> Any:
        return _native.numeric_options(47.0, 0, 0.05, True, False, "$", 4, [(74.0, "swap")], seed)

    assert menu(11) == menu(11)
    assert len({str(menu(s)) for s in range(40)}) > 5
    with pytest.raises(InputError, match="n"):
        _native.numeric_options(47.0, 0, 0.05, True, False, "$", 0, [], 1)
    assert _native.numeric_options(2.5, 0, 0.05, True, False, "", 4, [], 1) == RESAMPLE[0]


# --- spread over seeds, beside the reference ------------------------------------

CASES = [
    # (answer, decimals, grade, options, wrong expressions on x)
    (47.0, 0, 3, 4, {"added": "x + 27", "halved": "x / 2 + 30", "doubled": "x * 2 - 20"}),
    (1234.56, 2, 8, 4, {"no_tax": "x / 1.08", "tax_twice": "x * 1.08"}),
    (0.375, 3, 8, 5, {"complement": "1 - x", "squared": "x * x + 0.2"}),
    (13.0, 0, 3, 3, {}),
]


def spread(menus: list[tuple[list[str], list[str], int]], unit: str) -> dict[str, float]:
    """Shares of menus where the key is the smallest, the largest, the option
    sharing most digits (ties split), and of `other` among distractors."""
    smallest = largest = centre = other = 0.0
    for texts, tags, correct in menus:
        values = [number(x, unit) for x in texts]
        smallest += values[correct] == min(values)
        largest += values[correct] == max(values)
        scores = shared_digits([x.replace(unit, "") if unit else x for x in texts])
        top = [i for i, s in enumerate(scores) if s == max(scores)]
        centre += (correct in top) / len(top)
        other += tags.count("other") / (len(tags) - 1)
    m = len(menus)
    return {
        "smallest": smallest / m,
        "largest": largest / m,
        "centre": centre / m,
        "other": other / m,
    }


@pytest.mark.parametrize(("answer", "decimals", "grade", "n", "wrong"), CASES)
def test_ranks_spread_like_the_reference(
    answer: float, decimals: int, grade: int, n: int, wrong: dict[str, str]
) -> None:
    t = TemplateSpec.model_validate(
        {
            "id": "spread",
            "domain": "d",
            "structure": "scenario",
            "solver": "formula",
            "phrasings": ["a"],
            "decimals": decimals,
            "unit": "$",
            "nonnegative": True,
            "wrong": wrong,
            "grade": {str(grade): {"size": 1, "options": n}},
        }
    )
    spec = GradeSpec.model_validate({"size": 1, "options": n})
    instance = Instance(data={"env": {"x": answer}}, fields={})
    solution = Solution(value=answer)
    runs = 2000
    rng = np.random.default_rng(5)
    ours: list[tuple[list[str], list[str], int]] = []
    theirs: list[tuple[list[str], list[str], int]] = []
    for _ in range(runs):
        for build, out in ((numeric_options, ours), (reference_options, theirs)):
            with contextlib.suppress(Resample):
                out.append(build(rng, instance, solution, t, spec, grade))
    assert len(ours) > 0.95 * runs and len(theirs) > 0.95 * runs
    mine, ref = spread(ours, "$"), spread(theirs, "$")
    # About 1/n smallest and 1/n largest, within five standard errors.
    sigma = math.sqrt((1 / n) * (1 - 1 / n) / runs)
    for side in ("smallest", "largest"):
        assert abs(mine[side] - 1 / n) < 5 * sigma + 0.01, (mine, ref)
    # The digit-centre agent and the unnamed fill: as the reference does (the
    # bank-wide bound on the digit-centre agent is in test_distractor_tags.py).
    for what in ("centre", "other"):
        assert abs(mine[what] - ref[what]) < 0.05, (what, mine, ref)
    for menu in ours:
        key = round(answer, decimals)
        gap = max(10.0**-decimals, relative_gap(grade) * key)
        named = [(evaluate(w, {"x": answer}), tag) for tag, w in wrong.items()]
        check_menu(menu, answer, decimals, gap, "$", n, named, True, False)
