"""Closed forms: comparative statics of demand: law of demand, price and income
elasticities, Engel curves, ordinary and Giffen responses.
"""

from __future__ import annotations

from collections.abc import Callable


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v}")


# Engel curves (demand as income varies, prices fixed).


def engel_cd_quantity(share: float, income: float, price: float) -> float:
    """Cobb-Douglas demand a m / p for the good with exponent a."""
    _positive(income=income, price=price)
    if not 0 < share < 1:
        raise ValueError(f"the exponent must lie in (0, 1), got {share}")
    return share * income / price


def engel_ql_quantity(weight: float, price_x: float, price_y: float, income: float) -> float:
    """Demand b p_y / p_x for x under u = b ln x + y (interior: m > b p_y)."""
    _positive(weight=weight, price_x=price_x, price_y=price_y)
    if not income > weight * price_y:
        raise ValueError("income too low for an interior quasilinear optimum")
    return weight * price_y / price_x


def engel_ces_quantity(rho: float, price_x: float, price_y: float, income: float) -> float:
    """Demand for x under u = (x^r + y^r)^(1/r): m p_x^-s / (p_x^(1-s) + p_y^(1-s)),
    s = 1 / (1 - r)."""
    _positive(price_x=price_x, price_y=price_y, income=income)
    if not rho < 1 or rho == 0:
        raise ValueError(f"the CES parameter must be below 1 and not 0, got {rho}")
    s = 1 / (1 - rho)
    return income * price_x**-s / (price_x ** (1 - s) + price_y ** (1 - s))


# Price elasticities of demand.


def ped_linear_point(intercept: float, slope: float, price: float) -> float:
    """Point elasticity -B p / (A - B p) of Q = A - B p (positive quantity only)."""
    quantity = intercept - slope * price
    _positive(quantity=quantity, price=price)
    return -slope * price / quantity


def ped_midpoint(q1: float, q2: float, p1: float, p2: float) -> float:
    """Midpoint (arc) elasticity: (dQ / mean Q) / (dp / mean p)."""
    _positive(q1=q1, q2=q2, p1=p1, p2=p2)
    if p1 == p2:
        raise ValueError("the two prices are equal")
    return ((q2 - q1) / (q1 + q2)) / ((p2 - p1) / (p1 + p2))


def ped_base(q1: float, q2: float, p1: float, p2: float) -> float:
    """Elasticity of a discrete change with percentages from the initial values."""
    _positive(q1=q1, q2=q2, p1=p1, p2=p2)
    if p1 == p2:
        raise ValueError("the two prices are equal")
    return ((q2 - q1) / q1) / ((p2 - p1) / p1)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "engel_cd_quantity": (3, 3, engel_cd_quantity),
    "engel_ql_quantity": (4, 4, engel_ql_quantity),
    "engel_ces_quantity": (4, 4, engel_ces_quantity),
    "ped_linear_point": (3, 3, ped_linear_point),
    "ped_midpoint": (4, 4, ped_midpoint),
    "ped_base": (4, 4, ped_base),
}
