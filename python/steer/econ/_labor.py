"""Closed forms: labor supply, its elasticity, the consumption-leisure trade-off."""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
