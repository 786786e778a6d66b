"""Decision worked cases from the paper that go through the expected-value solver."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native


def test_sunk_cost_abandon() -> None:
    # $500k already spent (sunk: in neither option). Continuing costs $800k more and brings
    # $700k revenue (net -$100k); abandoning brings nothing more (net 0) -> abandon.
    values = np.array([700_000.0 - 800_000.0, 0.0])
    probs = np.array([1.0, 1.0])
    best = _native.argmax_expected_value(values, probs, np.array([0, 1, 2]))
    assert best == [1]
    # Counting the sunk cost in both options changes nothing; in only one, it would.
    shifted = values - 500_000.0
    assert _native.argmax_expected_value(shifted, probs, np.array([0, 1, 2])) == [1]


def test_bayes_rule_in_a_decision() -> None:
    # P(lower-ranked | try) ≈ 0.388 < 0.5: a lower-ranked applicant is not the better bet.
    posterior = _native.bayes_rule(prior=0.27, likelihood=0.79, evidence=0.55)
    assert round(posterior, 3) == 0.388


_LOTTERY = st.integers(1, 3).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-500, 500).map(float), min_size=n, max_size=n),
        st.lists(st.integers(1, 9), min_size=n, max_size=n).map(lambda w: [x / sum(w) for x in w]),
    )
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_LOTTERY, min_size=1, max_size=4))
def test_rank_expected_values_is_argmax_and_values_in_one_call(
    lotteries: list[tuple[list[float], list[float]]],
) -> None:
    """The plain-list call the generator uses answers exactly what the two
    array calls answer, and both match Σ p·x computed here."""
    values = [v for vs, _ in lotteries for v in vs]
    probs = [p for _, ps in lotteries for p in ps]
    offsets = [0]
    for vs, _ in lotteries:
        offsets.append(offsets[-1] + len(vs))
    best, evs = _native.rank_expected_values(values, probs, offsets)
    arrays = (np.array(values), np.array(probs), np.array(offsets))
    assert best == _native.argmax_expected_value(*arrays)
    assert evs == _native.expected_values(*arrays).tolist()
    plain = [sum(v * p for v, p in zip(vs, ps, strict=True)) for vs, ps in lotteries]
    assert np.allclose(evs, plain)
    top = max(plain)
    assert best == [i for i, ev in enumerate(plain) if ev >= top - 1e-9 * max(1.0, abs(top))]


def test_rank_expected_values_rejects_what_the_array_calls_reject() -> None:
    with pytest.raises(_native.InputError, match=r"sum to 0\.5"):
        _native.rank_expected_values([1.0], [0.5], [0, 1])
    with pytest.raises(_native.InputError, match="negative offset"):
        _native.rank_expected_values([1.0], [1.0], [-1, 1])
