"""Built-in reference agents: they need no model, network or GPU.

`agent:oracle` answers every question correctly; `agent:random` picks an
option uniformly at random (the floor normalized accuracy is built around).
Both are deterministic for a seed and a question id, so runs are resumable.
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


AGENTS = {"oracle": OracleAgent, "random": RandomAgent}
