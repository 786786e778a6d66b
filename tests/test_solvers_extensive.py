"""Backward induction through the bindings, against a recursive plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native
from steer.errors import InputError

TIE = 1e-9


def solve(parent: list[int], player: list[int], payoffs: list[list[float]]) -> tuple:  # type: ignore[type-arg]
    return _native.backward_induction(
        np.array(parent, dtype=np.int64),
        np.array(player, dtype=np.int64),
        np.array(payoffs, dtype=np.float64),
    )


def ref_backward_induction(
    parent: list[int], player: list[int], payoffs: list[list[float]]
) -> tuple[list[list[float]], list[int]]:
    """Recursive reference: value of each node and chosen child (first among ties)."""
    children: dict[int, list[int]] = {v: [] for v in range(len(parent))}
    for v, p in enumerate(parent):
        if p >= 0:
            children[p].append(v)
    values: list[list[float]] = [[] for _ in parent]
    choice = [-1] * len(parent)

    def visit(v: int) -> list[float]:
        if not children[v]:
            values[v] = list(payoffs[v])
            return values[v]
        i = player[v]
        kid_values = [visit(c) for c in children[v]]
        best = max(val[i] for val in kid_values)
        cut = best - TIE * max(1.0, abs(best))
        k = next(k for k, val in enumerate(kid_values) if val[i] >= cut)
        choice[v] = children[v][k]
        values[v] = kid_values[k]
        return values[v]

    visit(0)
    return values, choice


@st.composite
def trees(draw: st.DrawFn) -> tuple[list[int], list[int], list[list[float]]]:
    n_players = draw(st.integers(1, 3))
    n = draw(st.integers(1, 25))
    parent = [-1] + [draw(st.integers(0, v - 1)) for v in range(1, n)]
    has_kids = {p for p in parent if p >= 0}
    player = [draw(st.integers(0, n_players - 1)) if v in has_kids else -1 for v in range(n)]
    payoffs = [[draw(st.integers(-3, 3).map(float)) for _ in range(n_players)] for _ in range(n)]
    return parent, player, payoffs


@settings(max_examples=300, deadline=None)
@given(trees())
def test_matches_recursive_reference(tree: tuple[list[int], list[int], list[list[float]]]) -> None:
    parent, player, payoffs = tree
    values, choice, tied, path = solve(parent, player, payoffs)
    ref_values, ref_choice = ref_backward_induction(parent, player, payoffs)
    assert choice.tolist() == ref_choice
    np.testing.assert_array_equal(values, np.array(ref_values))
    walk = [0]
    while ref_choice[walk[-1]] >= 0:
        walk.append(ref_choice[walk[-1]])
    assert path == walk
    # `tied` flags exactly the decision nodes with several optimal children.
    for v, p in enumerate(player):
        if p >= 0:
            kids = [c for c, q in enumerate(parent) if q == v]
            best = max(values[c][p] for c in kids)
            n_best = sum(values[c][p] >= best - TIE * max(1.0, abs(best)) for c in kids)
            assert bool(tied[v]) == (n_best > 1)


def test_entry_game() -> None:
    # Entrant stays out (0, 2) or enters; incumbent fights (-1, -1) or accommodates (1, 1).
    values, choice, tied, path = solve(
        [-1, 0, 0, 2, 2],
        [0, -1, 1, -1, -1],
        [[0, 0], [0, 2], [0, 0], [-1, -1], [1, 1]],
    )
    assert path == [0, 2, 4]
    assert choice.tolist() == [2, -1, 4, -1, -1]
    assert values[0].tolist() == [1.0, 1.0]
    assert not tied.any()


def test_centipede_ends_at_once() -> None:
    # Three-stage centipede: taking always beats passing for the mover.
    parent = [-1, 0, 0, 2, 2, 4, 4]
    player = [0, -1, 1, -1, 0, -1, -1]
    payoffs = [[0, 0], [1, 0], [0, 0], [0, 2], [0, 0], [3, 1], [2, 4]]
    _, choice, _, path = solve(parent, player, payoffs)
    assert path == [0, 1]
    assert choice.tolist() == [1, -1, 3, -1, 5, -1, -1]  # off-path choices included


ERROR_CASES = {
    "root has parent": (([0, 0], [0, -1], [[0.0], [1.0]]), "parent"),
    "parent after child": (([-1, 2, 0], [0, -1, 0], [[0.0], [1.0], [2.0]]), "parent"),
    "parent below -1": (([-1, -2], [0, -1], [[0.0], [1.0]]), "parent"),
    "terminal with mover": (([-1, 0], [0, 0], [[0.0], [1.0]]), "player"),
    "decision without mover": (([-1, 0], [-1, -1], [[0.0], [1.0]]), "player"),
    "mover out of range": (([-1, 0], [3, -1], [[0.0], [1.0]]), "player"),
    "NaN leaf": (([-1, 0], [0, -1], [[0.0], [np.nan]]), "payoffs"),
    "payoff rows": (([-1, 0], [0, -1], [[0.0]]), "payoffs"),
    "player length": (([-1, 0], [0], [[0.0], [1.0]]), "player"),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_trees_name_the_argument(case: str) -> None:
    (parent, player, payoffs), field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        solve(parent, player, payoffs)
    assert str(info.value).startswith(f"{field}:"), str(info.value)


def test_payoffs_must_be_a_matrix() -> None:
    with pytest.raises(InputError, match=r"^payoffs:"):
        _native.backward_induction(np.array([-1]), np.array([-1]), np.zeros(1, dtype=np.float64))
