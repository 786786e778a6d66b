"""`--max-cost` as a budget that in-flight requests reserve against.

Before a request is sent it reserves its worst case (every prompt byte a
token, plus the full `max_tokens`, at the model's price); when the reply
arrives the reservation is settled at the real cost. So concurrent requests
can never together spend past the limit: the run stops instead, at most one
worst-case request short of it. `spent` starts from what earlier invocations
on the same run directory paid (the manifest's `spent_usd`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from steer.adapt import Message
from steer.backends._pricing import Price

# Chat formatting adds a few tokens per message and to prime the reply.
_PER_MESSAGE_TOKENS = 4
_REPLY_PRIMER_TOKENS = 3


def worst_prompt_tokens(messages: Sequence[Message]) -> int:
    """An upper bound on prompt tokens: byte-level BPE never makes more
    tokens than bytes."""
    body = sum(len(m.get("content", "").encode()) for m in messages)
    return body + _PER_MESSAGE_TOKENS * len(messages) + _REPLY_PRIMER_TOKENS


@dataclass
class CostBudget:
    limit_usd: float
    spent_usd: float = 0.0
    held_usd: float = 0.0

    def reserve(self, price: Price, messages: Sequence[Message], max_tokens: int) -> float | None:
        """Hold the worst-case cost of one request; None when it does not fit."""
        worst = price.cost(worst_prompt_tokens(messages), max_tokens)
        if self.spent_usd + self.held_usd + worst > self.limit_usd:
            return None
        self.held_usd += worst
        return worst

    def settle(self, held: float, actual: float) -> None:
        self.held_usd = max(0.0, self.held_usd - held)
        self.spent_usd += actual
