"""`near_max` answers what `np.flatnonzero(np.isclose(v, v.max()))` answers,
which solvers used before, for any finite payoffs."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.generate._registry import near_max

_FINITE = st.floats(-1e12, 1e12, allow_nan=False)


@st.composite
def _near_ties(draw: st.DrawFn) -> list[float]:
    """Values a hair apart around one level, where the tolerance decides."""
    level = draw(_FINITE)
    scale = max(abs(level), 1.0)
    gaps = st.floats(-3e-5, 3e-5, allow_nan=False).map(lambda g: level + g * scale)
    return draw(st.lists(st.one_of(gaps, st.just(level)), min_size=1, max_size=6))


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.lists(_FINITE, min_size=1, max_size=6), _near_ties()))
def test_near_max_is_numpy_isclose_to_the_max(values: list[float]) -> None:
    array = np.array(values)
    expected = [int(i) for i in np.flatnonzero(np.isclose(array, array.max()))]
    assert near_max(values) == expected


def test_a_tie_within_tolerance_and_a_clear_winner() -> None:
    assert near_max([3.0, 3.0 + 1e-9, 1.0]) == [0, 1]
    assert near_max([1.0, 2.0, 1.5]) == [1]
