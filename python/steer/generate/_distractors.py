"""Distractor generators, each named after the error it represents."""

from __future__ import annotations

import numpy as np

from steer.generate._registry import Instance, Solution, distractor

# --- numeric answers over one lottery -----------------------------------------


def _argmax(values: list[float]) -> int:
    """numpy.argmax of a short plain list: the first of tied maxima (these
    run once per question drawn; numpy's per-call cost outweighs the work)."""
    return max(range(len(values)), key=values.__getitem__)


@distractor("unweighted_mean", "numeric")
def _unweighted_mean(instance: Instance, _s: Solution) -> float:
    """Averages the outcomes as if they were equally likely."""
    return float(np.mean(instance.data["values"]))


@distractor("forgot_probability", "numeric")
def _forgot_probability(instance: Instance, _s: Solution) -> float:
    """Adds the outcomes up without weighting them by their probabilities."""
    return float(np.sum(instance.data["values"]))


@distractor("most_likely_outcome", "numeric")
def _most_likely_outcome(instance: Instance, _s: Solution) -> float:
    """Reports the likeliest outcome instead of the average."""
    probs = instance.data["probs"]
    return float(instance.data["values"][_argmax(probs)])


@distractor("best_outcome", "numeric")
def _best_outcome(instance: Instance, _s: Solution) -> float:
    """Reports the largest outcome (optimism)."""
    return float(max(instance.data["values"]))


@distractor("worst_outcome", "numeric")
def _worst_outcome(instance: Instance, _s: Solution) -> float:
    """Reports the smallest outcome (pessimism)."""
    return float(min(instance.data["values"]))


@distractor("dropped_an_outcome", "numeric")
def _dropped_an_outcome(instance: Instance, _s: Solution) -> float | None:
    """Leaves the least likely outcome out of the weighted sum."""
    values = np.asarray(instance.data["values"], dtype=float)
    probs = np.asarray(instance.data["probs"], dtype=float)
    if len(values) < 2:
        return None
    keep = np.arange(len(values)) != int(np.argmin(probs))
    return float(values[keep] @ probs[keep])


@distractor("probabilities_reversed", "numeric")
def _probabilities_reversed(instance: Instance, _s: Solution) -> float | None:
    """Pairs the probabilities with the outcomes in reverse order."""
    values = np.asarray(instance.data["values"])
    if len(values) < 2:
        return None
    return float(values @ np.asarray(instance.data["probs"])[::-1])


# --- choices among lotteries -------------------------------------------------------


@distractor("certainty_bias", "choice")
def _certainty_bias(instance: Instance, _s: Solution) -> int | None:
    """Takes the sure amount although a risky option is worth more."""
    lots = instance.data["lotteries"]
    return next((i for i, lot in enumerate(lots) if len(lot["values"]) == 1), None)


@distractor("largest_prize", "choice")
def _largest_prize(instance: Instance, _s: Solution) -> int:
    """Chases the biggest single prize and ignores its probability."""
    return _argmax([max(lot["values"]) for lot in instance.data["lotteries"]])


@distractor("likeliest_win", "choice")
def _likeliest_win(instance: Instance, _s: Solution) -> int | None:
    """Picks the risky option most likely to pay its top prize, ignoring amounts."""
    risky = [
        (lot["probs"][0], i)
        for i, lot in enumerate(instance.data["lotteries"])
        if len(lot["values"]) > 1
    ]
    return max(risky)[1] if risky else None


def _expected(instance: Instance) -> list[float]:
    return [float(np.dot(lot["values"], lot["probs"])) for lot in instance.data["lotteries"]]


@distractor("chose_worst", "choice")
def _chose_worst(instance: Instance, _s: Solution) -> int | None:
    """Picks the option worth least (minimizes where it should maximize)."""
    worth = _expected(instance)
    return int(np.argmin(worth)) if len(set(worth)) > 1 else None


@distractor("chose_runner_up", "choice")
def _chose_runner_up(instance: Instance, _s: Solution) -> int | None:
    """Picks the second-best option (a comparison slip near the top)."""
    worth = _expected(instance)
    if len(worth) < 3:
        return None
    return int(np.argsort(worth)[-2])


@distractor("chose_third_best", "choice")
def _chose_third_best(instance: Instance, _s: Solution) -> int | None:
    """Picks the third-best option (a comparison slip further down)."""
    worth = _expected(instance)
    if len(worth) < 4:
        return None
    return int(np.argsort(worth)[-3])


# --- best replies in games ---------------------------------------------------------


@distractor("row_col_swapped", "choice")
def _row_col_swapped(instance: Instance, _s: Solution) -> int:
    """Reads the opponent's payoffs (the other number in each cell) as one's own."""
    payoffs = np.asarray(instance.data["payoffs"])
    player, against = instance.data["player"], instance.data["against"]
    other = payoffs[:, against, 1] if player == 0 else payoffs[against, :, 0]
    return int(np.argmax(other))


@distractor("wrong_opponent_action", "choice")
def _wrong_opponent_action(instance: Instance, _s: Solution) -> int | None:
    """Best-responds to an action the opponent is not taking."""
    payoffs = np.asarray(instance.data["payoffs"])
    player, against = instance.data["player"], instance.data["against"]
    n = payoffs.shape[1] if player == 0 else payoffs.shape[0]
    others = [a for a in range(n) if a != against]
    if not others:
        return None
    other = others[0]
    own = payoffs[:, other, 0] if player == 0 else payoffs[other, :, 1]
    return int(np.argmax(own))


@distractor("max_total_payoff", "choice")
def _max_total_payoff(instance: Instance, _s: Solution) -> int:
    """Picks the action best for both players together rather than for oneself."""
    payoffs = np.asarray(instance.data["payoffs"])
    player, against = instance.data["player"], instance.data["against"]
    total = payoffs.sum(axis=2)
    return int(np.argmax(total[:, against] if player == 0 else total[against, :]))
