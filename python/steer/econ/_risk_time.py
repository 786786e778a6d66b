"""Closed forms: mean-variance price of risk, state-contingent consumption, arbitrage, bid-ask
portfolios, discounting, consumption smoothing.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
