"""Reference agents with known preferences, for the experiments of `steer play`.

Each agent values an experiment trial's options (the structured outcomes in
the trial's payload) with explicit utility parameters and a response-noise
level, so anyone can check that the fits recover what the agent was given:

- `agent:pt(alpha=,beta=,lambda=,gamma=,delta=,noise=)`: prospect theory
  (value x^alpha, -lambda(-x)^beta; Tversky-Kahneman 1992 weighting, gamma
  for gains, delta for losses, rank-dependent);
- `agent:hyperbolic(k=)`, `agent:exponential(delta=)`,
  `agent:quasi-hyperbolic(beta=,delta=)`: discounting of money by delay in years;
- `agent:fs(alpha=,beta=)`: Fehr-Schmidt inequity aversion;
- `agent:garp(noise=,share=)`: Cobb-Douglas budget shares (GARP-consistent
  at noise 0);
- `agent:human-panel`: every sample is a new simulated subject whose
  Fehr-Schmidt alpha and beta are drawn from the published human distribution
  (Fehr and Schmidt 1999) and whose prospect-theory and discounting
  parameters lie near the human medians (a modelling choice, stated below).

Noise is one normal draw per stimulus and sample (shared by all rungs of a
ladder, so a noisy agent still has one switching point) scaled to the
stimulus: the range of a gamble, the delayed amount, the pool. Where a
parameter does not apply (the time preference of a PT agent) the agent is a
textbook one: expected value, no discounting, selfish, equal budget shares.
Questions without an experiment payload are answered at random.
"""

from __future__ import annotations

import json
import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from steer.adapt import Answer
from steer.adapt._order import SHOWN_ORDER
from steer.backends._base import Backend

# Human medians (Tversky and Kahneman 1992) and Fehr-Schmidt (1999) distribution.
HUMAN_PT = {"alpha": 0.88, "beta": 0.88, "lambda": 2.25, "gamma": 0.61, "delta": 0.69}
FS_ALPHA = ((0.0, 0.3), (0.5, 0.3), (1.0, 0.3), (4.0, 0.1))
FS_BETA = ((0.0, 0.3), (0.25, 0.3), (0.6, 0.4))
# The panel's discounting: hyperbolic k per year, log-normal around 0.25 (a
# modelling choice; published human k vary by orders of magnitude with the design).
PANEL_K_MEDIAN = 0.25


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


def _letter(i: int, n: int) -> str:
    return chr(ord("A") + i) if n <= 26 else str(i)


@dataclass
class PreferenceAgent(Backend):
    """An agent that chooses by `preferences` (see the module docstring)."""

    seed: int = 0
    preferences: Preferences = field(default_factory=Preferences)
    params: dict[str, float] = field(default_factory=dict)

    def subject(self, sample: int) -> Preferences:
        """The preferences of the subject answering sample `sample`."""
        return self.preferences

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            payload = json.loads(q["payload"]) if q.get("grading") == "elicit" else None
            if payload is None or "options" not in payload:
                rng = np.random.default_rng([self.seed, zlib.crc32(q["question_id"].encode())])
                choice = int(rng.integers(n))
            else:
                sample = int(payload.get("sample", 0))
                stimulus = zlib.crc32(str(payload.get("stimulus", "")).encode())
                rng = np.random.default_rng([self.seed, stimulus, sample])
                choice = choose(payload, self.subject(sample), rng)
                # The payload lists the options in the bank's order; under
                # order=shuffle:K the answer names the position shown.
                shown = q.get(SHOWN_ORDER)
                if shown is not None:
                    choice = list(shown).index(choice)
            probs = [0.0] * n
            probs[choice] = 1.0
            out.append(
                Answer(chosen_index=choice, option_probs=probs, response_text=_letter(choice, n))
            )
        return out

    def generation_params(self) -> dict[str, Any]:
        return {"seed": self.seed, **self.params}


@dataclass
class HumanPanelAgent(PreferenceAgent):
    """A panel of simulated human subjects, one per sample."""

    def subject(self, sample: int) -> Preferences:
        rng = np.random.default_rng([self.seed, 0x5EED, sample])
        fa = [v for v, _ in FS_ALPHA][int(rng.choice(len(FS_ALPHA), p=[p for _, p in FS_ALPHA]))]
        fb = [v for v, _ in FS_BETA][int(rng.choice(len(FS_BETA), p=[p for _, p in FS_BETA]))]
        jitter = rng.normal(0.0, 0.05, size=5)
        return Preferences(
            alpha=HUMAN_PT["alpha"] + jitter[0],
            beta=HUMAN_PT["beta"] + jitter[1],
            lam=HUMAN_PT["lambda"] * math.exp(jitter[2]),
            gamma=HUMAN_PT["gamma"] + jitter[3],
            delta=HUMAN_PT["delta"] + jitter[4],
            discount="hyperbolic",
            k=PANEL_K_MEDIAN * math.exp(rng.normal(0.0, 0.5)),
            fs_alpha=fa,
            fs_beta=fb,
            share=float(min(max(rng.normal(0.5, 0.15), 0.05), 0.95)),
            noise=self.preferences.noise,
        )


# name -> (parameter -> (Preferences field, default, low, high)), and fixed settings.
_P = dict[str, tuple[str, float, float, float]]
PARAMETERS: dict[str, tuple[_P, dict[str, Any]]] = {
    "pt": (
        {
            "alpha": ("alpha", 0.88, 0.05, 2.0),
            "beta": ("beta", 0.88, 0.05, 2.0),
            "lambda": ("lam", 2.25, 0.1, 10.0),
            "gamma": ("gamma", 0.61, 0.28, 1.5),
            "delta": ("delta", 0.69, 0.28, 1.5),
            "noise": ("noise", 0.05, 0.0, 5.0),
        },
        {},
    ),
    "hyperbolic": (
        {"k": ("k", 0.1, 0.0, 100.0), "noise": ("noise", 0.02, 0.0, 5.0)},
        {"discount": "hyperbolic"},
    ),
    "exponential": (
        {"delta": ("d_delta", 0.9, 0.01, 1.0), "noise": ("noise", 0.02, 0.0, 5.0)},
        {"discount": "exponential"},
    ),
    "quasi-hyperbolic": (
        {
            "beta": ("d_beta", 0.8, 0.01, 1.0),
            "delta": ("d_delta", 0.95, 0.01, 1.0),
            "noise": ("noise", 0.02, 0.0, 5.0),
        },
        {"discount": "quasi-hyperbolic"},
    ),
    "fs": (
        {
            "alpha": ("fs_alpha", 0.85, 0.0, 10.0),
            "beta": ("fs_beta", 0.315, 0.0, 0.99),
            "noise": ("noise", 0.02, 0.0, 5.0),
        },
        {},
    ),
    "garp": (
        {"noise": ("noise", 0.0, 0.0, 1.0), "share": ("share", 0.5, 0.0, 1.0)},
        {},
    ),
    "human-panel": ({"noise": ("noise", 0.05, 0.0, 5.0)}, {}),
}


def preference_agent(
    spec: str, name: str, arguments: dict[str, float], seed: int
) -> PreferenceAgent:
    """Build agent `name` with `arguments` (already parsed; unknown keys are the
    caller's error to report, see steer.backends._registry)."""
    table, fixed = PARAMETERS[name]
    values: dict[str, Any] = dict(fixed)
    params: dict[str, float] = {}
    for key, (attr, default, low, high) in table.items():
        v = float(arguments.get(key, default))
        if not (math.isfinite(v) and low <= v <= high):
            from steer.errors import InputError

            raise InputError(f"agent:{name}: {key}={v:g} is outside [{low:g}, {high:g}]")
        values[attr] = v
        params[key] = v
    prefs = Preferences(**values)
    cls = HumanPanelAgent if name == "human-panel" else PreferenceAgent
    return cls(spec=spec, family="agent", model=name, seed=seed, preferences=prefs, params=params)
