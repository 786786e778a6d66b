"""STEER-ME module 1.4 (labor supply): every key of A.14-A.16 recomputed from
the drawn parameters by plain numerics that share nothing with steer.econ or
the templates' formulas: finite differences of the utility for marginal rates
of substitution and elasticities, a bounded scalar optimiser over leisure for
hours of work, root finding for the wage an optimum implies. The closed forms
in steer.econ._labor are property-tested against the same references, and
each element's bank passes the shortcut audit.
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
from steer.econ import _labor
from steer.generate import generate_bank

pytest.importorskip("scipy")
from scipy.optimize import brentq

Row = dict[str, Any]
Utility = Callable[[float, float], float]
ELEMENTS = ["steer-me.A.14", "steer-me.A.15", "steer-me.A.16"]
STEP = 1e-5
# Decimals each element shows: hours to one place, elasticities and dollars to two.
DECIMALS = {"steer-me.A.14": 1, "steer-me.A.15": 2, "steer-me.A.16": 2}


def cd_u(a: float) -> Utility:
    # Past the budget's end (no consumption) utility is as low as a float goes.
    return lambda c, leisure: a * math.log(max(c, 1e-300)) + (1 - a) * math.log(leisure)


def ql_u(b: float) -> Utility:
    return lambda c, leisure: c + b * math.log(leisure)


def fd_mrs(u: Utility, c: float, leisure: float) -> float:
    """MU_L / MU_c by central differences (relative steps)."""
    hl, hc = STEP * leisure, STEP * c
    mu_l = (u(c, leisure + hl) - u(c, leisure - hl)) / (2 * hl)
    mu_c = (u(c + hc, leisure) - u(c - hc, leisure)) / (2 * hc)
    return mu_l / mu_c


def best_leisure(u: Utility, wage: float, endowment: float, nonlabor: float) -> float:
    """argmax over leisure of u(w (T - L) + V, L): the root of the objective's
    central-difference slope (the objective is concave), else a corner."""

    def objective(leisure: float) -> float:
        return u(wage * (endowment - leisure) + nonlabor, leisure)

    def slope(leisure: float) -> float:
        e = 1e-6 * max(leisure, 1e-3)
        return (objective(leisure + e) - objective(leisure - e)) / (2 * e)

    low, high = 1e-6 * endowment, endowment * (1 - 1e-9)
    if slope(low) <= 0:
        return low
    if slope(high) >= 0:
        return endowment
    return float(brentq(slope, low, high, xtol=1e-12, rtol=1e-14))


def implied_wage(u: Utility, c: float, hours: float, endowment: float) -> float:
    """The wage at which (c, T - h) is the worker's optimum, non-labor income
    being whatever makes c affordable: a root in w of the optimiser's hours."""
    leisure = endowment - hours
    return float(
        brentq(
            lambda w: best_leisure(u, w, endowment, c - w * hours) - leisure,
            1e-3,
            c / hours,
            xtol=1e-10,
        )
    )


def best_hours(u: Utility, wage: float, endowment: float, nonlabor: float) -> float:
    return endowment - best_leisure(u, wage, endowment, nonlabor)


def fd_wage_elasticity(u: Utility, wage: float, endowment: float, nonlabor: float) -> float:
    """d ln h / d ln w of the optimiser's hours, by central differences."""
    up, down = wage * (1 + 1e-3), wage * (1 - 1e-3)
    h_up = best_hours(u, up, endowment, nonlabor)
    h_down = best_hours(u, down, endowment, nonlabor)
    return (math.log(h_up) - math.log(h_down)) / (math.log(up) - math.log(down))


def reference(row: Row) -> float:
    env = json.loads(row["payload"])["env"]
    tid = row["template_id"]
    if tid.startswith("lsd.cd."):
        return best_hours(cd_u(env["a"]), env["w"], env["T"], env["V"])
    if tid.startswith("lsd.ql."):
        return best_hours(ql_u(env["b"]), env["w"], env["T"], env["V"])
    if tid.startswith("lse.cd."):
        return fd_wage_elasticity(cd_u(env["a"]), env["w"], env["T"], env["V"])
    if tid.startswith("lse.ql."):
        return fd_wage_elasticity(ql_u(env["b"]), env["w"], env["T"], env["V"])
    if tid.startswith("llm.cd-bundle."):
        return fd_mrs(cd_u(env["a"]), env["cv"], env["T"] - env["h"])
    if tid.startswith("llm.ql-bundle."):
        return fd_mrs(ql_u(env["b"]), env["cv"], env["T"] - env["h"])
    if tid.startswith("llm.cd-optimum."):
        return implied_wage(cd_u(env["a"]), env["cv"], env["h"], env["T"])
    raise AssertionError(f"no reference for {tid}")


def value(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=40, seed=5)


def test_every_key_and_answer_value_match_the_numerical_reference(bank: pa.Table) -> None:
    rows = bank.to_pylist()
    assert {r["element"] for r in rows} == set(ELEMENTS)
    for r in rows:
        ref = reference(r)
        assert r["answer_value"] == pytest.approx(ref, rel=1e-4, abs=1e-6), r["template_id"]
        shown = value(r["options"][r["correct_index"]])
        places = DECIMALS[r["element"]]
        assert abs(shown - ref) <= 0.5 * 10.0**-places + 1e-5, (r["template_id"], shown, ref)


def test_the_wage_distractor_is_never_the_key_off_the_optimum(bank: pa.Table) -> None:
    """At a stated bundle the MRS is not the wage (the bundle is off the optimum)."""
    for r in bank.to_pylist():
        env = json.loads(r["payload"])["env"]
        if "bundle" in r["template_id"]:
            assert abs(r["answer_value"] - env["w"]) >= 0.1 * env["w"] - 1e-9


@pytest.mark.parametrize("seed", [7, 11])
def test_the_labor_bank_passes_the_shortcut_audit(seed: int) -> None:
    pytest.importorskip("sklearn")
    bank = generate_bank(ELEMENTS, per_cell=70, seed=seed)
    _, bad = audit_failures(bank, ELEMENTS, source="steer-me 1.4", seed=seed, strict=True)
    assert not bad, bad


shares = st.floats(0.05, 0.95)
positive = st.floats(1.0, 5000.0)


@settings(max_examples=200, deadline=None)
@given(shares, positive, st.floats(1.0, 200.0))
def test_cd_mrs_matches_finite_differences(a: float, c: float, leisure: float) -> None:
    assert _labor.cd_leisure_mrs(a, c, leisure) == pytest.approx(
        fd_mrs(cd_u(a), c, leisure), rel=1e-5
    )


@settings(max_examples=200, deadline=None)
@given(st.floats(1.0, 5000.0), st.floats(1.0, 200.0))
def test_ql_mrs_matches_finite_differences(b: float, leisure: float) -> None:
    assert _labor.ql_leisure_mrs(b, leisure) == pytest.approx(
        fd_mrs(ql_u(b), 1000.0, leisure), rel=1e-5
    )


def test_mrs_rejects_a_bundle_without_leisure() -> None:
    with pytest.raises(ValueError):
        _labor.cd_leisure_mrs(0.5, 100.0, 0.0)
    with pytest.raises(ValueError):
        _labor.ql_leisure_mrs(100.0, 0.0)


@settings(max_examples=60, deadline=None)
@given(shares, st.floats(5.0, 80.0), st.floats(60.0, 168.0), st.floats(0.0, 1500.0))
def test_cd_hours_and_elasticity_match_the_optimiser(
    a: float, wage: float, endowment: float, nonlabor: float
) -> None:
    hours = a * endowment - (1 - a) * nonlabor / wage
    if not 2.0 < hours < endowment - 2.0:
        if not 0 < hours < endowment:
            with pytest.raises(ValueError):
                _labor.cd_labor_hours(a, wage, endowment, nonlabor)
        return
    u = cd_u(a)
    assert _labor.cd_labor_hours(a, wage, endowment, nonlabor) == pytest.approx(
        best_hours(u, wage, endowment, nonlabor), abs=1e-5
    )
    assert _labor.cd_labor_elasticity(a, wage, endowment, nonlabor) == pytest.approx(
        fd_wage_elasticity(u, wage, endowment, nonlabor), rel=1e-3, abs=1e-5
    )


@settings(max_examples=60, deadline=None)
@given(st.floats(10.0, 5000.0), st.floats(5.0, 80.0), st.floats(60.0, 168.0))
def test_ql_hours_and_elasticity_match_the_optimiser(
    b: float, wage: float, endowment: float
) -> None:
    hours = endowment - b / wage
    if not 2.0 < hours < endowment - 2.0:
        if not 0 < hours < endowment:
            with pytest.raises(ValueError):
                _labor.ql_labor_hours(b, wage, endowment)
        return
    u = ql_u(b)
    assert _labor.ql_labor_hours(b, wage, endowment) == pytest.approx(
        best_hours(u, wage, endowment, 100.0), abs=1e-5
    )
    assert _labor.ql_labor_elasticity(b, wage, endowment) == pytest.approx(
        fd_wage_elasticity(u, wage, endowment, 100.0), rel=1e-3, abs=1e-5
    )


def test_quasilinear_hours_ignore_nonlabor_income() -> None:
    u = ql_u(800.0)
    assert best_hours(u, 20.0, 110.0, 0.0) == pytest.approx(
        best_hours(u, 20.0, 110.0, 900.0), abs=1e-5
    )
