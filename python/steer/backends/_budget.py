"""`--max-cost` as a budget that in-flight requests reserve against.

Before a request is sent it reserves its worst case (a tokenizer-free upper
bound on the prompt's tokens, see `worst_prompt_tokens`, plus the full
`max_tokens`, at the model's price); when the reply arrives the reservation
is settled at the real cost and released. A request that does not fit while
others are in flight waits for them to settle (they usually cost far less
than they reserved); one that does not fit with nothing in flight stops the
run. So concurrent requests never together spend past the limit, and a run
stops within one worst-case request of it, with `-j N` as with `-j 1`.
`spent` starts from what earlier invocations on the same run directory paid
(the manifest's `spent_usd`).
"""

from __future__ import annotations

import asyncio
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from steer.adapt import Message
from steer.backends._pricing import Price

# Chat formatting adds a few tokens per message and to prime the reply.
_PER_MESSAGE_TOKENS = 4
_REPLY_PRIMER_TOKENS = 3

# Runs of ASCII letters (with the space before them: BPE tokens start with
# it), runs of non-ASCII text, runs of spaces, and any other character.
_PIECE = re.compile(r" ?[A-Za-z]+|[^\x00-\x7f]+| +|[\s\S]")


def _text_tokens(text: str) -> int:
    """At most how many tokens a BPE tokenizer makes of `text`: a word (a
    run of letters and the space before it) at most one per two letters
    (tokenizers merge at least the common letter pairs), a run of spaces
    one, every other ASCII character (digit, punctuation, line break) one,
    and every byte of non-ASCII text one (byte-level BPE never makes more
    tokens than bytes)."""
    n = 0
    for piece in _PIECE.findall(text):
        if not piece.isascii():
            n += len(piece.encode())
        elif piece[-1].isalpha():
            n += math.ceil(len(piece.lstrip(" ")) / 2)
        else:
            n += 1
    return n


def worst_prompt_tokens(messages: Sequence[Message]) -> int:
    """An upper bound on the prompt tokens of a chat request, without a
    tokenizer (about characters/2 for English prose, bytes for other text)."""
    body = sum(_text_tokens(str(m.get("content") or "")) for m in messages)
    return body + _PER_MESSAGE_TOKENS * len(messages) + _REPLY_PRIMER_TOKENS


@dataclass
class CostBudget:
    limit_usd: float
    spent_usd: float = 0.0
    held_usd: float = 0.0
    holders: int = 0  # reservations not yet settled
    _settled: asyncio.Event | None = field(default=None, repr=False, compare=False)

    def worst_case(self, price: Price, messages: Sequence[Message], max_tokens: int) -> float:
        return price.cost(worst_prompt_tokens(messages), max_tokens)

    def reserve(self, price: Price, messages: Sequence[Message], max_tokens: int) -> float | None:
        """Hold the worst-case cost of one request; None when it does not fit now."""
        worst = self.worst_case(price, messages, max_tokens)
        if self.spent_usd + self.held_usd + worst > self.limit_usd:
            return None
        self.held_usd += worst
        self.holders += 1
        return worst

    async def acquire(
        self, price: Price, messages: Sequence[Message], max_tokens: int
    ) -> float | None:
        """`reserve`, waiting for requests in flight to settle while it does
        not fit; None when it does not fit with nothing in flight."""
        while True:
            held = self.reserve(price, messages, max_tokens)
            if held is not None or self.holders == 0:
                return held
            if self._settled is None:
                self._settled = asyncio.Event()
            await self._settled.wait()

    def settle(self, held: float, actual: float) -> None:
        """Release a reservation and count what the request really cost."""
        self.holders = max(0, self.holders - 1)
        self.held_usd = 0.0 if self.holders == 0 else max(0.0, self.held_usd - held)
        self.spent_usd += actual
        if self._settled is not None:
            self._settled.set()  # wake every waiter to try again
            self._settled = None
