"""The interface every backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from steer.schema import NO_ANSWER


@dataclass
class Answer:
    """What a backend returns for one question part."""

    chosen_index: int = NO_ANSWER
    option_probs: list[float] | None = None
    response_text: str | None = None
    explanation: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    error: str | None = None


@dataclass
class Backend(ABC):
    """A model (or reference agent) that answers questions.

    `spec` is what the user typed (`agent:random`, `openai:gpt-4o`); `family`
    and `model` split it; `revision` pins weights or API snapshot when known.
    """

    spec: str
    family: str
    model: str
    revision: str | None = None
    options: dict[str, Any] = field(default_factory=dict)

    @abstractmethod
    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        """Answer a batch of question rows (dicts in the question schema)."""

    def generation_params(self) -> dict[str, Any]:
        """Sampling parameters recorded in the run manifest (never secrets)."""
        return dict(self.options)
