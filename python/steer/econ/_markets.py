"""Closed forms: aggregation of demand, supply and factors; equilibrium prices and factor shares;
comparative statics.

Aggregates take a price, then one group of agents after another: how many agents the group
has and the parameters of each one's curve. Every individual curve is cut off at zero (a
buyer above the choke price, a firm below its shutdown price, a firm whose first worker is
worth less than the wage, a household whose other income buys all its time as leisure), which
is where aggregate curves have their kinks.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _groups(args: tuple[float, ...], size: int, what: str) -> list[tuple[float, ...]]:
    if not args or len(args) % size:
        raise ValueError(f"{what} takes groups of {size} numbers")
    return [tuple(args[i : i + size]) for i in range(0, len(args), size)]


def mkt_linear_demand(price: float, *groups: float) -> float:
    """Market demand at `price` of groups (count, a, b): sum of count·max(0, a − b·p)."""
    return sum(n * max(0.0, a - b * price) for n, a, b in _groups(groups, 3, "demand groups"))


def mkt_inverse_demand(price: float, *groups: float) -> float:
    """Market demand at `price` of groups (count, c, d) with inverse demand p = c − d·q."""
    total = 0.0
    for n, c, d in _groups(groups, 3, "inverse demand groups"):
        if d <= 0:
            raise ValueError("an inverse demand curve must slope down")
        total += n * max(0.0, (c - price) / d)
    return total


def mkt_quadratic_cost_supply(price: float, *groups: float) -> float:
    """Market supply at `price` of groups (count, c, v) of firms with variable cost c·q² + v·q:
    each supplies (p − v)/(2c) above its shutdown price v, else nothing."""
    total = 0.0
    for n, c, v in _groups(groups, 3, "supply groups"):
        if c <= 0:
            raise ValueError("marginal cost must rise")
        total += n * max(0.0, (price - v) / (2 * c))
    return total


def mkt_linear_supply(price: float, *groups: float) -> float:
    """Market supply at `price` of groups (count, s, d): sum of count·max(0, d·(p − s))."""
    return sum(n * max(0.0, d * (price - s)) for n, s, d in _groups(groups, 3, "supply groups"))


def mkt_cd_factor_demand(
    out_price: float, factor_price: float, exponent: float, *groups: float
) -> float:
    """Market demand for a factor by groups (count, productivity A) of firms producing A·x^exponent:
    each hires (exponent·A·P / w)^(1/(1 − exponent))."""
    if not 0 < exponent < 1 or factor_price <= 0:
        raise ValueError("needs 0 < exponent < 1 and a positive factor price")
    power = 1 / (1 - exponent)
    return float(
        sum(
            n * (exponent * a * out_price / factor_price) ** power
            for n, a in _groups(groups, 2, "firm groups")
        )
    )


def mkt_quadratic_factor_demand(out_price: float, factor_price: float, *groups: float) -> float:
    """Market demand for a factor by groups (count, a, b) of firms producing a·x − b·x²/2:
    each hires (a − w/P)/b while the first unit is worth the price, else nothing."""
    total = 0.0
    for n, a, b in _groups(groups, 3, "firm groups"):
        if b <= 0 or out_price <= 0:
            raise ValueError("needs a falling marginal product and a positive output price")
        total += n * max(0.0, (a - factor_price / out_price) / b)
    return total


def mkt_cd_labor_supply(wage: float, hours: float, share: float, *groups: float) -> float:
    """Market hours of groups (count, other income m) of households with utility
    c^share·ℓ^(1 − share) and `hours` of time: each works max(0, share·T − (1 − share)·m/w)."""
    if not 0 < share < 1 or wage <= 0:
        raise ValueError("needs 0 < share < 1 and a positive wage")
    return sum(
        n * max(0.0, share * hours - (1 - share) * m / wage)
        for n, m in _groups(groups, 2, "household groups")
    )


def mkt_ql_labor_supply(wage: float, hours: float, *groups: float) -> float:
    """Market hours of groups (count, b) of households with utility c + b·ln(ℓ) and `hours` of time
    (enough other income to buy leisure): each works max(0, T − b/w)."""
    if wage <= 0:
        raise ValueError("needs a positive wage")
    return sum(n * max(0.0, hours - b / wage) for n, b in _groups(groups, 2, "household groups"))


def mkt_linear_eq_price(nd: float, a: float, b: float, ns: float, s: float, d: float) -> float:
    """Price where nd buyers demanding a − b·p meet ns sellers supplying d·(p − s) > 0."""
    price = (nd * a + ns * d * s) / (nd * b + ns * d)
    if not s < price < a / b:
        raise ValueError("no interior equilibrium")
    return price


def mkt_ce_eq_price(nd: float, a: float, eps: float, ns: float, k: float, eta: float) -> float:
    """Price where nd buyers with demand a·p^(−eps) meet ns sellers with supply k·p^eta."""
    if min(nd, a, ns, k) <= 0 or eps + eta <= 0:
        raise ValueError("needs positive scales and eps + eta > 0")
    return float((nd * a / (ns * k)) ** (1 / (eps + eta)))


def mkt_cd_labor_income(tfp: float, capital: float, labor: float, alpha: float) -> float:
    """Labor's income (1 − alpha)·Y in a competitive economy with Y = A·K^alpha·L^(1 − alpha)."""
    if not 0 < alpha < 1:
        raise ValueError("needs 0 < alpha < 1")
    return float((1 - alpha) * tfp * capital**alpha * labor ** (1 - alpha))


def mkt_ces_labor_share(weight: float, rho: float, capital: float, labor: float) -> float:
    """Labor's income share with Y = (w·K^rho + (1 − w)·L^rho)^(1/rho), paid marginal products."""
    if not 0 < weight < 1 or rho == 0 or rho >= 1:
        raise ValueError("needs 0 < weight < 1 and rho < 1, rho != 0")
    lab = (1 - weight) * labor**rho
    return float(lab / (weight * capital**rho + lab))


def mkt_cd_price_change(tfp_change: float, factor_change: float, exponent: float) -> float:
    """Proportional change of a factor price that is proportional to A·x^exponent when A grows by
    `tfp_change` and x by `factor_change` (x = L/K for the wage with exponent −alpha, say)."""
    if tfp_change <= -1 or factor_change <= -1:
        raise ValueError("a level cannot fall by 100% or more")
    return float((1 + tfp_change) * (1 + factor_change) ** exponent - 1)


def mkt_linear_fixed_supply_price(a: float, b: float, shift: float, fixed: float) -> float:
    """Price with demand (a − p)/b + shift and a fixed supply: a − b·(fixed − shift), positive."""
    price = a - b * (fixed - shift)
    if price <= 0:
        raise ValueError("the fixed supply is more than is wanted at any positive price")
    if not math.isfinite(price):
        raise ValueError("not a finite price")
    return price


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "mkt_linear_demand": (4, 13, mkt_linear_demand),
    "mkt_inverse_demand": (4, 13, mkt_inverse_demand),
    "mkt_quadratic_cost_supply": (4, 13, mkt_quadratic_cost_supply),
    "mkt_linear_supply": (4, 13, mkt_linear_supply),
    "mkt_cd_factor_demand": (5, 11, mkt_cd_factor_demand),
    "mkt_quadratic_factor_demand": (5, 14, mkt_quadratic_factor_demand),
    "mkt_cd_labor_supply": (5, 11, mkt_cd_labor_supply),
    "mkt_ql_labor_supply": (4, 10, mkt_ql_labor_supply),
    "mkt_linear_eq_price": (6, 6, mkt_linear_eq_price),
    "mkt_ce_eq_price": (6, 6, mkt_ce_eq_price),
    "mkt_cd_labor_income": (4, 4, mkt_cd_labor_income),
    "mkt_ces_labor_share": (4, 4, mkt_ces_labor_share),
    "mkt_cd_price_change": (3, 3, mkt_cd_price_change),
    "mkt_linear_fixed_supply_price": (4, 4, mkt_linear_fixed_supply_price),
}
