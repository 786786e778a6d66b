"""steer._native against plain numpy / Python references, and its error mapping."""

from __future__ import annotations

import inspect
import math
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import steer.errors
from steer import _native
from steer.errors import InputError, InternalError, SteerError

TIE = 1e-9  # documented tie tolerance: within TIE * max(1, |best|) of the best
PROB = 1e-9  # documented tolerance on Σp = 1

# --- plain references -------------------------------------------------------------------


def ref_best_responses(payoffs: np.ndarray, player: int, against: int) -> list[int]:
    own = payoffs[:, against, 0] if player == 0 else payoffs[against, :, 1]
    best = max(own)
    slack = TIE * max(1.0, abs(best))
    return [a for a, value in enumerate(own) if value >= best - slack]


def ref_expected_value(values: np.ndarray, probs: np.ndarray) -> float:
    return math.fsum(float(x) * float(p) for x, p in zip(values, probs, strict=True))


def ref_argmax(evs: list[float], scale: float) -> tuple[set[int], set[int]]:
    """Indices surely among the maximizers, and indices too close to call given
    rounding noise in sums of terms up to `scale`."""
    best = max(evs)
    cut = best - PROB * max(1.0, abs(best))
    fuzz = 1e-11 * max(1.0, abs(best), scale)
    sure = {i for i, ev in enumerate(evs) if ev >= cut + fuzz}
    unsure = {i for i, ev in enumerate(evs) if abs(ev - cut) < fuzz}
    return sure, unsure


def ref_accuracy(
    group: list[int], n_groups: int, chosen: list[int], correct: list[int], n_options: list[int]
) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {
        k: [0] * n_groups for k in ("n_rows", "n_no_answer", "n_correct")
    } | {k: [0.0] * n_groups for k in ("sum_norm", "sum_norm_strict")}
    for g, o, c, n in zip(group, chosen, correct, n_options, strict=True):
        penalty = 1.0 / (n - 1) if n >= 2 else 1.0
        out["n_rows"][g] += 1
        if o == -1:
            out["n_no_answer"][g] += 1
            out["sum_norm_strict"][g] -= penalty
        elif o == c:
            out["n_correct"][g] += 1
            out["sum_norm"][g] += 1.0
            out["sum_norm_strict"][g] += 1.0
        else:
            out["sum_norm"][g] -= penalty
            out["sum_norm_strict"][g] -= penalty
    return out


# --- strategies ---------------------------------------------------------------------------

int_payoff = st.integers(-6, 6).map(float)
float_payoff = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def games(draw: st.DrawFn, n: int | None = None) -> tuple[np.ndarray, int, np.ndarray]:
    """(payoffs (n, rows, cols, 2), player, against (n,)) with n games of one shape."""
    rows, cols = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    count = draw(st.integers(0, 8)) if n is None else n
    elements = draw(st.sampled_from([int_payoff, float_payoff]))
    payoffs = draw(hnp.arrays(np.float64, (count, rows, cols, 2), elements=elements))
    player = draw(st.sampled_from([0, 1]))
    opponent = cols if player == 0 else rows
    against = draw(hnp.arrays(np.int64, (count,), elements=st.integers(0, opponent - 1)))
    return payoffs, player, against


# --- best responses ---------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(games(n=1))
def test_best_response_matches_reference(case: tuple[np.ndarray, int, np.ndarray]) -> None:
    payoffs, player, against = case
    game = np.ascontiguousarray(payoffs[0])
    got = _native.best_response(game, player, int(against[0]))
    assert got == ref_best_responses(game, player, int(against[0]))
    assert got == sorted(got) and got


@settings(max_examples=100, deadline=None)
@given(games())
def test_best_response_batch_matches_reference(case: tuple[np.ndarray, int, np.ndarray]) -> None:
    payoffs, player, against = case
    n, rows, cols, _ = payoffs.shape
    mask = _native.best_response_batch(payoffs, player, against)
    k = rows if player == 0 else cols
    assert mask.dtype == np.bool_
    assert mask.shape == (n, k)
    for i in range(n):
        expected = ref_best_responses(payoffs[i], player, int(against[i]))
        assert np.flatnonzero(mask[i]).tolist() == expected
        assert _native.best_response(payoffs[i], player, int(against[i])) == expected


def test_best_response_paper_spend_game() -> None:
    # Spend / Don't spend: (5,5) (10,0) / (0,10) (3,3). Against "don't spend"
    # the row player's best response is Spend (10 > 3); the column player's too.
    game = np.array([[[5, 5], [10, 0]], [[0, 10], [3, 3]]], dtype=np.float64)
    assert _native.best_response(game, 0, 1) == [0]
    assert _native.best_response(game, 1, 1) == [0]
    assert _native.best_response(game, 0, 0) == [0]
    mask = _native.best_response_batch(game[None], 0, np.array([1]))
    assert mask.tolist() == [[True, False]]


def test_best_response_tie_tolerance() -> None:
    # 0.1 + 0.2 prints as 0.3: a tie, not a strict win.
    game = np.array([[[0.1 + 0.2, 0.0]], [[0.3, 0.0]]])
    assert _native.best_response(game, 0, 0) == [0, 1]
    # The tolerance scales with the best payoff's magnitude ...
    big = np.array([[[1e12, 0.0]], [[1e12 + 500.0, 0.0]]])
    assert _native.best_response(big, 0, 0) == [0, 1]
    # ... and is 1e-9 absolute below 1, so a clear gap is never a tie.
    small = np.array([[[1.0, 0.0]], [[1.0 + 5e-9, 0.0]]])
    assert _native.best_response(small, 0, 0) == [1]
    exact = np.array([[[2.0, 7.0], [1.0, 7.0]]])
    assert _native.best_response(exact, 1, 0) == [0, 1]


def test_best_response_batch_empty_batch() -> None:
    mask = _native.best_response_batch(np.zeros((0, 2, 3, 2)), 1, np.zeros(0, dtype=np.int64))
    assert mask.shape == (0, 3)
    assert mask.dtype == np.bool_


# --- lotteries --------------------------------------------------------------------------------


@st.composite
def lotteries(draw: st.DrawFn, max_n: int = 8) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(1, max_n))
    integral = draw(st.booleans())
    if integral:
        values = draw(hnp.arrays(np.float64, n, elements=st.integers(-1000, 1000).map(float)))
        units = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 20)))
        if units.sum() == 0:
            units[0] = 1
    else:
        values = draw(hnp.arrays(np.float64, n, elements=float_payoff))
        units = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 10**6)))
        if units.sum() == 0:
            units[-1] = 7
    return values, units / units.sum()


@settings(max_examples=150, deadline=None)
@given(lotteries())
def test_expected_value_matches_reference(lottery: tuple[np.ndarray, np.ndarray]) -> None:
    values, probs = lottery
    got = _native.expected_value(values, probs)
    assert isinstance(got, float)
    ref = ref_expected_value(values, probs)
    scale = max(1.0, float(np.abs(values).max()))
    assert got == pytest.approx(ref, rel=1e-12, abs=1e-12 * scale)
    assert got == pytest.approx(float(values @ probs), rel=1e-12, abs=1e-12 * scale)


@settings(max_examples=100, deadline=None)
@given(st.lists(lotteries(max_n=5), min_size=1, max_size=7))
def test_expected_values_and_argmax_match_reference(
    lots: list[tuple[np.ndarray, np.ndarray]],
) -> None:
    values = np.concatenate([v for v, _ in lots])
    probs = np.concatenate([p for _, p in lots])
    offsets = np.cumsum([0] + [len(v) for v, _ in lots]).astype(np.int64)
    evs = _native.expected_values(values, probs, offsets)
    assert evs.dtype == np.float64 and evs.shape == (len(lots),)
    refs = [ref_expected_value(v, p) for v, p in lots]
    for got, ref, (v, _) in zip(evs, refs, lots, strict=True):
        assert got == pytest.approx(ref, rel=1e-12, abs=1e-12 * max(1.0, np.abs(v).max()))
    best = _native.argmax_expected_value(values, probs, offsets)
    assert best == sorted(best) and best
    sure, unsure = ref_argmax(refs, float(np.abs(values).max()))
    assert sure <= set(best) <= sure | unsure


def test_expected_value_paper_recovery_case() -> None:
    # 40% chance of recovery worth 50, otherwise 15: 0.4·50 + 0.6·15 = 29.
    ev = _native.expected_value(np.array([50.0, 15.0]), np.array([0.4, 0.6]))
    assert ev == pytest.approx(29.0, abs=1e-12)


def test_argmax_expected_value_paper_maximize_case() -> None:
    # $75,972 for sure vs $69,183 plus a 55.34% chance of $15,882 more: the second.
    values = np.array([75_972.0, 69_183.0 + 15_882.0, 69_183.0])
    probs = np.array([1.0, 0.5534, 0.4466])
    offsets = np.array([0, 1, 3])
    assert _native.argmax_expected_value(values, probs, offsets) == [1]
    evs = _native.expected_values(values, probs, offsets)
    assert evs[0] == 75_972.0
    assert evs[1] == pytest.approx(69_183 + 0.5534 * 15_882, rel=1e-12)
    assert evs[1] == pytest.approx(77_972, abs=1)


def test_argmax_reports_ties_and_decimal_probabilities() -> None:
    # Three lotteries worth exactly 2 (up to binary noise) and one worth less.
    values = np.array([2.0, 1.0, 2.0, 3.0, 0.0, 10.0, 1.0])
    probs = np.array([1.0, 0.5, 0.5, 0.5, 0.5, 0.1, 0.9])
    offsets = np.array([0, 1, 3, 5, 7])
    evs = _native.expected_values(values, probs, offsets)
    assert evs.tolist() == pytest.approx([2.0, 1.5, 1.5, 1.9])
    assert _native.argmax_expected_value(values, probs, offsets) == [0]
    values[5] = 11.0  # 0.1·11 + 0.9·1 = 2.0 in decimal, not in binary
    assert _native.argmax_expected_value(values, probs, offsets) == [0, 3]
    # 0.1 + 0.2 + 0.7 misses 1 in binary but is within the tolerance.
    ev = _native.expected_value(np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.7]))
    assert ev == pytest.approx(2.6)


# --- grouped accuracy sums --------------------------------------------------------------------


def accuracy_by_group(
    group: np.ndarray,
    n_groups: int,
    chosen: np.ndarray,
    correct: np.ndarray,
    n_options: np.ndarray,
) -> dict[str, np.ndarray]:
    """The accuracy part of `score_cells` (plain single-part rows, no probabilities)."""
    return _native.score_cells(
        {
            "group": group,
            "n_groups": n_groups,
            "chosen": chosen,
            "correct": correct,
            "n_options": n_options,
        }
    )


@st.composite
def answer_tables(draw: st.DrawFn) -> tuple[list[int], int, list[int], list[int], list[int]]:
    n_groups = draw(st.integers(0, 6))
    rows = draw(st.integers(0, 60)) if n_groups else 0
    group, chosen, correct, n_options = [], [], [], []
    for _ in range(rows):
        n = draw(st.integers(1, 6))  # includes one-option questions
        group.append(draw(st.integers(0, n_groups - 1)))
        n_options.append(n)
        correct.append(draw(st.integers(0, n - 1)))
        chosen.append(draw(st.integers(-1, n - 1)))  # -1 = no answer
    return group, n_groups, chosen, correct, n_options


@settings(max_examples=200, deadline=None)
@given(answer_tables())
def test_accuracy_by_group_matches_reference(
    table: tuple[list[int], int, list[int], list[int], list[int]],
) -> None:
    group, n_groups, chosen, correct, n_options = table
    got = accuracy_by_group(
        np.array(group, dtype=np.uint32),
        n_groups,
        np.array(chosen, dtype=np.int32),
        np.array(correct, dtype=np.int32),
        np.array(n_options, dtype=np.int32),
    )
    ref = ref_accuracy(group, n_groups, chosen, correct, n_options)
    assert set(ref) <= set(got)
    for name in ("n_rows", "n_no_answer", "n_correct"):
        assert got[name].dtype == np.uint64
        assert got[name].tolist() == ref[name], name
    for name in ("sum_norm", "sum_norm_strict"):
        assert got[name].dtype == np.float64
        np.testing.assert_allclose(got[name], ref[name], rtol=0, atol=1e-12, err_msg=name)


def test_accuracy_by_group_hand_computed() -> None:
    # Group 0: four options; right, wrong, unanswered. Group 1: one-option question
    # answered and unanswered. Group 2: empty.
    got = accuracy_by_group(
        np.array([0, 0, 0, 1, 1], dtype=np.uint32),
        3,
        np.array([2, 1, -1, 0, -1], dtype=np.int32),
        np.array([2, 2, 2, 0, 0], dtype=np.int32),
        np.array([4, 4, 4, 1, 1], dtype=np.int32),
    )
    assert got["n_rows"].tolist() == [3, 2, 0]
    assert got["n_no_answer"].tolist() == [1, 1, 0]
    assert got["n_correct"].tolist() == [1, 1, 0]
    assert got["sum_norm"].tolist() == pytest.approx([1 - 1 / 3, 1.0, 0.0])
    assert got["sum_norm_strict"].tolist() == pytest.approx([1 - 2 / 3, 0.0, 0.0])


# --- error mapping ----------------------------------------------------------------------------

G = np.zeros((2, 2, 2))
V = np.array([1.0, 2.0])
P = np.array([0.5, 0.5])
U32 = np.zeros(2, dtype=np.uint32)
I2 = np.zeros(2, dtype=np.int64)
TWO = np.full(2, 2, dtype=np.int64)
J2 = np.zeros(2, dtype=np.int32)
TWO32 = np.full(2, 2, dtype=np.int32)


def _with_nan() -> np.ndarray:
    game = np.zeros((2, 3, 2))
    game[1, 2, 0] = np.nan
    return game


def _strided(array: np.ndarray) -> np.ndarray:
    doubled = np.repeat(array, 2, axis=-1)
    view = doubled[..., ::2]
    assert not view.flags.c_contiguous
    np.testing.assert_array_equal(view, array)
    return view


ERROR_CASES = {
    "br last axis not 2": (lambda: _native.best_response(np.zeros((2, 2, 3)), 0, 0), "payoffs"),
    "br no actions": (lambda: _native.best_response(np.zeros((0, 2, 2)), 0, 0), "payoffs"),
    "br NaN payoff": (lambda: _native.best_response(_with_nan(), 0, 0), "payoffs"),
    "br inf payoff": (lambda: _native.best_response(np.full((1, 1, 2), np.inf), 0, 0), "payoffs"),
    "br against too big": (lambda: _native.best_response(G, 0, 2), "against"),
    "br player 2": (lambda: _native.best_response(G, 2, 0), "player"),
    "br non-contiguous": (
        lambda: _native.best_response(np.zeros((2, 4, 2))[:, ::2], 0, 0),
        "payoffs",
    ),
    "batch against length": (
        lambda: _native.best_response_batch(np.zeros((3, 2, 2, 2)), 0, I2),
        "payoffs",
    ),
    "batch last axis": (
        lambda: _native.best_response_batch(np.zeros((2, 2, 2, 3)), 0, I2),
        "payoffs",
    ),
    "batch no actions": (
        lambda: _native.best_response_batch(np.zeros((2, 0, 2, 2)), 0, I2),
        "payoffs",
    ),
    "batch NaN": (lambda: _native.best_response_batch(_with_nan()[None], 0, I2[:1]), "payoffs"),
    "batch against too big": (
        lambda: _native.best_response_batch(np.zeros((2, 2, 2, 2)), 1, np.array([0, 2])),
        "against",
    ),
    "batch negative against": (
        lambda: _native.best_response_batch(np.zeros((2, 2, 2, 2)), 1, np.array([0, -1])),
        "against",
    ),
    "batch player 5": (
        lambda: _native.best_response_batch(np.zeros((2, 2, 2, 2)), 5, I2),
        "player",
    ),
    "batch non-contiguous payoffs": (
        lambda: _native.best_response_batch(_strided(np.zeros((2, 2, 2, 2))), 0, I2),
        "payoffs",
    ),
    "batch non-contiguous against": (
        lambda: _native.best_response_batch(np.zeros((2, 2, 2, 2)), 0, np.zeros(4, np.int64)[::2]),
        "against",
    ),
    "ev probs do not sum to 1": (lambda: _native.expected_value(V, np.array([0.5, 0.6])), "probs"),
    "ev negative prob": (lambda: _native.expected_value(V, np.array([1.5, -0.5])), "probs"),
    "ev NaN prob": (lambda: _native.expected_value(V, np.array([np.nan, 1.0])), "probs"),
    "ev length mismatch": (lambda: _native.expected_value(V, np.array([1.0])), "probs"),
    "ev NaN value": (lambda: _native.expected_value(np.array([1.0, np.nan]), P), "values"),
    "ev empty": (lambda: _native.expected_value(np.zeros(0), np.zeros(0)), "values"),
    "ev non-contiguous": (lambda: _native.expected_value(_strided(V), P), "values"),
    "ev non-contiguous probs": (lambda: _native.expected_value(V, _strided(P)), "probs"),
    "evs negative offset": (lambda: _native.expected_values(V, P, np.array([0, -1, 2])), "offsets"),
    "evs offsets past the end": (
        lambda: _native.expected_values(V, P, np.array([0, 3])),
        "offsets",
    ),
    "evs offsets decrease": (
        lambda: _native.expected_values(
            np.zeros(3), np.array([1.0, 0.0, 1.0]), np.array([0, 2, 1, 3])
        ),
        "offsets",
    ),
    "evs one lottery off": (
        lambda: _native.expected_values(V, np.array([1.0, 0.7]), np.array([0, 1, 2])),
        "probs",
    ),
    "evs non-contiguous offsets": (
        lambda: _native.expected_values(V, P, np.array([0, 9, 2, 9])[::2]),
        "offsets",
    ),
    "argmax negative offset": (
        lambda: _native.argmax_expected_value(V, P, np.array([-1, 2])),
        "offsets",
    ),
    "argmax probs off": (
        lambda: _native.argmax_expected_value(V, np.array([1.0, 1.0]), np.array([0, 2])),
        "probs",
    ),
    "acc group out of range": (
        lambda: accuracy_by_group(np.array([0, 1], np.uint32), 1, J2, J2, TWO32),
        "group",
    ),
    "acc chosen out of range": (
        lambda: accuracy_by_group(U32, 1, np.array([0, 2], np.int32), J2, TWO32),
        "chosen_index",
    ),
    "acc chosen below -2": (
        lambda: accuracy_by_group(U32, 1, np.array([-3, 0], np.int32), J2, TWO32),
        "chosen_index",
    ),
    "acc correct out of range": (
        lambda: accuracy_by_group(U32, 1, J2, np.array([0, 2], np.int32), TWO32),
        "correct_index",
    ),
    "acc correct below -1": (
        lambda: accuracy_by_group(U32, 1, J2, np.array([-2, 0], np.int32), TWO32),
        "correct_index",
    ),
    "acc no options": (
        lambda: accuracy_by_group(U32, 1, J2, J2, np.array([2, 0], np.int32)),
        "n_options",
    ),
    "acc length mismatch": (
        lambda: accuracy_by_group(U32, 1, np.zeros(3, np.int32), J2, TWO32),
        "chosen_index",
    ),
    "acc non-contiguous": (
        lambda: accuracy_by_group(U32, 1, J2, np.zeros(4, np.int32)[::2], TWO32),
        "correct",
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_raises_input_error_naming_the_field(case: str) -> None:
    call, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        call()
    assert type(info.value) is InputError
    message = str(info.value)
    assert message.startswith(f"{field}:"), message
    assert "\n" not in message


def test_batch_errors_name_the_game() -> None:
    payoffs = np.zeros((3, 2, 2, 2))
    payoffs[2, 0, 1, 1] = np.nan
    with pytest.raises(InputError, match=r"^payoffs: game 2: payoff 3 is not finite"):
        _native.best_response_batch(payoffs, 0, np.zeros(3, dtype=np.int64))
    with pytest.raises(InputError, match=r"^probs: lottery 1: "):
        _native.expected_values(V, np.array([1.0, 0.7]), np.array([0, 1, 2]))


def test_negative_against_in_best_response_is_an_input_error() -> None:
    # best_response_batch maps a negative action to InputError; best_response should too.
    with pytest.raises(InputError, match=r"^against:"):
        _native.best_response(G, 0, -1)


def test_negative_player_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^player:"):
        _native.best_response(G, -1, 0)


def test_wrong_number_of_dimensions_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^payoffs:"):
        _native.best_response(np.zeros((2, 2)), 0, 0)


def test_wrong_number_of_dimensions_in_batch_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"^payoffs:"):
        _native.best_response_batch(G, 0, I2)


def test_panic_surfaces_as_internal_error() -> None:
    with pytest.raises(InternalError) as info:
        _native._panic_for_tests()
    error = info.value
    assert isinstance(error, SteerError) and isinstance(error, Exception)
    assert "PanicException" not in [c.__name__ for c in type(error).__mro__]
    assert "deliberate panic" in str(error)
    # The interpreter is fine afterwards.
    assert _native.best_response(G, 0, 0) == [0, 1]


def test_error_hierarchy() -> None:
    classes = [
        obj for name in steer.errors.__all__ if inspect.isclass(obj := getattr(steer.errors, name))
    ]
    assert {c.__name__ for c in classes} >= {
        "SteerError",
        "InputError",
        "SolverError",
        "InternalError",
        "FileFormatError",
        "UnknownNameError",
    }
    for cls in classes:
        assert issubclass(cls, SteerError), cls
        assert issubclass(cls, Exception), cls
    for name in ("SteerError", "InputError", "SolverError", "InternalError"):
        assert getattr(steer.errors, name) is getattr(_native, name)
        assert getattr(_native, name).__module__ == "steer.errors"
    assert issubclass(steer.errors.FileFormatError, InputError)
    assert issubclass(steer.errors.UnknownNameError, InputError)
    assert issubclass(steer.errors.UnknownNameError, KeyError)
    assert str(steer.errors.UnknownNameError("column", "x", ["y"])) == (
        "unknown column 'x' — did you mean 'y'?"
    )


# --- the GIL is released during the work ------------------------------------------------------


def test_best_response_batch_releases_the_gil() -> None:
    """A large batch running in one thread must not stall another Python thread.

    While the batch runs, the main thread records a timestamp every half
    millisecond. Holding the GIL would leave one gap as long as the whole call;
    released, the longest gap is a small part of it. Three attempts absorb a
    loaded machine; a held GIL fails all of them.
    """
    rng = np.random.default_rng(7)
    # Many small games: ~100 MB that takes the release build ~15 ms on 2 cores.
    n, k = 400_000, 4
    payoffs = rng.integers(-50, 50, size=(n, k, k, 2)).astype(np.float64)
    against = rng.integers(0, k, size=n)
    expected_first = ref_best_responses(payoffs[0], 1, int(against[0]))

    observed = []
    for _ in range(3):
        span: dict[str, float] = {}
        result: list[np.ndarray] = []

        def work(span: dict[str, float] = span, result: list[np.ndarray] = result) -> None:
            span["start"] = time.perf_counter()
            result.append(_native.best_response_batch(payoffs, 1, against))
            span["end"] = time.perf_counter()

        worker = threading.Thread(target=work)
        stamps = []
        worker.start()
        while worker.is_alive():
            stamps.append(time.perf_counter())
            time.sleep(0.0005)
        worker.join()
        assert np.flatnonzero(result[0][0]).tolist() == expected_first
        start, end = span["start"], span["end"]
        inside = [s for s in stamps if start <= s <= end]
        longest_gap = float(np.diff([start, *inside, end]).max())
        observed.append((end - start, longest_gap))
        if end - start >= 0.005 and len(inside) >= 2 and longest_gap < 0.5 * (end - start):
            return
    if all(duration < 0.005 for duration, _ in observed):
        pytest.skip(f"batch too fast to observe concurrency: {observed}")
    pytest.fail(f"main thread stalled while the batch ran (duration, longest gap): {observed}")


def test_resampling_kernels_reject_bad_input_by_name() -> None:
    with pytest.raises(InputError, match=r"^b: has 2 values, a has 3$"):
        _native.paired_bootstrap(np.ones(3), np.ones(2), resamples=10)
    with pytest.raises(InputError, match=r"^a: row 1: is not a finite number$"):
        _native.paired_bootstrap(np.array([0.0, np.nan]), np.zeros(2), resamples=10)
    with pytest.raises(InputError, match=r"^resamples: .* is too many$"):
        _native.paired_bootstrap(np.ones(3), np.ones(3), resamples=2**62)
    with pytest.raises(InputError, match=r"^p: must be in"):
        _native.binomial_draws(3, 1.5, 2)
    empty = _native.paired_bootstrap(np.ones(0), np.ones(0), resamples=2)
    assert empty.shape == (2, 2) and np.isnan(empty).all()
