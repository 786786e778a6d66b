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


def cd1_labor(p: float, tfp: float, s: float, w: float) -> float:
    """Profit-maximizing labor of q = A L^s (0 < s < 1): (s A p / w)^(1/(1-s))."""
    _positive(p=p, tfp=tfp, w=w)
    if not 0 < s < 1:
        raise ValueError(f"decreasing returns need 0 < s < 1, got {s}")
    return (s * tfp * p / w) ** (1 / (1 - s))


def cd1_profit(p: float, tfp: float, s: float, w: float) -> float:
    """Maximum profit of q = A L^s at output price p and wage w."""
    labor = cd1_labor(p, tfp, s, w)
    return p * tfp * labor**s - w * labor


def cd2_output(p: float, tfp: float, a: float, b: float, r: float, w: float) -> float:
    """Profit-maximizing output of q = A K^a L^b with a + b < 1."""
    _positive(p=p, tfp=tfp, a=a, b=b, r=r, w=w)
    n = a + b
    if not n < 1:
        raise ValueError(f"decreasing returns need a + b < 1, got {n}")
    return (tfp * (a * p / r) ** a * (b * p / w) ** b) ** (1 / (1 - n))


def cd2_profit(p: float, tfp: float, a: float, b: float, r: float, w: float) -> float:
    """Maximum profit of q = A K^a L^b: (1 - a - b) p q*."""
    return (1 - a - b) * p * cd2_output(p, tfp, a, b, r, w)


def cubic_short_run_output(p: float, a: float, b: float, c: float) -> float:
    """Short-run supply for variable cost a q - b q^2 + c q^3: the rising root of
    MC = p, or 0 when p is below the minimum AVC, a - b^2/(4c)."""
    _positive(b=b, c=c)
    if p < a - b**2 / (4 * c):
        return 0.0
    return (2 * b + (4 * b**2 - 12 * c * (a - p)) ** 0.5) / (6 * c)


def cubic_short_run_profit(p: float, fixed: float, a: float, b: float, c: float) -> float:
    """Best short-run profit with sunk cost F and variable cost a q - b q^2 + c q^3:
    at the short-run supply, or -F when shutting down is better."""
    q = cubic_short_run_output(p, a, b, c)
    return max(-fixed, p * q - fixed - a * q + b * q**2 - c * q**3)


def cd_cost_fn_labor(theta: float, k: float, alpha: float, q: float, w: float, r: float) -> float:
    """Shephard's lemma for C = theta q^k w^alpha r^(1-alpha): labor = alpha C / w."""
    _positive(theta=theta, q=q, w=w, r=r)
    if not 0 < alpha < 1:
        raise ValueError(f"the wage exponent must lie in (0, 1), got {alpha}")
    return alpha * theta * q**k * w ** (alpha - 1) * r ** (1 - alpha)


def gl_cost_fn_labor(a: float, b: float, c: float, q: float, w: float, r: float) -> float:
    """Shephard's lemma for C = q (a w + 2 b sqrt(w r) + c r): labor = q (a + b sqrt(r/w))."""
    _positive(q=q, w=w, r=r)
    return q * (a + b * (r / w) ** 0.5)


def cd_cond_elasticity(a: float, b: float, which: float) -> float:
    """Elasticities of Cobb-Douglas conditional demands (q = A K^a L^b): which=1
    labor to the wage -a/(a+b), 2 capital to the wage b/(a+b), 3 labor to the
    rental rate a/(a+b), 4 capital to the rental rate -b/(a+b)."""
    _positive(a=a, b=b)
    table = {1: -a, 2: b, 3: a, 4: -b}
    if which not in table:
        raise ValueError(f"which must be 1, 2, 3 or 4, got {which}")
    return table[int(which)] / (a + b)


def cd_cond_change_pct(a: float, b: float, which: float, p0: float, p1: float) -> float:
    """Percent change of a Cobb-Douglas conditional demand (`which` as in
    cd_cond_elasticity) when its input price goes p0 -> p1."""
    _positive(p0=p0, p1=p1)
    return 100 * ((p1 / p0) ** cd_cond_elasticity(a, b, which) - 1)


def ces_labor_cost_share(alpha: float, beta: float, rho: float, r: float, w: float) -> float:
    """Labor's share of minimum cost for q = (alpha K^rho + beta L^rho)^(1/rho)."""
    _positive(alpha=alpha, beta=beta, r=r, w=w)
    if rho == 0 or rho >= 1:
        raise ValueError(f"CES needs rho < 1 and rho != 0, got {rho}")
    s = 1 / (1 - rho)
    lab = beta**s * w ** (1 - s)
    return lab / (lab + alpha**s * r ** (1 - s))


def ces_cond_own_elasticity(alpha: float, beta: float, rho: float, r: float, w: float) -> float:
    """Own-wage elasticity of CES conditional labor demand: -sigma (1 - labor's cost share)."""
    share = ces_labor_cost_share(alpha, beta, rho, r, w)
    return -(1 - share) / (1 - rho)


def cubic_exit_class(p: float, fixed: float, a: float, b: float, c: float) -> float:
    """A firm with variable cost a q - b q^2 + c q^3 and a sunk fixed cost F, at
    price p: 0 stay (profit >= 0 at its best output), 1 produce now and exit in
    the long run (price covers minimum AVC, not ATC), 2 shut down now."""
    q = cubic_short_run_output(p, a, b, c)
    if q == 0.0:
        return 2.0
    profit = p * q - fixed - a * q + b * q**2 - c * q**3
    return 0.0 if profit >= 0 else 1.0


def quad_exit_class(p: float, fixed: float, b: float, c: float) -> float:
    """As cubic_exit_class for cost F + b q + c q^2: minimum AVC is b, minimum
    ATC b + 2 sqrt(c F)."""
    _positive(c=c)
    if p < b:
        return 2.0
    return 0.0 if p >= b + 2 * (c * fixed) ** 0.5 else 1.0


def quad_entry_class(p: float, fixed: float, b: float, c: float) -> float:
    """Long-run entry for identical firms with cost F + b q + c q^2 (all avoidable):
    0 entry (p above minimum AC, b + 2 sqrt(c F)), 1 exit (below), 2 neither (equal)."""
    _positive(c=c)
    gap = p - (b + 2 * (c * fixed) ** 0.5)
    if abs(gap) < 1e-9 * max(1.0, abs(p)):
        return 2.0
    return 0.0 if gap > 0 else 1.0


def cubic_min_ac(fixed: float, a: float, b: float, c: float) -> float:
    """Minimum average total cost F/q + a - b q + c q^2 (F > 0): at the root of
    2c q^3 - b q^2 - F = 0, found by bisection (the cubic rises from -F)."""
    _positive(fixed=fixed, c=c)
    lo, hi = 0.0, 1.0
    while 2 * c * hi**3 - b * hi**2 - fixed < 0:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if 2 * c * mid**3 - b * mid**2 - fixed < 0:
            lo = mid
        else:
            hi = mid
    q = (lo + hi) / 2
    return fixed / q + a - b * q + c * q**2


def power_cost_output(p: float, theta: float, k: float) -> float:
    """Profit-maximizing output for the cost function C(q) = theta q^k (k > 1):
    p = k theta q^(k-1)."""
    _positive(p=p, theta=theta)
    if not k > 1:
        raise ValueError(f"increasing marginal cost needs k > 1, got {k}")
    return (p / (k * theta)) ** (1 / (k - 1))


def power_cost_profit(p: float, theta: float, k: float) -> float:
    """Maximum profit for the cost function C(q) = theta q^k (k > 1)."""
    q = power_cost_output(p, theta, k)
    return p * q - theta * q**k


def adj_cost_investment(pk: float, c: float, theta: float, e_price: float, rate: float) -> float:
    """Investment maximizing -pk I - (c/2) I^2 + theta E[p] I / (1 + r)."""
    _positive(c=c)
    if rate <= -1:
        raise ValueError(f"the discount rate must exceed -1, got {rate}")
    gain = theta * e_price / (1 + rate) - pk
    if gain <= 0:
        raise ValueError("investing does not pay: the corner I = 0")
    return gain / c


def adj_cost_value(pk: float, c: float, theta: float, e_price: float, rate: float) -> float:
    """Net present value at the optimal investment with a quadratic adjustment cost."""
    i = adj_cost_investment(pk, c, theta, e_price, rate)
    return c * i**2 / 2


def cd_investment(pk: float, tfp: float, alpha: float, e_price: float, rate: float) -> float:
    """Investment maximizing -pk I + A I^alpha E[p] / (1 + r) (0 < alpha < 1)."""
    _positive(pk=pk, tfp=tfp, e_price=e_price)
    if not 0 < alpha < 1:
        raise ValueError(f"decreasing returns need 0 < alpha < 1, got {alpha}")
    return (alpha * tfp * e_price / ((1 + rate) * pk)) ** (1 / (1 - alpha))


def cd_investment_value(pk: float, tfp: float, alpha: float, e_price: float, rate: float) -> float:
    """Net present value at the optimal decreasing-returns investment."""
    i = cd_investment(pk, tfp, alpha, e_price, rate)
    return tfp * i**alpha * e_price / (1 + rate) - pk * i


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
    "cd1_labor": (4, 4, cd1_labor),
    "cd1_profit": (4, 4, cd1_profit),
    "cd2_output": (6, 6, cd2_output),
    "cd2_profit": (6, 6, cd2_profit),
    "cubic_short_run_output": (4, 4, cubic_short_run_output),
    "cubic_short_run_profit": (5, 5, cubic_short_run_profit),
    "cd_cost_fn_labor": (6, 6, cd_cost_fn_labor),
    "gl_cost_fn_labor": (6, 6, gl_cost_fn_labor),
    "cd_cond_elasticity": (3, 3, cd_cond_elasticity),
    "cd_cond_change_pct": (5, 5, cd_cond_change_pct),
    "ces_labor_cost_share": (5, 5, ces_labor_cost_share),
    "ces_cond_own_elasticity": (5, 5, ces_cond_own_elasticity),
    "cubic_exit_class": (5, 5, cubic_exit_class),
    "quad_exit_class": (4, 4, quad_exit_class),
    "quad_entry_class": (4, 4, quad_entry_class),
    "cubic_min_ac": (4, 4, cubic_min_ac),
    "power_cost_output": (3, 3, power_cost_output),
    "power_cost_profit": (3, 3, power_cost_profit),
    "adj_cost_investment": (5, 5, adj_cost_investment),
    "adj_cost_value": (5, 5, adj_cost_value),
    "cd_investment": (5, 5, cd_investment),
    "cd_investment_value": (5, 5, cd_investment_value),
}
