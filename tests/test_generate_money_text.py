"""A money figure a question or its explanation states is the amount the
solver used, to the cent, whatever the template's `decimals` (issue 20 §4:
"$792" written for $792.50). Round half to even had written $222.50 as $222."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from steer.generate._scenario import format_var
from steer.templates import load_templates
from steer.templates._model import TemplateSpec


def _spec(decimals: int) -> TemplateSpec:
    base = next(t.spec for t in load_templates() if t.spec.structure == "scenario")
    return base.model_copy(update={"decimals": decimals, "unit": "$"})


def _read(text: str) -> float:
    sign = -1.0 if text.startswith("-") else 1.0
    return sign * float(text.lstrip("-").removeprefix("$").replace(",", ""))


@pytest.mark.parametrize(
    ("value", "decimals", "text"),
    [
        (222.5, 0, "$222.50"),
        (792.5, 0, "$792.50"),
        (-82.5, 0, "-$82.50"),
        (1250.0, 0, "$1,250"),
        (30.2, 2, "$30.20"),
        (12.25, 1, "$12.25"),
    ],
)
def test_cents_are_kept_whatever_the_templates_decimals(
    value: float, decimals: int, text: str
) -> None:
    assert format_var(value, "money", _spec(decimals)) == text


@given(cents=st.integers(-(10**8), 10**8), decimals=st.integers(0, 2))
def test_a_stated_amount_reads_back_as_the_amount(cents: int, decimals: int) -> None:
    value = cents / 100
    assert _read(format_var(value, "money", _spec(decimals))) == pytest.approx(value, abs=1e-9)


def test_a_two_way_format_words_a_yes_or_a_no() -> None:
    """4.3.d: "so the lab {build} built" reads "is built" or "is not built"."""
    assert format_var(1, "is|is not", _spec(2)) == "is"
    assert format_var(0, "is|is not", _spec(2)) == "is not"
