"""Closed forms: labor supply, its elasticity, the consumption-leisure trade-off.

A worker with time endowment T hours, wage w and non-labor income V chooses
leisure l and consumption c = w (T - l) + V. Two preference families:
Cobb-Douglas u = c^a l^(1-a) and quasilinear u = c + b ln l.
"""

from __future__ import annotations

from collections.abc import Callable


def _interior(hours: float, endowment: float) -> float:
    if not 0 < hours < endowment:
        raise ValueError(f"hours {hours} are not interior to (0, {endowment})")
    return hours


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v}")


def cd_labor_hours(share: float, wage: float, endowment: float, nonlabor: float) -> float:
    """Hours of work a T - (1-a) V / w under u = c^a l^(1-a) (interior only)."""
    _positive(wage=wage, endowment=endowment)
    if not 0 < share < 1:
        raise ValueError(f"the consumption exponent must lie in (0, 1), got {share}")
    return _interior(share * endowment - (1 - share) * nonlabor / wage, endowment)


def ql_labor_hours(weight: float, wage: float, endowment: float) -> float:
    """Hours of work T - b / w under u = c + b ln l (interior only)."""
    _positive(weight=weight, wage=wage, endowment=endowment)
    return _interior(endowment - weight / wage, endowment)


def cd_labor_elasticity(share: float, wage: float, endowment: float, nonlabor: float) -> float:
    """Wage elasticity of hours (dh/dw)(w/h) = (1-a) V / (w h) under Cobb-Douglas."""
    hours = cd_labor_hours(share, wage, endowment, nonlabor)
    return (1 - share) * nonlabor / (wage * hours)


def ql_labor_elasticity(weight: float, wage: float, endowment: float) -> float:
    """Wage elasticity of hours b / (w h) under u = c + b ln l."""
    hours = ql_labor_hours(weight, wage, endowment)
    return weight / (wage * hours)


def cd_leisure_mrs(share: float, consumption: float, leisure: float) -> float:
    """MRS of leisure for consumption, (1-a) c / (a l), under u = c^a l^(1-a)."""
    _positive(consumption=consumption, leisure=leisure)
    if not 0 < share < 1:
        raise ValueError(f"the consumption exponent must lie in (0, 1), got {share}")
    return (1 - share) * consumption / (share * leisure)


def ql_leisure_mrs(weight: float, leisure: float) -> float:
    """MRS of leisure for consumption, b / l, under u = c + b ln l."""
    _positive(weight=weight, leisure=leisure)
    return weight / leisure


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "cd_labor_hours": (4, 4, cd_labor_hours),
    "ql_labor_hours": (3, 3, ql_labor_hours),
    "cd_labor_elasticity": (4, 4, cd_labor_elasticity),
    "ql_labor_elasticity": (3, 3, ql_labor_elasticity),
    "cd_leisure_mrs": (3, 3, cd_leisure_mrs),
    "ql_leisure_mrs": (2, 2, ql_leisure_mrs),
}
