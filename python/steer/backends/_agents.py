"""Built-in reference agents: they need no model, network or GPU.

`agent:oracle` answers every question correctly; `agent:random` picks an
option uniformly at random (the floor normalized accuracy is built around);
`agent:human` imitates a typical human test taker (see `HumanAgent`).
All are deterministic for a seed and a question id, so runs are resumable.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from steer.backends._base import Answer, Backend


@dataclass
class OracleAgent(Backend):
    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            # Consistency-graded parts have no key; answering the first option
            # everywhere is trivially consistent.
            key = q["correct_index"] if q["correct_index"] is not None else 0
            probs = [0.0] * n
            probs[key] = 1.0
            out.append(
                Answer(
                    chosen_index=key,
                    option_probs=probs,
                    response_text=chr(ord("A") + key) if n <= 26 else str(key),
                )
            )
        return out


@dataclass
class RandomAgent(Backend):
    seed: int = 0

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            rng = np.random.default_rng([self.seed, zlib.crc32(q["question_id"].encode())])
            choice = int(rng.integers(n))
            out.append(
                Answer(
                    chosen_index=choice,
                    option_probs=[1.0 / n] * n,
                    response_text=chr(ord("A") + choice) if n <= 26 else str(choice),
                )
            )
        return out

    def generation_params(self) -> dict[str, Any]:
        return {"seed": self.seed}


def _letter(i: int, n: int) -> str:
    return chr(ord("A") + i) if n <= 26 else str(i)


# Modules of the taxonomy about cognitive biases, where people err in a known direction.
BIAS_MODULES = ("steer.2.2.", "steer.2.5.")


@dataclass
class HumanAgent(Backend):
    """A stylised human: on cognitive-bias elements (modules 2.2 and 2.5, or
    any question with a distractor tagged as a bias) it picks the biased
    distractor with probability `bias_rate` (the documented human-typical
    error, e.g. the certainty effect); elsewhere it is right with probability
    `accuracy` and otherwise picks a distractor at random. Probabilities are
    the agent's own mixed strategy. The rates are a modelling choice, not a
    measurement."""

    seed: int = 0
    bias_rate: float = 0.6
    accuracy: float = 0.7

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            rng = np.random.default_rng([self.seed, 7, zlib.crc32(q["question_id"].encode())])
            key = q["correct_index"] if q["correct_index"] is not None else 0
            tags = q.get("option_tags") or [""] * n
            biased = [i for i, t in enumerate(tags) if i != key and "bias" in (t or "")]
            on_bias_element = str(q["element"]).startswith(BIAS_MODULES)
            probs = [0.0] * n
            if biased and (on_bias_element or any("bias" in (t or "") for t in tags)):
                for i in biased:
                    probs[i] = self.bias_rate / len(biased)
                probs[key] = 1.0 - self.bias_rate
            elif n == 1:
                probs[key] = 1.0
            else:
                probs = [(1.0 - self.accuracy) / (n - 1)] * n
                probs[key] = self.accuracy
            choice = int(rng.choice(n, p=np.asarray(probs) / sum(probs)))
            out.append(
                Answer(chosen_index=choice, option_probs=probs, response_text=_letter(choice, n))
            )
        return out

    def generation_params(self) -> dict[str, Any]:
        return {"seed": self.seed, "bias_rate": self.bias_rate, "accuracy": self.accuracy}


AGENTS = {"oracle": OracleAgent, "random": RandomAgent, "human": HumanAgent}
