"""Closed forms: surplus, deadweight loss, taxes and their incidence, distortions."""

from __future__ import annotations

from collections.abc import Callable

EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {}
