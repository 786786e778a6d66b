"""Closed forms: utility functions, marginal utility, MRS, Marshallian and Hicksian demand,
duality, elasticities of demand, Engel curves.

Conventions: two goods x and y with prices px, py and income m. Cobb–Douglas
is u = x^a y^b; CES is u = (a x^r + b y^r)^(1/r) with r < 1, r != 0 and
elasticity of substitution s = 1 / (1 - r); Leontief is u = min(x / ka, y / kb)
(ka units of x are used with kb units of y); quasilinear is u = c ln x + y.
"""

from __future__ import annotations

import math
from collections.abc import Callable


def _positive(**values: float) -> None:
    for name, v in values.items():
        if not v > 0:
            raise ValueError(f"{name} must be positive, got {v}")


def cd_mu_x(a: float, b: float, x: float, y: float) -> float:
    """Marginal utility of x, a x^(a-1) y^b, under u = x^a y^b."""
    _positive(a=a, b=b, x=x, y=y)
    return a * x ** (a - 1) * y**b


def ces_mu_x(a: float, b: float, r: float, x: float, y: float) -> float:
    """Marginal utility of x, a x^(r-1) (a x^r + b y^r)^(1/r - 1), under CES."""
    _positive(a=a, b=b, x=x, y=y)
    if r == 0 or r >= 1:
        raise ValueError(f"CES needs r < 1 and r != 0, got {r}")
    inner = a * x**r + b * y**r
    return a * x ** (r - 1) * inner ** (1 / r - 1)


def cd_mrs(a: float, b: float, x: float, y: float) -> float:
    """MRS of y for x, (a / b) (y / x), under u = x^a y^b."""
    _positive(a=a, b=b, x=x, y=y)
    return a * y / (b * x)


def ces_mrs(a: float, b: float, r: float, x: float, y: float) -> float:
    """MRS of y for x, (a / b) (x / y)^(r - 1), under CES."""
    _positive(a=a, b=b, x=x, y=y)
    if r == 0 or r >= 1:
        raise ValueError(f"CES needs r < 1 and r != 0, got {r}")
    return a / b * (x / y) ** (r - 1)


def cd_marshallian_x(a: float, b: float, m: float, px: float) -> float:
    """Marshallian demand for x, a / (a + b) m / px, under u = x^a y^b."""
    _positive(a=a, b=b, m=m, px=px)
    return a / (a + b) * m / px


def ces_marshallian_x(a: float, b: float, r: float, m: float, px: float, py: float) -> float:
    """Marshallian demand for x under CES: a^s px^-s m / (a^s px^(1-s) + b^s py^(1-s))."""
    _positive(a=a, b=b, m=m, px=px, py=py)
    if r == 0 or r >= 1:
        raise ValueError(f"CES needs r < 1 and r != 0, got {r}")
    s = 1 / (1 - r)
    return a**s * px**-s * m / (a**s * px ** (1 - s) + b**s * py ** (1 - s))


def leontief_marshallian_x(ka: float, kb: float, m: float, px: float, py: float) -> float:
    """Marshallian demand for x, ka m / (ka px + kb py), under u = min(x / ka, y / kb)."""
    _positive(ka=ka, kb=kb, m=m, px=px, py=py)
    return ka * m / (ka * px + kb * py)


def ql_marshallian_x(c: float, m: float, px: float, py: float) -> float:
    """Marshallian demand for x, c py / px, under u = c ln x + y (interior only)."""
    _positive(c=c, m=m, px=px, py=py)
    if c * py >= m:
        raise ValueError("income too low for an interior solution")
    return c * py / px


def cd_hicksian_x(a: float, b: float, u: float, px: float, py: float) -> float:
    """Hicksian demand for x, u^(1/(a+b)) (a py / (b px))^(b/(a+b)), under u = x^a y^b."""
    _positive(a=a, b=b, u=u, px=px, py=py)
    return u ** (1 / (a + b)) * (a * py / (b * px)) ** (b / (a + b))


def ces_hicksian_x(a: float, b: float, r: float, u: float, px: float, py: float) -> float:
    """Hicksian demand for x under CES: u a^s px^-s (a^s px^(1-s) + b^s py^(1-s))^(s/(1-s))."""
    _positive(a=a, b=b, u=u, px=px, py=py)
    if r == 0 or r >= 1:
        raise ValueError(f"CES needs r < 1 and r != 0, got {r}")
    s = 1 / (1 - r)
    inner = a**s * px ** (1 - s) + b**s * py ** (1 - s)
    return u * a**s * px**-s * inner ** (s / (1 - s))


def cd_expenditure(a: float, b: float, u: float, px: float, py: float) -> float:
    """Least spending px hx + py hy that reaches utility u under u = x^a y^b."""
    hx = cd_hicksian_x(a, b, u, px, py)
    hy = cd_hicksian_x(b, a, u, py, px)
    return px * hx + py * hy


def cd_indirect(a: float, b: float, m: float, px: float, py: float) -> float:
    """Indirect utility: the utility of the Marshallian bundle under u = x^a y^b."""
    x = cd_marshallian_x(a, b, m, px)
    y = cd_marshallian_x(b, a, m, py)
    return x**a * y**b


def cd_compensation(a: float, b: float, m: float, px0: float, px1: float) -> float:
    """Income that keeps the old utility after px0 -> px1: m (px1 / px0)^(a / (a + b))."""
    _positive(a=a, b=b, m=m, px0=px0, px1=px1)
    return m * (px1 / px0) ** (a / (a + b))


def mrs_class(mrs: float, px: float, py: float) -> float:
    """Tangency class: 0 when MRS = px / py, 1 when MRS > px / py (buy more x), 2 otherwise."""
    _positive(px=px, py=py)
    ratio = px / py
    if math.isclose(mrs, ratio, rel_tol=1e-9, abs_tol=1e-12):
        return 0.0
    return 1.0 if mrs > ratio else 2.0


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "cd_mu_x": (4, 4, cd_mu_x),
    "ces_mu_x": (5, 5, ces_mu_x),
    "cd_mrs": (4, 4, cd_mrs),
    "ces_mrs": (5, 5, ces_mrs),
    "cd_marshallian_x": (4, 4, cd_marshallian_x),
    "ces_marshallian_x": (6, 6, ces_marshallian_x),
    "leontief_marshallian_x": (5, 5, leontief_marshallian_x),
    "ql_marshallian_x": (4, 4, ql_marshallian_x),
    "cd_hicksian_x": (5, 5, cd_hicksian_x),
    "ces_hicksian_x": (6, 6, ces_hicksian_x),
    "cd_expenditure": (5, 5, cd_expenditure),
    "cd_indirect": (5, 5, cd_indirect),
    "cd_compensation": (5, 5, cd_compensation),
    "mrs_class": (3, 3, mrs_class),
}
