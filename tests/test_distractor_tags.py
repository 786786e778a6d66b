"""Numeric distractor tags are true by construction (issue 20 §4): every
digit slip is recomputed here from the option it slipped from (the key, or
the named error named before the '+'), with a plain reference that compares
written digits, and `other` (a number no named error produces) stays under
10% of the distractors of every numeric element.
"""

from __future__ import annotations

import math
import re
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from numeric_options_reference import _centre_rank, _digit_slips
from steer.generate import generate_bank

NAMES = {
    -3: "thousandths",
    -2: "hundredths",
    -1: "tenths",
    0: "units",
    1: "tens",
    2: "hundreds",
    3: "thousands",
    4: "ten_thousands",
    5: "hundred_thousands",
    6: "millions",
}
COUNTS = {"one": 1, "two": 2, "three": 3}


def digits_by_place(text: str) -> dict[int, str]:
    """'1,234.50' -> {3: '1', 2: '2', 1: '3', 0: '4', -1: '5', -2: '0'}."""
    body = text.lstrip("-$").replace(",", "").replace("$", "").replace("%", "")
    whole, _, frac = body.partition(".")
    places = {len(whole) - 1 - i: d for i, d in enumerate(whole)}
    places.update({-1 - i: d for i, d in enumerate(frac)})
    return places


def number(text: str) -> float:
    return float(text.replace("$", "").replace(",", "").replace("%", ""))


def slips_between(base: str, option: str) -> set[str]:
    """Every slip tag that turns the written `base` into the written `option`."""
    found: set[str] = set()
    a, b = digits_by_place(base), digits_by_place(option)
    difference = number(option) - number(base)
    for word, k in COUNTS.items():
        if math.isclose(difference, k):
            found.add(f"counted_{word}_over")
        if math.isclose(difference, -k):
            found.add(f"counted_{word}_under")
    if a.keys() != b.keys() or base.startswith("-") != option.startswith("-"):
        return found
    changed = sorted(p for p in a if a[p] != b[p])
    if len(changed) == 1:
        found.add(f"wrong_{NAMES[changed[0]]}_digit")
    if len(changed) == 2 and changed[1] == changed[0] + 1 and changed[0] != -1:
        low, high = changed
        if a[low] == b[high] and a[high] == b[low]:
            found.add(f"swapped_{NAMES[high]}_and_{NAMES[low]}_digits")
    return found


def shown(x: float, decimals: int) -> str:
    return f"{x:.{decimals}f}"


@settings(max_examples=300, deadline=None)
@given(
    key=st.integers(-99_999, 999_999),
    decimals=st.sampled_from([0, 1, 2, 3]),
    relative=st.sampled_from([0.0, 0.02, 0.05]),
    seed=st.integers(0, 2**16),
)
def test_every_digit_slip_is_the_slip_it_names(
    key: int, decimals: int, relative: float, seed: int
) -> None:
    value = key / 10**decimals
    gap = max(10.0**-decimals, relative * abs(value))
    rng = np.random.default_rng(seed)
    made = _digit_slips(rng, value, decimals, gap) + _digit_slips(
        rng, value, decimals, gap, nearest=False
    )
    assert len({v for v, _ in made}) == len(made)  # no slip listed twice
    for slipped, tag in made:
        assert tag in slips_between(shown(value, decimals), shown(slipped, decimals)), (
            value,
            slipped,
            tag,
        )
        assert abs(slipped - value) >= gap - 1e-9
        if not tag.startswith("counted_"):  # the key's form: digits, sign, fractional part
            assert len(str(int(abs(slipped)))) == len(str(int(abs(value))))
            assert (slipped < 0) == (value < 0)
            assert float(slipped).is_integer() == float(value).is_integer()
            assert abs(value) >= 1 or decimals == 0 or abs(slipped) < 1


def test_small_counts_are_miscounted_and_shares_stay_below_one() -> None:
    rng = np.random.default_rng(0)
    near = dict(_digit_slips(rng, 9.0, 0, 1.0))
    far = dict(_digit_slips(rng, 9.0, 0, 1.0, nearest=False))
    assert near == {8.0: "wrong_units_digit"}  # the nearest slip at each place first
    assert far[10.0] == "counted_one_over" and far[11.0] == "counted_two_over"
    assert far[5.0] == "wrong_units_digit" and 6.0 in far  # not 'counted_three_under'
    for nearest in (True, False):
        assert all(0 <= v < 1 for v, _ in _digit_slips(rng, 0.375, 3, 0.02, nearest))
    assert dict(_digit_slips(rng, 47.0, 0, 2.35)) == {
        44.0: "wrong_units_digit",
        37.0: "wrong_tens_digit",
        57.0: "wrong_tens_digit",
        74.0: "swapped_tens_and_units_digits",
    }
    # The reference rejects what is not the named slip.
    assert slips_between("47", "74") == {"swapped_tens_and_units_digits"}
    assert slips_between("47", "58") == set()
    assert slips_between("1,047", "1,147") == {"wrong_hundreds_digit"}


NUMERIC = [
    "steer.1.1.a",
    "steer.1.1.b",
    "steer.1.1.c",
    "steer.1.2.b",
    "steer.1.2.c",
    "steer.1.3.a",
    "steer.1.3.b",
    "steer.1.3.c",
    "steer.2.4.a",
    "steer.2.5.a",
]
GENERIC = re.compile(
    r"wrong_[a-z_]+_digit|swapped_[a-z_]+_and_[a-z_]+_digits|counted_(one|two|three)_(over|under)"
)


@pytest.fixture(scope="module")
def rows() -> list[dict[str, object]]:
    table: list[dict[str, object]] = generate_bank(NUMERIC, per_cell=40, seed=23).to_pylist()
    return table


def test_tagged_digit_slips_in_a_bank_are_recomputed(rows: list[dict[str, object]]) -> None:
    checked = 0
    for q in rows:
        options, tags = q["options"], q["option_tags"]
        assert isinstance(options, list) and isinstance(tags, list)
        by_tag = dict(zip(tags, options, strict=True))
        for option, tag in zip(options, tags, strict=True):
            base_tag, _, slip = tag.rpartition("+")
            if not GENERIC.fullmatch(slip):
                continue
            base = by_tag[base_tag or "key"]  # the option it slipped from is on the menu
            assert slip in slips_between(base, option), (q["options"], q["option_tags"])
            checked += 1
    assert checked > 100


def test_other_is_under_a_tenth_of_the_distractors(rows: list[dict[str, object]]) -> None:
    other: Counter[object] = Counter()
    wrong: Counter[object] = Counter()
    for q in rows:
        tags = q["option_tags"]
        assert isinstance(tags, list)
        other[q["element"]] += tags.count("other")
        wrong[q["element"]] += len(tags) - 1
    assert set(wrong) == set(NUMERIC)
    high = {e: round(other[e] / wrong[e], 3) for e in wrong if other[e] >= 0.1 * wrong[e]}
    assert not high, high


# --- the key is no digit centre (issue 20 §1: the audit's digit-centroid agent) ----


def shared_digits(texts: list[str]) -> list[int]:
    """Per option: over its digit places, how many other options have the same
    digit in that place (the audit's `digit-centroid` score)."""
    places = [digits_by_place(x) for x in texts]
    return [
        sum(
            1
            for j, other in enumerate(places)
            if j != i
            for p, d in mine.items()
            if other.get(p) == d
        )
        for i, mine in enumerate(places)
    ]


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.integers(0, 99_999), min_size=2, max_size=6, unique=True),
    decimals=st.sampled_from([0, 1, 2]),
)
def test_centre_rank_matches_the_shared_digit_reference(values: list[int], decimals: int) -> None:
    xs = [v / 10**decimals for v in values]
    scores = shared_digits([shown(x, decimals) for x in xs])
    above = sum(1 for s in scores if s > scores[0])
    assert _centre_rank(xs, decimals) == (above, above + scores.count(scores[0]) - 1)


def test_the_key_is_the_digit_centre_or_outlier_about_one_time_in_n(
    rows: list[dict[str, object]],
) -> None:
    """Per element, an agent picking the option that shares the most (or the
    fewest) digits with the others is right within 8 points of chance (menus
    where every option ties count at chance)."""
    gaps: dict[object, list[float]] = {}
    for sign in (1, -1):
        hits: dict[object, float] = {}
        chance: dict[object, float] = {}
        for q in rows:
            options, key = q["options"], q["correct_index"]
            assert isinstance(options, list) and isinstance(key, int)
            if len(options) < 3:
                continue
            scores = [sign * s for s in shared_digits([re.sub(r"[$%,]", "", o) for o in options])]
            top = [i for i, s in enumerate(scores) if s == max(scores)]
            hits[q["element"]] = hits.get(q["element"], 0.0) + (key in top) / len(top)
            chance[q["element"]] = chance.get(q["element"], 0.0) + 1 / len(options)
        n = Counter(q["element"] for q in rows)
        for e in chance:
            gaps.setdefault(e, []).append(round((hits[e] - chance[e]) / n[e], 3))
    assert max(max(g) for g in gaps.values()) < 0.08, gaps
