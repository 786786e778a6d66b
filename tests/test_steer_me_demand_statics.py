"""STEER-ME module 1.3 (comparative statics of demand): every key recomputed
from the drawn parameters by plain numerics that share nothing with
steer.econ or the templates' formulas. Demand is found by maximising the
utility along the budget line (a root of the central-difference slope of
u(x, (m - p_x x) / p_y)); Engel quantities, price and income elasticities come
from that optimiser or from the stated demand function by finite differences;
categorical keys (direction of the demand response, ordinary or Giffen) are
recomputed by evaluating demand at the two prices. The closed forms in
steer.econ._demand_statics are property-tested against the same references,
and each element's bank passes the shortcut audit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from quality_audit import audit_failures
from steer.econ import _demand_statics as ds
from steer.generate import generate_bank

pytest.importorskip("scipy")
from scipy.optimize import brentq

Row = dict[str, Any]
Utility = Callable[[float, float], float]
ELEMENTS = ["steer-me.A.9", "steer-me.A.10", "steer-me.A.11", "steer-me.A.12", "steer-me.A.13"]
DECIMALS = {"steer-me.A.10": 2, "steer-me.A.12": 2, "steer-me.A.13": 2}
TINY = 1e-300


def cd_u(a: float) -> Utility:
    return lambda x, y: a * math.log(max(x, TINY)) + (1 - a) * math.log(max(y, TINY))


def ql_u(b: float) -> Utility:
    return lambda x, y: b * math.log(max(x, TINY)) + y


def ces_u(r: float) -> Utility:
    # A monotone transform of (x^r + y^r)^(1/r): the same demand.
    if r > 0:
        return lambda x, y: max(x, 0.0) ** r + max(y, 0.0) ** r
    return lambda x, y: -(max(x, 1e-12) ** r + max(y, 1e-12) ** r)


def best_x(
    u: Utility, px: float, py: float, m: float, floor_x: float = 0.0, floor_y: float = 0.0
) -> float:
    """argmax over x of u(x, (m - p_x x) / p_y): the root of the objective's
    central-difference slope (objectives here are concave), else a corner.
    Utility is searched where x > floor_x and y > floor_y (subsistence)."""

    def objective(x: float) -> float:
        return u(x, (m - px * x) / py)

    def slope(x: float) -> float:
        e = 1e-5 * max(x, 1e-6)
        return (objective(x + e) - objective(x - e)) / (2 * e)

    top = (m - py * floor_y) / px
    low, high = floor_x + 1e-9 * (top - floor_x), top - 1e-9 * (top - floor_x)
    if slope(low) <= 0:
        return low
    if slope(high) >= 0:
        return high
    return float(brentq(slope, low, high, xtol=1e-12, rtol=1e-13))


def utility_of(tid: str, env: dict[str, float]) -> Utility:
    family = tid.split(".")[1]
    if family == "cd":
        return cd_u(env["a"])
    if family == "ql":
        return ql_u(env["b"])
    if family == "ces":
        return ces_u(env["r"])
    raise AssertionError(f"no utility for {tid}")


def fd_point_elasticity(demand: Callable[[float], float], p: float) -> float:
    """(dQ/dp)(p/Q) by a central difference."""
    h = 1e-5 * p
    return (demand(p + h) - demand(p - h)) / (2 * h) * p / demand(p)


def arc(q1: float, q2: float, p1: float, p2: float, base: str) -> float:
    """Percentage change of quantity over that of price, from the midpoints
    or from the initial values."""
    if base == "midpoint":
        return ((q2 - q1) / ((q1 + q2) / 2)) / ((p2 - p1) / ((p1 + p2) / 2))
    return ((q2 - q1) / q1) / ((p2 - p1) / p1)


def price_elasticity(tid: str, env: dict[str, float]) -> float:
    kind = tid.split(".")[1]
    if kind == "linear-point":
        return fd_point_elasticity(lambda p: env["A"] - env["B"] * p, env["p"])
    if kind == "linear-arc":
        q = [env["A"] - env["B"] * p for p in (env["p1"], env["p2"])]
        return arc(q[0], q[1], env["p1"], env["p2"], "midpoint")
    if kind == "constant-arc":
        q = [env["k"] * p ** -env["e"] for p in (env["p1"], env["p2"])]
        return arc(q[0], q[1], env["p1"], env["p2"], "midpoint")
    if kind == "cd-base":
        u = cd_u(env["a"])
        q = [best_x(u, p, 1.0, env["m"]) for p in (env["p1"], env["p2"])]
        return arc(q[0], q[1], env["p1"], env["p2"], "initial")
    raise AssertionError(f"no reference for {tid}")


def sg_u(a: float, x0: float, y0: float) -> Utility:
    return lambda x, y: a * math.log(max(x - x0, TINY)) + (1 - a) * math.log(max(y - y0, TINY))


def log_derivative(f: Callable[[float], float], at: float) -> float:
    """d ln f / d ln z at z = at, by a central difference in logs."""
    up, down = at * (1 + 1e-4), at * (1 - 1e-4)
    return (math.log(abs(f(up))) - math.log(abs(f(down)))) / (math.log(up) - math.log(down))


def income_elasticity(tid: str, env: dict[str, float]) -> float:
    kind = tid.split(".")[1]
    if kind == "stone-geary":
        u = sg_u(env["a"], env["x0"], env["y0"])
        return log_derivative(
            lambda m: best_x(u, env["px"], env["py"], m, env["x0"], env["y0"]), env["m"]
        )
    if kind == "ql-numeraire":
        u = ql_u(env["b"])

        def y_demand(m: float) -> float:
            return (m - env["px"] * best_x(u, env["px"], env["py"], m)) / env["py"]

        return log_derivative(y_demand, env["m"])
    if kind == "linear-inferior":
        return log_derivative(lambda m: env["c0"] - env["c1"] * m, env["m"])
    if kind == "classify":
        return stated_quadratic_elasticity(env)
    raise AssertionError(f"no reference for {tid}")


def stated_quadratic_elasticity(env: dict[str, float]) -> float:
    def x(m: float) -> float:
        return env["c0"] + env["c1"] * m - env["c2"] * m * m

    m, h = env["m"], 1e-5 * env["m"]
    return (x(m + h) - x(m - h)) / (2 * h) * m / x(m)


CLASSES = ("An inferior good", "A normal necessity", "A luxury")


def income_class(elasticity: float) -> int:
    return 0 if elasticity < 0 else 1 if elasticity <= 1 else 2


def reference(row: Row) -> float:
    env = json.loads(row["payload"])["env"]
    tid = row["template_id"]
    if tid.startswith("engel."):
        return best_x(utility_of(tid, env), env["px"], env["py"], env["m0"] + env["dm"])
    if tid.startswith("ped."):
        return price_elasticity(tid, env)
    if tid.startswith("ied."):
        return income_elasticity(tid, env)
    raise AssertionError(f"no reference for {tid}")


def value(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=30, seed=5)


def test_every_numeric_key_and_answer_value_match_the_numerical_reference(
    bank: pa.Table,
) -> None:
    rows = [r for r in bank.to_pylist() if r["answer_value"] is not None]
    assert {r["element"] for r in rows} == set(DECIMALS)
    for r in rows:
        ref = reference(r)
        assert r["answer_value"] == pytest.approx(ref, rel=1e-5, abs=1e-6), r["template_id"]
        shown = value(r["options"][r["correct_index"]])
        places = DECIMALS[r["element"]]
        assert abs(shown - ref) <= 0.5 * 10.0**-places + 1e-5, (r["template_id"], shown, ref)


def test_quasilinear_engel_curves_are_flat(bank: pa.Table) -> None:
    """The quasilinear key is the same at the old and the new income."""
    for r in bank.to_pylist():
        if r["template_id"].startswith("engel.ql."):
            env = json.loads(r["payload"])["env"]
            u = ql_u(env["b"])
            assert best_x(u, env["px"], env["py"], env["m0"]) == pytest.approx(
                r["answer_value"], rel=1e-6
            )


@pytest.mark.parametrize("seed", [7, 11])
def test_the_demand_statics_bank_passes_the_shortcut_audit(seed: int) -> None:
    pytest.importorskip("sklearn")
    bank = generate_bank(ELEMENTS, per_cell=45, seed=seed)
    _, bad = audit_failures(bank, ELEMENTS, source="steer-me 1.3", seed=seed, strict=True)
    assert not bad, bad


prices = st.floats(0.5, 50.0)
incomes = st.floats(50.0, 10_000.0)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.05, 0.95), incomes, prices, prices)
def test_cd_engel_matches_the_optimiser(a: float, m: float, px: float, py: float) -> None:
    assert ds.engel_cd_quantity(a, m, px) == pytest.approx(best_x(cd_u(a), px, py, m), rel=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 500.0), prices, prices, incomes)
def test_ql_engel_matches_the_optimiser(b: float, px: float, py: float, m: float) -> None:
    if m <= b * py:
        with pytest.raises(ValueError):
            ds.engel_ql_quantity(b, px, py, m)
        return
    assert ds.engel_ql_quantity(b, px, py, m) == pytest.approx(best_x(ql_u(b), px, py, m), rel=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([0.75, 0.5, 0.25, -0.5, -1.0, -2.0, -4.0]), prices, prices, incomes)
def test_ces_engel_matches_the_optimiser(r: float, px: float, py: float, m: float) -> None:
    # Budget shares below 0.1% are left out: the optimiser's bracket starts there.
    assume(ds.engel_ces_quantity(r, px, py, m) * px >= 1e-3 * m)
    assume(ds.engel_ces_quantity(r, px, py, m) * px <= (1 - 1e-3) * m)
    assert ds.engel_ces_quantity(r, px, py, m) == pytest.approx(
        best_x(ces_u(r), px, py, m), rel=1e-5
    )


@settings(max_examples=100, deadline=None)
@given(st.floats(10.0, 5000.0), st.floats(0.1, 50.0), st.floats(0.05, 0.95))
def test_linear_point_elasticity_matches_finite_differences(a: float, b: float, f: float) -> None:
    p = f * a / b
    assert ds.ped_linear_point(a, b, p) == pytest.approx(
        fd_point_elasticity(lambda x: a - b * x, p), rel=1e-6
    )


@settings(max_examples=100, deadline=None)
@given(st.floats(0.1, 5.0), prices, prices)
def test_constant_elasticity_arc_tends_to_the_exponent(e: float, p1: float, step: float) -> None:
    """The midpoint formula equals the reference's; over a tiny change it is the
    point elasticity -e of Q = p^-e."""
    p2 = p1 + step
    q1, q2 = p1**-e, p2**-e
    assert ds.ped_midpoint(q1, q2, p1, p2) == pytest.approx(arc(q1, q2, p1, p2, "midpoint"))
    near = p1 * (1 + 1e-6)
    assert ds.ped_midpoint(q1, near**-e, p1, near) == pytest.approx(-e, rel=1e-4)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.05, 0.95), incomes, prices, prices)
def test_cd_base_elasticity_is_minus_p1_over_p2(a: float, m: float, p1: float, p2: float) -> None:
    assume(abs(p1 - p2) > 1e-3 * p1)
    u = cd_u(a)
    q1, q2 = best_x(u, p1, 1.0, m), best_x(u, p2, 1.0, m)
    assert ds.ped_base(a * m / p1, a * m / p2, p1, p2) == pytest.approx(
        arc(q1, q2, p1, p2, "initial"), rel=1e-4
    )
    assert ds.ped_base(a * m / p1, a * m / p2, p1, p2) == pytest.approx(-p1 / p2)


def test_elasticities_reject_degenerate_draws() -> None:
    with pytest.raises(ValueError):
        ds.ped_linear_point(100.0, 2.0, 50.0)  # zero quantity
    with pytest.raises(ValueError):
        ds.ped_midpoint(10.0, 12.0, 3.0, 3.0)


def test_income_classes_are_recomputed_and_drawn_evenly(bank: pa.Table) -> None:
    """The key of every classification item is the class of the Engel curve's
    elasticity by finite differences, away from the 0 and 1 boundaries, and
    each class is the key about a third of the time."""
    counts = [0, 0, 0]
    for r in bank.to_pylist():
        if not r["template_id"].startswith("ied.classify."):
            continue
        el = stated_quadratic_elasticity(json.loads(r["payload"])["env"])
        assert min(abs(el), abs(el - 1)) >= 0.09
        cls = income_class(el)
        assert r["options"][r["correct_index"]].startswith(CLASSES[cls]), r["question_text"]
        counts[cls] += 1
    n = sum(counts)
    assert n >= 150
    assert all(abs(c / n - 1 / 3) < 0.1 for c in counts), counts


@settings(max_examples=60, deadline=None)
@given(
    st.floats(0.1, 0.9),
    st.floats(0.0, 30.0),
    st.floats(0.0, 100.0),
    st.floats(1.0, 30.0),
    st.floats(1.0, 15.0),
    st.floats(200.0, 8000.0),
)
def test_stone_geary_income_elasticity_matches_the_optimiser(
    a: float, x0: float, y0: float, px: float, py: float, m: float
) -> None:
    assume(m - px * x0 - py * y0 >= 0.05 * m)
    u = sg_u(a, x0, y0)
    ref = log_derivative(lambda z: best_x(u, px, py, z, x0, y0), m)
    assert ds.incel_les(a, x0, y0, px, py, m) == pytest.approx(ref, rel=1e-4)


@settings(max_examples=60, deadline=None)
@given(st.floats(1.0, 400.0), prices, st.floats(0.5, 10.0), st.floats(200.0, 8000.0))
def test_quasilinear_numeraire_income_elasticity_matches_the_optimiser(
    b: float, px: float, py: float, m: float
) -> None:
    assume(m >= 1.1 * b * py)
    u = ql_u(b)
    ref = log_derivative(lambda z: (z - px * best_x(u, px, py, z)) / py, m)
    assert ds.incel_ql_numeraire(b, py, m) == pytest.approx(ref, rel=1e-4)


@settings(max_examples=100, deadline=None)
@given(st.floats(-50.0, 300.0), st.floats(-1.0, 10.0), st.floats(0.0, 0.05), st.floats(5.0, 150.0))
def test_stated_engel_elasticities_match_finite_differences(
    c0: float, c1: float, c2: float, m: float
) -> None:
    x = c0 + c1 * m - c2 * m * m
    if x <= 0:
        with pytest.raises(ValueError):
            ds.incel_quadratic(c0, c1, c2, m)
        return
    assume(x > 1e-3)
    env = {"c0": c0, "c1": c1, "c2": c2, "m": m}
    assert ds.incel_quadratic(c0, c1, c2, m) == pytest.approx(
        stated_quadratic_elasticity(env), rel=1e-5, abs=1e-7
    )
    if c2 == 0:
        assert ds.incel_linear(c0, c1, m) == pytest.approx(ds.incel_quadratic(c0, c1, 0.0, m))


DIRECTIONS = (
    "Quantity demanded falls",
    "Quantity demanded rises",
    "Quantity demanded does not change",
)
GIFFEN = ("Ordinary", "Giffen")


def direction(change: float) -> int:
    """0 falls, 1 rises, 2 unchanged (to rounding)."""
    return 2 if abs(change) < 1e-9 else 0 if change < 0 else 1


def demand_change(tid: str, env: dict[str, float]) -> float:
    """The quantity change the question asks about, from the stated demand or
    the stated effects (never from the template's derived values)."""
    kind = tid.split(".")[1]
    p1 = env.get("p1", 0.0)
    p2 = p1 + env.get("dp", 0.0)
    if kind == "quadratic":

        def x(p: float) -> float:
            return env["A"] + env["B"] * p - env["C"] * p * p

        return x(p2) - x(p1)
    if kind == "slutsky":
        substitution = (env["x1"] - env["S"]) - env["x1"]
        return substitution + env["I"]
    if kind == "stated":

        def xm(p: float, m: float) -> float:
            return env["A"] + env["B"] * p - env["C"] * p * p - env["D"] * m

        # The good is inferior: demand falls with income at the stated point.
        assert xm(p1, env["m"] + 1) < xm(p1, env["m"])
        return xm(p2, env["m"]) - xm(p1, env["m"])
    if kind == "real-income":

        def xr(p: float) -> float:
            r = env["m"] / p
            return env["kk"] * r * (env["R"] - r)

        h = 1e-6 * env["p"]
        return (xr(env["p"] + h) - xr(env["p"] - h)) / (2 * h)
    raise AssertionError(f"no reference for {tid}")


def test_direction_keys_are_recomputed_from_the_stated_demand(bank: pa.Table) -> None:
    """A.9 and A.11: the key is the direction of the quantity change computed
    here; every answer is the key about evenly (a third each for A.9, a half
    each for A.11), so no constant key."""
    counts: dict[str, list[int]] = {"steer-me.A.9": [0, 0, 0], "steer-me.A.11": [0, 0]}
    for r in bank.to_pylist():
        if r["element"] not in counts:
            continue
        env = json.loads(r["payload"])["env"]
        cls = direction(demand_change(r["template_id"], env))
        key = r["options"][r["correct_index"]]
        if r["element"] == "steer-me.A.9":
            assert key == DIRECTIONS[cls], (r["question_text"], key)
        else:
            assert cls != 2, r["question_text"]
            assert key.startswith(GIFFEN[cls]), (r["question_text"], key)
        counts[r["element"]][cls] += 1
    for element, c in counts.items():
        n = sum(c)
        assert n >= 200, element
        assert all(abs(k / n - 1 / len(c)) < 0.1 for k in c), (element, c)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.1, 5.0), st.floats(20.0, 200.0), prices, st.floats(0.05, 0.95))
def test_real_income_demand_slope_matches_finite_differences(
    k: float, peak: float, p: float, share: float
) -> None:
    assume(abs(share - 0.5) > 1e-3)
    m = share * peak * p
    env = {"kk": k, "R": peak, "m": m, "p": p}
    slope = ds.real_income_demand_slope(k, peak, p, m)
    assert slope == pytest.approx(demand_change("x.real-income", env), rel=1e-5, abs=1e-7)
    # Giffen exactly where real income is past the peak of x(r), at R / 2.
    assert (slope > 0) == (share > 0.5)


@settings(max_examples=100, deadline=None)
@given(st.floats(50.0, 500.0), st.floats(0.0, 30.0), st.floats(0.1, 3.0), prices)
def test_quadratic_demand_is_the_stated_function(a: float, b: float, c: float, p: float) -> None:
    x = a + b * p - c * p * p
    if x <= 0:
        with pytest.raises(ValueError):
            ds.quadratic_demand(a, b, c, p)
        return
    assert ds.quadratic_demand(a, b, c, p) == pytest.approx(x)
