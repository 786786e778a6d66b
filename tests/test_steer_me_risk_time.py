"""STEER-ME module 1.5 (risk and time: A.17-A.22): every generated key and
`answer_value` is recomputed from the drawn parameters by an independent
numerical method (direct simulation of cash flows, scipy optimisers, linear
solves, grid search) that neither calls steer.econ nor reuses the template's
formula; the closed forms in steer.econ._risk_time are property-tested against
the same references; and each element's seeded bank passes the shortcut audit.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from quality_audit import audit_failures
from steer.econ import _risk_time as rt
from steer.generate import generate_bank
from steer.templates import Template, load_template_file

pytest.importorskip("scipy")
pytest.importorskip("sklearn")
from scipy import optimize

Row = dict[str, Any]
Env = dict[str, float]

# --- independent references ---------------------------------------------------------------


def simulate_pv(flows: list[tuple[float, float]], rate: float) -> float:
    """Present value by walking each cash flow back one period at a time."""
    total = 0.0
    for when, amount in flows:
        value = amount
        for _ in range(int(when)):
            value /= 1 + rate
        total += value
    return total


def simulate_pv_factor(flows: list[tuple[float, float]], factor: float) -> float:
    total = 0.0
    for when, amount in flows:
        value = amount
        for _ in range(int(when)):
            value *= factor
        total += value
    return total


def perpetuity_pv(payment: float, rate: float, growth: float, horizon: int = 6000) -> float:
    """A growing perpetuity summed payment by payment over a long horizon."""
    t = np.arange(1, horizon + 1, dtype=float)
    ratio = (1 + growth) / (1 + rate)
    return float(np.sum(payment * ratio ** (t - 1) / (1 + rate)))


def ref_a21(tid: str, e: Env) -> float:
    if tid == "disc.single-payment":
        return simulate_pv([(e["T"], e["X"])], e["r"])
    if tid == "disc.annuity-factor":
        return simulate_pv_factor([(t, e["C"]) for t in range(1, int(e["T"]) + 1)], e["d"])
    if tid == "disc.uneven-stream":
        return simulate_pv([(1, e["a"]), (2, e["b"]), (3, e["c"])], e["r"])
    if tid == "disc.growing-perpetuity":
        return perpetuity_pv(e["C"], e["r"], e["g"])
    raise KeyError(tid)


def crra(c: float, aversion: float) -> float:
    return math.log(c) if aversion == 1 else c ** (1 - aversion) / (1 - aversion)


def best_c1(incomes: list[float], rate: float, beta: float, aversion: float) -> float:
    """First-period consumption found by maximizing lifetime utility directly over
    the budget (nested bounded scalar searches; the last period eats what is left)."""

    def value(c: float, wealth: float, k: int) -> float:
        # Utility from period k on with `wealth` at its start, consuming c now.
        rest = (wealth - c) * (1 + rate)
        if k == len(incomes) - 1:
            return crra(c, aversion)
        nxt = rest + incomes[k + 1]
        return crra(c, aversion) + beta * best(nxt, k + 1)[1]

    def best(wealth: float, k: int) -> tuple[float, float]:
        if k == len(incomes) - 1:
            return wealth, crra(wealth, aversion)
        # Consuming everything later at most: the wealth plus discounted income.
        cap = wealth + sum(y / (1 + rate) ** j for j, y in enumerate(incomes[k + 1 :], 1))
        res = optimize.minimize_scalar(
            lambda c: -value(c, wealth, k),
            bounds=(1e-9 * cap, cap * (1 - 1e-9)),
            method="bounded",
            options={"xatol": 1e-9 * cap},
        )
        return float(res.x), -float(res.fun)

    return best(incomes[0], 0)[0]


def ref_a22(tid: str, e: Env) -> float:
    if tid == "smooth.two-period-log":
        return best_c1([e["y1"], e["y2"]], e["r"], e["b"], 1)
    if tid == "smooth.two-period-crra-saving":
        return e["y1"] - best_c1([e["y1"], e["y2"]], e["r"], e["b"], e["s"])
    if tid == "smooth.three-period-log":
        return best_c1([e["y1"], e["y2"], e["y3"]], e["r"], e["b"], 1)
    if tid == "smooth.two-period-crra-harvest":
        return best_c1([e["y1"], e["y2"]], e["r"], e["b"], e["s"])
    raise KeyError(tid)


def portfolio(w: float, mu: float, rf: float, sd: float) -> tuple[float, float]:
    """Mean and standard deviation of a share w in the risky asset, the rest safe,
    from the two-point return distribution mu +- sd (equally likely)."""
    outcomes = np.array([w * (mu + sd) + (1 - w) * rf, w * (mu - sd) + (1 - w) * rf])
    return float(outcomes.mean()), float(outcomes.std())


def cal_slope(mu: float, rf: float, sd: float) -> float:
    """Slope of the capital allocation line: extra mean per extra standard deviation
    between two portfolios on it (finite difference)."""
    (m0, s0), (m1, s1) = portfolio(0.2, mu, rf, sd), portfolio(0.7, mu, rf, sd)
    return (m1 - m0) / (s1 - s0)


def best_share(mu: float, rf: float, aversion: float, variance: float) -> float:
    sd = math.sqrt(variance)

    def minus_u(w: float) -> float:
        m, s = portfolio(w, mu, rf, sd)
        return -(m - aversion / 2 * s**2)

    res = optimize.minimize_scalar(
        minus_u, bounds=(-5, 5), method="bounded", options={"xatol": 1e-12}
    )
    return float(res.x)


def ref_a17(tid: str, e: Env) -> float:
    if tid == "mv.sharpe":
        return cal_slope(e["mu"], e["rf"], e["sd"])
    if tid == "mv.risky-share":
        return best_share(e["mu"], e["rf"], e["g"], round(e["sd"] ** 2, 4))
    if tid == "mv.required-premium":
        # The expected return at which the optimal share is the stated one.
        v = e["sd"] ** 2
        mu = optimize.brentq(
            lambda m: best_share(m, e["rf"], e["g"], v) - e["w"], e["rf"], 2.0, xtol=1e-13
        )
        return mu
    if tid == "mv.capital-market-line":
        # The mix with the stated risk, then its mean.
        k = optimize.brentq(
            lambda w: portfolio(w, e["mm"], e["rf"], e["sm"])[1] - e["sp"], 0, 1, xtol=1e-14
        )
        return portfolio(k, e["mm"], e["rf"], e["sm"])[0]
    raise KeyError(tid)


def best_allocation(
    wealth: float, probs: list[float], prices: list[float], aversion: float
) -> list[float]:
    """Consumption in each state maximizing expected utility over the budget, found by
    searching the first state's consumption and the rest recursively (the last state
    takes what the budget leaves)."""
    if len(probs) == 1:
        return [wealth / prices[0]]

    def plan(c: float) -> list[float]:
        return [c, *best_allocation(wealth - prices[0] * c, probs[1:], prices[1:], aversion)]

    def minus_eu(c: float) -> float:
        return -sum(p * crra(x, aversion) for p, x in zip(probs, plan(c), strict=True))

    top = wealth / prices[0]
    res = optimize.minimize_scalar(
        minus_eu,
        bounds=(1e-9 * top, top * (1 - 1e-9)),
        method="bounded",
        options={"xatol": 1e-10 * top},
    )
    return plan(float(res.x))


def ref_a18(tid: str, e: Env) -> float:
    if tid == "scc.two-state-log":
        return best_allocation(e["W"], [e["pd"], 1 - e["pd"]], [e["qd"], e["qr"]], 1)[0]
    if tid == "scc.two-state-crra":
        return best_allocation(e["W"], [e["ps"], 1 - e["ps"]], [e["qs"], e["qh"]], e["g"])[0]
    probs = [e["p1"], e["p2"], 1 - e["p1"] - e["p2"]]
    prices = [e["q1"], e["q2"], e["q3"]]
    if tid == "scc.three-state-log":
        return best_allocation(e["W"], probs, prices, 1)[2]
    if tid == "scc.three-state-crra":
        return best_allocation(e["W"], probs, prices, e["g"])[2]
    raise KeyError(tid)


def cheapest_cover(assets: list[tuple[float, float, float]], target: tuple[float, float]) -> float:
    """Least cost of a portfolio (any long or short holdings) of the (price, payoff 1,
    payoff 2) assets that pays at least `target` in both states: a linear program."""
    cost = [a[0] for a in assets]
    # payoff_s . w >= target_s  <=>  -payoff_s . w <= -target_s
    a_ub = [[-a[1] for a in assets], [-a[2] for a in assets]]
    res = optimize.linprog(
        cost, A_ub=a_ub, b_ub=[-target[0], -target[1]], bounds=[(None, None)] * len(assets)
    )
    assert res.status == 0, res.message
    return float(res.fun)


def arbitrage_class(assets: list[tuple[float, float, float]]) -> int:
    """0: no arbitrage; 1: the last asset is overpriced (sell it); 2: underpriced (buy
    it). Found by the cheapest portfolio, holdings bounded, that pays nothing negative."""
    cost = [a[0] for a in assets]
    a_ub = [[-a[1] for a in assets], [-a[2] for a in assets]]
    res = optimize.linprog(cost, A_ub=a_ub, b_ub=[0, 0], bounds=[(-1, 1)] * len(assets))
    assert res.status == 0, res.message
    if res.fun > -1e-9:
        return 0
    return 1 if res.x[-1] < 0 else 2


def ref_a19(tid: str, e: Env) -> float:
    if tid in ("arb.replicate-price", "arb.detect"):
        assets = [(e["pa"], 100.0, 100.0), (e["ps"], e["su"], e["sd"])]
        if tid == "arb.detect":
            return arbitrage_class([*assets, (e["pc"], e["c1"], e["c2"])])
        return cheapest_cover(assets, (e["c1"], e["c2"]))
    if tid == "arb.call-option":
        growth = 1 + e["r"]
        assets = [(1.0, growth, growth), (e["S0"], e["Su"], e["Sd"])]
        return cheapest_cover(assets, (max(e["Su"] - e["K"], 0), max(e["Sd"] - e["K"], 0)))
    if tid == "arb.riskless-profit":
        assets = [(e["pa"], e["a1"], e["a2"]), (e["pb"], e["b1"], e["b2"])]
        return e["n"] * (e["pc"] - cheapest_cover(assets, (e["c1"], e["c2"])))
    raise KeyError(tid)


def spread_utility(h: np.ndarray, e: Env, h0: float) -> np.ndarray:
    """E[W] - (g/2) Var[W] after moving from h0 to h units: buys pay the ask, sales
    receive the bid, the payoff per unit is two-point mean +- sd."""
    cash = np.where(h > h0, -e["ask"] * (h - h0), e["bid"] * (h0 - h))
    up, down = cash + h * (e["mu"] + e["sd"]), cash + h * (e["mu"] - e["sd"])
    mean, var = (up + down) / 2, ((up - down) / 2) ** 2
    return mean - e["g"] / 2 * var


def best_units(e: Env) -> tuple[float, float]:
    """The best whole holding by grid search, and its utility gain over h0."""
    grid = np.arange(0, 2000, dtype=float)
    u = spread_utility(grid, e, e["h0"])
    best = int(np.argmax(u))
    return grid[best], float(u[best] - spread_utility(np.array([e["h0"]]), e, e["h0"])[0])


def ref_a20(tid: str, e: Env) -> float:
    if tid in ("ba.optimal-holding", "ba.optimal-permits"):
        return best_units(e)[0]
    if tid == "ba.trade-gain":
        return best_units(e)[1]
    if tid == "ba.plan-value":
        # Buying n units from none, against doing nothing.
        return float(spread_utility(np.array([e["n"]]), e, 0.0)[0])
    raise KeyError(tid)


# The key choice of each categorical template, by the class its reference returns.
CATEGORICAL: dict[str, dict[int, str]] = {
    "arb.detect": {
        0: "No arbitrage",
        1: "Arbitrage: sell the security",
        2: "Arbitrage: buy the security",
    },
}

REFERENCES: dict[str, Callable[[str, Env], float]] = {
    "ba.": ref_a20,
    "arb.": ref_a19,
    "scc.": ref_a18,
    "mv.": ref_a17,
    "disc.": ref_a21,
    "smooth.": ref_a22,
}
# element -> (template file, template id prefix)
ELEMENTS = {
    "steer-me.A.20": ("portfolio_bid_ask", "ba."),
    "steer-me.A.19": ("arbitrage", "arb."),
    "steer-me.A.18": ("state_contingent_consumption", "scc."),
    "steer-me.A.17": ("price_of_risk", "mv."),
    "steer-me.A.21": ("exponential_discounting", "disc."),
    "steer-me.A.22": ("consumption_smoothing", "smooth."),
}
# References found by an optimizer agree to this relative precision, exact ones closer.
OPTIMIZED = ("smooth.", "mv.", "scc.", "arb.")
TEMPLATES = Path(__file__).resolve().parents[1] / "templates" / "steer-me" / "1.5"


def element_templates(elements: list[str]) -> list[Template]:
    # The element's own files: a bank of them does not depend on other elements'
    # templates loading.
    return [t for e in elements for t in load_template_file(TEMPLATES / f"{ELEMENTS[e][0]}.toml")]


# --- the bank -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(templates=element_templates(list(ELEMENTS)), per_cell=30, seed=5)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def option_value(text: str) -> float:
    text = text.replace("$", "").replace(",", "")
    if text.endswith("%"):
        return float(text[:-1]) / 100
    return float(text)


def reference(row: Row) -> float:
    tid = row["template_id"]
    env = json.loads(row["payload"])["env"]
    for prefix, ref in REFERENCES.items():
        if tid.startswith(prefix):
            return ref(tid, env)
    raise KeyError(f"no reference for {tid}")


def decimals_of(text: str) -> int:
    body = text.rstrip("%")
    return len(body.split(".")[1]) if "." in body else 0


def test_every_element_has_questions(rows: list[Row]) -> None:
    seen = {r["element"] for r in rows}
    assert seen == set(ELEMENTS)
    for element, (_, prefix) in ELEMENTS.items():
        assert all(r["template_id"].startswith(prefix) for r in rows if r["element"] == element)


def test_keys_match_an_independent_computation(rows: list[Row]) -> None:
    bad = []
    for row in rows:
        want = reference(row)
        shown = row["options"][row["correct_index"]]
        if row["template_id"] in CATEGORICAL:
            key = CATEGORICAL[row["template_id"]][int(want)]
            if row["answer_value"] is not None or not shown.startswith(key):
                bad.append(f"{row['template_id']}: key {shown!r}, want {key!r}")
            continue
        got = row["answer_value"]
        # The shown key is the reference rounded to the shown precision.
        unit = 10.0 ** -decimals_of(shown) / (100 if shown.endswith("%") else 1)
        rel = 1e-6 if row["template_id"].startswith(OPTIMIZED) else 1e-9
        if got is None or not math.isclose(got, want, rel_tol=rel, abs_tol=1e-9):
            bad.append(f"{row['template_id']}: answer_value {got} vs reference {want}")
        elif abs(option_value(shown) - want) > unit / 2 + rel * abs(want):
            bad.append(f"{row['template_id']}: key option {shown} vs reference {want}")
        if row["option_tags"][row["correct_index"]] != "key":
            bad.append(f"{row['template_id']}: correct_index is not the key")
    assert not bad, "\n".join(bad[:20])


def test_distractors_differ_from_the_key(rows: list[Row]) -> None:
    for row in rows:
        if row["template_id"] in CATEGORICAL:
            assert len(set(row["options"])) == len(row["options"])
            continue
        values = [option_value(o) for o in row["options"]]
        assert len(set(values)) == len(values), row["options"]


@pytest.mark.parametrize("element", sorted(ELEMENTS))
def test_element_passes_the_audit(element: str) -> None:
    bank = generate_bank(templates=element_templates([element]), per_cell=140, seed=7)
    _, failures = audit_failures(bank, [element], source="risk-time test", seed=7, strict=True)
    assert not failures, failures


# --- the closed forms against the references, over wide ranges ----------------------------

rates = st.floats(0.001, 0.3)
amounts = st.floats(1, 1e6)


@given(amounts, rates, st.integers(0, 40))
def test_disc_pv_is_repeated_division(x: float, r: float, t: int) -> None:
    assert math.isclose(rt.disc_pv(x, r, t), simulate_pv([(t, x)], r), rel_tol=1e-9)


@given(amounts, st.floats(0.3, 1.0), st.integers(1, 40), st.integers(0, 3))
def test_disc_annuity_is_the_sum_of_its_payments(c: float, d: float, n: int, first: int) -> None:
    flows = [(first + k, c) for k in range(n)]
    assert math.isclose(rt.disc_annuity(c, d, n, first), simulate_pv_factor(flows, d), rel_tol=1e-9)


@given(amounts, st.floats(0.03, 0.3), st.floats(-0.05, 0.2))
def test_growing_perpetuity_is_the_long_sum(c: float, r: float, g: float) -> None:
    assume(r - g >= 0.02)
    want = perpetuity_pv(c, r, g, 20000)
    assert math.isclose(rt.disc_growing_perpetuity(c, r, g), want, rel_tol=1e-6)


@given(
    st.lists(st.floats(1000, 200000), min_size=2, max_size=3),
    st.floats(0.0, 0.15),
    st.floats(0.7, 1.0),
    st.sampled_from([0.5, 1.0, 2.0, 3.5]),
)
@settings(max_examples=40, deadline=None)
def test_smooth_c1_maximizes_lifetime_utility(
    incomes: list[float], r: float, beta: float, aversion: float
) -> None:
    want = best_c1(incomes, r, beta, aversion)
    assert math.isclose(rt.smooth_c1(r, beta, aversion, *incomes), want, rel_tol=1e-5)


@given(st.floats(0.0, 0.3), st.floats(0.0, 0.1), st.floats(0.02, 0.6))
def test_sharpe_is_the_slope_of_the_allocation_line(mu: float, rf: float, sd: float) -> None:
    assert math.isclose(rt.mv_sharpe(mu, rf, sd), cal_slope(mu, rf, sd), rel_tol=1e-6, abs_tol=1e-9)


@given(st.floats(0.0, 0.3), st.floats(0.0, 0.1), st.floats(0.5, 10), st.floats(0.01, 0.3))
@settings(deadline=None)
def test_risky_share_maximizes_mean_variance_utility(
    mu: float, rf: float, g: float, v: float
) -> None:
    w = rt.mv_risky_share(mu, rf, g, v)
    assume(abs(w) < 4)
    assert math.isclose(w, best_share(mu, rf, g, v), abs_tol=1e-6)
    # The required premium inverts the share.
    assert math.isclose(rt.mv_required_premium(g, v, w), mu - rf, abs_tol=1e-12)


@given(
    st.floats(100, 1e5),
    st.lists(st.tuples(st.floats(0.05, 1), st.floats(0.05, 1)), min_size=2, max_size=3),
    st.sampled_from([0.5, 1.0, 2.0, 4.0]),
    st.integers(1, 3),
)
@settings(max_examples=40, deadline=None)
def test_state_consumption_maximizes_expected_utility(
    wealth: float, pq: list[tuple[float, float]], aversion: float, state: int
) -> None:
    assume(state <= len(pq))
    total = sum(p for p, _ in pq)
    probs = [p / total for p, _ in pq]
    prices = [q for _, q in pq]
    flat = [x for p, q in zip(probs, prices, strict=True) for x in (p, q)]
    got = rt.scc_consumption(wealth, aversion, state, *flat)
    want = best_allocation(wealth, probs, prices, aversion)[state - 1]
    assert math.isclose(got, want, rel_tol=1e-5)


payoff = st.floats(1, 300)


@given(payoff, payoff, payoff, payoff, st.floats(0.05, 1), st.floats(0.05, 1), payoff, payoff)
@settings(deadline=None)
def test_replication_price_is_the_cheapest_cover(
    a1: float, a2: float, b1: float, b2: float, s1: float, s2: float, c1: float, c2: float
) -> None:
    # Prices from positive state prices s1, s2: no arbitrage among the two assets.
    assume(abs(a1 * b2 - a2 * b1) > 0.05 * max(a1 * b2, a2 * b1))
    pa, pb = s1 * a1 + s2 * a2, s1 * b1 + s2 * b2
    got = rt.arb_replicate_price(a1, a2, b1, b2, pa, pb, c1, c2)
    assert math.isclose(got, cheapest_cover([(pa, a1, a2), (pb, b1, b2)], (c1, c2)), rel_tol=1e-6)
    x = rt.arb_holdings(a1, a2, b1, b2, c1, c2, 1)
    y = rt.arb_holdings(a1, a2, b1, b2, c1, c2, 2)
    assert math.isclose(x * a1 + y * b1, c1, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(x * a2 + y * b2, c2, rel_tol=1e-9, abs_tol=1e-9)


@given(
    st.floats(10, 500),
    st.floats(1, 50),
    st.floats(0.001, 0.05),
    st.floats(1, 500),
    st.floats(0, 20),
    st.floats(0, 300),
)
@settings(deadline=None)
def test_bid_ask_holding_maximizes_utility(
    mu: float, sd: float, g: float, ask: float, spread: float, h0: float
) -> None:
    bid = ask - spread
    env = {"mu": mu, "sd": sd, "g": g, "ask": ask, "bid": bid}
    got = rt.ba_optimal_holding(mu, sd**2, g, ask, bid, h0)
    top = 2 * max(h0, (mu - bid) / (g * sd**2), 1.0)

    def minus_u(h: float) -> float:
        return -float(spread_utility(np.array([h]), env, h0)[0])

    # The utility is concave with a kink at h0: search each side of it.
    sides = [
        optimize.minimize_scalar(minus_u, bounds=b, method="bounded", options={"xatol": 1e-10})
        for b in ((0.0, h0), (h0, top))
        if b[1] > b[0]
    ]
    best = min([*sides], key=lambda r: r.fun)
    want = h0 if -minus_u(h0) >= -best.fun else float(best.x)
    assert math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-5 * top)


def test_closed_forms_reject_degenerate_draws() -> None:
    with pytest.raises(ValueError):
        rt.disc_growing_perpetuity(100, 0.05, 0.05)
    with pytest.raises(ValueError):
        rt.disc_annuity(100, 1.2, 3)
    with pytest.raises(ValueError):
        rt.disc_annuity(100, 0.9, 2.5)
