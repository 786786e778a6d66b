"""Repeated-game solvers: the paper's worked cases and properties against scipy / brute force."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from scipy.optimize import linprog

from steer import _native
from steer.errors import InputError

PD_FEASIBILITY = np.array([[(3, 3), (0, 5)], [(5, 0), (1, 1)]], dtype=np.float64)
PD_ENFORCE = np.array([[(2, 2), (-1, 3)], [(3, -1), (0, 0)]], dtype=np.float64)
TRIGGER = np.array([[(4, 4), (2, 6)], [(6, 2), (3, 3)]], dtype=np.float64)


def test_feasibility_example() -> None:
    assert _native.is_feasible(PD_FEASIBILITY, (3.0, 2.0))
    assert not _native.is_feasible(PD_FEASIBILITY, (4.0, 4.0))


def test_enforceability_example() -> None:
    assert _native.pure_minmax(PD_ENFORCE) == (0.0, 0.0, 1, 1)
    assert _native.is_enforceable(PD_ENFORCE, (2.0, 2.0))
    delta, stage_nash = _native.grim_trigger(PD_ENFORCE, (0, 0), (1, 1))
    assert delta == pytest.approx(1 / 3) and stage_nash
    assert delta <= 0.75


def test_trigger_strategy_example() -> None:
    delta, stage_nash = _native.grim_trigger(TRIGGER, (0, 0), (1, 1))
    assert delta == pytest.approx(2 / 3) and stage_nash
    # At δ = 0.8: staying is worth 4 / 0.2 = 20 against 6 + 0.8 · 3 / 0.2 = 18.
    assert delta <= 0.8


def test_grim_trigger_impossible_and_unneeded() -> None:
    assert _native.grim_trigger(TRIGGER, (1, 1), (1, 1)) == (0.0, True)
    assert _native.grim_trigger(TRIGGER, (0, 1), (0, 0)) == (None, False)


def lp_feasible(payoffs: np.ndarray, point: tuple[float, float]) -> bool:
    pts = payoffs.reshape(-1, 2)
    k = len(pts)
    a_eq = np.vstack([pts.T, np.ones(k)])
    res = linprog(np.zeros(k), A_eq=a_eq, b_eq=[*point, 1.0], bounds=[(0, None)] * k)
    return bool(res.status == 0)


stage_games = st.tuples(st.integers(1, 4), st.integers(1, 4)).flatmap(
    lambda s: hnp.arrays(np.float64, (*s, 2), elements=st.integers(-5, 5).map(float))
)


@settings(max_examples=200, deadline=None)
@given(stage_games, st.tuples(st.integers(-12, 12), st.integers(-12, 12)))
def test_feasibility_matches_linear_program(payoffs: np.ndarray, half: tuple[int, int]) -> None:
    # Half-integer points: on an edge or clearly off it, never within rounding noise.
    point = (half[0] / 2, half[1] / 2)
    assert _native.is_feasible(payoffs, point) == lp_feasible(payoffs, point)


@settings(max_examples=200, deadline=None)
@given(stage_games)
def test_minmax_matches_brute_force(payoffs: np.ndarray) -> None:
    row, col, by_col, by_row = _native.pure_minmax(payoffs)
    row_best = payoffs[:, :, 0].max(axis=0)  # row's best payoff against each column
    col_best = payoffs[:, :, 1].max(axis=1)
    assert row == row_best.min() and by_col == int(np.argmin(row_best))
    assert col == col_best.min() and by_row == int(np.argmin(col_best))
    for point in [(row, col), (row - 1, col)]:
        expect = lp_feasible(payoffs, point) and point[0] >= row and point[1] >= col
        assert _native.is_enforceable(payoffs, point) == expect


@settings(max_examples=200, deadline=None)
@given(stage_games, st.data())
def test_grim_trigger_threshold_is_tight(payoffs: np.ndarray, data: st.DataObject) -> None:
    rows, cols = payoffs.shape[:2]
    target = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    punish = (data.draw(st.integers(0, rows - 1)), data.draw(st.integers(0, cols - 1)))
    delta, stage_nash = _native.grim_trigger(payoffs, target, punish)
    assert stage_nash == (punish in _native.pure_nash(payoffs))

    def holds(d: float) -> bool:
        """No one-shot deviation to another action, followed by eternal punishment, pays."""
        for p in (0, 1):
            u, pun = payoffs[target][p], payoffs[punish][p]
            if p == 0:
                others = [payoffs[i, target[1], 0] for i in range(rows) if i != target[0]]
            else:
                others = [payoffs[target[0], j, 1] for j in range(cols) if j != target[1]]
            if others and u < (1 - d) * max(others) + d * pun - 1e-9:
                return False
        return True

    grid = np.linspace(0, 0.999, 200)
    if delta is None:
        # No threshold [delta, 1): the condition fails somewhere near 1.
        assert not holds(0.999)
    else:
        assert 0 <= delta < 1
        assert all(holds(d) for d in grid if d >= delta)
        if delta > 0.01:
            assert not holds(delta - 0.01)


ERROR_CASES = {
    "target outside": (lambda: _native.grim_trigger(TRIGGER, (2, 0), (1, 1)), "target"),
    "negative punishment": (lambda: _native.grim_trigger(TRIGGER, (0, 0), (-1, 1)), "punishment"),
    "NaN point": (lambda: _native.is_feasible(TRIGGER, (np.nan, 0.0)), "point"),
    "bad payoffs": (lambda: _native.pure_minmax(np.zeros((2, 2))), "payoffs"),
    "enforceable NaN payoffs": (
        lambda: _native.is_enforceable(np.full((1, 1, 2), np.nan), (0.0, 0.0)),
        "payoffs",
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_names_the_argument(case: str) -> None:
    call, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(f"{field}:"), str(info.value)
