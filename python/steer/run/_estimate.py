"""`--dry-run`: what a run would send, in tokens and dollars, without sending it.

Every conversation is walked through the real adaptation layer with a stand-in
model, so the estimate sees the exact prompts (few-shot examples, second
turns). Tokens are estimated at 4 characters each plus 4 per message (no
tokenizer is loaded); answer turns are assumed to return 1 token and
reasoning turns `reason_tokens`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from steer.adapt import CallKind, Completion, Message, converse
from steer.adapt._order import order_passes
from steer.backends import Backend, ChatBackend, resolve_backend
from steer.bank import read_bank
from steer.run._plan import plan_conversations
from steer.schema import Adaptation

CHARS_PER_TOKEN = 4
TOKENS_PER_MESSAGE = 4


def estimate_tokens(messages: list[Message]) -> int:
    chars = sum(len(m["content"]) for m in messages)
    return chars // CHARS_PER_TOKEN + TOKENS_PER_MESSAGE * len(messages)


@dataclass
class Estimate:
    questions: int
    requests: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None  # None when the model has no known price

    def lines(self) -> list[str]:
        cost = "unknown (no price for this model; see --pricing)"
        if self.cost_usd is not None:
            cost = f"${self.cost_usd:.4f}"
        return [
            f"questions: {self.questions}",
            f"requests:  {self.requests}",
            f"tokens:    ~{self.tokens_in} in, ~{self.tokens_out} out (estimate)",
            f"cost:      {cost}",
        ]


def estimate_run(
    bank_path: str | Path,
    model: str | Backend,
    *,
    adaptation: Adaptation | None = None,
    limit: int | None = None,
    seed: int = 0,
    backend_options: dict[str, Any] | None = None,
    shots_pool: str | Path | None = None,
    reason_tokens: int = 300,
) -> Estimate:
    """Tokens and cost of a whole run (ignores what a run directory already has)."""
    adaptation = adaptation or Adaptation()
    backend = (
        resolve_backend(model, seed=seed, options=backend_options)
        if isinstance(model, str)
        else model
    )
    full = read_bank(bank_path)
    bank = full.slice(0, limit) if limit is not None else full
    # order=shuffle:K asks everything K times (the permuted prompts cost alike).
    passes = len(order_passes(adaptation.order))
    if not isinstance(backend, ChatBackend):
        return Estimate(bank.num_rows * passes, 0, 0, 0, 0.0)
    pool = read_bank(shots_pool).to_pylist() if shots_pool is not None else None
    conversations = plan_conversations(
        bank.to_pylist(), adaptation, seed=seed, answered=set(), everything=full.to_pylist(),
        pool=pool,
    )  # fmt: skip
    totals = {"requests": 0, "in": 0, "out": 0}

    async def stand_in(messages: list[Message], kind: CallKind) -> Completion:
        totals["requests"] += 1
        totals["in"] += estimate_tokens(messages)
        n_out = 1 if kind == "answer" else reason_tokens
        totals["out"] += n_out
        return Completion("A" if kind == "answer" else "x" * (n_out * CHARS_PER_TOKEN))

    async def walk() -> None:
        for conv in conversations:
            await converse(stand_in, conv.parts, adaptation, conv.examples)

    asyncio.run(walk())
    price = getattr(backend, "price", None)
    batch = bool(getattr(getattr(backend, "settings", None), "batch_api", False))
    totals = {k: v * passes for k, v in totals.items()}
    cost = price.cost(totals["in"], totals["out"], batch=batch) if price is not None else None
    return Estimate(bank.num_rows * passes, totals["requests"], totals["in"], totals["out"], cost)
