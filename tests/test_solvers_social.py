"""Social choice rules through the bindings: the paper's worked cases and property tests
against rules computed by hand in plain Python."""

from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native
from steer.errors import InputError

Ballots = list[tuple[list[int], int]]


def arrays(ballots: Ballots, m: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    width = len(ballots[0][0]) if m is None else m
    rankings = np.array([r for r, _ in ballots], dtype=np.int64).reshape(len(ballots), width)
    counts = np.array([c for _, c in ballots], dtype=np.int64)
    return rankings, counts


def names(order: str, candidates: str) -> list[int]:
    return [candidates.index(c) for c in order]


# --- worked cases --------------------------------------------------------------------------


def test_plurality_example() -> None:
    cands = "KLMN"
    # Each listed ranking is completed with the unlisted candidate last.
    ballots = [
        (names("LMKN", cands), 23),
        (names("LKMN", cands), 21),
        (names("MKNL", cands), 40),
        (names("NLKM", cands), 33),
    ]
    scores, winners = _native.plurality(*arrays(ballots))
    assert scores.tolist() == [0, 44, 40, 33]
    assert winners == [cands.index("L")]


def test_borda_example() -> None:
    ballots = [(names("ABC", "ABC"), 413), (names("BAC", "ABC"), 176), (names("ACB", "ABC"), 123)]
    scores, winners = _native.borda(*arrays(ballots))
    assert scores.tolist() == [1248, 765, 123]
    assert winners == [0]


def test_copeland_tie_example() -> None:
    # A beats B, C and loses to D; B beats C, D; C beats D: three voters realise it.
    ballots = [(names(o, "ABCD"), 1) for o in ("ABCD", "DABC", "BCDA")]
    rankings, counts = arrays(ballots)
    n = _native.majority_matrix(rankings, counts)
    wins = {(a, b) for a in range(4) for b in range(4) if n[a, b] > n[b, a]}
    assert wins == {(0, 1), (0, 2), (3, 0), (1, 2), (1, 3), (2, 3)}
    scores, winners = _native.copeland(rankings, counts)
    assert scores.tolist() == [2.0, 2.0, 1.0, 1.0]
    assert winners == [0, 1]  # the tie is reported
    assert _native.condorcet_winner(rankings, counts) is None


# --- references ----------------------------------------------------------------------------


def ref_winners(scores: list[float]) -> list[int]:
    return [i for i, s in enumerate(scores) if s == max(scores)]


def ref_prefers(ballots: Ballots, a: int, b: int) -> int:
    return sum(c for r, c in ballots if r.index(a) < r.index(b))


@st.composite
def profiles(draw: st.DrawFn) -> tuple[int, Ballots]:
    m = draw(st.integers(1, 5))
    orders = list(permutations(range(m)))
    k = draw(st.integers(0, 6))
    ballots = [(list(draw(st.sampled_from(orders))), draw(st.integers(0, 30))) for _ in range(k)]
    return m, ballots


def call(fn, m: int, ballots: Ballots):  # type: ignore[no-untyped-def]
    return fn(*arrays(ballots, m))


@settings(max_examples=300, deadline=None)
@given(profiles())
def test_rules_match_hand_computation(profile: tuple[int, Ballots]) -> None:
    m, ballots = profile
    plural = [sum(c for r, c in ballots if r[0] == x) for x in range(m)]
    borda = [sum(c * (m - 1 - r.index(x)) for r, c in ballots) for x in range(m)]
    pair = [[ref_prefers(ballots, a, b) if a != b else 0 for b in range(m)] for a in range(m)]
    copeland = [
        sum(
            1.0 if pair[a][b] > pair[b][a] else 0.5 if pair[a][b] == pair[b][a] else 0.0
            for b in range(m)
            if b != a
        )
        for a in range(m)
    ]
    condorcet = next(
        (a for a in range(m) if all(pair[a][b] > pair[b][a] for b in range(m) if b != a)), None
    )
    voters = [r for r, c in ballots if c > 0]
    pareto = [
        [bool(voters) and a != b and all(r.index(a) < r.index(b) for r in voters) for b in range(m)]
        for a in range(m)
    ]
    for fn, expect in (
        (_native.plurality, plural),
        (_native.borda, borda),
        (_native.copeland, copeland),
    ):
        scores, winners = call(fn, m, ballots)
        assert scores.tolist() == expect
        assert winners == ref_winners(expect)
    assert call(_native.majority_matrix, m, ballots).tolist() == pair
    assert call(_native.condorcet_winner, m, ballots) == condorcet
    assert call(_native.pareto_dominance, m, ballots).tolist() == pareto


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 4).map(float), min_size=k, max_size=k), max_size=8
        )
    )
)
def test_pareto_optimal_matches_brute_force(rows: list[list[float]]) -> None:
    agents = len(rows[0]) if rows else 1
    u = np.array(rows, dtype=np.float64).reshape(len(rows), agents)

    def dominates(a: list[float], b: list[float]) -> bool:
        return all(x >= y for x, y in zip(a, b, strict=True)) and a != b

    expect = [not any(dominates(a, b) for a in rows) for b in rows]
    assert _native.pareto_optimal(u).tolist() == expect


ERROR_CASES = {
    "repeated candidate": (
        lambda: _native.plurality(np.array([[0, 0]]), np.array([1])),
        "rankings",
    ),
    "unknown candidate": (lambda: _native.borda(np.array([[0, 2]]), np.array([1])), "rankings"),
    "negative candidate": (
        lambda: _native.copeland(np.array([[0, -1]]), np.array([1])),
        "rankings",
    ),
    "negative count": (lambda: _native.plurality(np.array([[0, 1]]), np.array([-1])), "counts"),
    "count length": (lambda: _native.borda(np.array([[0, 1]]), np.array([1, 2])), "counts"),
    "rankings axes": (lambda: _native.majority_matrix(np.array([0, 1]), np.array([1])), "rankings"),
    "no candidates": (
        lambda: _native.condorcet_winner(np.zeros((1, 0), np.int64), np.array([1])),
        "rankings",
    ),
    "pareto utilities axes": (lambda: _native.pareto_optimal(np.zeros(3)), "utilities"),
    "pareto NaN": (lambda: _native.pareto_optimal(np.full((2, 2), np.nan)), "utilities"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_names_the_argument(case: str) -> None:
    fn, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        fn()
    assert str(info.value).startswith(f"{field}:"), str(info.value)
