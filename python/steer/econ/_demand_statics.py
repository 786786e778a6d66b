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


# Income elasticities of demand.


def incel_les(
    share: float, sub_x: float, sub_y: float, price_x: float, price_y: float, income: float
) -> float:
    """Income elasticity of x under u = a ln(x - x0) + (1-a) ln(y - y0) (Stone-Geary)."""
    _positive(price_x=price_x, price_y=price_y, income=income)
    if not 0 < share < 1:
        raise ValueError(f"the exponent must lie in (0, 1), got {share}")
    spare = income - price_x * sub_x - price_y * sub_y
    if not spare > 0:
        raise ValueError("income does not cover the subsistence quantities")
    quantity = sub_x + share * spare / price_x
    return (share / price_x) * income / quantity


def incel_ql_numeraire(weight: float, price_y: float, income: float) -> float:
    """Income elasticity of the linear good y under u = b ln x + y: m / (m - b p_y)."""
    _positive(weight=weight, price_y=price_y, income=income)
    if not income > weight * price_y:
        raise ValueError("income too low for an interior quasilinear optimum")
    return income / (income - weight * price_y)


def incel_linear(intercept: float, slope: float, income: float) -> float:
    """Income elasticity of a stated demand x = c0 + c1 m at income m."""
    quantity = intercept + slope * income
    _positive(quantity=quantity, income=income)
    return slope * income / quantity


def incel_quadratic(c0: float, c1: float, c2: float, income: float) -> float:
    """Income elasticity of a stated Engel curve x = c0 + c1 m - c2 m^2."""
    quantity = c0 + c1 * income - c2 * income**2
    _positive(quantity=quantity, income=income)
    return (c1 - 2 * c2 * income) * income / quantity


# Direction of the demand response (law of demand, ordinary or Giffen).


def quadratic_demand(intercept: float, linear: float, curvature: float, price: float) -> float:
    """Stated demand x(p) = A + B p - C p^2 (positive quantity only)."""
    quantity = intercept + linear * price - curvature * price**2
    _positive(quantity=quantity, price=price)
    return quantity


def real_income_demand_slope(scale: float, peak: float, price: float, income: float) -> float:
    """dx/dp of the stated demand x = k r (R - r), r = m / p (positive quantity only):
    -k (m / p^2) (R - 2 r); positive (Giffen) where real income exceeds R / 2."""
    _positive(scale=scale, price=price, income=income)
    real = income / price
    if not 0 < real < peak:
        raise ValueError("the stated demand is not positive at this real income")
    return -scale * (income / price**2) * (peak - 2 * real)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "engel_cd_quantity": (3, 3, engel_cd_quantity),
    "engel_ql_quantity": (4, 4, engel_ql_quantity),
    "engel_ces_quantity": (4, 4, engel_ces_quantity),
    "ped_linear_point": (3, 3, ped_linear_point),
    "ped_midpoint": (4, 4, ped_midpoint),
    "ped_base": (4, 4, ped_base),
    "incel_les": (6, 6, incel_les),
    "incel_ql_numeraire": (3, 3, incel_ql_numeraire),
    "incel_linear": (3, 3, incel_linear),
    "incel_quadratic": (4, 4, incel_quadratic),
    "quadratic_demand": (4, 4, quadratic_demand),
    "real_income_demand_slope": (4, 4, real_income_demand_slope),
}
