"""Backends that talk to a chat model: the adaptation layer builds the
conversation, the backend sends one turn at a time, and every reply passes
through the response cache and the meter."""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import time
from abc import abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from steer.adapt import Answer, CallKind, Completion, Message, converse
from steer.backends._base import Backend, BackendError, BudgetExhaustedError
from steer.backends._budget import CostBudget
from steer.schema import Adaptation

# The exchanges of the question being answered (one list per runner task):
# every call appends what it sent and what came back, for the transcript.
EXCHANGES: contextvars.ContextVar[list[dict[str, Any]] | None] = contextvars.ContextVar(
    "steer_exchanges", default=None
)


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


# Which sample of an experiment trial a request asks (`steer play --samples N`):
# the same conversation asked again for another sample is another request, so
# the sample joins the cache key (sample 0 keys as before).
REQUEST_SAMPLE: contextvars.ContextVar[int] = contextvars.ContextVar("request_sample", default=0)


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
    # --max-cost across invocations (None: unlimited); set by the runner.
    budget: CostBudget | None = field(default=None, repr=False, compare=False)
    # Told what a request waits for ("429 from server, retrying in 30 s").
    on_wait: Callable[[str], None] | None = field(default=None, repr=False, compare=False)

    def notify(self, text: str) -> None:
        if self.on_wait is not None:
            self.on_wait(text)

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
        """`complete` behind the cache and the cost budget; counts tokens,
        cost and requests, and logs the exchange for the transcript."""
        t0 = time.perf_counter()
        params = self.request_params(kind)
        sample = REQUEST_SAMPLE.get()
        keyed = {**params, "sample": sample} if sample else params
        key = cache_key(self.identity(), messages, keyed)
        started = time.time()
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.meter.cache_hits += 1
                self.meter.overhead_s += time.perf_counter() - t0
                _log(kind, messages, params, started, hit, None, hit.raw)
                return hit
        held = None
        price = getattr(self, "price", None)
        if self.budget is not None and price is not None:
            held = await self.budget.acquire(price, messages, int(params.get("max_tokens") or 0))
            if held is None:
                raise BudgetExhaustedError(
                    f"--max-cost {self.budget.limit_usd:g} reached "
                    f"(${self.budget.spent_usd:.4f} spent)"
                )
        t1 = time.perf_counter()
        try:
            done = await self.complete(messages, kind)
        except BackendError as exc:
            if held is not None and self.budget is not None:
                self.budget.settle(held, 0.0)
            _log(kind, messages, params, started, None, str(exc), exc.raw)
            raise
        t2 = time.perf_counter()
        _log(kind, messages, params, started, done, None, done.raw)
        if self.cache is not None:
            self.cache.put(key, done)
        if done.cached:  # paid by an earlier process (a harvested batch)
            if held is not None and self.budget is not None:
                self.budget.settle(held, 0.0)
            self.meter.cache_hits += 1
            return done
        if held is not None and self.budget is not None:
            self.budget.settle(held, done.cost_usd or 0.0)
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


def _log(
    kind: CallKind,
    messages: Sequence[Message],
    params: Mapping[str, Any],
    started: float,
    done: Completion | None,
    error: str | None,
    raw: str | None,
) -> None:
    exchanges = EXCHANGES.get()
    if exchanges is None:
        return
    exchanges.append(
        {
            "kind": kind,
            # A copy: the conversation list grows after this call.
            "messages": [dict(m) for m in messages],
            "params": dict(params),
            "raw_reply": raw,
            "reply_text": None if done is None else done.text,
            "tokens_in": 0 if done is None else done.tokens_in,
            "tokens_out": 0 if done is None else done.tokens_out,
            "cost_usd": None if done is None else done.cost_usd,
            "latency_s": 0.0 if done is None else done.latency_s,
            "cached": False if done is None else done.cached,
            "error": error,
            "started_at": round(started, 6),
        }
    )
