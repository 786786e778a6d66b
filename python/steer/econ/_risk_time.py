"""Closed forms: mean-variance price of risk, state-contingent consumption, arbitrage, bid-ask
portfolios, discounting, consumption smoothing.
"""

from __future__ import annotations

from collections.abc import Callable

# --- exponential discounting (A.21) -------------------------------------------------------


def disc_pv(amount: float, rate: float, periods: float) -> float:
    """Present value of `amount` paid `periods` periods from now at `rate` per period."""
    if rate <= -1:
        raise ValueError("a rate of -100% or less cannot discount")
    return amount / float((1 + rate) ** periods)


def disc_annuity(payment: float, factor: float, periods: float, first: float = 1) -> float:
    """Present value of `payment` each period for `periods` periods, the first `first`
    periods from now, each period discounted by the same `factor`."""
    if not 0 < factor <= 1:
        raise ValueError("a discount factor lies in (0, 1]")
    n = round(periods)
    if n < 1 or n != periods:
        raise ValueError("an annuity needs a whole number of payments, at least one")
    if factor == 1:
        return payment * n * 1.0
    return payment * float(factor**first) * (1 - factor**n) / (1 - factor)


def disc_growing_perpetuity(payment: float, rate: float, growth: float) -> float:
    """Present value of a payment next period that grows by `growth` a period forever."""
    if rate <= growth:
        raise ValueError("a growing perpetuity needs the rate above the growth rate")
    return payment / (rate - growth)


# --- mean-variance price of risk (A.17) ---------------------------------------------------


def mv_sharpe(mean: float, riskfree: float, sd: float) -> float:
    """Price of risk: excess expected return per unit of standard deviation."""
    if sd <= 0:
        raise ValueError("a risky asset has a positive standard deviation")
    return (mean - riskfree) / sd


def mv_risky_share(mean: float, riskfree: float, aversion: float, variance: float) -> float:
    """Optimal share in the risky asset for utility E[R] - aversion/2 * Var[R]."""
    if aversion <= 0 or variance <= 0:
        raise ValueError("risk aversion and variance must be positive")
    return (mean - riskfree) / (aversion * variance)


def mv_required_premium(aversion: float, variance: float, share: float) -> float:
    """Excess expected return that makes `share` the optimal risky share."""
    return aversion * variance * share


# --- state-contingent consumption (A.18) --------------------------------------------------


def scc_consumption(wealth: float, aversion: float, state: float, *pq: float) -> float:
    """Consumption in state `state` (1-based) maximising sum pi_s u(c_s) subject to
    sum q_s c_s = wealth, for CRRA utility with relative risk aversion `aversion`
    (1 is log); `pq` lists pi_1, q_1, pi_2, q_2, ..."""
    if len(pq) < 4 or len(pq) % 2:
        raise ValueError("state-contingent consumption needs a probability and a price per state")
    probs, prices = pq[0::2], pq[1::2]
    if aversion <= 0 or wealth <= 0 or min(probs) <= 0 or min(prices) <= 0:
        raise ValueError("wealth, risk aversion, probabilities and prices must be positive")
    k = round(state)
    if not 1 <= k <= len(probs) or k != state:
        raise ValueError("no such state")
    ratio = [(p / q) ** (1 / aversion) for p, q in zip(probs, prices, strict=True)]
    spend = sum(q * x for q, x in zip(prices, ratio, strict=True))
    return float(wealth * ratio[k - 1] / spend)


# --- arbitrage (A.19) ---------------------------------------------------------------------


def arb_replicate_price(
    a1: float, a2: float, b1: float, b2: float, pa: float, pb: float, c1: float, c2: float
) -> float:
    """No-arbitrage price of an asset paying c1, c2 in two states, replicated by assets
    paying (a1, a2) at price pa and (b1, b2) at price pb."""
    det = a1 * b2 - a2 * b1
    if det == 0:
        raise ValueError("the two assets do not span the two states")
    x = (c1 * b2 - c2 * b1) / det
    y = (a1 * c2 - a2 * c1) / det
    return x * pa + y * pb


def arb_holdings(
    a1: float, a2: float, b1: float, b2: float, c1: float, c2: float, which: float
) -> float:
    """Units of the first (`which` = 1) or second (2) asset in the portfolio that pays
    c1, c2 in the two states."""
    det = a1 * b2 - a2 * b1
    if det == 0:
        raise ValueError("the two assets do not span the two states")
    if which == 1:
        return (c1 * b2 - c2 * b1) / det
    if which == 2:
        return (a1 * c2 - a2 * c1) / det
    raise ValueError("which is 1 or 2")


# --- bid-ask spreads (A.20) ---------------------------------------------------------------


def ba_optimal_holding(
    mean: float, variance: float, aversion: float, ask: float, bid: float, held: float
) -> float:
    """Shares held after trading optimally, for utility E[W] - aversion/2 * Var[W] over a
    payoff with the given mean and variance per share: buy at `ask` up to the holding
    that marginal benefit justifies, sell at `bid` down to it, else keep `held`."""
    if aversion <= 0 or variance <= 0:
        raise ValueError("risk aversion and variance must be positive")
    if bid > ask:
        raise ValueError("the bid exceeds the ask")
    buy_to = (mean - ask) / (aversion * variance)
    sell_to = (mean - bid) / (aversion * variance)
    if buy_to > held:
        return buy_to
    if sell_to < held:
        return max(sell_to, 0.0)
    return held


# --- consumption smoothing (A.22) ---------------------------------------------------------


def smooth_c1(rate: float, beta: float, aversion: float, *incomes: float) -> float:
    """First-period consumption of a CRRA consumer (relative risk aversion `aversion`,
    1 is log) who can borrow and save at `rate` each period and discounts by `beta`, with
    the given incomes in periods 1, 2, ...: the Euler equation makes
    c_{t+1} = c_t (beta (1 + rate))^(1/aversion)."""
    if not incomes:
        raise ValueError("at least one period's income")
    if rate <= -1 or beta <= 0 or aversion <= 0:
        raise ValueError("rate above -100%, positive beta and risk aversion")
    growth = (beta * (1 + rate)) ** (1 / aversion)
    wealth = sum(y / (1 + rate) ** t for t, y in enumerate(incomes))
    weight = sum((growth / (1 + rate)) ** t for t in range(len(incomes)))
    return float(wealth / weight)


EXPR_FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "disc_pv": (3, 3, disc_pv),
    "disc_annuity": (3, 4, disc_annuity),
    "disc_growing_perpetuity": (3, 3, disc_growing_perpetuity),
    "mv_sharpe": (3, 3, mv_sharpe),
    "mv_risky_share": (4, 4, mv_risky_share),
    "mv_required_premium": (3, 3, mv_required_premium),
    "scc_consumption": (7, 9, scc_consumption),
    "arb_replicate_price": (8, 8, arb_replicate_price),
    "arb_holdings": (7, 7, arb_holdings),
    "ba_optimal_holding": (6, 6, ba_optimal_holding),
    "smooth_c1": (4, 6, smooth_c1),
}
