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


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "tfp_solow": (4, 4, tfp_solow),
    "tfp_growth": (4, 4, tfp_growth),
}
