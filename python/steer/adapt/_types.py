"""What flows between the adaptation layer and a backend."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from steer.schema import NO_ANSWER

Message = dict[str, str]  # {"role": "system" | "user" | "assistant", "content": ...}
# "answer" turns want a letter (a few tokens); "reason" turns want free text.
CallKind = Literal["answer", "reason"]


@dataclass
class Completion:
    """One model reply.

    `tokens[i]` is the i-th generated token and `top_logprobs[i]` its
    alternatives (token -> natural-log probability), when the backend has them.
    `cost_usd` is what the call cost; `cached` says it came from the response
    cache (so it was not paid again); `raw` is the reply body as the server
    sent it, when there was one (kept for transcripts).
    """

    text: str
    tokens: list[str] | None = None
    top_logprobs: list[dict[str, float]] | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    latency_s: float = 0.0
    cached: bool = False
    raw: str | None = None

    def to_json(self) -> dict[str, Any]:
        # Spelt out: dataclasses.asdict deep-copies every list and dict, a
        # measurable share of a game round's bookkeeping.
        return {
            "text": self.text, "tokens": self.tokens, "top_logprobs": self.top_logprobs,
            "tokens_in": self.tokens_in, "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd, "latency_s": self.latency_s, "raw": self.raw,
        }  # fmt: skip

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Completion:
        return cls(**data, cached=True)


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
    # Free-text answers: the number read from the reply (None: none, or not free text).
    answer_read: float | None = None
