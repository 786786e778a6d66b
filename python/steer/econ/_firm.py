"""Closed forms: the firm's choices: profit maximisation, cost minimisation and their
duality, supply elasticity, Shephard's lemma, input-price responses, TFP, dynamic
investment, entry and exit.
"""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
