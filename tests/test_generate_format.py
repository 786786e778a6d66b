"""How amounts read in question text, against a plain Decimal reference; the
cache of formatted amounts never changes a text."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.generate import _format
from steer.generate._format import amount


def reference_amount(x: float, unit: str = "", decimals: int = 2) -> str:
    """Round half to even on the exact binary value (as round() does), drop
    the decimals of a whole amount, group thousands, minus before the unit."""
    exact = Decimal(float(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_EVEN)
    if exact == exact.to_integral_value():
        whole = int(exact)
        return f"-{unit}{-whole:,}" if whole < 0 else f"{unit}{whole:,}"
    sign = "-" if exact < 0 else ""
    return f"{sign}{unit}{abs(exact):,.{decimals}f}"


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.floats(-1e9, 1e9, allow_nan=False),
        st.integers(-(10**6), 10**6).map(lambda n: n / 8),  # exact halves and eighths
        st.integers(-(10**6), 10**6),
    ),
    st.sampled_from(["", "$", "€"]),
    st.integers(0, 4),
    st.booleans(),
)
def test_amount_matches_the_reference(x: float, unit: str, decimals: int, numpy: bool) -> None:
    value = np.float64(x) if numpy else x
    expected = reference_amount(x, unit, decimals)
    assert amount(value, unit, decimals) == expected
    assert amount(value, unit, decimals) == expected  # from the cache


def test_equal_numbers_of_other_types_share_a_text() -> None:
    assert amount(5) == amount(5.0) == amount(np.float64(5.0)) == amount(np.int64(5)) == "5"
    assert amount(-0.0, "$") == amount(0.0, "$") == "$0"
    assert amount(np.array(2.5), "$") == "$2.50"  # unhashable: formatted without the cache
    # The unit and the decimals are part of the key.
    assert [amount(2.125, u, d) for u, d in [("$", 2), ("", 2), ("$", 0), ("$", 3)]] == [
        "$2.12",
        "2.12",
        "$2",
        "$2.125",
    ]


def test_the_cache_stays_bounded() -> None:
    for i in range(_format.MAX_CACHED + 10):
        amount(i + 0.25)
    assert len(_format._AMOUNTS) <= _format.MAX_CACHED
    assert amount(3.25) == "3.25"
