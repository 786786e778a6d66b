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

import numpy as np
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
ELEMENTS = [f"steer-me.A.{n}" for n in range(49, 59)]
CHOICE_TEMPLATES = ("nd.", "fw.efficiency-check")
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


def ref_ps_linear_inverse(e: Env) -> float:
    return producer_surplus(lambda x: e["c"] + e["d"] * x, e["p"], e["p"] / e["d"] + 1)


def ref_ps_linear_direct(e: Env) -> float:
    # Direct supply Q = delta P - gamma: integrate quantity over prices from
    # where supply starts up to the price.
    start = root(lambda price: e["delta"] * price - e["gamma"], 0.0, 1e6)
    return area(lambda price: e["delta"] * price - e["gamma"], start, e["p"])


def ref_ps_firm(e: Env) -> float:
    # Revenue less variable cost at the profit-maximising output, found by a
    # bounded search over output (the fixed cost is sunk: it is no part of
    # producer surplus).
    def variable_cost(q: float) -> float:
        return e["c"] * q + e["e"] * q * q

    best = optimize.minimize_scalar(
        lambda q: -(e["p"] * q - variable_cost(q)),
        bounds=(0.0, e["p"] / e["e"]),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(-best.fun)


def ref_ps_quadratic(e: Env) -> float:
    return producer_surplus(
        lambda x: e["c"] + e["d"] * x * x, e["p"], math.sqrt(e["p"] / e["d"]) + 1
    )


def best_total_surplus(
    demand: Callable[[float], float], marginal_cost: Callable[[float], float], q_max: float
) -> tuple[float, float]:
    """The quantity that maximises the integral of (demand - marginal cost)
    from zero, by a bounded scalar search, and that largest total surplus."""

    def total(q: float) -> float:
        return area(lambda x: demand(x) - marginal_cost(x), 0.0, q)

    best = optimize.minimize_scalar(
        lambda q: -total(q), bounds=(0.0, q_max), method="bounded", options={"xatol": 1e-10}
    )
    return float(best.x), total(float(best.x))


def ref_es_total_linear(e: Env) -> float:
    return best_total_surplus(
        lambda x: e["a"] - e["b"] * x, lambda x: e["c"] + e["d"] * x, e["a"] / e["b"]
    )[1]


def ref_es_quantity_linear(e: Env) -> float:
    return best_total_surplus(
        lambda x: e["a"] - e["b"] * x, lambda x: e["c"] + e["d"] * x, e["a"] / e["b"]
    )[0]


def ref_es_total_curved_mc(e: Env) -> float:
    return best_total_surplus(
        lambda x: e["a"] - e["b"] * x, lambda x: e["c"] + e["e"] * x * x, e["a"] / e["b"]
    )[1]


def ref_es_constant_mc(e: Env) -> float:
    # Demand Q = alpha - beta P in inverse form, against a flat marginal cost.
    return best_total_surplus(
        lambda x: (e["alpha"] - x) / e["beta"], lambda x: e["mc"], e["alpha"]
    )[1]


def monopoly_dwl(
    demand: Callable[[float], float],
    marginal_cost: Callable[[float], float],
    q_max: float,
    cost: Callable[[float], float] | None = None,
) -> float:
    """Deadweight loss of a monopoly: the profit-maximising output by a bounded
    search (profit from `cost`, else from the integral of marginal cost), the
    efficient output by root finding, and the integral of demand less marginal
    cost over the units between them."""

    def profit(q: float) -> float:
        spent = cost(q) - cost(0.0) if cost else area(marginal_cost, 0.0, q)
        return demand(q) * q - spent

    qm = float(
        optimize.minimize_scalar(
            lambda q: -profit(q), bounds=(0.0, q_max), method="bounded", options={"xatol": 1e-10}
        ).x
    )
    qc = root(lambda x: demand(x) - marginal_cost(x), 0.0, q_max)
    return area(lambda x: demand(x) - marginal_cost(x), qm, qc)


def ref_dwl_linear_mc(e: Env) -> float:
    return monopoly_dwl(
        lambda x: e["a"] - e["b"] * x, lambda x: e["c"] + e["d"] * x, e["a"] / e["b"]
    )


def ref_dwl_cost_function(e: Env) -> float:
    # Marginal cost by a central finite difference of the stated cost function.
    def cost(q: float) -> float:
        return e["fc"] + e["c"] * q + e["hf"] * q * q

    step = 1e-3
    return monopoly_dwl(
        lambda x: e["a"] - e["b"] * x,
        lambda x: (cost(x + step) - cost(x - step)) / (2 * step),
        e["a"] / e["b"],
        cost,
    )


def ref_dwl_constant_mc(e: Env) -> float:
    return monopoly_dwl(lambda x: e["a"] - e["b"] * x, lambda x: e["c"], e["a"] / e["b"])


def ref_dwl_constant_mc_direct(e: Env) -> float:
    return monopoly_dwl(lambda x: (e["alpha"] - x) / e["beta"], lambda x: e["c"], e["alpha"])


def taxed_prices(e: Env) -> tuple[float, float]:
    """(buyers' price, sellers' price) under the per-unit tax, solved by root
    finding twice, once with the tax on sellers and once on buyers; the two
    must agree (the irrelevance of statutory incidence)."""
    b, d = e["b"], e["d"]

    def demanded(price: float) -> float:
        return (e["a"] - price) / b

    def supplied(price: float) -> float:
        return (price - e["c"]) / d

    hi = e["a"] + e["t"]
    # Sellers remit: buyers pay the market price P, sellers keep P - t.
    on_sellers = root(lambda price: demanded(price) - supplied(price - e["t"]), e["c"], hi)
    # Buyers remit: sellers get the market price P, buyers pay P + t.
    on_buyers = root(lambda price: demanded(price + e["t"]) - supplied(price), e["c"] - e["t"], hi)
    assert on_sellers == pytest.approx(on_buyers + e["t"], abs=1e-8)
    return on_sellers, on_buyers


def ref_tax_dwl(e: Env) -> float:
    buyers, _ = taxed_prices(e)
    taxed = (e["a"] - buyers) / e["b"]
    untaxed = root(lambda x: (e["a"] - e["b"] * x) - (e["c"] + e["d"] * x), 0.0, e["a"] / e["b"])
    return area(lambda x: (e["a"] - e["b"] * x) - (e["c"] + e["d"] * x), taxed, untaxed)


def argmax(f: Callable[[float], float], lo: float, hi: float) -> float:
    """Where f is largest on [lo, hi], by a bounded scalar search."""
    best = optimize.minimize_scalar(
        lambda x: -f(x), bounds=(lo, hi), method="bounded", options={"xatol": 1e-11}
    )
    return float(best.x)


def linear_hours(e: Env, wage: float) -> float:
    """Hours on the supply curve h = h0 + s w at a take-home wage, found as the
    root of the inverse supply curve less the wage."""
    return root(lambda h: (h - e["h0"]) / e["s"] - wage, e["h0"] - 1.0, e["h0"] + e["s"] * wage + 1)


def ref_ls_linear_hours(e: Env) -> float:
    return linear_hours(e, e["w"]) - linear_hours(e, e["w"] * (1 - e["tau"]))


def ref_ls_linear_dwl(e: Env) -> float:
    # The hours lost are worth the gross wage to the employer but cost the
    # worker only the supply price: integrate the gap over those hours.
    before, after = linear_hours(e, e["w"]), linear_hours(e, e["w"] * (1 - e["tau"]))
    return area(lambda h: e["w"] - (h - e["h0"]) / e["s"], after, before)


def ref_ls_isoelastic(e: Env) -> float:
    ex = 1 + 1 / e["eps"]

    def hours(wage: float) -> float:
        return argmax(
            lambda h: wage * h - e["k"] * h**ex / ex, 0.0, 10 * (wage / e["k"]) ** e["eps"] + 10
        )

    return 1 - hours(e["w"] * (1 - e["tau"])) / hours(e["w"])


def ref_ls_cobb_douglas(e: Env) -> float:
    wage = e["w"] * (1 - e["tau"])

    def utility(h: float) -> float:
        return e["al"] * math.log(wage * h + e["n"]) + (1 - e["al"]) * math.log(e["tt"] - h)

    return argmax(utility, 0.0, e["tt"] - 1e-9)


def cd_capital(share: float, scale: float, cost: float, tau: float, levy: float) -> float:
    """The capital stock that maximises profit after a tax tau on capital's
    output, found by a bounded search, when a levy on the capital already
    installed (`levy` of K0, fixed before the choice) is also due: it enters
    profit as a constant, so the search must land where it would without it."""
    k_before = argmax(lambda k: scale * k**share - cost * k, 0.0, 1e7)

    def profit(k: float) -> float:
        return (1 - tau) * scale * float(k**share) - cost * k - levy * k_before

    hi = 10 * (share * scale / cost) ** (1 / (1 - share)) + 10
    return argmax(profit, 0.0, hi)


def ref_cm_cd_capital(e: Env) -> float:
    return cd_capital(e["al"], e["A"], e["rho"], e["tau"], e["lam"])


def ref_cm_small_open(e: Env) -> float:
    # Any positive productivity will do: the percentage fall does not depend on it.
    before = cd_capital(e["al"], 1.0, e["rho"], 0.0, 0.0)
    after = cd_capital(e["al"], 1.0, e["rho"], e["tau"], e["lam"])
    return 1 - after / before


def ref_cm_linear_stock(e: Env) -> float:
    # Savers keep the return firms pay less the tax: solve for the stock where
    # demand's return less the tax meets supply's; the levy on existing
    # wealth does not enter either schedule.
    def gap(k: float) -> float:
        return (e["a"] - e["b"] * k) - e["t"] - (e["c"] + e["d"] * k)

    return root(gap, 0.0, e["a"] / e["b"])


def cd_demand_x(share: float, price: float, wealth: float) -> float:
    """Cobb-Douglas demand for x (y costs 1), by maximising utility along the
    budget line with a bounded search."""

    def utility(x: float) -> float:
        return share * math.log(x) + (1 - share) * math.log(wealth - price * x)

    return argmax(utility, 1e-9, wealth / price - 1e-9)


def cd_excess_demand_x(e: Env, price: float) -> float:
    demand = cd_demand_x(e["a1"], price, price * e["e1x"] + e["e1y"])
    demand += cd_demand_x(e["a2"], price, price * e["e2x"] + e["e2y"])
    return demand - (e["e1x"] + e["e2x"])


def ref_fw_price_cd(e: Env) -> float:
    return root(lambda price: cd_excess_demand_x(e, price), 1e-3, 1e3)


def ref_fw_allocation_cd(e: Env) -> float:
    price = ref_fw_price_cd(e)
    return cd_demand_x(e["a1"], price, price * e["e1x"] + e["e1y"])


def ref_fw_price_ql(e: Env) -> float:
    def demand(c: float, wealth: float, price: float) -> float:
        return argmax(lambda x: c * math.log(x) + wealth - price * x, 1e-9, wealth / price)

    def excess(price: float) -> float:
        total = demand(e["c1"], e["m1"] + price * e["e1x"], price)
        total += demand(e["c2"], e["m2"] + price * e["e2x"], price)
        return total - (e["e1x"] + e["e2x"])

    return root(excess, 1e-2, 1e3)


def ref_sw_cd(e: Env) -> float:
    """The transfer to person 1 (in units of y) after which competitive trade
    gives person 1 the target share of both goods. The market-clearing price
    is solved numerically; the transfer by root finding on person 1's
    numerical demand at that price; then the market must still clear with the
    transfer made (so the target is a competitive equilibrium)."""
    target = e["s"] * e["tx"]
    price = ref_fw_price_cd({"a1": e["a"], "a2": e["a"], **_cd_split(e, 0.0)})
    own = price * e["e1x"] + e["e1y"]
    everything = price * e["tx"] + e["ty"]

    def holding_after(transfer: float) -> float:
        return cd_demand_x(e["a"], price, own + transfer) - target

    transfer = root(holding_after, -own + 1e-6, everything - own - 1e-6)
    env = {"a1": e["a"], "a2": e["a"], **_cd_split(e, transfer)}
    assert cd_excess_demand_x(env, price) == pytest.approx(0.0, abs=1e-4)
    # The target is the same share of y too: person 1 spends the rest on y.
    assert own + transfer - price * target == pytest.approx(e["s"] * e["ty"], rel=1e-5)
    return transfer


def _cd_split(e: Env, transfer: float) -> Env:
    return {
        "e1x": e["e1x"],
        "e1y": e["e1y"] + transfer,
        "e2x": e["tx"] - e["e1x"],
        "e2y": e["ty"] - e["e1y"] - transfer,
    }


def ref_sw_ql(e: Env) -> float:
    """The money transfer to person 1 after which the numerically solved
    competitive equilibrium leaves person 1 with the target money (money is
    ample for both (twice c), so the market-clearing price is found once)."""
    e1x, e2x = e["e1x"], e["tx"] - e["e1x"]
    env = {"c1": e["c"], "c2": e["c"], "e1x": e1x, "e2x": e2x, "m1": 2 * e["c"], "m2": 2 * e["c"]}
    price = ref_fw_price_ql(env)
    bought = argmax(lambda x: e["c"] * math.log(x) - price * x, 1e-9, e["tx"])

    def money_after(transfer: float) -> float:
        return e["m1"] + transfer + price * (e1x - bought) - e["mt"]

    return root(money_after, -1e6, 1e6)


REFERENCES: dict[str, Callable[[Env], float]] = {
    "cs.linear-inverse": ref_cs_linear_inverse,
    "cs.linear-direct": ref_cs_linear_direct,
    "cs.quadratic": ref_cs_quadratic,
    "cs.exponential": ref_cs_exponential,
    "ps.linear-inverse": ref_ps_linear_inverse,
    "ps.linear-direct": ref_ps_linear_direct,
    "ps.firm": ref_ps_firm,
    "ps.quadratic": ref_ps_quadratic,
    "es.total-linear": ref_es_total_linear,
    "es.quantity-linear": ref_es_quantity_linear,
    "es.total-curved-mc": ref_es_total_curved_mc,
    "es.constant-mc": ref_es_constant_mc,
    "dwl.linear-mc": ref_dwl_linear_mc,
    "dwl.cost-function": ref_dwl_cost_function,
    "dwl.constant-mc": ref_dwl_constant_mc,
    "dwl.constant-mc-direct": ref_dwl_constant_mc_direct,
    "ti.buyers-price": lambda e: taxed_prices(e)[0],
    "ti.sellers-price": lambda e: taxed_prices(e)[1],
    "ti.switch-side": lambda e: taxed_prices(e)[0],
    "ti.deadweight-loss": ref_tax_dwl,
    "ls.linear-dwl": ref_ls_linear_dwl,
    "ls.linear-hours": ref_ls_linear_hours,
    "ls.isoelastic": ref_ls_isoelastic,
    "ls.cobb-douglas": ref_ls_cobb_douglas,
    "cm.cd-capital": ref_cm_cd_capital,
    "cm.linear-stock": ref_cm_linear_stock,
    "cm.linear-dwl": ref_tax_dwl,
    "cm.small-open": ref_cm_small_open,
    "fw.price-cd": ref_fw_price_cd,
    "fw.allocation-cd": ref_fw_allocation_cd,
    "fw.price-ql": ref_fw_price_ql,
    "sw.cd-share": ref_sw_cd,
    "sw.cd-bundle": ref_sw_cd,
    "sw.ql-housing": ref_sw_ql,
    "sw.ql-education": ref_sw_ql,
}


def choice_moved(lo: float, hi: float, bill_lo: float, bill_hi: float) -> float:
    """How far a tax moves a taxpayer's choice: the taxpayer picks x to
    maximise a quasilinear payoff 60x - x^2/2 less the tax bill, the bill
    being the line through the two stated (level, bill) points. Both optima
    are found by bounded search; the distance between them is returned."""
    slope = (bill_hi - bill_lo) / (hi - lo)

    def payoff(x: float, taxed: bool) -> float:
        bill = bill_lo + slope * (x - lo) if taxed else 0.0
        return 60 * x - x * x / 2 - bill

    return abs(
        argmax(lambda x: payoff(x, True), 0, 200) - argmax(lambda x: payoff(x, False), 0, 200)
    )


def ref_nd(e: Env) -> str:
    """The proposal that leaves the choice where it is (exactly one must)."""
    moved = [choice_moved(e["lo"], e["hi"], e[f"a{i}"], e[f"b{i}"]) for i in range(3)]
    still = [i for i, m in enumerate(moved) if m < 1e-6]
    assert len(still) == 1, moved
    assert all(m > 1e-3 for i, m in enumerate(moved) if i != still[0]), moved
    return f"Proposal {('Oak', 'Elm', 'Pine')[still[0]]}"


def pareto_improving_trade(e: Env) -> int:
    """Search a grid of small trades (person 1 gets dx of X and gives q * dx of
    Y) for one that raises both utilities: +1 if person 1 buying X does, -1 if
    selling does, 0 if none does (the holdings are Pareto efficient)."""

    def utility(share: float, x: Any, y: Any) -> Any:
        return share * np.log(x) + (1 - share) * np.log(y)

    dx, q = np.meshgrid(np.array([-0.02, -0.005, 0.005, 0.02]), np.linspace(0.01, 40.0, 4000))
    dy = q * dx
    x1, y1, x2, y2 = e["x1"] + dx, e["y1"] - dy, e["x2"] - dx, e["y2"] + dy
    ok = (x1 > 0) & (y1 > 0) & (x2 > 0) & (y2 > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        g1 = utility(e["a1"], x1, y1) - utility(e["a1"], e["x1"], e["y1"])
        g2 = utility(e["a2"], x2, y2) - utility(e["a2"], e["x2"], e["y2"])
    better = ok & (g1 > 1e-12) & (g2 > 1e-12)
    found = {1 if d > 0 else -1 for d in dx[better]}
    assert len(found) <= 1
    return found.pop() if found else 0


def ref_fw_efficiency(e: Env) -> str:
    return {
        0: "No trade happens: the holdings are Pareto efficient already",
        1: "The first person trades Y for X with the second; both gain",
        -1: "The first person trades X for Y with the second; both gain",
    }[pareto_improving_trade(e)]


CHOICE_REFERENCES: dict[str, Callable[[Env], str]] = {
    "fw.efficiency-check": ref_fw_efficiency,
    "nd.hours": ref_nd,
    "nd.farm": ref_nd,
    "nd.driving": ref_nd,
    "nd.electricity": ref_nd,
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
    assert {r["template_id"] for r in rows} <= set(REFERENCES) | set(CHOICE_REFERENCES)
    assert {r["element"] for r in rows} == set(ELEMENTS)


def test_numeric_keys_match_an_independent_computation(rows: list[Row]) -> None:
    checked = 0
    for r in rows:
        if r["answer_value"] is None:
            continue
        env = json.loads(r["payload"])["env"]
        want = REFERENCES[r["template_id"]](env)
        assert r["answer_value"] == pytest.approx(want, rel=1e-5, abs=1e-6), (r["template_id"], env)
        key = r["options"][r["correct_index"]]
        places = decimals_of(key)
        assert shown(key) == pytest.approx(round(want, places), abs=0.51 * 10**-places), key
        checked += 1
    assert checked >= 100


def test_constant_marginal_cost_distractor_is_the_loss_with_flat_cost(rows: list[Row]) -> None:
    """The `constant_marginal_cost` option of a monopoly question is the
    deadweight loss recomputed with marginal cost held at its intercept."""
    seen = 0
    for r in rows:
        if (
            not r["template_id"].startswith("dwl.")
            or "constant_marginal_cost" not in r["option_tags"]
        ):
            continue
        env = json.loads(r["payload"])["env"]
        want = ref_dwl_constant_mc(env)
        option = r["options"][r["option_tags"].index("constant_marginal_cost")]
        assert shown(option) == pytest.approx(want, abs=0.006), (env, option)
        seen += 1
    assert seen >= 5


def test_choice_keys_match_an_independent_computation(rows: list[Row]) -> None:
    checked = 0
    for r in rows:
        if r["template_id"] not in CHOICE_REFERENCES:
            continue
        env = json.loads(r["payload"])["env"]
        assert r["options"][r["correct_index"]] == CHOICE_REFERENCES[r["template_id"]](env), env
        checked += 1
    assert checked >= 100


def test_choice_keys_are_balanced(rows: list[Row]) -> None:
    """Each proposal is the key about a third of the time (the key is drawn)."""
    keys = [
        r["options"][r["correct_index"]]
        for r in rows
        if r["template_id"].startswith(CHOICE_TEMPLATES)
    ]
    for text in {"Proposal Oak", "Proposal Elm", "Proposal Pine"}:
        assert 0.2 < keys.count(text) / len(keys) < 0.47, (text, keys.count(text), len(keys))


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


@settings(max_examples=60, deadline=None)
@given(p=prices, d=slopes, gap=gaps)
def test_ps_linear_is_the_area_above_supply(p: float, d: float, gap: float) -> None:
    env = {"c": p, "d": d, "p": p + gap}
    assert w.ws_ps_linear(p, d, p + gap) == pytest.approx(ref_ps_linear_inverse(env), rel=1e-7)


@settings(max_examples=60, deadline=None)
@given(p=prices, d=slopes, gap=gaps)
def test_ps_quadratic_is_the_area_above_supply(p: float, d: float, gap: float) -> None:
    env = {"c": p, "d": d, "p": p + gap}
    assert w.ws_ps_quadratic(p, d, p + gap) == pytest.approx(ref_ps_quadratic(env), rel=1e-7)


@settings(max_examples=60, deadline=None)
@given(c=prices, e=slopes, gap=gaps)
def test_ps_firm_is_the_best_revenue_less_variable_cost(c: float, e: float, gap: float) -> None:
    env = {"c": c, "e": e, "p": c + gap}
    assert w.ws_ps_firm(c, e, c + gap) == pytest.approx(ref_ps_firm(env), rel=1e-6)


@settings(max_examples=40, deadline=None)
@given(c=prices, b=slopes, d=st.floats(0.0, 20.0), gap=gaps)
def test_linear_efficiency_maximises_total_surplus(
    c: float, b: float, d: float, gap: float
) -> None:
    env = {"a": c + gap, "b": b, "c": c, "d": d}
    q, total = best_total_surplus(lambda x: c + gap - b * x, lambda x: c + d * x, (c + gap) / b)
    assert w.ws_efficient_quantity_linear(c + gap, b, c, d) == pytest.approx(q, rel=1e-5)
    assert w.ws_total_surplus_linear(c + gap, b, c, d) == pytest.approx(total, rel=1e-7)
    assert total == pytest.approx(ref_es_total_linear(env), rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(c=prices, b=st.floats(0.0, 20.0), e=st.floats(0.001, 5.0), gap=gaps)
def test_curved_mc_efficiency_maximises_total_surplus(
    c: float, b: float, e: float, gap: float
) -> None:
    q, total = best_total_surplus(
        lambda x: c + gap - b * x, lambda x: c + e * x * x, math.sqrt(gap / e) + 1
    )
    assert w.ws_efficient_quantity_curved_mc(c + gap, b, c, e) == pytest.approx(q, rel=1e-5)
    assert w.ws_total_surplus_curved_mc(c + gap, b, c, e) == pytest.approx(total, rel=1e-7)


@settings(max_examples=40, deadline=None)
@given(c=prices, b=slopes, d=st.floats(0.0, 20.0), gap=gaps)
def test_monopoly_dwl_is_the_lost_surplus(c: float, b: float, d: float, gap: float) -> None:
    env = {"a": c + gap, "b": b, "c": c, "d": d}
    assert w.ws_monopoly_dwl(c + gap, b, c, d) == pytest.approx(
        ref_dwl_linear_mc(env), rel=1e-5, abs=1e-6
    )


@settings(max_examples=40, deadline=None)
@given(c=prices, b=slopes, d=slopes, gap=gaps, share=st.floats(0.05, 0.9))
def test_tax_closed_forms_match_either_sides_equilibrium(
    c: float, b: float, d: float, gap: float, share: float
) -> None:
    t = share * gap
    env = {"a": c + gap, "b": b, "c": c, "d": d, "t": t}
    buyers, sellers = taxed_prices(env)
    assert w.ws_tax_buyers_price(c + gap, b, c, d, t) == pytest.approx(buyers, rel=1e-8)
    assert w.ws_tax_sellers_price(c + gap, b, c, d, t) == pytest.approx(sellers, rel=1e-8)
    got = w.ws_tax_deadweight_loss(c + gap, b, c, d, t)
    assert got == pytest.approx(ref_tax_dwl(env), rel=1e-6, abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    h0=st.floats(0.0, 30.0),
    s=st.floats(0.05, 5.0),
    wage=st.floats(1.0, 100.0),
    tau=st.floats(0.01, 0.9),
)
def test_linear_labor_tax_closed_forms(h0: float, s: float, wage: float, tau: float) -> None:
    env = {"h0": h0, "s": s, "w": wage, "tau": tau}
    drop = w.ws_labor_tax_hours_drop_linear(s, wage, tau)
    assert drop == pytest.approx(ref_ls_linear_hours(env), rel=1e-6)
    assert w.ws_labor_tax_dwl_linear(s, wage, tau) == pytest.approx(
        ref_ls_linear_dwl(env), rel=1e-6
    )


@settings(max_examples=40, deadline=None)
@given(eps=st.floats(0.1, 3.0), tau=st.floats(0.01, 0.9), k=st.floats(0.2, 5.0))
def test_isoelastic_drop_matches_utility_maximisation(eps: float, tau: float, k: float) -> None:
    env = {"eps": eps, "tau": tau, "k": k, "w": 20.0}
    got = 100 * w.ws_labor_isoelastic_drop(eps, tau)
    assert got == pytest.approx(100 * ref_ls_isoelastic(env), abs=1e-4)


@settings(max_examples=40, deadline=None)
@given(
    share=st.floats(0.1, 0.9),
    income=st.floats(0.0, 300.0),
    wage=st.floats(5.0, 80.0),
    tau=st.floats(0.0, 0.6),
)
def test_cd_hours_match_utility_maximisation(
    share: float, income: float, wage: float, tau: float
) -> None:
    env = {"al": share, "tt": 100.0, "n": income, "w": wage, "tau": tau}
    try:
        got = w.ws_labor_cd_hours(share, 100.0, income, wage * (1 - tau))
    except ValueError:
        # A corner (no work): the numerical optimum sits at the boundary.
        assert ref_ls_cobb_douglas(env) < 1e-3
        return
    assert got == pytest.approx(ref_ls_cobb_douglas(env), abs=1e-5)


@settings(max_examples=40, deadline=None)
@given(
    share=st.floats(0.1, 0.7),
    scale=st.floats(1.0, 30.0),
    cost=st.floats(0.03, 0.3),
    tau=st.floats(0.0, 0.6),
    levy=st.floats(0.0, 0.5),
)
def test_capital_closed_forms_match_profit_maximisation(
    share: float, scale: float, cost: float, tau: float, levy: float
) -> None:
    want = cd_capital(share, scale, cost, tau, levy)
    assert w.ws_capital_cd_stock(share, scale, cost, tau) == pytest.approx(want, rel=1e-5)
    # The levy on the installed stock changes nothing.
    assert want == pytest.approx(cd_capital(share, scale, cost, tau, 0.0), rel=1e-6)
    if tau > 0:
        env = {"al": share, "rho": cost, "tau": tau, "lam": levy}
        got = 100 * w.ws_capital_open_drop(share, tau)
        assert got == pytest.approx(100 * ref_cm_small_open(env), abs=1e-3)


@settings(max_examples=30, deadline=None)
@given(
    a1=st.floats(0.1, 0.9),
    a2=st.floats(0.1, 0.9),
    e1x=st.floats(1.0, 100.0),
    e1y=st.floats(1.0, 100.0),
    e2x=st.floats(1.0, 100.0),
    e2y=st.floats(1.0, 100.0),
)
def test_cd_exchange_equilibrium_clears_the_market(
    a1: float, a2: float, e1x: float, e1y: float, e2x: float, e2y: float
) -> None:
    env = {"a1": a1, "a2": a2, "e1x": e1x, "e1y": e1y, "e2x": e2x, "e2y": e2y}
    price = w.ws_cd_exchange_price(a1, a2, e1x, e1y, e2x, e2y)
    assert price == pytest.approx(ref_fw_price_cd(env), rel=1e-6)
    assert w.ws_cd_exchange_x1(a1, a2, e1x, e1y, e2x, e2y) == pytest.approx(
        ref_fw_allocation_cd(env), rel=1e-5
    )


@settings(max_examples=25, deadline=None)
@given(
    share=st.floats(0.2, 0.8),
    target=st.floats(0.2, 0.8),
    fx=st.floats(0.1, 0.9),
    fy=st.floats(0.1, 0.9),
)
def test_cd_transfer_supports_the_target(share: float, target: float, fx: float, fy: float) -> None:
    env = {"a": share, "s": target, "tx": 100.0, "ty": 80.0, "e1x": 100 * fx, "e1y": 80 * fy}
    got = w.ws_cd_sw_transfer(share, target, 100.0, 80.0, 100 * fx, 80 * fy)
    assert got == pytest.approx(ref_sw_cd(env), rel=1e-5, abs=1e-4)


def test_closed_forms_reject_draws_outside_their_case() -> None:
    with pytest.raises(ValueError):
        w.ws_cs_linear(10, 1, 12)  # price above the choke price
    with pytest.raises(ValueError):
        w.ws_cs_linear(10, 0, 5)
    with pytest.raises(ValueError):
        w.ws_cs_quadratic(10, 1, 10)
    with pytest.raises(ValueError):
        w.ws_cs_exponential(100, 0.1, -1)
    with pytest.raises(ValueError):
        w.ws_ps_linear(10, 1, 9)  # price below the supply intercept
    with pytest.raises(ValueError):
        w.ws_ps_firm(10, 0, 20)
    with pytest.raises(ValueError):
        w.ws_efficient_quantity_linear(10, 1, 12, 1)  # supply starts above demand
    with pytest.raises(ValueError):
        w.ws_efficient_quantity_curved_mc(10, 1, 5, 0)
    with pytest.raises(ValueError):
        w.ws_monopoly_dwl(10, 1, 5, -1)  # falling marginal cost
    with pytest.raises(ValueError):
        w.ws_tax_quantity(10, 1, 5, 1, 6)  # a tax that closes the market
    with pytest.raises(ValueError):
        w.ws_labor_isoelastic_drop(0.5, 1.0)
    with pytest.raises(ValueError):
        w.ws_labor_cd_hours(0.5, 80, 1000, 10)  # would not work at all
    with pytest.raises(ValueError):
        w.ws_capital_cd_stock(1.0, 10, 0.1, 0.2)  # constant returns: no interior stock
    with pytest.raises(ValueError):
        w.ws_capital_open_drop(0.3, 0.0)
