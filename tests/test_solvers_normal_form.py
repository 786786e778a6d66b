"""Normal-form solvers through the bindings: the paper's worked cases, and property tests
against plain-Python brute force (best responses, dominance, IRDS, pure Nash)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from steer import _native
from steer.errors import InputError, SolverError

TIE = 1e-9  # documented tie tolerance, relative to max(1, |payoff|)


def game(cells: list[list[tuple[float, float]]]) -> np.ndarray:
    return np.array(cells, dtype=np.float64)


# --- plain references ---------------------------------------------------------------------


def own(payoffs: np.ndarray, player: int, mine: int, theirs: int) -> float:
    return float(payoffs[mine, theirs, 0] if player == 0 else payoffs[theirs, mine, 1])


def ref_dominates(
    payoffs: np.ndarray, player: int, a: int, b: int, strict: bool, opp: list[int]
) -> bool:
    if a == b or not opp:
        return False
    better = worse = 0
    for t in opp:
        ua, ub = own(payoffs, player, a, t), own(payoffs, player, b, t)
        slack = TIE * max(abs(ua), abs(ub), 1.0)
        better += ua > ub + slack
        worse += ua < ub - slack
    return better == len(opp) if strict else (worse == 0 and better > 0)


def ref_dominators(payoffs: np.ndarray, player: int, strict: bool) -> list[int | None]:
    n, m = payoffs.shape[player], payoffs.shape[1 - player]
    return [
        next(
            (a for a in range(n) if ref_dominates(payoffs, player, a, b, strict, [*range(m)])), None
        )
        for b in range(n)
    ]


def ref_irds(payoffs: np.ndarray) -> tuple[list[int], list[int]]:
    """Remove one strictly dominated strategy at a time until none is left (the survivors of
    strict dominance do not depend on the order)."""
    alive = [list(range(payoffs.shape[0])), list(range(payoffs.shape[1]))]
    changed = True
    while changed:
        changed = False
        for player in (0, 1):
            for b in alive[player]:
                if any(
                    ref_dominates(payoffs, player, a, b, True, alive[1 - player])
                    for a in alive[player]
                ):
                    alive[player].remove(b)
                    changed = True
                    break
    return alive[0], alive[1]


def ref_pure_nash(payoffs: np.ndarray) -> list[tuple[int, int]]:
    rows, cols = payoffs.shape[:2]
    out = []
    for i in range(rows):
        for j in range(cols):
            best_r = payoffs[:, j, 0].max()
            best_c = payoffs[i, :, 1].max()
            if payoffs[i, j, 0] >= best_r - TIE * max(1.0, abs(best_r)) and payoffs[
                i, j, 1
            ] >= best_c - TIE * max(1.0, abs(best_c)):
                out.append((i, j))
    return out


# --- strategies ---------------------------------------------------------------------------


@st.composite
def bimatrices(draw: st.DrawFn, max_side: int = 5) -> np.ndarray:
    rows, cols = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    elements = draw(
        st.sampled_from(
            [st.integers(-3, 3).map(float), st.floats(-100, 100, allow_nan=False, width=32)]
        )
    )
    payoffs = draw(hnp.arrays(np.float64, (rows, cols, 2), elements=elements))
    if rows > 1 and draw(st.booleans()):
        payoffs[rows - 1] = payoffs[0]  # duplicated rows: ties everywhere
    return payoffs


# --- worked cases from the paper ----------------------------------------------------------


def test_interpret_game_payoff_lookup() -> None:
    g = game(
        [
            [(12.132, -1931.435), (10.032, -432.938)],
            [(842.313, -74.257), (-3.049, 43.982)],
        ]
    )
    assert g[0, 1, 0] == 10.032  # row player's payoff at (Odds, Evens)


def test_best_response_spend() -> None:
    g = game([[(5, 5), (10, 0)], [(0, 10), (3, 3)]])
    assert _native.best_response(g, 0, 1) == [0]  # Spend (10 > 3)


def test_dominant_strategy_column_x() -> None:
    g = game([[(5, 10), (4, 5)], [(0, 3), (8, -3)]])
    assert _native.dominant_strategy(g, 1) == 0
    assert _native.dominators(g, 1) == [None, 0]
    assert _native.dominant_strategy(g, 0) is None


def test_dominated_strategy_row_y() -> None:
    g = game([[(93.08, 31.13), (74.93, 4)], [(0.34, 83.31), (-75.94, 24.88)]])
    assert _native.dominators(g, 0, strict=True) == [None, 0]


IRDS_GAME = game(
    [
        [(13, 12), (5, 3), (11, 1)],
        [(2, 3), (6, 12), (15, 1)],
        [(3, 2), (9, 9), (17, 4)],
    ]
)


def test_irds_k_m_by_k_l() -> None:
    rows, cols, order = _native.iterated_dominance(IRDS_GAME)
    assert (rows, cols) == ([0, 2], [0, 1])  # {K, M} x {K, L}
    # Column M (2) is dominated by column L (1); row L (1) by row M (2).
    assert set(order) == {(0, 0, 1, 2), (0, 1, 2, 1)}
    # The paper's narrative order also holds: with column M removed, row L is dominated.
    assert _native.dominators(np.ascontiguousarray(IRDS_GAME[:, :2]), 0) == [None, 2, None]
    assert _native.dominators(IRDS_GAME, 1)[2] == 1


def test_pure_nash_coordination() -> None:
    g = game([[(20, 20), (-20, -20)], [(-20, -20), (20, 20)]])
    assert _native.pure_nash(g) == [(0, 0), (1, 1)]


# --- properties against brute force -------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(bimatrices())
def test_pure_nash_matches_brute_force(payoffs: np.ndarray) -> None:
    assert _native.pure_nash(payoffs) == ref_pure_nash(payoffs)
    mask = _native.pure_nash_batch(payoffs[None])
    assert mask.shape == (1, *payoffs.shape[:2])
    assert [tuple(map(int, ij)) for ij in np.argwhere(mask[0])] == ref_pure_nash(payoffs)


@settings(max_examples=300, deadline=None)
@given(bimatrices(), st.sampled_from([0, 1]), st.booleans())
def test_dominance_matches_brute_force(payoffs: np.ndarray, player: int, strict: bool) -> None:
    expect = ref_dominators(payoffs, player, strict)
    assert _native.dominators(payoffs, player, strict) == expect
    n = payoffs.shape[player]
    dominant = next(
        (
            a
            for a in range(n)
            if all(
                b == a
                or ref_dominates(payoffs, player, a, b, strict, [*range(payoffs.shape[1 - player])])
                for b in range(n)
            )
        ),
        None,
    )
    assert _native.dominant_strategy(payoffs, player, strict) == dominant


@settings(max_examples=300, deadline=None)
@given(bimatrices())
def test_irds_matches_brute_force(payoffs: np.ndarray) -> None:
    rows, cols, order = _native.iterated_dominance(payoffs)
    assert (rows, cols) == ref_irds(payoffs)
    # Replaying the recorded order: each elimination is valid in its round's game.
    alive = [set(range(payoffs.shape[0])), set(range(payoffs.shape[1]))]
    for rnd in sorted({r for r, *_ in order}):
        step = [e for e in order if e[0] == rnd]
        for _, player, strategy, by in step:
            assert by in alive[player]
            assert ref_dominates(payoffs, player, by, strategy, True, sorted(alive[1 - player]))
        for _, player, strategy, _ in step:
            alive[player].discard(strategy)
    assert (sorted(alive[0]), sorted(alive[1])) == (rows, cols)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 12), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_batches_match_one_at_a_time(n: int, rows: int, cols: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    payoffs = rng.integers(-2, 3, size=(n, rows, cols, 2)).astype(np.float64)
    mask = _native.pure_nash_batch(payoffs)
    table, dominant = _native.dominance_batch(payoffs, 1, strict=False)
    row_alive, col_alive, rounds = _native.iterated_dominance_batch(payoffs)
    offsets, xs, ys = _native.nash_equilibria_batch(payoffs)
    assert mask.shape == (n, rows, cols) and table.shape == (n, cols) and dominant.shape == (n,)
    assert offsets.shape == (n + 1,) and xs.shape[1] == rows and ys.shape[1] == cols
    for k, g in enumerate(payoffs):
        assert [tuple(map(int, ij)) for ij in np.argwhere(mask[k])] == _native.pure_nash(g)
        by = _native.dominators(g, 1, strict=False)
        assert table[k].tolist() == [-1 if b is None else b for b in by]
        d = _native.dominant_strategy(g, 1, strict=False)
        assert dominant[k] == (-1 if d is None else d)
        r, c, order = _native.iterated_dominance(g)
        assert np.flatnonzero(row_alive[k]).tolist() == r
        assert np.flatnonzero(col_alive[k]).tolist() == c
        assert rounds[k] == (order[-1][0] + 1 if order else 0)
        x1, y1 = _native.nash_equilibria(g)
        np.testing.assert_array_equal(xs[offsets[k] : offsets[k + 1]], x1)
        np.testing.assert_array_equal(ys[offsets[k] : offsets[k + 1]], y1)


def test_regret_of_profiles() -> None:
    pd = game([[(3, 3), (0, 5)], [(5, 0), (1, 1)]])
    assert _native.nash_regret(pd, np.array([1.0, 0.0]), np.array([1.0, 0.0])) == (2.0, 2.0)
    assert _native.nash_regret(pd, np.array([0.0, 1.0]), np.array([0.0, 1.0])) == (0.0, 0.0)


# --- bad input ----------------------------------------------------------------------------

G = np.zeros((2, 2, 2))
B = np.zeros((3, 2, 2, 2))

ERROR_CASES = {
    "dominators player": (lambda: _native.dominators(G, 2), "player"),
    "dominators axes": (lambda: _native.dominators(np.zeros((2, 2)), 0), "payoffs"),
    "dominators NaN": (lambda: _native.dominators(np.full((2, 2, 2), np.nan), 0), "payoffs"),
    "dominant last axis": (lambda: _native.dominant_strategy(np.zeros((2, 2, 3)), 0), "payoffs"),
    "dominance batch player": (lambda: _native.dominance_batch(B, -1), "player"),
    "dominance batch axes": (lambda: _native.dominance_batch(G, 0), "payoffs"),
    "irds empty": (lambda: _native.iterated_dominance(np.zeros((0, 2, 2))), "payoffs"),
    "irds batch NaN": (
        lambda: _native.iterated_dominance_batch(np.full((1, 2, 2, 2), np.inf)),
        "payoffs",
    ),
    "pure nash non-contiguous": (
        lambda: _native.pure_nash(np.zeros((2, 4, 2))[:, ::2]),
        "payoffs",
    ),
    "pure nash batch axes": (lambda: _native.pure_nash_batch(G), "payoffs"),
    "pure nash batch no actions": (
        lambda: _native.pure_nash_batch(np.zeros((3, 0, 2, 2))),
        "payoffs",
    ),
    "nash NaN": (lambda: _native.nash_equilibria(np.full((2, 2, 2), np.nan)), "payoffs"),
    "nash batch axes": (lambda: _native.nash_equilibria_batch(G), "payoffs"),
    "regret row length": (
        lambda: _native.nash_regret(G, np.array([1.0]), np.array([1.0, 0.0])),
        "row",
    ),
    "regret col sum": (
        lambda: _native.nash_regret(G, np.array([1.0, 0.0]), np.array([0.7, 0.7])),
        "col",
    ),
    "regret col axes": (
        lambda: _native.nash_regret(G, np.array([1.0, 0.0]), np.ones((1, 2))),
        "col",
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_names_the_argument(case: str) -> None:
    call, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        call()
    assert str(info.value).startswith(f"{field}:"), str(info.value)


def test_batch_error_names_the_game() -> None:
    payoffs = np.zeros((3, 2, 2, 2))
    payoffs[1, 1, 0, 0] = np.nan
    for call in (
        _native.pure_nash_batch,
        _native.nash_equilibria_batch,
        _native.iterated_dominance_batch,
    ):
        with pytest.raises(InputError, match=r"^payoffs: game 1: "):
            call(payoffs)


def test_oversized_support_enumeration_is_a_solver_error() -> None:
    with pytest.raises(SolverError):
        _native.nash_equilibria(np.zeros((20, 20, 2)))
