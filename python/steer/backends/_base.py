"""The interface every backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from steer.adapt import Answer
from steer.schema import Adaptation

__all__ = ["Answer", "Backend", "BackendError"]


class BackendError(Exception):
    """A request a backend could not complete.

    `transient` failures (rate limits, 5xx, timeouts, broken replies, after all
    retries) are not journaled, so re-running the command asks again;
    permanent ones (a rejected request) are journaled with the error; `fatal`
    ones (a bad key, an unknown model) stop the whole run, since every other
    request would fail the same way.
    """

    def __init__(self, message: str, *, transient: bool, fatal: bool = False) -> None:
        super().__init__(message)
        self.transient = transient
        self.fatal = fatal


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

    async def answer_group(
        self,
        parts: Sequence[Mapping[str, Any]],
        adaptation: Adaptation,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> list[Answer]:
        """Answer all parts of one question (one conversation for chat models).

        Reference agents ignore the adaptation and answer synchronously.
        """
        return self.answer([dict(p) for p in parts])

    def generation_params(self) -> dict[str, Any]:
        """Sampling parameters recorded in the run manifest (never secrets)."""
        return dict(self.options)

    async def aclose(self) -> None:  # noqa: B027 - most backends hold nothing
        """Release connections, engines and files."""
