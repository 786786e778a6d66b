"""The interface every backend implements."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from steer.adapt import Answer
from steer.schema import Adaptation

__all__ = ["Answer", "Backend", "BackendError", "BudgetExhaustedError"]


class BackendError(Exception):
    """A request a backend could not complete.

    `transient` failures (rate limits, 5xx, timeouts, malformed replies) are
    what the backend gave up on after its retry budget; permanent ones (a
    rejected request) were not retried. Both are journaled against the
    question with the message as its `error` (a no-answer when scored), and a
    re-run asks them again only with `--retry-errors`. `fatal` ones (a bad
    key, an unknown model) stop the whole run, since every other request
    would fail the same way. `raw` is the last reply body, for transcripts.
    """

    def __init__(
        self, message: str, *, transient: bool, fatal: bool = False, raw: str | None = None
    ) -> None:
        super().__init__(message)
        self.transient = transient
        self.fatal = fatal
        self.raw = raw


class BudgetExhaustedError(BackendError):
    """The next request could cost more than `--max-cost` leaves: the run
    stops starting requests (nothing is journaled for that question)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=True)


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
