"""STEER-ME's firm elements (A.30-A.38): every key and `answer_value` of a
seeded bank is recomputed here from the drawn parameters by an independent
numerical method (root finding, numerical optimisation, grid search, finite
differences) that calls neither steer.econ nor the template's formula; the
closed forms of steer.econ._firm are property-tested against the same
references; and each element's bank passes the shortcut audit.
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
from steer.econ import _firm
from steer.generate import generate_bank

pytest.importorskip("scipy")
pytest.importorskip("sklearn")

from scipy.optimize import brentq

Row = dict[str, Any]
Env = dict[str, float]
ELEMENTS = ["steer-me.A.36"]


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    return generate_bank(ELEMENTS, per_cell=12, seed=3).to_pylist()


@pytest.fixture(scope="module")
def audit_bank_() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=100, seed=7)


def shown(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


# ---------------------------------------------------------------- references


def solow_residual(y: float, k: float, l_: float, a: float) -> float:
    """A such that A K^a L^(1-a) = Y, by root finding on A."""
    return float(brentq(lambda t: t * k**a * l_ ** (1 - a) - y, 1e-9, 1e9, xtol=1e-12, rtol=1e-13))


def log_slope(f: Callable[[float], float], x: float, h: float = 1e-5) -> float:
    """d ln f / d ln x by a central difference in logs."""
    return (math.log(f(x * math.exp(h))) - math.log(f(x * math.exp(-h)))) / (2 * h)


def tfp_growth_ref(gy: float, gk: float, gl: float, a: float) -> float:
    """Growth accounting: the elasticities of the root-found A with respect to
    Y, K and L (finite differences), each times its growth rate."""
    y, k, l_ = 100.0, 50.0, 80.0
    ey = log_slope(lambda v: solow_residual(v, k, l_, a), y)
    ek = log_slope(lambda v: solow_residual(y, v, l_, a), k)
    el = log_slope(lambda v: solow_residual(y, k, v, a), l_)
    return ey * gy + ek * gk + el * gl


# ---------------------------------------------------------------- per template

VERIFY: dict[str, Callable[[Env], float]] = {
    "tfp.farm": lambda e: solow_residual(e["Y"], e["K"], e["L"], e["a"]),
    "tfp.mill": lambda e: solow_residual(e["Y"], e["K"], e["L"], e["a"]),
    "tfp.hospitals": lambda e: tfp_growth_ref(e["gy"], e["gk"], e["gl"], e["a"]),
    "tfp.schools": lambda e: tfp_growth_ref(e["gy"], e["gk"], e["gl"], e["a"]),
}


def _decimals(row: Row) -> int:
    option = row["options"][row["correct_index"]]
    return len(option.split(".")[1]) if "." in option else 0


def test_every_template_is_verified(rows: list[Row]) -> None:
    seen = {r["template_id"] for r in rows}
    assert seen and seen <= set(VERIFY), sorted(seen - set(VERIFY))
    assert {r["element"] for r in rows} == set(ELEMENTS)


def test_numeric_keys_match_an_independent_computation(rows: list[Row]) -> None:
    for row in rows:
        env = json.loads(row["payload"])["env"]
        ref = VERIFY[row["template_id"]](env)
        d = _decimals(row)
        assert row["answer_value"] == pytest.approx(ref, rel=1e-6, abs=1e-6), (
            row["template_id"],
            env,
        )
        assert abs(shown(row["options"][row["correct_index"]]) - ref) <= 0.5 * 10.0**-d + 1e-9
        others = [shown(o) for i, o in enumerate(row["options"]) if i != row["correct_index"]]
        assert all(abs(v - ref) > 0.5 * 10.0**-d for v in others), row["options"]


@pytest.mark.parametrize("element", ELEMENTS)
def test_the_element_passes_the_shortcut_audit(audit_bank_: pa.Table, element: str) -> None:
    bank = audit_bank_.filter(pa.compute.equal(audit_bank_["element"], element))
    _, bad = audit_failures(bank, [element], source=element, seed=7)
    assert not bad, bad


# ---------------------------------------------------------------- closed forms

share = st.floats(0.05, 0.95)
positive = st.floats(0.5, 5_000)
rate = st.floats(-20, 20)


@settings(max_examples=200, deadline=None)
@given(positive, positive, positive, share)
def test_tfp_solow_is_the_root_of_the_production_function(
    y: float, k: float, l_: float, a: float
) -> None:
    assert _firm.tfp_solow(y, k, l_, a) == pytest.approx(solow_residual(y, k, l_, a), rel=1e-9)


@settings(max_examples=100, deadline=None)
@given(rate, rate, rate, share)
def test_tfp_growth_is_the_elasticity_weighted_residual(
    gy: float, gk: float, gl: float, a: float
) -> None:
    assert _firm.tfp_growth(gy, gk, gl, a) == pytest.approx(tfp_growth_ref(gy, gk, gl, a), abs=1e-5)


def test_the_closed_forms_reject_degenerate_input() -> None:
    with pytest.raises(ValueError):
        _firm.tfp_solow(10, 0, 5, 0.3)
    with pytest.raises(ValueError):
        _firm.tfp_growth(1, 2, 3, 1.0)
