"""Top trading cycles and sealed-bid auctions through the bindings."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native
from steer.errors import InputError


def ttc(prefs: list[list[int]], endowment: list[int]) -> tuple[list[int], list[int]]:
    return _native.top_trading_cycles(
        np.array(prefs, dtype=np.int64).reshape(len(endowment), len(endowment)),
        np.array(endowment, dtype=np.int64),
    )


def test_ttc_example() -> None:
    # Houses 1, 2, 3 -> 0, 1, 2. A: 2>3>1, B: 1>2>3, C: 1>3>2; A owns 1, B 2, C 3.
    house, rounds = ttc([[1, 2, 0], [0, 1, 2], [0, 2, 1]], [0, 1, 2])
    assert house == [1, 0, 2]  # A gets 2, B gets 1, C keeps 3
    assert rounds == [0, 0, 1]


def ref_ttc(prefs: list[list[int]], endowment: list[int]) -> list[int]:
    """Clear one cycle at a time: start anywhere, follow pointers until a repeat."""
    n = len(endowment)
    owner = {h: a for a, h in enumerate(endowment)}
    left = set(range(n))
    house = [-1] * n
    while left:
        free = {endowment[a] for a in left}
        points = {a: owner[next(h for h in prefs[a] if h in free)] for a in left}
        seen: list[int] = []
        a = min(left)
        while a not in seen:
            seen.append(a)
            a = points[a]
        for b in seen[seen.index(a) :]:
            house[b] = endowment[points[b]]
            left.remove(b)
    return house


@st.composite
def markets(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    n = draw(st.integers(0, 7))
    prefs = [draw(st.permutations(range(n))) for _ in range(n)]
    endowment = draw(st.permutations(range(n)))
    return [list(p) for p in prefs], list(endowment)


@settings(max_examples=300, deadline=None)
@given(markets())
def test_ttc_matches_reference_and_is_individually_rational(
    market: tuple[list[list[int]], list[int]],
) -> None:
    prefs, endowment = market
    house, rounds = ttc(prefs, endowment)
    assert house == ref_ttc(prefs, endowment)
    assert sorted(house) == sorted(endowment)
    for a, h in enumerate(house):  # nobody ends up worse than their own house
        assert prefs[a].index(h) <= prefs[a].index(endowment[a])
    assert all(r >= 0 for r in rounds)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 20).map(float), max_size=6),
    st.sampled_from(["first", "second"]),
    st.one_of(st.none(), st.integers(0, 20).map(float)),
)
def test_auctions_match_reference(bids: list[float], rule: str, reserve: float | None) -> None:
    floor = -np.inf if reserve is None else reserve
    eligible = [i for i, b in enumerate(bids) if b >= floor]
    winner, price = _native.sealed_bid_auction(np.array(bids, dtype=np.float64), rule, reserve)
    if not eligible:
        assert (winner, price) == (None, 0.0)
        return
    top = max(bids[i] for i in eligible)
    expect = min(i for i in eligible if bids[i] == top)  # ties: lowest index
    assert winner == expect
    if rule == "first":
        assert price == top
    else:
        others = [b for i, b in enumerate(bids) if i != expect]
        second = max([*others, floor])
        assert price == (second if np.isfinite(second) else 0.0)


def test_second_price_examples() -> None:
    bids = np.array([30.0, 70.0, 50.0])
    assert _native.sealed_bid_auction(bids, "second") == (1, 50.0)
    assert _native.sealed_bid_auction(bids, "first") == (1, 70.0)
    assert _native.sealed_bid_auction(bids, "second", reserve=60.0) == (1, 60.0)
    assert _native.sealed_bid_auction(np.array([90.0, 90.0]), "second") == (0, 90.0)


ERROR_CASES = {
    "ttc endowment repeats": (lambda: ttc([[0, 1], [0, 1]], [0, 0]), "endowment"),
    "ttc ranking repeats": (lambda: ttc([[0, 0], [0, 1]], [0, 1]), "preferences"),
    "ttc negative house": (lambda: ttc([[0, -1], [0, 1]], [0, 1]), "preferences"),
    "ttc shape": (
        lambda: _native.top_trading_cycles(np.zeros((2, 3), np.int64), np.array([0, 1])),
        "preferences",
    ),
    "auction rule": (lambda: _native.sealed_bid_auction(np.array([1.0]), "third"), "rule"),
    "auction NaN": (lambda: _native.sealed_bid_auction(np.array([np.nan]), "first"), "bids"),
    "auction reserve": (
        lambda: _native.sealed_bid_auction(np.array([1.0]), "first", reserve=np.inf),
        "reserve",
    ),
    "auction axes": (lambda: _native.sealed_bid_auction(np.zeros((1, 2)), "first"), "bids"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_names_the_argument(case: str) -> None:
    fn, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        fn()
    assert str(info.value).startswith(f"{field}:"), str(info.value)
