"""Closed forms: aggregation of demand, supply and factors; equilibrium prices and factor shares;
comparative statics.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
