"""Closed forms: surplus, deadweight loss, taxes and their incidence, distortions.

Demand and supply are written as inverse curves (price as a function of
quantity) unless a name says otherwise: linear demand P = a - bQ, linear supply
(or marginal cost) P = c + dQ. Every function raises ValueError for a draw
outside the interior case it describes (a price above the choke price, a
negative quantity, a zero slope).
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _positive(name: str, x: float) -> None:
    if not x > 0:
        raise ValueError(f"{name} must be positive, got {x:g}")


def ws_cs_linear(a: float, b: float, p: float) -> float:
    """Consumer surplus at price p under linear inverse demand P = a - bQ."""
    _positive("slope b", b)
    _positive("choke price less price", a - p)
    return (a - p) ** 2 / (2 * b)


def ws_cs_quadratic(a: float, b: float, p: float) -> float:
    """Consumer surplus at price p under inverse demand P = a - bQ^2."""
    _positive("b", b)
    _positive("choke price less price", a - p)
    q = math.sqrt((a - p) / b)
    return 2 / 3 * (a - p) * q


def ws_cs_exponential(scale: float, k: float, p: float) -> float:
    """Consumer surplus at price p under demand Q = scale * exp(-k P)."""
    _positive("scale", scale)
    _positive("k", k)
    if p < 0:
        raise ValueError(f"price must not be negative, got {p:g}")
    return scale * math.exp(-k * p) / k


def ws_ps_linear(c: float, d: float, p: float) -> float:
    """Producer surplus at price p under linear inverse supply P = c + dQ."""
    _positive("slope d", d)
    _positive("price less supply intercept", p - c)
    return (p - c) ** 2 / (2 * d)


def ws_ps_quadratic(c: float, d: float, p: float) -> float:
    """Producer surplus at price p under inverse supply P = c + dQ^2."""
    _positive("d", d)
    _positive("price less supply intercept", p - c)
    q = math.sqrt((p - c) / d)
    return 2 / 3 * (p - c) * q


def ws_ps_firm(c: float, e: float, p: float) -> float:
    """Producer surplus of a price-taking firm with cost F + cq + eq^2 at price p."""
    _positive("e", e)
    _positive("price less marginal cost at zero", p - c)
    return (p - c) ** 2 / (4 * e)


def ws_efficient_quantity_linear(a: float, b: float, c: float, d: float) -> float:
    """The quantity where linear demand P = a - bQ meets linear supply P = c + dQ."""
    _positive("sum of slopes", b + d)
    _positive("demand intercept less supply intercept", a - c)
    return (a - c) / (b + d)


def ws_total_surplus_linear(a: float, b: float, c: float, d: float) -> float:
    """Largest total surplus with linear demand P = a - bQ and supply P = c + dQ
    (d = 0: a constant marginal cost c)."""
    return 0.5 * (a - c) * ws_efficient_quantity_linear(a, b, c, d)


def ws_efficient_quantity_curved_mc(a: float, b: float, c: float, e: float) -> float:
    """The quantity where demand P = a - bQ meets marginal cost c + eQ^2."""
    _positive("e", e)
    _positive("demand intercept less marginal cost at zero", a - c)
    if b < 0:
        raise ValueError(f"demand slope b must not be negative, got {b:g}")
    return (-b + math.sqrt(b * b + 4 * e * (a - c))) / (2 * e)


def ws_total_surplus_curved_mc(a: float, b: float, c: float, e: float) -> float:
    """Largest total surplus with demand P = a - bQ and marginal cost c + eQ^2."""
    q = ws_efficient_quantity_curved_mc(a, b, c, e)
    return (a - c) * q - b * q * q / 2 - e * q**3 / 3


def ws_monopoly_quantity(a: float, b: float, c: float, d: float) -> float:
    """A monopolist's output where marginal revenue a - 2bQ meets marginal cost c + dQ."""
    _positive("b", b)
    if d < 0:
        raise ValueError(f"marginal cost slope d must not be negative, got {d:g}")
    _positive("demand intercept less marginal cost at zero", a - c)
    return (a - c) / (2 * b + d)


def ws_monopoly_dwl(a: float, b: float, c: float, d: float) -> float:
    """Deadweight loss of a monopoly facing P = a - bQ with marginal cost c + dQ:
    the triangle between demand and marginal cost from the monopoly to the
    efficient quantity."""
    qm = ws_monopoly_quantity(a, b, c, d)
    qc = ws_efficient_quantity_linear(a, b, c, d)
    height = (a - b * qm) - (c + d * qm)
    return 0.5 * height * (qc - qm)


def ws_tax_quantity(a: float, b: float, c: float, d: float, t: float) -> float:
    """Quantity traded under a per-unit tax t with demand P = a - bQ and supply
    P = c + dQ (the same whichever side remits the tax)."""
    _positive("sum of slopes", b + d)
    q = (a - c - t) / (b + d)
    _positive("taxed quantity", q)
    return q


def ws_tax_buyers_price(a: float, b: float, c: float, d: float, t: float) -> float:
    """What buyers pay per unit, tax included, under a per-unit tax t."""
    return a - b * ws_tax_quantity(a, b, c, d, t)


def ws_tax_sellers_price(a: float, b: float, c: float, d: float, t: float) -> float:
    """What sellers keep per unit, net of tax, under a per-unit tax t."""
    return c + d * ws_tax_quantity(a, b, c, d, t)


def ws_tax_deadweight_loss(a: float, b: float, c: float, d: float, t: float) -> float:
    """Deadweight loss of a per-unit tax t: half the tax times the lost quantity."""
    lost = ws_efficient_quantity_linear(a, b, c, d) - ws_tax_quantity(a, b, c, d, t)
    return 0.5 * t * lost


def ws_labor_tax_hours_drop_linear(s: float, w: float, tau: float) -> float:
    """Fall in hours when a wage tax tau cuts the net wage, for supply h = h0 + s w."""
    _positive("s", s)
    _positive("w", w)
    if not 0 < tau < 1:
        raise ValueError(f"tax rate must lie in (0, 1), got {tau:g}")
    return s * w * tau


def ws_labor_tax_dwl_linear(s: float, w: float, tau: float) -> float:
    """Excess burden of a wage tax tau with linear supply h = h0 + s w at a fixed
    gross wage w: half the tax wedge times the lost hours."""
    return 0.5 * tau * w * ws_labor_tax_hours_drop_linear(s, w, tau)


def ws_labor_isoelastic_drop(eps: float, tau: float) -> float:
    """Proportional fall in hours (a fraction) from a wage tax tau when hours are
    proportional to the net wage to the power eps (quasilinear isoelastic utility)."""
    _positive("elasticity", eps)
    if not 0 < tau < 1:
        raise ValueError(f"tax rate must lie in (0, 1), got {tau:g}")
    return 1 - float((1 - tau) ** eps)


def ws_labor_cd_hours(share: float, time: float, income: float, wage: float) -> float:
    """Hours worked with Cobb-Douglas utility c^share l^(1-share), `time` hours to
    split, non-labour income and a net wage; interior solutions only."""
    if not 0 < share < 1:
        raise ValueError(f"consumption share must lie in (0, 1), got {share:g}")
    _positive("wage", wage)
    hours = share * time - (1 - share) * income / wage
    if not 0 < hours < time:
        raise ValueError(f"hours {hours:g} are not interior")
    return hours


def ws_capital_cd_stock(share: float, scale: float, cost: float, tau: float) -> float:
    """Profit-maximising capital for output scale * K^share when a tax tau takes
    part of capital's output and capital costs `cost` per unit, not deductible."""
    if not 0 < share < 1:
        raise ValueError(f"capital share must lie in (0, 1), got {share:g}")
    _positive("scale", scale)
    _positive("cost of capital", cost)
    if not 0 <= tau < 1:
        raise ValueError(f"tax rate must lie in [0, 1), got {tau:g}")
    return float((share * scale * (1 - tau) / cost) ** (1 / (1 - share)))


def ws_capital_open_drop(share: float, tau: float) -> float:
    """Proportional fall in capital (a fraction) when a tax tau on capital's
    output meets a perfectly elastic supply of capital (Cobb-Douglas share `share`)."""
    if not 0 < share < 1:
        raise ValueError(f"capital share must lie in (0, 1), got {share:g}")
    if not 0 < tau < 1:
        raise ValueError(f"tax rate must lie in (0, 1), got {tau:g}")
    return 1 - float((1 - tau) ** (1 / (1 - share)))


def _share(name: str, a: float) -> None:
    if not 0 < a < 1:
        raise ValueError(f"{name} must lie in (0, 1), got {a:g}")


def ws_cd_exchange_price(
    a1: float, a2: float, e1x: float, e1y: float, e2x: float, e2y: float
) -> float:
    """Market-clearing price of good x (good y is worth 1) in a two-person
    exchange economy with Cobb-Douglas utilities x^a_i y^(1 - a_i)."""
    _share("a1", a1)
    _share("a2", a2)
    if min(e1x, e1y, e2x, e2y) < 0:
        raise ValueError("endowments must not be negative")
    _positive("value of good y demanded", a1 * e1y + a2 * e2y)
    _positive("supply of good x", (1 - a1) * e1x + (1 - a2) * e2x)
    return (a1 * e1y + a2 * e2y) / ((1 - a1) * e1x + (1 - a2) * e2x)


def ws_cd_exchange_x1(
    a1: float, a2: float, e1x: float, e1y: float, e2x: float, e2y: float
) -> float:
    """Person 1's equilibrium holding of good x in that Cobb-Douglas economy."""
    p = ws_cd_exchange_price(a1, a2, e1x, e1y, e2x, e2y)
    return a1 * (p * e1x + e1y) / p


def ws_ql_exchange_price(a1: float, a2: float, total_x: float) -> float:
    """Market-clearing price of good x (money is worth 1) when each person i
    has quasilinear utility a_i ln x + m and total_x units of x exist."""
    _positive("a1", a1)
    _positive("a2", a2)
    _positive("total of good x", total_x)
    return (a1 + a2) / total_x


def ws_cd_sw_transfer(
    share: float, target: float, total_x: float, total_y: float, e1x: float, e1y: float
) -> float:
    """Lump-sum transfer (in units of good y) to person 1 that lets a competitive
    market reach the efficient allocation giving person 1 the fraction `target`
    of both goods, when both have Cobb-Douglas utility x^share y^(1 - share)."""
    _share("share", share)
    _share("target", target)
    _positive("total x", total_x)
    _positive("total y", total_y)
    p = share * total_y / ((1 - share) * total_x)
    return target * (p * total_x + total_y) - (p * e1x + e1y)


def ws_ql_sw_transfer(
    c: float, total_x: float, money_target: float, e1x: float, m1: float
) -> float:
    """Lump-sum transfer of money to person 1 that lets a competitive market
    reach the efficient allocation where each of two people with utility
    c ln x + m holds half of good x and person 1 ends with money_target."""
    _positive("c", c)
    _positive("total x", total_x)
    if money_target < 0:
        raise ValueError(f"target money must not be negative, got {money_target:g}")
    p = 2 * c / total_x
    return p * total_x / 2 + money_target - (p * e1x + m1)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "ws_cs_linear": (3, 3, ws_cs_linear),
    "ws_cs_quadratic": (3, 3, ws_cs_quadratic),
    "ws_cs_exponential": (3, 3, ws_cs_exponential),
    "ws_ps_linear": (3, 3, ws_ps_linear),
    "ws_ps_quadratic": (3, 3, ws_ps_quadratic),
    "ws_ps_firm": (3, 3, ws_ps_firm),
    "ws_efficient_quantity_linear": (4, 4, ws_efficient_quantity_linear),
    "ws_total_surplus_linear": (4, 4, ws_total_surplus_linear),
    "ws_efficient_quantity_curved_mc": (4, 4, ws_efficient_quantity_curved_mc),
    "ws_total_surplus_curved_mc": (4, 4, ws_total_surplus_curved_mc),
    "ws_monopoly_quantity": (4, 4, ws_monopoly_quantity),
    "ws_monopoly_dwl": (4, 4, ws_monopoly_dwl),
    "ws_tax_quantity": (5, 5, ws_tax_quantity),
    "ws_tax_buyers_price": (5, 5, ws_tax_buyers_price),
    "ws_tax_sellers_price": (5, 5, ws_tax_sellers_price),
    "ws_tax_deadweight_loss": (5, 5, ws_tax_deadweight_loss),
    "ws_labor_tax_hours_drop_linear": (3, 3, ws_labor_tax_hours_drop_linear),
    "ws_labor_tax_dwl_linear": (3, 3, ws_labor_tax_dwl_linear),
    "ws_labor_isoelastic_drop": (2, 2, ws_labor_isoelastic_drop),
    "ws_labor_cd_hours": (4, 4, ws_labor_cd_hours),
    "ws_capital_cd_stock": (4, 4, ws_capital_cd_stock),
    "ws_capital_open_drop": (2, 2, ws_capital_open_drop),
    "ws_cd_exchange_price": (6, 6, ws_cd_exchange_price),
    "ws_cd_exchange_x1": (6, 6, ws_cd_exchange_x1),
    "ws_ql_exchange_price": (3, 3, ws_ql_exchange_price),
    "ws_cd_sw_transfer": (6, 6, ws_cd_sw_transfer),
    "ws_ql_sw_transfer": (5, 5, ws_ql_sw_transfer),
}
