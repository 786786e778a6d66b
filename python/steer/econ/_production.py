"""Closed forms: production functions, marginal and average products and costs, elasticities,
returns to scale, profit maximisation and cost minimisation.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
