"""STEER-ME module 2.1 (properties of production functions): every key and
`answer_value` of a seeded bank is recomputed here from the drawn parameters by
an independent numerical method (central finite differences of the stated
technology, logarithmic differences for elasticities, TRS at two nearby input
ratios for the elasticity of substitution, root finding, linprog and bounded
minimisation for costs, profit re-optimised at perturbed input prices for
input-price elasticities, output at scaled input bundles for returns to
scale), never by steer.econ or the template's formula;
the closed forms in steer.econ._production are property-tested against the
same references; and each element's bank passes the shortcut audit.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quality_audit import audit_failures
from steer.econ import _production as pf
from steer.generate import generate_bank
from steer.templates import Template, load_template_file

pytest.importorskip("scipy")
from scipy.optimize import brentq, linprog, minimize_scalar

Row = dict[str, Any]
Fn = Callable[[float], float]

NUMERIC = [
    "steer-me.A.23",
    "steer-me.A.24",
    "steer-me.A.25",
    "steer-me.A.26",
    "steer-me.A.28",
]
CATEGORICAL = ["steer-me.A.27", "steer-me.A.29"]
ELEMENTS = NUMERIC + CATEGORICAL
CLASSES_DMP = ("Diminishing", "Constant", "Increasing")
CLASSES_RTS = ("Increasing", "Constant", "Decreasing")


# --- plain numerical references -------------------------------------------


def derivative(f: Fn, x: float) -> float:
    """Central finite difference of f at x (fourth-order, relative step)."""
    h = 1e-3 * max(abs(x), 1.0)
    return (-f(x + 2 * h) + 8 * f(x + h) - 8 * f(x - h) + f(x - 2 * h)) / (12 * h)


def log_derivative(f: Fn, x: float) -> float:
    """d ln f / d ln x by central differences in logs."""
    h = 1e-4
    return (math.log(f(x * math.exp(h))) - math.log(f(x * math.exp(-h)))) / (2 * h)


def cd(tfp: float, exps: list[float]) -> Callable[..., float]:
    def f(*xs: float) -> float:
        return tfp * float(np.prod([x**e for x, e in zip(xs, exps, strict=True)]))

    return f


def ces(tfp: float, w1: float, w2: float, rho: float, power: float) -> Callable[..., float]:
    """tfp (w1 x1^rho + w2 x2^rho)^power."""

    def f(x1: float, x2: float) -> float:
        return tfp * (w1 * x1**rho + w2 * x2**rho) ** power

    return f


def scale_class(f: Callable[..., float], bundle: tuple[float, ...]) -> int:
    """0 increasing, 1 constant, 2 decreasing returns: output at twice and at
    three times the bundle against two and three times the output."""
    base = f(*bundle)
    ratios = [f(*(s * x for x in bundle)) / (s * base) for s in (2.0, 3.0)]
    if all(abs(r - 1) < 1e-9 for r in ratios):
        return 1
    assert all(r > 1 for r in ratios) or all(r < 1 for r in ratios)
    return 0 if ratios[0] > 1 else 2


def curvature_class(f: Fn, points: tuple[float, ...] = (1.5, 3.0, 6.0, 12.0)) -> int:
    """0 diminishing, 1 constant, 2 increasing marginal product, from the
    marginal product (a finite difference) at growing input levels."""
    mps = [derivative(f, x) for x in points]
    steps = np.diff(mps)
    if np.all(np.abs(steps) <= 1e-7 * max(abs(m) for m in mps)):
        return 1
    assert np.all(steps < 0) or np.all(steps > 0)
    return 0 if steps[0] < 0 else 2


# --- the bank ---------------------------------------------------------------

TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "steer-me" / "2.1"


def own_templates() -> list[Template]:
    # The module's own files: its banks do not depend on other elements'
    # templates loading.
    return [t for path in sorted(TEMPLATES.glob("*.toml")) for t in load_template_file(path)]


@pytest.fixture(scope="module")
def rows() -> list[Row]:
    return generate_bank(templates=own_templates(), per_cell=25, seed=5).to_pylist()


def env(row: Row) -> dict[str, float]:
    e: dict[str, float] = json.loads(row["payload"])["env"]
    return e


def shown(option: str) -> tuple[float, int]:
    """An option's number and its decimal places."""
    text = option.replace("$", "").replace(",", "").replace("%", "")
    m = re.fullmatch(r"-?\d+(?:\.(\d+))?", text)
    assert m, option
    return float(text), len(m.group(1) or "")


def check_numeric(row: Row, reference: float) -> None:
    value = float(row["answer_value"])
    assert value == pytest.approx(reference, rel=1e-6, abs=1e-8), row["template_id"]
    option, places = shown(row["options"][row["correct_index"]])
    assert abs(option - reference) <= 0.5 * 10.0**-places + 1e-9, (row["question_text"], option)
    assert row["option_tags"][row["correct_index"]] == "key"


def marginal_product_reference(row: Row) -> float:
    v = env(row)
    tid = row["template_id"]
    if tid == "mp.cd-factory":
        return derivative(lambda x: cd(v["A"], [v["a"], v["b"]])(v["K"], x), v["L"])
    if tid == "mp.cd-farm":
        return derivative(lambda x: cd(v["A"], [v["a"], v["b"]])(x, v["H"]), v["T"])
    if tid == "mp.ces-power":
        f = ces(v["A"], 1 - v["wl"], v["wl"], v["rho"], 1 / v["rho"])
        return derivative(lambda x: f(v["K"], x), v["L"])
    if tid == "mp.quad-kitchen":
        return derivative(lambda x: v["a"] * x - v["b"] * x * x, v["L"])
    raise AssertionError(f"no reference for {tid}")


def output_elasticity_reference(row: Row) -> float:
    v = env(row)
    tid = row["template_id"]
    if tid == "oe.ces-clinic":
        f = ces(v["A"], 1 - v["wl"], v["wl"], v["rho"], 1 / v["rho"])
        return log_derivative(lambda x: f(v["K"], x), v["L"])
    if tid == "oe.ces-mill":
        f = ces(v["A"], v["wk"], 1 - v["wk"], v["rho"], 1 / v["rho"])
        return log_derivative(lambda x: f(x, v["L"]), v["K"])
    if tid == "oe.linear-courier":
        return log_derivative(lambda x: v["cv"] * v["V"] + v["cb"] * x, v["B"])
    if tid == "oe.quad-tutoring":
        return log_derivative(lambda x: v["a"] * x - v["b"] * x * x, v["L"])
    raise AssertionError(f"no reference for {tid}")


def sigma_numerically(trs: Fn, ratio: float = 2.0) -> float:
    """d ln(K/L) / d ln(TRS) from the TRS at two input ratios a small log step
    either side of `ratio`."""
    h = 1e-4
    lo, hi = ratio * math.exp(-h), ratio * math.exp(h)
    return (2 * h) / (math.log(trs(hi)) - math.log(trs(lo)))


def trs_of(f: Callable[[float, float], float]) -> Fn:
    """TRS = MP_L / MP_K of f(K, L) at K/L = r (L = 3), by finite differences."""

    def trs(r: float) -> float:
        k, n = 3.0 * r, 3.0
        return derivative(lambda x: f(k, x), n) / derivative(lambda x: f(x, n), k)

    return trs


def substitution_reference(row: Row) -> float:
    v = env(row)
    tid = row["template_id"]
    if tid == "es.ces-power":
        return sigma_numerically(trs_of(ces(v["A"], v["wk"], 1 - v["wk"], v["rho"], 1 / v["rho"])))
    if tid == "es.ces-degree-mill":
        return sigma_numerically(trs_of(ces(v["A"], v["wk"], 1 - v["wk"], v["rho"], v["e"])))
    if tid == "es.trs-clinic":
        return sigma_numerically(lambda r: v["c"] * r ** v["p"])
    if tid == "es.mixes-farm":
        # The two observed mixes as shown: log change of K/L over log change of TRS.
        ratios = np.log([v["r1"], v["r2"]])
        rates = np.log([v["t1"], v["t2"]])
        return float(np.diff(ratios)[0] / np.diff(rates)[0])
    raise AssertionError(f"no reference for {tid}")


def labour_for(q: float, f: Fn) -> float:
    """The labour that makes f(L) = q, by root finding."""
    hi = 1.0
    while f(hi) < q:
        hi *= 2
    return float(brentq(lambda x: f(x) - q, 0.0, hi, xtol=1e-12, rtol=1e-14))


def cheapest(prices: list[float], a_ub: list[list[float]], b_ub: list[float]) -> float:
    """Least cost of a linear programme min prices . x, a_ub x <= b_ub, x >= 0."""
    res = linprog(prices, A_ub=a_ub, b_ub=b_ub, bounds=[(0, None)] * len(prices))
    assert res.status == 0
    return float(res.fun)


def cost_reference(row: Row) -> float:
    v = env(row)
    tid = row["template_id"]
    if tid == "ac.sr-bakery":
        lab = labour_for(v["q"], lambda x: v["A"] * x ** v["b"])
        return (v["F"] + v["w"] * lab) / v["q"]
    if tid == "mc.sr-factory":

        def cost(q: float) -> float:
            lab = labour_for(q, lambda x: v["A"] * v["K"] ** v["a"] * x ** v["b"])
            return v["r"] * v["K"] + v["w"] * lab

        return derivative(cost, v["q"])
    if tid == "ac.leontief-roads":
        # Machine hours K and labour hours L with q <= K / ak and q <= L / al.
        q = v["q"]
        variable = cheapest([v["r"], v["w"]], [[-1 / v["ak"], 0], [0, -1 / v["al"]]], [-q, -q])
        return (v["F"] + variable) / q
    if tid == "mc.linear-power":
        # Gas G and coal C with eg G + ec C >= q: the cost of one more unit.
        def fuel(q: float) -> float:
            return cheapest([v["pg"], v["pc"]], [[-v["eg"], -v["ec"]]], [-q])

        return fuel(101.0) - fuel(100.0)
    if tid == "minac.greenhouse":

        def ac(q: float) -> float:
            return (v["F"] + v["w"] * (q / v["A"]) ** 2) / q

        best = minimize_scalar(ac, bounds=(1e-3, 1e5), method="bounded", options={"xatol": 1e-9})
        # Marginal cost crosses average cost at the minimum.
        mc = derivative(lambda q: v["F"] + v["w"] * (q / v["A"]) ** 2, float(best.x))
        assert mc == pytest.approx(best.fun, rel=1e-5)
        return float(best.fun)
    raise AssertionError(f"no reference for {tid}")


def supply_two_inputs(f: Callable[[float, float], float], p: float, r: float, w: float) -> float:
    """Profit-maximising output of a price taker with technology f(K, L), by
    nested bounded scalar maximisation of p f(K, L) - r K - w L over log inputs
    (the best labour for each capital, then the best capital)."""

    def best_labour(k: float) -> float:
        res = minimize_scalar(
            lambda z: -(p * f(k, math.exp(z)) - w * math.exp(z)),
            bounds=(-25, 25),
            method="bounded",
            options={"xatol": 1e-11},
        )
        return math.exp(float(res.x))

    res = minimize_scalar(
        lambda z: (
            -(
                p * f(math.exp(z), best_labour(math.exp(z)))
                - r * math.exp(z)
                - w * best_labour(math.exp(z))
            )
        ),
        bounds=(-25, 25),
        method="bounded",
        options={"xatol": 1e-10},
    )
    k = math.exp(float(res.x))
    return f(k, best_labour(k))


def supply_one_input(f: Fn, p: float, price: float) -> float:
    """Profit-maximising output with one variable input, by bounded scalar
    maximisation over the log input."""
    res = minimize_scalar(
        lambda z: -(p * f(math.exp(z)) - price * math.exp(z)),
        bounds=(-30, 30),
        method="bounded",
        options={"xatol": 1e-12},
    )
    return f(math.exp(float(res.x)))


def supply_leontief(p: float, degree: float, reqs: list[float], prices: list[float]) -> float:
    """Profit-maximising output of (min(x_i / a_i))^degree: the least cost of
    each output by linprog, then the best output by scalar maximisation."""

    def cost(q: float) -> float:
        need = q ** (1 / degree)
        a_ub = [[-1.0 if i == j else 0.0 for j in range(len(reqs))] for i in range(len(reqs))]
        return cheapest(prices, a_ub, [-a * need for a in reqs])

    res = minimize_scalar(
        lambda z: -(p * math.exp(z) - cost(math.exp(z))),
        bounds=(-20, 20),
        method="bounded",
        options={"xatol": 1e-11},
    )
    return math.exp(float(res.x))


def price_elasticity_reference(row: Row) -> float:
    """Re-optimise profit at the input price a small log step either side."""
    v = env(row)
    tid = row["template_id"]
    h = 0.01
    steps = (math.exp(h), math.exp(-h))
    if tid == "ipe.cd-brewery":
        f = cd(v["A"], [v["a"], v["b"]])
        q = [supply_two_inputs(f, v["p"], v["r"], v["w"] * s) for s in steps]
    elif tid == "ipe.sr-orchard":
        q = [supply_one_input(lambda x: v["A"] * x ** v["b"], v["p"], v["pf"] * s) for s in steps]
    elif tid == "ipe.ces-textile":
        f = ces(1.0, v["wk"], 1 - v["wk"], v["rho"], v["e"])
        q = [supply_two_inputs(f, v["p"], v["r"], v["w"] * s) for s in steps]
    elif tid == "ipe.leontief-courier":
        q = [
            supply_leontief(v["p"], v["v"], [v["av"], v["ah"]], [v["r"], v["w"] * s]) for s in steps
        ]
    else:
        raise AssertionError(f"no reference for {tid}")
    return (math.log(q[0]) - math.log(q[1])) / (2 * h)


def diminishing_reference(row: Row) -> int:
    v = env(row)
    tid = row["template_id"]
    if tid == "dmp.cd-factory":
        return curvature_class(lambda x: cd(v["A"], [v["a"], v["b"]])(4.0, x))
    if tid == "dmp.cd-farm":
        return curvature_class(lambda x: cd(v["A"], [v["a"], v["b"], v["c"]])(5.0, 7.0, x))
    if tid == "dmp.power-clinic":
        return curvature_class(lambda x: v["A"] * x ** v["b"])
    if tid == "dmp.table-kitchen":
        q = [v["q1"], v["q2"], v["q3"], v["q4"]]
        # The table itself: the extra meals of each further cook.
        extra = np.diff(q)
        assert q[0] == v["a"] and np.all(extra > 0)
        steps = np.diff(extra)
        return 1 if np.all(steps == 0) else 0 if np.all(steps < 0) else 2
    raise AssertionError(f"no reference for {tid}")


def returns_reference(row: Row) -> int:
    v = env(row)
    tid = row["template_id"]
    if tid == "rts.cd-factory":
        return scale_class(cd(v["A"], [v["a"], v["b"]]), (3.0, 5.0))
    if tid == "rts.cd-farm":
        return scale_class(cd(v["A"], [v["a"], v["b"], v["c"]]), (3.0, 5.0, 2.0))
    if tid == "rts.ces-power":
        return scale_class(ces(v["A"], v["wk"], 1 - v["wk"], v["rho"], v["e"]), (3.0, 5.0))
    if tid == "rts.leontief-bakery":
        return scale_class(lambda k, n: min(v["c1"] * k, v["c2"] * n) ** v["v"], (3.0, 5.0))
    if tid == "rts.linear-print":
        return scale_class(
            lambda k, n: v["c1"] * k + v["c2"] * n + v["c3"] * k ** v["g"] * n ** v["g"],
            (3.0, 5.0),
        )
    raise AssertionError(f"no reference for {tid}")


def of(rows: list[Row], element: str) -> list[Row]:
    picked = [r for r in rows if r["element"] == element]
    assert len(picked) >= 100, element
    return picked


def test_marginal_products_are_the_derivatives(rows: list[Row]) -> None:
    for row in of(rows, "steer-me.A.23"):
        check_numeric(row, marginal_product_reference(row))


def test_input_price_elasticities_by_re_optimising(rows: list[Row]) -> None:
    picked = of(rows, "steer-me.A.24")
    for row in picked[::3]:  # every third row: each check solves four optimisations
        reference = price_elasticity_reference(row)
        # The step is finite and the optimisers stop short: compare loosely,
        # then check the shown key against the exact answer_value.
        assert float(row["answer_value"]) == pytest.approx(reference, abs=1e-4), row["template_id"]
        option, places = shown(row["options"][row["correct_index"]])
        assert abs(option - float(row["answer_value"])) <= 0.5 * 10.0**-places + 1e-9


def test_output_elasticities_are_log_derivatives(rows: list[Row]) -> None:
    for row in of(rows, "steer-me.A.25"):
        check_numeric(row, output_elasticity_reference(row))


def test_elasticities_of_substitution_are_log_ratio_derivatives(rows: list[Row]) -> None:
    for row in of(rows, "steer-me.A.26"):
        check_numeric(row, substitution_reference(row))


def test_average_and_marginal_costs_from_cost_minimisation(rows: list[Row]) -> None:
    for row in of(rows, "steer-me.A.28"):
        check_numeric(row, cost_reference(row))


def test_diminishing_marginal_product_keys_follow_the_curvature(rows: list[Row]) -> None:
    picked = of(rows, "steer-me.A.27")
    seen = [0, 0, 0]
    for row in picked:
        cls = diminishing_reference(row)
        seen[cls] += 1
        assert row["options"][row["correct_index"]].startswith(CLASSES_DMP[cls]), row
        assert row["answer_value"] is None
    # The key class is drawn: each class is the key about a third of the time.
    assert min(seen) >= len(picked) / 5, seen


def test_returns_to_scale_keys_follow_scaled_output(rows: list[Row]) -> None:
    picked = of(rows, "steer-me.A.29")
    seen = [0, 0, 0]
    for row in picked:
        cls = returns_reference(row)
        seen[cls] += 1
        assert row["options"][row["correct_index"]] == f"{CLASSES_RTS[cls]} returns to scale"
    assert min(seen) >= len(picked) / 5, seen


def test_every_template_is_checked(rows: list[Row]) -> None:
    """A template added later must get a reference here (the dispatchers
    raise on an unknown id, so each template appears in the bank)."""
    ids = {r["template_id"] for r in rows}
    assert len(ids) >= 30, sorted(ids)


def test_named_distractors_are_their_errors(rows: list[Row]) -> None:
    """Spot-check named errors against plain recomputations."""
    checked = 0
    for row in rows:
        v = env(row)
        for text, tag in zip(row["options"], row["option_tags"], strict=True):
            if tag == "used_average_product" and row["template_id"] == "mp.cd-factory":
                ref = v["A"] * v["K"] ** v["a"] * v["L"] ** v["b"] / v["L"]
            elif tag == "swapped_inputs" and row["template_id"].startswith("oe."):
                ref = 1 - output_elasticity_reference(row)
            else:
                continue
            option, places = shown(text)
            assert abs(option - ref) <= 0.5 * 10.0**-places + 1e-9, (row["template_id"], tag)
            checked += 1
    assert checked >= 20


# --- the closed forms against the references --------------------------------

exponent = st.floats(0.05, 1.5)
level = st.floats(0.5, 200.0)
weight = st.floats(0.05, 0.95)
rho = st.sampled_from([-3.0, -1.0, -0.5, -0.2, 0.2, 0.5, 0.8])


@settings(max_examples=200, deadline=None)
@given(st.floats(0.5, 50.0), exponent, exponent, level, level)
def test_cd_marginal_product(tfp: float, ex: float, eo: float, x: float, o: float) -> None:
    ref = derivative(lambda z: tfp * z**ex * o**eo, x)
    assert pf.pf_cd_mp(tfp, ex, eo, x, o) == pytest.approx(ref, rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.floats(0.5, 50.0), weight, rho, level, level)
def test_ces_marginal_product_and_elasticity(
    tfp: float, w: float, r: float, x: float, o: float
) -> None:
    f = ces(tfp, w, 1 - w, r, 1 / r)
    assert pf.pf_ces_mp(tfp, w, r, x, o) == pytest.approx(
        derivative(lambda z: f(z, o), x), rel=1e-5
    )
    assert pf.pf_ces_output_elasticity(w, r, x, o) == pytest.approx(
        log_derivative(lambda z: f(z, o), x), rel=1e-6, abs=1e-9
    )


@settings(max_examples=100, deadline=None)
@given(st.floats(0.5, 50.0), weight, rho, st.floats(0.3, 3.0), st.floats(0.2, 20.0))
def test_ces_sigma_is_the_numerical_elasticity(
    tfp: float, w: float, r: float, degree: float, ratio: float
) -> None:
    f = ces(tfp, w, 1 - w, r, degree / r)
    assert pf.pf_ces_sigma(r) == pytest.approx(sigma_numerically(trs_of(f), ratio), rel=1e-5)


@settings(max_examples=100, deadline=None)
@given(st.floats(0.2, 5.0), st.floats(0.2, 4.0), st.floats(0.2, 5.0), st.floats(1.2, 5.0))
def test_arc_sigma_of_a_constant_elasticity_schedule(
    c: float, p: float, r1: float, m: float
) -> None:
    # Along TRS = c r^p every arc elasticity is 1 / p.
    r2 = r1 * m
    assert pf.pf_arc_sigma(r1, r2, c * r1**p, c * r2**p) == pytest.approx(1 / p, rel=1e-9)


@settings(max_examples=200, deadline=None)
@given(st.floats(1.0, 100.0), st.floats(1.0, 100.0), level, level)
def test_linear_output_elasticity(cx: float, co: float, x: float, o: float) -> None:
    ref = log_derivative(lambda z: cx * z + co * o, x)
    assert pf.pf_linear_output_elasticity(cx, co, x, o) == pytest.approx(ref, rel=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.floats(10.0, 200.0), st.floats(0.05, 3.0), st.floats(0.5, 40.0))
def test_quadratic_marginal_product_and_elasticity(a: float, b: float, x: float) -> None:
    f = lambda z: a * z - b * z * z  # noqa: E731
    assert pf.pf_quad_mp(a, b, x) == pytest.approx(derivative(f, x), rel=1e-6, abs=1e-6)
    if f(x) > 1e-3 * a * x:  # away from zero output, where logs can be differenced
        assert pf.pf_quad_output_elasticity(a, b, x) == pytest.approx(
            log_derivative(f, x), rel=1e-5, abs=1e-6
        )


@settings(max_examples=100, deadline=None)
@given(
    st.floats(10.0, 2000.0),
    st.floats(5.0, 50.0),
    st.floats(1.0, 20.0),
    st.floats(0.3, 1.5),
    st.floats(5.0, 500.0),
)
def test_short_run_costs(fixed: float, wage: float, tfp: float, b: float, q: float) -> None:
    def cost(x: float) -> float:
        return fixed + wage * labour_for(x, lambda n: tfp * n**b)

    assert pf.pf_sr_ac(fixed, wage, tfp, b, q) == pytest.approx(cost(q) / q, rel=1e-8)
    assert pf.pf_sr_mc(wage, tfp, b, q) == pytest.approx(derivative(cost, q), rel=1e-5)


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 100.0), st.floats(0.5, 5.0), st.floats(1.0, 100.0), st.floats(0.5, 5.0))
def test_linear_marginal_cost(p1: float, y1: float, p2: float, y2: float) -> None:
    def fuel(q: float) -> float:
        return cheapest([p1, p2], [[-y1, -y2]], [-q])

    assert pf.pf_linear_mc(p1, y1, p2, y2) == pytest.approx(fuel(11.0) - fuel(10.0), rel=1e-6)


@settings(max_examples=100, deadline=None)
@given(st.floats(1.0, 50.0), st.floats(10.0, 5000.0), st.floats(1.0, 20.0))
def test_minimum_average_cost(wage: float, fixed: float, tfp: float) -> None:
    qs = np.linspace(0.01, 50, 200_001) * tfp * math.sqrt(fixed / wage)
    grid = ((fixed + wage * (qs / tfp) ** 2) / qs).min()
    assert pf.pf_sqrt_min_ac(wage, fixed, tfp) == pytest.approx(grid, rel=1e-6)


@settings(max_examples=25, deadline=None)
# Exponents summing to at most 0.9: decreasing returns, as the templates draw
# them (at constant returns the supply is undefined and, near it, the numerical
# re-optimisation is ill-conditioned).
@given(st.floats(0.05, 0.45), st.floats(0.05, 0.45), st.floats(1.0, 40.0), st.floats(1.0, 40.0))
def test_cd_input_price_elasticity_by_re_optimising(a: float, b: float, r: float, w: float) -> None:
    f = cd(3.0, [a, b])
    h = 0.01
    q = [supply_two_inputs(f, 10.0, r, w * math.exp(s)) for s in (h, -h)]
    reference = (math.log(q[0]) - math.log(q[1])) / (2 * h)
    assert pf.pf_cd_input_price_elasticity(b, a + b) == pytest.approx(reference, abs=1e-4)


@settings(max_examples=25, deadline=None)
@given(weight, st.sampled_from([-1.0, -0.5, 0.3, 0.5]), st.floats(0.3, 0.85), st.floats(2.0, 40.0))
def test_ces_input_price_elasticity_by_re_optimising(
    wl: float, r_: float, degree: float, w: float
) -> None:
    f = ces(1.0, 1 - wl, wl, r_, degree / r_)
    h = 0.01
    q = [supply_two_inputs(f, 50.0, 10.0, w * math.exp(s)) for s in (h, -h)]
    reference = (math.log(q[0]) - math.log(q[1])) / (2 * h)
    got = pf.pf_ces_input_price_elasticity(wl, r_, degree, w, 10.0)
    assert got == pytest.approx(reference, abs=2e-4)


@settings(max_examples=25, deadline=None)
@given(st.floats(0.3, 3.0), st.floats(0.3, 3.0), st.floats(0.3, 0.85), st.floats(2.0, 40.0))
def test_leontief_input_price_elasticity_by_re_optimising(
    ax: float, ao: float, degree: float, px: float
) -> None:
    h = 0.01
    q = [supply_leontief(50.0, degree, [ax, ao], [px * math.exp(s), 10.0]) for s in (h, -h)]
    reference = (math.log(q[0]) - math.log(q[1])) / (2 * h)
    got = pf.pf_leontief_input_price_elasticity(ax, ao, degree, px, 10.0)
    assert got == pytest.approx(reference, abs=2e-4)


def test_degenerate_draws_are_rejected() -> None:
    with pytest.raises(ValueError):
        pf.pf_cd_output(2.0, 0.5, 0.5, 0.0, 3.0)
    with pytest.raises(ValueError):
        pf.pf_ces_output(2.0, 0.5, 0.0, 1.0, 3.0)
    with pytest.raises(ValueError):
        pf.pf_quad_output_elasticity(10.0, 1.0, 10.0)
    with pytest.raises(ValueError):
        pf.pf_linear_output_elasticity(1.0, 1.0, 0.0, 0.0)
    with pytest.raises(ValueError):
        pf.pf_cd_input_price_elasticity(0.5, 1.0)  # constant returns: no interior supply
    with pytest.raises(ValueError):
        pf.pf_ces_input_price_elasticity(0.5, 0.5, 1.2, 10.0, 10.0)


# --- the shortcut audit --------------------------------------------------------


@pytest.fixture(scope="module")
def audit_bank() -> pa.Table:
    pytest.importorskip("sklearn")
    return generate_bank(templates=own_templates(), per_cell=140, seed=7)


@pytest.mark.parametrize("element", ELEMENTS)
def test_element_passes_the_shortcut_audit(audit_bank: pa.Table, element: str) -> None:
    _, failures = audit_failures(audit_bank, [element], source="steer-me-2.1", seed=7, strict=True)
    assert not [f for f in failures if f.startswith(element)], failures
