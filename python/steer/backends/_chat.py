"""Backends that talk to a chat model: the adaptation layer builds the
conversation, the backend sends one turn at a time, and every reply passes
through the response cache and the meter."""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from abc import abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from steer.adapt import Answer, CallKind, Completion, Message, converse
from steer.backends._base import Backend
from steer.schema import Adaptation


class CompletionCache(Protocol):
    def get(self, key: str) -> Completion | None: ...
    def put(self, key: str, completion: Completion) -> None: ...


@dataclass
class Meter:
    """Running totals for the progress bar and --max-cost."""

    requests: int = 0
    cache_hits: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    paid_usd: float = 0.0
    overhead_s: float = 0.0  # steer's own time around requests (cache, bookkeeping)


def cache_key(
    identity: Mapping[str, Any], messages: Sequence[Message], params: Mapping[str, Any]
) -> str:
    """sha256 of a canonical JSON of who answers, the full conversation and
    the generation parameters (never of the request text alone)."""
    blob = json.dumps(
        {"backend": dict(identity), "messages": list(messages), "params": dict(params)},
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
    return hashlib.sha256(blob.encode()).hexdigest()


@dataclass
class ChatBackend(Backend):
    """A backend that completes chat turns (`complete`)."""

    cache: CompletionCache | None = field(default=None, repr=False, compare=False)
    meter: Meter = field(default_factory=Meter, repr=False, compare=False)

    @abstractmethod
    async def complete(self, messages: list[Message], kind: CallKind) -> Completion:
        """One model reply to `messages` (uncached; may raise BackendError)."""

    @abstractmethod
    def request_params(self, kind: CallKind) -> dict[str, Any]:
        """Generation parameters of a call of this kind (part of the cache key)."""

    def identity(self) -> dict[str, Any]:
        """Who answers: everything besides messages and parameters that
        changes a reply (family, model, revision, endpoint)."""
        return {"family": self.family, "model": self.model, "revision": self.revision}

    def generation_params(self) -> dict[str, Any]:
        return {"answer": self.request_params("answer"), "reason": self.request_params("reason")}

    async def call(self, messages: list[Message], kind: CallKind) -> Completion:
        """`complete` behind the cache; counts tokens, cost and requests."""
        t0 = time.perf_counter()
        key = cache_key(self.identity(), messages, self.request_params(kind))
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.meter.cache_hits += 1
                self.meter.overhead_s += time.perf_counter() - t0
                return hit
        t1 = time.perf_counter()
        done = await self.complete(messages, kind)
        t2 = time.perf_counter()
        if self.cache is not None:
            self.cache.put(key, done)
        if done.cached:  # paid by an earlier process (a harvested batch)
            self.meter.cache_hits += 1
            return done
        m = self.meter
        m.requests += 1
        m.tokens_in += done.tokens_in
        m.tokens_out += done.tokens_out
        m.paid_usd += done.cost_usd or 0.0
        m.overhead_s += (t1 - t0) + (time.perf_counter() - t2)
        return done

    async def answer_group(
        self,
        parts: Sequence[Mapping[str, Any]],
        adaptation: Adaptation,
        examples: Sequence[Mapping[str, Any]] = (),
    ) -> list[Answer]:
        return await converse(self.call, parts, adaptation, examples)

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        """Synchronous convenience: each row as its own single-part question, mc."""

        async def run() -> list[Answer]:
            groups = [self.answer_group([q], Adaptation()) for q in questions]
            return [a for answers in await asyncio.gather(*groups) for a in answers]

        return asyncio.run(run())
