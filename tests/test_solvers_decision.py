"""Decision worked cases from the paper that go through the expected-value solver."""

from __future__ import annotations

import numpy as np

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
