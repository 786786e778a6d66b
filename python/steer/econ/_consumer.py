"""Closed forms: utility functions, marginal utility, MRS, Marshallian and Hicksian demand,
duality, elasticities of demand, Engel curves.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
