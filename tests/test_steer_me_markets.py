"""STEER-ME market aggregation, factor markets, equilibrium prices and comparative statics
(A.39-A.48): every key of a seeded bank is recomputed from the drawn parameters by an
independent numerical method (each agent's problem solved by a bounded scalar optimiser,
markets cleared by root finding, marginal products by finite differences), never by the
closed forms of steer.econ._markets; the closed forms are property-tested against the same
references; each element's bank passes the shortcut audit.
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
from steer.econ import _markets as mk
from steer.generate import generate_bank

pytest.importorskip("scipy")
pytest.importorskip("sklearn")
from scipy.optimize import brentq, minimize_scalar

Row = dict[str, Any]
ELEMENTS = [
    "steer-me.A.39",
    "steer-me.A.40",
    "steer-me.A.41",
    "steer-me.A.42",
    "steer-me.A.43",
    "steer-me.A.44",
    "steer-me.A.45",
    "steer-me.A.46",
    "steer-me.A.47",
    "steer-me.A.48",
]


# ---------------------------------------------------------------- independent references


def best(objective: Callable[[float], float], low: float, high: float) -> float:
    """The maximiser of `objective` on [low, high], by a bounded scalar search that also
    compares the end points (corners are where aggregate curves kink)."""
    res = minimize_scalar(
        lambda x: -objective(x), bounds=(low, high), method="bounded", options={"xatol": 1e-10}
    )
    candidates = [low, high, float(res.x)]
    return max(candidates, key=objective)


def buyer_quantity(a: float, b: float, price: float) -> float:
    """A buyer with quasilinear utility (a/b)q − q²/(2b) − p·q (whose demand is a − b·p)
    chooses q ≥ 0."""
    return best(lambda q: (a / b) * q - q * q / (2 * b) - price * q, 0.0, max(a, 1.0) * 2)


def clearing_price(excess: Callable[[float], float], low: float, high: float) -> float:
    """The root of market excess demand on [low, high]."""
    return float(brentq(excess, low, high, xtol=1e-12, rtol=1e-13))


def ref_eq_linear(env: dict[str, float]) -> float:
    nd, a, b, ns, s, d = (env[k] for k in ("nd", "a", "b", "ns", "s", "d"))

    def seller(p: float) -> float:
        # A firm with cost (q²/(2d)) + s·q supplies where price equals marginal cost, if positive.
        return best(lambda q: p * q - q * q / (2 * d) - s * q, 0.0, d * (p + 1) + 10)

    return clearing_price(lambda p: nd * buyer_quantity(a, b, p) - ns * seller(p), 1e-9, a / b)


def ref_eq_ce(env: dict[str, float]) -> float:
    nd, a, eps, ns, k, eta = (env[key] for key in ("nd", "A", "eps", "ns", "k", "eta"))
    # Excess demand in logs, so the root finder sees a well-scaled monotone function.
    return math.exp(
        clearing_price(
            lambda lp: (
                math.log(nd * a * math.exp(-eps * lp)) - math.log(ns * k * math.exp(eta * lp))
            ),
            -200,
            200,
        )
    )


def ref_inelastic_price(env: dict[str, float]) -> float:
    # The new demand curve meets a vertical supply curve at Q.
    a1, b, q = env["a1"], env["b"], env["Q"]
    return clearing_price(lambda p: (a1 - b * p) - q, 0.0, a1 / b)


def ref_elastic_quantity(env: dict[str, float]) -> float:
    # A horizontal supply at c is the limit of ever steeper supply lines k·(p − c): clear the
    # market for growing k and extrapolate the traded quantity (it moves by O(1/k)).
    a1, b, c = env["a1"], env["b"], env["c"]

    def traded(k: float) -> float:
        p = clearing_price(lambda p: (a1 - b * p) - k * (p - c), c - 1, a1 / b)
        return a1 - b * p

    q1, q2 = traded(1e6), traded(2e6)
    return 2 * q2 - q1


def ref_fixed_factor_rent(env: dict[str, float]) -> float:
    # The shifted demand meets the vertical supply of the fixed stock.
    al1, be, stock = env["al1"], env["be"], env["L"]
    return clearing_price(lambda r: (al1 - be * r) - stock, 0.0, al1 / be)


def ref_fixed_factor_net_rent(env: dict[str, float]) -> float:
    # Owners supply L + e·(net rent − r0) for a vanishing slope e; users pay r, owners keep
    # r − t. Clear for two small slopes and extrapolate to the vertical supply.
    al, be, stock, t = env["al"], env["be"], env["L"], env["t"]
    r0 = clearing_price(lambda r: (al - be * r) - stock, 0.0, al / be)

    def kept(e: float) -> float:
        r = clearing_price(lambda r: (al - be * r) - (stock + e * (r - t - r0)), 0.0, al / be)
        return r - t

    k1, k2 = kept(1e-4), kept(2e-4)
    return 2 * k1 - k2


def ref_demand_direct(env: dict[str, float]) -> float:
    p = env["p"]
    return sum(env[f"n{i}"] * buyer_quantity(env[f"a{i}"], env[f"b{i}"], p) for i in (1, 2, 3))


def ref_demand_inverse(env: dict[str, float]) -> float:
    # A buyer whose marginal value of the q-th unit is c − d·q maximises c·q − d·q²/2 − p·q.
    p = env["p"]
    total = 0.0
    for i in (1, 2, 3):
        c, d = env[f"c{i}"], env[f"d{i}"]
        total += env[f"n{i}"] * best(lambda q, c=c, d=d: c * q - d * q * q / 2 - p * q, 0.0, c / d)
    return total


def ref_supply_quadratic(env: dict[str, float]) -> float:
    # Each firm maximises p·q − c·q² − v·q over q ≥ 0 (no fixed cost: shutting down is q = 0).
    p = env["p"]
    total = 0.0
    for i in (1, 2, 3):
        c, v = env[f"c{i}"], env[f"v{i}"]
        total += env[f"n{i}"] * best(lambda q, c=c, v=v: p * q - c * q * q - v * q, 0.0, p / c)
    return total


def ref_supply_linear(env: dict[str, float]) -> float:
    # Supply d·(p − s) above s is the choice of a firm with cost s·q + q²/(2d).
    p = env["p"]
    total = 0.0
    for i in (1, 2, 3):
        d, s = env[f"d{i}"], env[f"s{i}"]
        q = best(lambda q, d=d, s=s: p * q - s * q - q * q / (2 * d), 0.0, d * p + 1)
        total += env[f"n{i}"] * q
    return total


def best_positive(objective: Callable[[float], float]) -> float:
    """The maximiser over x > 0 of a function unimodal in log x, searched in log x."""
    res = minimize_scalar(
        lambda u: -objective(math.exp(u)),
        bounds=(-30, 30),
        method="bounded",
        options={"xatol": 1e-11},
    )
    return math.exp(float(res.x))


def ref_factor_cd(env: dict[str, float]) -> float:
    # Each firm maximises P·A·x^al − w·x.
    p, w, al = env["P"], env["w"], env["al"]
    return sum(
        env[f"n{i}"] * best_positive(lambda x, a=env[f"A{i}"]: p * a * x**al - w * x)
        for i in (1, 2)
    )


def ref_factor_quadratic(env: dict[str, float]) -> float:
    # Each firm maximises P·(a·x − h·x²) − w·x over x ≥ 0.
    p, w = env["P"], env["w"]
    total = 0.0
    for i in (1, 2, 3):
        a, h = env[f"a{i}"], env[f"h{i}"]
        x = best(lambda x, a=a, h=h: p * (a * x - h * x * x) - w * x, 0.0, a / h)
        total += env[f"n{i}"] * x
    return total


def safe_log(x: float) -> float:
    return math.log(max(x, 1e-300))


def ref_labor_cd(env: dict[str, float]) -> float:
    # Each household chooses hours h in [0, T] to maximise s·ln(w·h + m) + (1 − s)·ln(T − h).
    w, t, s = env["w"], env["T"], env["s"]
    total = 0.0
    for i in (1, 2, 3):
        m = env[f"m{i}"]
        h = best(lambda h, m=m: s * safe_log(w * h + m) + (1 - s) * safe_log(t - h), 0.0, t)
        total += env[f"n{i}"] * h
    return total


def ref_labor_ql(env: dict[str, float]) -> float:
    # Each household chooses hours h in [0, T] to maximise w·h + b·ln(T − h).
    w, t = env["w"], env["T"]
    total = 0.0
    for i in (1, 2, 3):
        b = env[f"b{i}"]
        h = best(lambda h, b=b: w * h + b * safe_log(t - h), 0.0, t)
        total += env[f"n{i}"] * h
    return total


def marginal(f: Callable[[float], float], x: float) -> float:
    """A central finite difference with a step relative to x."""
    h = 1e-5 * max(1.0, abs(x))
    return (f(x + h) - f(x - h)) / (2 * h)


def factor_incomes(
    output: Callable[[float, float], float], k: float, labor: float
) -> tuple[float, float, float]:
    """Output and what capital and labor earn when each is paid its marginal product."""
    mpk = marginal(lambda x: output(x, labor), k)
    mpl = marginal(lambda x: output(k, x), labor)
    return output(k, labor), mpk * k, mpl * labor


def ref_shares_cd(labor: bool) -> Callable[[dict[str, float]], float]:
    def ref(env: dict[str, float]) -> float:
        a, al = env["A"], env["al"]
        _, cap, lab = factor_incomes(lambda k, n: a * k**al * n ** (1 - al), env["K"], env["L"])
        return lab if labor else cap

    return ref


def ref_shares_ces(labor: bool) -> Callable[[dict[str, float]], float]:
    def ref(env: dict[str, float]) -> float:
        a, rho = env["a"], env["rho"]

        def output(k: float, n: float) -> float:
            return float((a * k**rho + (1 - a) * n**rho) ** (1 / rho))

        y, cap, lab = factor_incomes(output, env["K"], env["L"])
        return (lab if labor else cap) / y  # a fraction, shown as a percentage

    return ref


def cobb_douglas(a: float, al: float) -> Callable[[float, float], float]:
    return lambda k, n: a * k**al * n ** (1 - al)


def ref_tfp_percent(wage: bool) -> Callable[[dict[str, float]], float]:
    # Factor prices are marginal products by finite differences, before (A = K = L = 1) and
    # after (A and the growing factor scaled up).
    def ref(env: dict[str, float]) -> float:
        al, x, y = env["al"], env["x"] / 100, env["y"] / 100

        def price(a: float, k: float, n: float) -> float:
            f = cobb_douglas(a, al)
            return marginal(lambda v: f(k, v), n) if wage else marginal(lambda v: f(v, n), k)

        before = price(1.0, 1.0, 1.0)
        after = price(1 + x, 1.0, 1 + y) if wage else price(1 + x, 1 + y, 1.0)
        return 100 * (after / before - 1)

    return ref


def ref_tfp_growth(wage: bool) -> Callable[[dict[str, float]], float]:
    # The stated factor price scaled by the marginal products' ratio after and before.
    change = ref_tfp_percent(wage)
    return lambda env: env["p0"] * (1 + change(env) / 100)


def ref_tfp_level(wage: bool) -> Callable[[dict[str, float]], float]:
    # Calibrate A from the stated output, raise it, and take the marginal product.
    def ref(env: dict[str, float]) -> float:
        al, k, n = env["al"], env["K"], env["L"]
        a0 = env["Y0"] / (k**al * n ** (1 - al))
        f = cobb_douglas(a0 * (1 + env["x"] / 100), al)
        return marginal(lambda v: f(k, v), n) if wage else marginal(lambda v: f(v, n), k)

    return ref


REFERENCES: dict[str, Callable[[dict[str, float]], float]] = {
    "tfps.migration": ref_tfp_growth(wage=True),
    "tfps.investment": ref_tfp_growth(wage=False),
    "tfps.tractors": ref_tfp_level(wage=False),
    "tfps.hospitals": ref_tfp_level(wage=True),
    "fs.country": ref_shares_cd(labor=True),
    "fs.farms": ref_shares_cd(labor=False),
    "fs.mining": ref_shares_ces(labor=True),
    "fs.software": ref_shares_ces(labor=False),
    "ls.retail": ref_labor_cd,
    "ls.nursing": ref_labor_cd,
    "ls.hotels": ref_labor_ql,
    "ls.drivers": ref_labor_ql,
    "ld.kitchens": ref_factor_cd,
    "ld.clinics": ref_factor_cd,
    "ld.orchards": ref_factor_quadratic,
    "ld.tailors": ref_factor_quadratic,
    "kd.presses": ref_factor_cd,
    "kd.excavators": ref_factor_cd,
    "kd.servers": ref_factor_quadratic,
    "kd.vans": ref_factor_quadratic,
    "sa.bread": ref_supply_quadratic,
    "sa.chairs": ref_supply_quadratic,
    "sa.tomatoes": ref_supply_linear,
    "sa.pellets": ref_supply_linear,
    "da.coffee": ref_demand_direct,
    "da.cinema": ref_demand_direct,
    "da.buspasses": ref_demand_inverse,
    "da.propane": ref_demand_inverse,
    "ff.farmland": ref_fixed_factor_rent,
    "ff.spectrum": ref_fixed_factor_rent,
    "ff.medallions": ref_fixed_factor_net_rent,
    "ff.offices": ref_fixed_factor_net_rent,
    "xs.apartments": ref_inelastic_price,
    "xs.stadium": ref_inelastic_price,
    "xs.bolts": ref_elastic_quantity,
    "xs.coffee": ref_elastic_quantity,
    "eq.strawberries": ref_eq_linear,
    "eq.rides": ref_eq_linear,
    "eq.tutoring": ref_eq_linear,
    "eq.firewood": ref_eq_linear,
    "eq.wheat": ref_eq_ce,
    "eq.vaccines": ref_eq_ce,
}


# ---------------------------------------------------------------- the bank


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=25, seed=5)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def shown(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


def decimals_of(option: str) -> int:
    body = option.replace("$", "").replace(",", "").replace("%", "")
    return len(body.split(".")[1]) if "." in body else 0


def test_every_template_has_a_reference(rows: list[Row]) -> None:
    assert {r["template_id"] for r in rows} <= set(REFERENCES)
    for element in ELEMENTS:
        assert any(r["element"] == element for r in rows), element


def test_keys_and_answer_values_match_independent_computations(rows: list[Row]) -> None:
    bad = []
    for r in rows:
        env = json.loads(r["payload"])["env"]
        ref = REFERENCES[r["template_id"]](env)
        key = r["options"][r["correct_index"]]
        places = decimals_of(key)
        # The key shows the reference rounded to the shown places (a percentage
        # form shows the fraction times 100), and the free-text key is the
        # unrounded reference.
        scale = 100.0 if r["answer_form"] == "percent" else 1.0
        if r["answer_form"] == "percent":
            assert key.endswith("%"), key
        if abs(shown(key) - scale * ref) > 0.5 * 10.0**-places + 1e-6 * max(1.0, abs(scale * ref)):
            bad.append(f"{r['question_id']}: option {key} vs reference {ref:.6g}")
        if not math.isclose(r["answer_value"], ref, rel_tol=1e-5, abs_tol=1e-6):
            bad.append(f"{r['question_id']}: answer_value {r['answer_value']} vs {ref:.8g}")
    assert not bad, bad[:10]


def test_distractors_are_tagged_and_differ_from_the_key(rows: list[Row]) -> None:
    for r in rows:
        tags = r["option_tags"]
        assert tags[r["correct_index"]] == "key"
        assert sum(t == "key" for t in tags) == 1
        values = [shown(o) for o in r["options"]]
        assert len(set(values)) == len(values), r["question_id"]
        assert len(values) >= 4


@pytest.mark.parametrize("element", ELEMENTS)
def test_each_element_passes_the_shortcut_audit(element: str) -> None:
    bank = generate_bank([element], per_cell=140, seed=7)
    _, bad = audit_failures(bank, [element], source=element, seed=7, strict=True)
    assert not bad, bad


# ---------------------------------------------------------------- closed forms vs references

positive = st.floats(min_value=0.25, max_value=50, allow_nan=False)


@settings(max_examples=60, deadline=None)
@given(
    nd=st.integers(1, 500),
    a=st.floats(5, 100),
    b=st.floats(0.2, 4),
    ns=st.integers(1, 200),
    s=st.floats(0.1, 20),
    d=st.floats(0.2, 10),
)
def test_linear_equilibrium_price_clears_the_market(
    nd: int, a: float, b: float, ns: int, s: float, d: float
) -> None:
    env = {"nd": nd, "a": a, "b": b, "ns": ns, "s": s, "d": d}
    try:
        p = mk.mkt_linear_eq_price(nd, a, b, ns, s, d)
    except ValueError:
        # Rejected only when the curves do not cross inside both positive ranges.
        assert a / b <= s + 1e-9
        return
    assert math.isclose(p, ref_eq_linear(env), rel_tol=1e-6, abs_tol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    nd=st.integers(1, 5000),
    a=positive,
    eps=st.floats(0.1, 3),
    ns=st.integers(1, 100),
    k=positive,
    eta=st.floats(0.1, 3),
)
def test_constant_elasticity_price_clears_the_market(
    nd: int, a: float, eps: float, ns: int, k: float, eta: float
) -> None:
    env = {"nd": nd, "A": a, "eps": eps, "ns": ns, "k": k, "eta": eta}
    p = mk.mkt_ce_eq_price(nd, a, eps, ns, k, eta)
    assert math.isclose(p, ref_eq_ce(env), rel_tol=1e-7)


groups3 = st.tuples(
    st.integers(1, 300),
    st.floats(1, 100),
    st.floats(0.2, 5),
    st.integers(1, 300),
    st.floats(1, 100),
    st.floats(0.2, 5),
    st.integers(1, 300),
    st.floats(1, 100),
    st.floats(0.2, 5),
)


def as_env(prefix: tuple[str, str, str], values: tuple[float, ...]) -> dict[str, float]:
    env: dict[str, float] = {}
    for i in range(3):
        for name, v in zip(prefix, values[3 * i : 3 * i + 3], strict=True):
            env[f"{name}{i + 1}"] = v
    return env


def close(a: float, b: float, scale: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6 * max(1.0, scale))


@settings(max_examples=40, deadline=None)
@given(g=groups3, p=st.floats(0.5, 60))
def test_aggregate_demand_closed_forms_match_buyers_choices(g: tuple[float, ...], p: float) -> None:
    env = {**as_env(("n", "a", "b"), g), "p": p}
    assert close(mk.mkt_linear_demand(p, *g), ref_demand_direct(env), sum(g[0::3]) * 100)
    env = {**as_env(("n", "c", "d"), g), "p": p}
    assert close(mk.mkt_inverse_demand(p, *g), ref_demand_inverse(env), sum(g[0::3]) * 500)


@settings(max_examples=40, deadline=None)
@given(g=groups3, p=st.floats(0.5, 120))
def test_aggregate_supply_closed_forms_match_firms_choices(g: tuple[float, ...], p: float) -> None:
    # Quadratic cost c·q² + v·q: groups (n, v, c) drawn as (n, 1-100, 0.2-5).
    quad = tuple(x for i in range(3) for x in (g[3 * i], g[3 * i + 2], g[3 * i + 1]))
    env = {**as_env(("n", "c", "v"), quad), "p": p}
    assert close(mk.mkt_quadratic_cost_supply(p, *quad), ref_supply_quadratic(env), 1e4)
    env = {**as_env(("n", "s", "d"), g), "p": p}
    assert close(mk.mkt_linear_supply(p, *g), ref_supply_linear(env), 1e4)


@settings(max_examples=40, deadline=None)
@given(
    p=st.floats(0.5, 20),
    w=st.floats(2, 80),
    al=st.floats(0.1, 0.7),
    a1=st.floats(1, 80),
    a2=st.floats(1, 80),
    n1=st.integers(1, 200),
    n2=st.integers(1, 200),
)
def test_cobb_douglas_factor_demand_matches_profit_maximisation(
    p: float, w: float, al: float, a1: float, a2: float, n1: int, n2: int
) -> None:
    env = {"P": p, "w": w, "al": al, "A1": a1, "A2": a2, "n1": n1, "n2": n2}
    got = mk.mkt_cd_factor_demand(p, w, al, n1, a1, n2, a2)
    assert math.isclose(got, ref_factor_cd(env), rel_tol=1e-6)


@settings(max_examples=40, deadline=None)
@given(g=groups3, p=st.floats(0.5, 10), w=st.floats(1, 200))
def test_quadratic_factor_demand_matches_profit_maximisation(
    g: tuple[float, ...], p: float, w: float
) -> None:
    # Groups (n, a, 2h) for the closed form; the reference reads h.
    env = {**as_env(("n", "a", "h"), g), "P": p, "w": w}
    doubled = tuple(x * 2 if i % 3 == 2 else x for i, x in enumerate(g))
    assert close(mk.mkt_quadratic_factor_demand(p, w, *doubled), ref_factor_quadratic(env), 1e4)


@settings(max_examples=40, deadline=None)
@given(
    w=st.floats(2, 80),
    t=st.floats(20, 120),
    s=st.floats(0.1, 0.9),
    ms=st.lists(st.floats(0, 8000), min_size=3, max_size=3),
    ns=st.lists(st.integers(1, 300), min_size=3, max_size=3),
)
def test_labor_supply_closed_forms_match_households_choices(
    w: float, t: float, s: float, ms: list[float], ns: list[int]
) -> None:
    env = {"w": w, "T": t, "s": s}
    args: list[float] = []
    for i in range(3):
        env[f"n{i + 1}"], env[f"m{i + 1}"], env[f"b{i + 1}"] = ns[i], ms[i], ms[i]
        args += [ns[i], ms[i]]
    scale = sum(ns) * t
    assert close(mk.mkt_cd_labor_supply(w, t, s, *args), ref_labor_cd(env), scale)
    assert close(mk.mkt_ql_labor_supply(w, t, *args), ref_labor_ql(env), scale)


@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(0.5, 10),
    k=st.floats(10, 5000),
    n=st.floats(10, 5000),
    al=st.floats(0.05, 0.95),
    weight=st.floats(0.05, 0.95),
    rho=st.sampled_from([-2.0, -1.0, -0.5, -0.25, 0.2, 0.5, 0.75]),
)
def test_factor_incomes_are_marginal_products(
    a: float, k: float, n: float, al: float, weight: float, rho: float
) -> None:
    _, _, lab = factor_incomes(cobb_douglas(a, al), k, n)
    assert math.isclose(mk.mkt_cd_labor_income(a, k, n, al), lab, rel_tol=1e-6)
    share = ref_shares_ces(labor=True)({"a": weight, "rho": rho, "K": k, "L": n})
    assert math.isclose(mk.mkt_ces_labor_share(weight, rho, k, n), share, rel_tol=1e-6)


@settings(max_examples=60, deadline=None)
@given(
    al=st.floats(0.05, 0.95),
    x=st.floats(-50, 50),
    y=st.floats(-50, 80),
    wage=st.booleans(),
)
def test_factor_price_change_matches_marginal_products(
    al: float, x: float, y: float, wage: bool
) -> None:
    env = {"al": al, "x": x, "y": y}
    got = 100 * mk.mkt_cd_price_change(x / 100, y / 100, -al if wage else -(1 - al))
    assert math.isclose(got, ref_tfp_percent(wage)(env), rel_tol=1e-5, abs_tol=1e-5)


@settings(max_examples=60, deadline=None)
@given(
    stock=st.floats(10, 10000),
    be=st.floats(0.1, 20),
    r0=st.floats(1, 1000),
    shift=st.floats(-500, 2000),
)
def test_fixed_supply_price_clears_the_market(
    stock: float, be: float, r0: float, shift: float
) -> None:
    al = stock + be * r0
    env = {"al1": al + shift, "be": be, "L": stock}
    try:
        got = mk.mkt_linear_fixed_supply_price(al / be, 1 / be, shift, stock)
    except ValueError:
        assert al + shift <= stock  # nothing is wanted at a positive price
        return
    assert math.isclose(got, ref_fixed_factor_rent(env), rel_tol=1e-7, abs_tol=1e-7)


@pytest.mark.parametrize(
    ("fn", "args"),
    [
        (mk.mkt_linear_demand, (5.0, 10.0, 20.0)),  # a group of two numbers
        (mk.mkt_inverse_demand, (5.0, 10.0, 20.0, 0.0)),  # a flat inverse demand
        (mk.mkt_quadratic_cost_supply, (5.0, 10.0, 0.0, 2.0)),  # constant marginal cost
        (mk.mkt_cd_factor_demand, (2.0, 10.0, 1.0, 5.0, 3.0)),  # exponent 1: no interior
        (mk.mkt_cd_labor_supply, (0.0, 80.0, 0.5, 10.0, 100.0)),  # zero wage
        (mk.mkt_linear_eq_price, (10.0, 5.0, 1.0, 10.0, 8.0, 2.0)),  # choke below shutdown
        (mk.mkt_ces_labor_share, (0.4, 0.0, 10.0, 10.0)),  # rho = 0 is Cobb-Douglas
        (mk.mkt_cd_price_change, (-1.0, 0.1, 0.5)),  # a level falling by 100%
        (mk.mkt_linear_fixed_supply_price, (10.0, 1.0, 0.0, 20.0)),  # no positive price
    ],
)
def test_degenerate_draws_are_rejected(fn: Callable[..., float], args: tuple[float, ...]) -> None:
    with pytest.raises(ValueError):
        fn(*args)
