"""Closed-form microeconomics for the STEER-ME generators and checks.

Each submodule covers one area (utility and demand, labor, risk and time,
production, markets, welfare) with plain scalar functions of floats. Those
listed in a module's `EXPR_FUNCTIONS` can be called by name from template
expressions (`answer = "cd_demand(a, m, px)"`), so a template's key is the
closed form written once here, and the tests check it against independent
numerical computations (finite differences, grid search, scipy optimisers).

A function signals a parameter draw it cannot handle (a corner where the
closed form assumes an interior solution, a zero denominator) by raising
ValueError; the expression language turns that into a rejected draw.

This package sits below `templates` in the pipeline: it imports nothing from
steer.
"""

from __future__ import annotations

from collections.abc import Callable

from steer.econ import (
    _consumer,
    _demand_statics,
    _firm,
    _labor,
    _markets,
    _production,
    _risk_time,
    _welfare,
)

# name -> (fewest arguments, most arguments, function)
ExprFunction = tuple[int, int, Callable[..., float]]

EXPR_FUNCTIONS: dict[str, ExprFunction] = {}
for _module in (
    _consumer,
    _demand_statics,
    _labor,
    _risk_time,
    _production,
    _firm,
    _markets,
    _welfare,
):
    for _name, _spec in _module.EXPR_FUNCTIONS.items():
        if _name in EXPR_FUNCTIONS:
            raise RuntimeError(f"econ function {_name!r} is defined twice")
        EXPR_FUNCTIONS[_name] = _spec

__all__ = ["EXPR_FUNCTIONS", "ExprFunction"]
