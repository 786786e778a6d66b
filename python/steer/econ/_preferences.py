"""Choices under explicit preferences: the utility of an experiment's options
for a chooser with prospect-theory, discounting, Fehr-Schmidt and budget-share
parameters, and the option such a chooser picks (with response noise).

The reference agents with known preferences (`agent:pt(...)` and kin) choose
with `choose`; `steer play --intervention examples:K` shows worked examples
answered by the textbook chooser (`Preferences()`: expected value, no
discounting, selfish, equal budget shares). Options are the structured
outcomes a trial's payload lists: `lottery` (outcome, probability)
branches, `delayed` (amount, years), `split` (own, other), `ultimatum`
(keep, offer) and `bundle` (units of two goods).

Noise is one normal draw per option from `rng` (the caller seeds it per
stimulus and sample, so all rungs of a ladder share it), scaled to the
stimulus: the range of a gamble, the delayed amount, the pool.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Preferences:
    """Everything an agent's choices depend on (defaults: a textbook agent)."""

    alpha: float = 1.0
    beta: float = 1.0
    lam: float = 1.0
    gamma: float = 1.0
    delta: float = 1.0
    discount: str = "none"  # none | hyperbolic | exponential | quasi-hyperbolic
    k: float = 0.0
    d_delta: float = 1.0
    d_beta: float = 1.0
    fs_alpha: float = 0.0
    fs_beta: float = 0.0
    share: float = 0.5
    noise: float = 0.0


def weight(p: float, g: float) -> float:
    """Tversky-Kahneman (1992) probability weighting."""
    if p <= 0.0:
        return 0.0
    if p >= 1.0:
        return 1.0
    a, b = p**g, (1.0 - p) ** g
    return float(a / (a + b) ** (1.0 / g))


def value(x: float, pref: Preferences) -> float:
    return x**pref.alpha if x >= 0 else -pref.lam * (-x) ** pref.beta


def inverse_value(v: float, pref: Preferences) -> float:
    return v ** (1.0 / pref.alpha) if v >= 0 else -((-v / pref.lam) ** (1.0 / pref.beta))


def prospect_value(branches: Sequence[Sequence[float]], pref: Preferences) -> float:
    """Cumulative prospect theory value of (outcome, probability) branches."""
    gains = sorted(((x, p) for x, p in branches if x > 0), key=lambda b: -b[0])
    losses = sorted(((x, p) for x, p in branches if x < 0), key=lambda b: b[0])
    total = 0.0
    for side, g in ((gains, pref.gamma), (losses, pref.delta)):
        cum = 0.0
        for x, p in side:
            w = weight(min(cum + p, 1.0), g) - weight(cum, g)
            cum += p
            total += w * value(x, pref)
    return total


def certainty_equivalent(branches: Sequence[Sequence[float]], pref: Preferences) -> float:
    return inverse_value(prospect_value(branches, pref), pref)


def discount(years: float, pref: Preferences) -> float:
    if years <= 0 or pref.discount == "none":
        return 1.0
    if pref.discount == "hyperbolic":
        return 1.0 / (1.0 + pref.k * years)
    if pref.discount == "exponential":
        return float(pref.d_delta**years)
    return float(pref.d_beta * pref.d_delta**years)


def fs_utility(own: float, other: float, pref: Preferences) -> float:
    return own - pref.fs_alpha * max(other - own, 0.0) - pref.fs_beta * max(own - other, 0.0)


def _scale(lotteries: Sequence[Sequence[tuple[float, float]]]) -> float:
    """The range of a choice's lottery outcomes: the money scale of its noise."""
    outcomes = [x for b in lotteries for x, _ in b]
    return max(max(outcomes) - min(outcomes), 1e-9)


def choose(payload: Mapping[str, Any], pref: Preferences, rng: np.random.Generator) -> int:
    """The option an agent with `pref` picks (rng: the stimulus's noise stream)."""
    options: list[dict[str, Any]] = payload["options"]
    eps = rng.standard_normal(len(options) + 1)
    noise = pref.noise
    kind = next(iter(options[0]))
    if kind == "lottery":
        lotteries = [[(float(x), float(p)) for x, p in o["lottery"]] for o in options]
        risky = [i for i, b in enumerate(lotteries) if len(b) > 1 or b[0][1] < 1.0]
        mixed = [i for i in risky if min(lotteries[i])[0] < 0 < max(lotteries[i])[0]]
        if len(options) == 2 and len(mixed) == 1:
            # Accept a mixed gamble iff its gain clears the agent's (noisy) switching gain.
            i = mixed[0]
            gain = max(x for x, _ in lotteries[i])
            loss, p_loss = min(lotteries[i])
            threshold = (
                pref.lam
                * weight(p_loss, pref.delta)
                * (-loss) ** pref.beta
                / weight(1 - p_loss, pref.gamma)
            ) ** (1.0 / pref.alpha)
            breakeven = -loss * p_loss / (1 - p_loss)
            take = gain >= threshold + noise * breakeven * eps[0]
            return i if take else 1 - i
        scale = _scale(lotteries)
        values = [certainty_equivalent(b, pref) for b in lotteries]
        # Noise on the risky options only (a sure amount is known exactly).
        noisy = [v + (noise * scale * eps[j] if j in risky else 0.0) for j, v in enumerate(values)]
        return int(np.argmax(noisy))
    if kind == "delayed":
        amounts = [(float(o["delayed"][0][0]), float(o["delayed"][0][1])) for o in options]
        top = max(a for a, _ in amounts)
        noisy = [
            a * discount(t, pref) + (noise * top * eps[0] if t > 0 else 0.0) for a, t in amounts
        ]
        return int(np.argmax(noisy))
    if kind == "split":
        splits = [(float(o["split"][0]), float(o["split"][1])) for o in options]
        scale = max(max(abs(a), abs(b)) for a, b in splits) or 1.0
        if len(splits) == 2 and splits[1] == (0.0, 0.0):
            # Ultimatum responder: accept iff accepting beats nothing, up to noise.
            return 0 if fs_utility(*splits[0], pref) + noise * scale * eps[0] >= 0 else 1
        noisy = [fs_utility(a, b, pref) + noise * scale * eps[j] for j, (a, b) in enumerate(splits)]
        return int(np.argmax(noisy))
    if kind == "ultimatum":
        # Proposer: assumes a responder like itself, who accepts s >= alpha P/(1 + 2 alpha).
        pool = sum(float(x) for x in options[0]["ultimatum"])
        need = pref.fs_alpha * pool / (1 + 2 * pref.fs_alpha)
        noisy = []
        for j, o in enumerate(options):
            keep, offer = (float(x) for x in o["ultimatum"])
            u = fs_utility(keep, offer, pref) if offer >= need - 1e-9 else 0.0
            noisy.append(u + noise * pool * eps[j] / len(options))
        return int(np.argmax(noisy))
    if kind == "bundle":
        bundles = [(float(o["bundle"][0]), float(o["bundle"][1])) for o in options]
        most = max(a for a, _ in bundles) or 1.0
        shares = [a / most for a, _ in bundles]
        target = min(max(pref.share + noise * eps[0], 0.0), 1.0)
        return int(np.argmin([abs(s - target) for s in shares]))
    raise ValueError(f"unknown option kind {kind!r}")
