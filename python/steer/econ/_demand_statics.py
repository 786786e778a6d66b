"""Closed forms: comparative statics of demand: law of demand, price and income
elasticities, Engel curves, ordinary and Giffen responses.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
