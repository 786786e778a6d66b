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
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from steer.adapt import Answer
from steer.adapt._order import SHOWN_ORDER
from steer.backends._base import Backend
from steer.econ._preferences import Preferences, choose

# Human medians (Tversky and Kahneman 1992) and Fehr-Schmidt (1999) distribution.
HUMAN_PT = {"alpha": 0.88, "beta": 0.88, "lambda": 2.25, "gamma": 0.61, "delta": 0.69}
FS_ALPHA = ((0.0, 0.3), (0.5, 0.3), (1.0, 0.3), (4.0, 0.1))
FS_BETA = ((0.0, 0.3), (0.25, 0.3), (0.6, 0.4))
# The panel's discounting: hyperbolic k per year, log-normal around 0.25 (a
# modelling choice; published human k vary by orders of magnitude with the design).
PANEL_K_MEDIAN = 0.25


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
