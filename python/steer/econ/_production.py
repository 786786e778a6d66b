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


def pf_sr_labor(tfp: float, b: float, q: float) -> float:
    """Labour needed for output q with the short-run technology q = tfp L^b."""
    if tfp <= 0 or b <= 0 or q <= 0:
        raise ValueError("short-run technology needs positive tfp, exponent and output")
    return (q / tfp) ** (1 / b)


def pf_sr_ac(fixed: float, wage: float, tfp: float, b: float, q: float) -> float:
    """Average total cost (fixed + wage L(q)) / q for q = tfp L^b."""
    return (fixed + wage * pf_sr_labor(tfp, b, q)) / q


def pf_sr_mc(wage: float, tfp: float, b: float, q: float) -> float:
    """Marginal cost wage / MP_L = wage L(q) / (b q) for q = tfp L^b."""
    return wage * pf_sr_labor(tfp, b, q) / (b * q)


def pf_leontief_ac(r: float, a_k: float, w: float, a_l: float, fixed: float, q: float) -> float:
    """Average cost r a_k + w a_l + fixed / q for q = min(K / a_k, L / a_l)."""
    if q <= 0:
        raise ValueError("output must be positive")
    return r * a_k + w * a_l + fixed / q


def pf_linear_mc(p1: float, y1: float, p2: float, y2: float) -> float:
    """Marginal cost min(p1 / y1, p2 / y2) for the linear technology q = y1 x1 + y2 x2."""
    if y1 <= 0 or y2 <= 0:
        raise ValueError("yields must be positive")
    return min(p1 / y1, p2 / y2)


def pf_sqrt_min_ac(wage: float, fixed: float, tfp: float) -> float:
    """Minimum average cost 2 sqrt(wage fixed) / tfp for q = tfp sqrt(L) with a fixed cost."""
    if wage <= 0 or fixed <= 0 or tfp <= 0:
        raise ValueError("wage, fixed cost and tfp must be positive")
    return 2 * math.sqrt(wage * fixed) / tfp


def pf_cd_input_price_elasticity(e_x: float, e_total: float) -> float:
    """Elasticity of a price taker's profit-maximising output with respect to the
    price of input x, for Cobb-Douglas with exponent e_x and exponents summing to
    e_total < 1: -e_x / (1 - e_total)."""
    if not 0 < e_x <= e_total < 1:
        raise ValueError("needs decreasing returns and a positive exponent")
    return -e_x / (1 - e_total)


def pf_cost_share_ces(w_x: float, rho: float, p_x: float, p_o: float) -> float:
    """Cost share of input x at the cost-minimising CES mix (weights w_x, 1 - w_x)."""
    if rho >= 1 or rho == 0 or not 0 < w_x < 1 or p_x <= 0 or p_o <= 0:
        raise ValueError("CES needs rho < 1, rho != 0, a weight in (0, 1), positive prices")
    sigma = 1 / (1 - rho)
    tx = w_x**sigma * p_x ** (1 - sigma)
    to = (1 - w_x) ** sigma * p_o ** (1 - sigma)
    return tx / (tx + to)


def pf_ces_input_price_elasticity(
    w_x: float, rho: float, degree: float, p_x: float, p_o: float
) -> float:
    """Elasticity of profit-maximising output with respect to the price of x for
    the CES technology (w_x x^rho + (1 - w_x) o^rho)^(degree/rho), degree < 1:
    -degree / (1 - degree) times x's cost share."""
    if not 0 < degree < 1:
        raise ValueError("needs decreasing returns")
    return -degree / (1 - degree) * pf_cost_share_ces(w_x, rho, p_x, p_o)


def pf_leontief_input_price_elasticity(
    a_x: float, a_o: float, degree: float, p_x: float, p_o: float
) -> float:
    """Elasticity of profit-maximising output with respect to the price of x for
    (min(x / a_x, o / a_o))^degree, degree < 1: -degree / (1 - degree) times x's
    cost share p_x a_x / (p_x a_x + p_o a_o)."""
    if not 0 < degree < 1 or min(a_x, a_o, p_x, p_o) <= 0:
        raise ValueError("needs decreasing returns and positive requirements and prices")
    return -degree / (1 - degree) * p_x * a_x / (p_x * a_x + p_o * a_o)


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
    "pf_sr_labor": (3, 3, pf_sr_labor),
    "pf_sr_ac": (5, 5, pf_sr_ac),
    "pf_sr_mc": (4, 4, pf_sr_mc),
    "pf_leontief_ac": (6, 6, pf_leontief_ac),
    "pf_linear_mc": (4, 4, pf_linear_mc),
    "pf_sqrt_min_ac": (3, 3, pf_sqrt_min_ac),
    "pf_cd_input_price_elasticity": (2, 2, pf_cd_input_price_elasticity),
    "pf_cost_share_ces": (4, 4, pf_cost_share_ces),
    "pf_ces_input_price_elasticity": (5, 5, pf_ces_input_price_elasticity),
    "pf_leontief_input_price_elasticity": (5, 5, pf_leontief_input_price_elasticity),
}
