"""Bayesian games and Bayes' rule through the bindings, against plain-Python references."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from steer import _native
from steer.errors import InputError

TIE = 1e-9


def test_bayes_rule_example() -> None:
    # P(try) = .55, P(try | lower-ranked) = .79, P(lower-ranked) = .27.
    assert _native.bayes_rule(0.27, 0.79, 0.55) == pytest.approx(0.3878, abs=1e-4)


def test_posterior_example() -> None:
    post = _native.bayes_posterior(np.array([0.01, 0.99]), np.array([0.9, 0.05]))
    assert post.tolist() == pytest.approx([0.009 / 0.0585, 0.0495 / 0.0585])


@settings(max_examples=200, deadline=None)
@given(
    hnp.arrays(np.float64, st.integers(1, 5), elements=st.integers(1, 20).map(float)),
    st.data(),
)
def test_posterior_matches_reference(weights: np.ndarray, data: st.DataObject) -> None:
    priors = weights / weights.sum()
    likelihoods = data.draw(
        hnp.arrays(np.float64, len(priors), elements=st.integers(1, 10).map(lambda k: k / 10))
    )
    post = _native.bayes_posterior(priors, likelihoods)
    joint = priors * likelihoods
    np.testing.assert_allclose(post, joint / joint.sum(), rtol=1e-12)
    for h in range(len(priors)):
        evidence = float(joint.sum())
        assert _native.bayes_rule(priors[h], likelihoods[h], evidence) == pytest.approx(post[h])


# --- Bayesian games ------------------------------------------------------------------------


def ref_best_responses(
    prior: np.ndarray, payoffs: np.ndarray, player: int, strategy: list[int]
) -> tuple[np.ndarray, list[list[int]]]:
    tr, tc, rows, cols, _ = payoffs.shape
    own_types, own_actions = (tr, rows) if player == 0 else (tc, cols)
    expected = np.zeros((own_types, own_actions))
    for t in range(own_types):
        weights = prior[t, :] if player == 0 else prior[:, t]
        for a in range(own_actions):
            total = 0.0
            for o, w in enumerate(weights):
                cell = (
                    payoffs[t, o, a, strategy[o]] if player == 0 else payoffs[o, t, strategy[o], a]
                )
                total += w / weights.sum() * cell[player]
            expected[t, a] = total
    best = []
    for row in expected:
        top = row.max()
        best.append([a for a, v in enumerate(row) if v >= top - TIE * max(1.0, abs(top))])
    return expected, best


@st.composite
def bayesian_games(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    tr, tc = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    rows, cols = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    weights = draw(hnp.arrays(np.float64, (tr, tc), elements=st.integers(1, 9).map(float)))
    payoffs = draw(
        hnp.arrays(np.float64, (tr, tc, rows, cols, 2), elements=st.integers(-4, 4).map(float))
    )
    return weights / weights.sum(), payoffs


@settings(max_examples=200, deadline=None)
@given(bayesian_games(), st.sampled_from([0, 1]), st.data())
def test_best_responses_match_reference(
    game: tuple[np.ndarray, np.ndarray], player: int, data: st.DataObject
) -> None:
    prior, payoffs = game
    tr, tc, rows, cols, _ = payoffs.shape
    opp_types, opp_actions = (tc, cols) if player == 0 else (tr, rows)
    strategy = [data.draw(st.integers(0, opp_actions - 1)) for _ in range(opp_types)]
    expected, best = _native.bayes_nash_best_responses(prior, payoffs, player, strategy)
    ref_expected, ref_best = ref_best_responses(prior, payoffs, player, strategy)
    np.testing.assert_allclose(expected, ref_expected, rtol=1e-12, atol=1e-12)
    # Ties within rounding noise could split differently; compare only clear cases.
    if all(len(b) == 1 for b in ref_best):
        assert best == ref_best


@settings(max_examples=100, deadline=None)
@given(bayesian_games())
def test_pure_bayes_nash_are_mutual_best_responses(game: tuple[np.ndarray, np.ndarray]) -> None:
    prior, payoffs = game
    tr, tc, rows, cols, _ = payoffs.shape
    found = _native.pure_bayes_nash(prior, payoffs)
    expect = []
    for r in product(range(rows), repeat=tr):
        for c in product(range(cols), repeat=tc):
            _, br_r = ref_best_responses(prior, payoffs, 0, list(c))
            _, br_c = ref_best_responses(prior, payoffs, 1, list(r))
            if all(r[t] in br_r[t] for t in range(tr)) and all(c[t] in br_c[t] for t in range(tc)):
                expect.append((list(r), list(c)))
    assert found == sorted(expect)


def test_meeting_game() -> None:
    # Row: one type; column "likes company" or "avoids" with probability 1/2 each. Row gets 2
    # when both go, 0 going alone, 1 staying; column type 0 likes matching, type 1 mismatching.
    prior = np.array([[0.5, 0.5]])
    payoffs = np.zeros((1, 2, 2, 2, 2))
    for tc, ar, ac in product(range(2), repeat=3):
        payoffs[0, tc, ar, ac, 0] = 2.0 if (ar, ac) == (0, 0) else (0.0 if ar == 0 else 1.0)
        payoffs[0, tc, ar, ac, 1] = float((ar == ac) == (tc == 0))
    expected, best = _native.bayes_nash_best_responses(prior, payoffs, 0, [0, 1])
    assert expected.tolist() == [[1.0, 1.0]] and best == [[0, 1]]
    assert _native.pure_bayes_nash(prior, payoffs) == [([0], [0, 1]), ([1], [1, 0])]


PRIOR = np.array([[0.5, 0.5]])
PAYOFFS = np.zeros((1, 2, 2, 2, 2))

ERROR_CASES = {
    "prior sum": (lambda: _native.pure_bayes_nash(np.array([[0.5, 0.6]]), PAYOFFS), "prior"),
    "zero type": (lambda: _native.pure_bayes_nash(np.array([[1.0, 0.0]]), PAYOFFS), "prior"),
    "prior axes": (lambda: _native.pure_bayes_nash(np.array([0.5, 0.5]), PAYOFFS), "prior"),
    "payoffs shape": (lambda: _native.pure_bayes_nash(PRIOR, np.zeros((2, 2, 2, 2, 2))), "payoffs"),
    "strategy length": (
        lambda: _native.bayes_nash_best_responses(PRIOR, PAYOFFS, 0, [0]),
        "strategy",
    ),
    "strategy action": (
        lambda: _native.bayes_nash_best_responses(PRIOR, PAYOFFS, 0, [0, 5]),
        "strategy",
    ),
    "negative strategy": (
        lambda: _native.bayes_nash_best_responses(PRIOR, PAYOFFS, 0, [0, -1]),
        "strategy",
    ),
    "player": (lambda: _native.bayes_nash_best_responses(PRIOR, PAYOFFS, 2, [0, 0]), "player"),
    "bayes zero evidence": (lambda: _native.bayes_rule(0.5, 0.5, 0.0), "evidence"),
    "bayes inconsistent": (lambda: _native.bayes_rule(0.9, 0.9, 0.5), "evidence"),
    "bayes prior": (lambda: _native.bayes_rule(1.5, 0.5, 0.9), "prior"),
    "posterior priors": (
        lambda: _native.bayes_posterior(np.array([0.5, 0.4]), np.array([0.1, 0.1])),
        "priors",
    ),
    "posterior length": (
        lambda: _native.bayes_posterior(np.array([1.0]), np.array([0.1, 0.1])),
        "likelihoods",
    ),
}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_bad_input_names_the_argument(case: str) -> None:
    fn, field = ERROR_CASES[case]
    with pytest.raises(InputError) as info:
        fn()
    assert str(info.value).startswith(f"{field}:"), str(info.value)
