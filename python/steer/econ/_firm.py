"""Closed forms: the firm's choices: profit maximisation, cost minimisation and their
duality, supply elasticity, Shephard's lemma, input-price responses, TFP, dynamic
investment, entry and exit.
"""

from __future__ import annotations

from collections.abc import Callable


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v}")


def tfp_solow(output: float, capital: float, labor: float, share: float) -> float:
    """Solow residual A = Y / (K^a L^(1-a)) of a Cobb-Douglas technology."""
    _positive(output=output, capital=capital, labor=labor)
    if not 0 < share < 1:
        raise ValueError(f"the capital share must lie in (0, 1), got {share}")
    return output / (capital**share * labor ** (1 - share))


def tfp_growth(g_output: float, g_capital: float, g_labor: float, share: float) -> float:
    """Growth accounting: TFP growth = gY - a gK - (1-a) gL (any common unit)."""
    if not 0 < share < 1:
        raise ValueError(f"the capital share must lie in (0, 1), got {share}")
    return g_output - share * g_capital - (1 - share) * g_labor


def cd_supply_elasticity(returns: float) -> float:
    """Price elasticity of supply of a Cobb-Douglas firm whose exponents sum to `returns` < 1."""
    if not 0 < returns < 1:
        raise ValueError(f"decreasing returns need 0 < a+b < 1, got {returns}")
    return returns / (1 - returns)


def cd_supply_change_pct(returns: float, p0: float, p1: float) -> float:
    """Percent change of a decreasing-returns Cobb-Douglas supply as price goes p0 -> p1."""
    _positive(p0=p0, p1=p1)
    return 100 * ((p1 / p0) ** cd_supply_elasticity(returns) - 1)


def quad_supply_elasticity(price: float, linear: float, quad: float) -> float:
    """Point price elasticity of supply for cost F + b q + c q^2 at price p (p/(p-b))."""
    _positive(quad=quad)
    if not price > linear:
        raise ValueError("the price does not cover marginal cost at zero output")
    return price / (price - linear)


def cd_cond_labor(q: float, tfp: float, a: float, b: float, r: float, w: float) -> float:
    """Conditional labor demand of q = A K^a L^b at input prices r (capital) and w (labor)."""
    _positive(q=q, tfp=tfp, a=a, b=b, r=r, w=w)
    n = a + b
    return (q / tfp) ** (1 / n) * (b * r / (a * w)) ** (a / n)


def cd_cond_capital(q: float, tfp: float, a: float, b: float, r: float, w: float) -> float:
    """Conditional capital demand of q = A K^a L^b at input prices r (capital) and w (labor)."""
    _positive(q=q, tfp=tfp, a=a, b=b, r=r, w=w)
    n = a + b
    return (q / tfp) ** (1 / n) * (a * w / (b * r)) ** (b / n)


def cd_min_cost(q: float, tfp: float, a: float, b: float, r: float, w: float) -> float:
    """Minimum cost of output q with q = A K^a L^b (the cost function c(r, w, q))."""
    return r * cd_cond_capital(q, tfp, a, b, r, w) + w * cd_cond_labor(q, tfp, a, b, r, w)


def leontief_min_cost(q: float, a: float, b: float, r: float, w: float) -> float:
    """Minimum cost of output q with q = min(aK, bL): q (r/a + w/b)."""
    _positive(a=a, b=b)
    return q * (r / a + w / b)


def linear_min_cost(q: float, a: float, b: float, r: float, w: float) -> float:
    """Minimum cost of output q with q = aK + bL: the cheaper input per unit of output only."""
    _positive(a=a, b=b)
    return q * min(r / a, w / b)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "tfp_solow": (4, 4, tfp_solow),
    "tfp_growth": (4, 4, tfp_growth),
    "cd_supply_elasticity": (1, 1, cd_supply_elasticity),
    "cd_supply_change_pct": (3, 3, cd_supply_change_pct),
    "quad_supply_elasticity": (3, 3, quad_supply_elasticity),
    "cd_cond_labor": (6, 6, cd_cond_labor),
    "cd_cond_capital": (6, 6, cd_cond_capital),
    "cd_min_cost": (6, 6, cd_min_cost),
    "leontief_min_cost": (5, 5, leontief_min_cost),
    "linear_min_cost": (5, 5, linear_min_cost),
}
