"""Closed forms: production functions, marginal and average products and costs, elasticities,
returns to scale, profit maximisation and cost minimisation.

Names carry the `pf_` prefix (production function) so they cannot clash with the
firm-choice module's names. Two-input functions take the input of interest first
(`x`, its exponent or weight) and the other input second (`o`).
"""

from __future__ import annotations

import math
from collections.abc import Callable


def pf_cd_output(tfp: float, e_x: float, e_o: float, x: float, o: float) -> float:
    """Cobb-Douglas output tfp * x^e_x * o^e_o."""
    if x <= 0 or o <= 0:
        raise ValueError("Cobb-Douglas inputs must be positive")
    return tfp * x**e_x * o**e_o


def pf_cd_mp(tfp: float, e_x: float, e_o: float, x: float, o: float) -> float:
    """Marginal product of x for Cobb-Douglas tfp * x^e_x * o^e_o."""
    return e_x * pf_cd_output(tfp, e_x, e_o, x, o) / x


def pf_ces_output(tfp: float, w_x: float, rho: float, x: float, o: float) -> float:
    """CES output tfp * (w_x x^rho + (1 - w_x) o^rho)^(1/rho), rho != 0."""
    if rho == 0 or x <= 0 or o <= 0 or not 0 < w_x < 1:
        raise ValueError("CES needs rho != 0, positive inputs and a weight in (0, 1)")
    return tfp * (w_x * x**rho + (1 - w_x) * o**rho) ** (1 / rho)


def pf_ces_mp(tfp: float, w_x: float, rho: float, x: float, o: float) -> float:
    """Marginal product of x for CES tfp * (w_x x^rho + (1 - w_x) o^rho)^(1/rho)."""
    inner = w_x * x**rho + (1 - w_x) * o**rho
    pf_ces_output(tfp, w_x, rho, x, o)  # validates the draw
    return tfp * w_x * x ** (rho - 1) * inner ** (1 / rho - 1)


def pf_quad_mp(a: float, b: float, x: float) -> float:
    """Marginal product a - 2 b x of the short-run technology a x - b x^2."""
    return a - 2 * b * x


def pf_ces_output_elasticity(w_x: float, rho: float, x: float, o: float) -> float:
    """Output elasticity of x for CES: w_x x^rho / (w_x x^rho + (1 - w_x) o^rho)."""
    pf_ces_output(1.0, w_x, rho, x, o)
    return w_x * x**rho / (w_x * x**rho + (1 - w_x) * o**rho)


def pf_linear_output_elasticity(c_x: float, c_o: float, x: float, o: float) -> float:
    """Output elasticity of x for the linear technology c_x x + c_o o."""
    total = c_x * x + c_o * o
    if total <= 0:
        raise ValueError("linear output must be positive")
    return c_x * x / total


def pf_quad_output_elasticity(a: float, b: float, x: float) -> float:
    """Output elasticity (a - 2 b x) x / (a x - b x^2) of the short-run technology a x - b x^2."""
    q = a * x - b * x * x
    if q <= 0:
        raise ValueError("output must be positive")
    return (a - 2 * b * x) * x / q


def pf_ces_sigma(rho: float) -> float:
    """Elasticity of substitution 1 / (1 - rho) of a CES technology."""
    if rho >= 1:
        raise ValueError("CES needs rho < 1")
    return 1 / (1 - rho)


def pf_arc_sigma(r1: float, r2: float, t1: float, t2: float) -> float:
    """Log-arc elasticity of substitution ln(r2/r1) / ln(t2/t1) between two input ratios."""
    if min(r1, r2, t1, t2) <= 0 or t1 == t2:
        raise ValueError("ratios and rates must be positive and the rates must differ")
    return math.log(r2 / r1) / math.log(t2 / t1)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "pf_cd_output": (5, 5, pf_cd_output),
    "pf_cd_mp": (5, 5, pf_cd_mp),
    "pf_ces_output": (5, 5, pf_ces_output),
    "pf_ces_mp": (5, 5, pf_ces_mp),
    "pf_quad_mp": (3, 3, pf_quad_mp),
    "pf_ces_output_elasticity": (4, 4, pf_ces_output_elasticity),
    "pf_linear_output_elasticity": (4, 4, pf_linear_output_elasticity),
    "pf_quad_output_elasticity": (3, 3, pf_quad_output_elasticity),
    "pf_ces_sigma": (1, 1, pf_ces_sigma),
    "pf_arc_sigma": (4, 4, pf_arc_sigma),
}
