"""Closed forms: surplus, deadweight loss, taxes and their incidence, distortions.

Demand and supply are written as inverse curves (price as a function of
quantity) unless a name says otherwise: linear demand P = a - bQ, linear supply
(or marginal cost) P = c + dQ. Every function raises ValueError for a draw
outside the interior case it describes (a price above the choke price, a
negative quantity, a zero slope).
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _positive(name: str, x: float) -> None:
    if not x > 0:
        raise ValueError(f"{name} must be positive, got {x:g}")


def ws_cs_linear(a: float, b: float, p: float) -> float:
    """Consumer surplus at price p under linear inverse demand P = a - bQ."""
    _positive("slope b", b)
    _positive("choke price less price", a - p)
    return (a - p) ** 2 / (2 * b)


def ws_cs_quadratic(a: float, b: float, p: float) -> float:
    """Consumer surplus at price p under inverse demand P = a - bQ^2."""
    _positive("b", b)
    _positive("choke price less price", a - p)
    q = math.sqrt((a - p) / b)
    return 2 / 3 * (a - p) * q


def ws_cs_exponential(scale: float, k: float, p: float) -> float:
    """Consumer surplus at price p under demand Q = scale * exp(-k P)."""
    _positive("scale", scale)
    _positive("k", k)
    if p < 0:
        raise ValueError(f"price must not be negative, got {p:g}")
    return scale * math.exp(-k * p) / k


def ws_ps_linear(c: float, d: float, p: float) -> float:
    """Producer surplus at price p under linear inverse supply P = c + dQ."""
    _positive("slope d", d)
    _positive("price less supply intercept", p - c)
    return (p - c) ** 2 / (2 * d)


def ws_ps_quadratic(c: float, d: float, p: float) -> float:
    """Producer surplus at price p under inverse supply P = c + dQ^2."""
    _positive("d", d)
    _positive("price less supply intercept", p - c)
    q = math.sqrt((p - c) / d)
    return 2 / 3 * (p - c) * q


def ws_ps_firm(c: float, e: float, p: float) -> float:
    """Producer surplus of a price-taking firm with cost F + cq + eq^2 at price p."""
    _positive("e", e)
    _positive("price less marginal cost at zero", p - c)
    return (p - c) ** 2 / (4 * e)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "ws_cs_linear": (3, 3, ws_cs_linear),
    "ws_cs_quadratic": (3, 3, ws_cs_quadratic),
    "ws_cs_exponential": (3, 3, ws_cs_exponential),
    "ws_ps_linear": (3, 3, ws_ps_linear),
    "ws_ps_quadratic": (3, 3, ws_ps_quadratic),
    "ws_ps_firm": (3, 3, ws_ps_firm),
}
