"""`openai:MODEL` — any OpenAI-compatible chat-completions server through the
official async client (OpenAI, vLLM serve, llama.cpp server, TGI, Ollama).

The API key is read from the environment variable named by `api_key_env`
(OPENAI_API_KEY by default) when the client is made, and lives only inside
the client: it is never an option, a generation parameter, or a cache key.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import random
import re
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from steer.adapt import CallKind, Completion, Message
from steer.backends._base import BackendError
from steer.backends._chat import ChatBackend
from steer.backends._completion import MalformedReplyError, completion_from, parse_reply
from steer.backends._pricing import load_pricing, price_for
from steer.backends._ratelimit import (
    QUESTION_BUDGET,
    AdaptiveLimiter,
    QuestionBudget,
    backoff_s,
    parse_retry_after,
)
from steer.errors import InputError


class OpenAIOptions(BaseModel):
    """Settings of the openai backend (`--base-url`, `--concurrency`, ...)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = Field(default=16, ge=1)
    # A silent server costs at most timeout_s per attempt; a question gives
    # up (recorded as an error) after max_retries failed attempts or
    # retry_budget_s seconds, counted over all of its turns. A Retry-After is
    # honoured up to max_retry_wait_s; otherwise backoff is exponential with
    # full jitter, retry_base_s·2^k capped at retry_cap_s.
    timeout_s: float = Field(default=30.0, gt=0, allow_inf_nan=False)
    max_retries: int = Field(default=6, ge=0, le=100)
    retry_base_s: float = Field(default=1.0, ge=0, allow_inf_nan=False)
    retry_cap_s: float = Field(default=30.0, ge=0, allow_inf_nan=False)
    max_retry_wait_s: float = Field(default=60.0, ge=0, allow_inf_nan=False)
    retry_budget_s: float = Field(default=300.0, gt=0, allow_inf_nan=False)
    temperature: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    max_tokens_answer: int = Field(default=16, ge=1)
    max_tokens_reason: int = Field(default=1024, ge=1)
    logprobs: bool = True
    top_logprobs: int = Field(default=20, ge=0, le=20)
    seed: int | None = Field(default=None, ge=-(2**63), le=2**63 - 1)
    pricing_file: str | None = None
    batch_api: bool = False
    batch_poll_s: float = Field(default=30.0, gt=0, allow_inf_nan=False)


def public_url(url: str | None) -> str | None:
    """The base URL without user info (credentials never reach a record)."""
    if url is None:
        return None
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def _read_key(opts: OpenAIOptions) -> str:
    key = os.environ.get(opts.api_key_env)
    if key:
        return key
    if opts.base_url is not None:
        return "EMPTY"  # local OpenAI-compatible servers usually need none
    raise InputError(
        f"set {opts.api_key_env} in the environment to use the OpenAI API "
        "(or pass --base-url for a local server)"
    )


@dataclass
class OpenAIBackend(ChatBackend):
    settings: OpenAIOptions = field(default_factory=OpenAIOptions)

    def __post_init__(self) -> None:
        import openai

        self._openai = openai
        self._client_obj: Any = None
        pricing = load_pricing(
            None if self.settings.pricing_file is None else _path(self.settings.pricing_file)
        )
        self.price = price_for(pricing, self.model)
        self._limiter: AdaptiveLimiter | None = None
        self._rng = random.Random(0)
        self._batcher: Any = None

    @property
    def _client(self) -> Any:
        # Made on first use, so --dry-run needs no key and no connection.
        if self._client_obj is None:
            self._client_obj = self._openai.AsyncOpenAI(
                api_key=_read_key(self.settings),
                base_url=self.settings.base_url,
                max_retries=0,  # retries are ours: they see Retry-After and the limiter
                timeout=self.settings.timeout_s,
            )
        return self._client_obj

    # -- identity and parameters (recorded; never secrets) -------------------
    def identity(self) -> dict[str, Any]:
        return {**super().identity(), "base_url": public_url(self.settings.base_url)}

    def request_params(self, kind: CallKind) -> dict[str, Any]:
        s = self.settings
        params: dict[str, Any] = {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens_answer if kind == "answer" else s.max_tokens_reason,
        }
        if s.logprobs:
            params["logprobs"] = True
            params["top_logprobs"] = s.top_logprobs
        if s.seed is not None:
            params["seed"] = s.seed
        return params

    def generation_params(self) -> dict[str, Any]:
        return {
            **super().generation_params(),
            "base_url": public_url(self.settings.base_url),
            "batch_api": self.settings.batch_api,
        }

    # -- requests ------------------------------------------------------------
    async def complete(self, messages: list[Message], kind: CallKind) -> Completion:
        if self.settings.batch_api:
            if self._batcher is None:
                from steer.backends._openai_batch import BatchCollector

                self._batcher = BatchCollector(self)
            result: Completion = await self._batcher.submit(messages, self.request_params(kind))
            return result
        if self._limiter is None:
            self._limiter = AdaptiveLimiter(self.settings.concurrency)
        return await self._with_retries(messages, self.request_params(kind))

    async def _with_retries(self, messages: list[Message], params: dict[str, Any]) -> Completion:
        """Send until a usable reply, within the question's budget
        (`max_retries` failed attempts and `retry_budget_s` seconds, shared by
        all requests of the question); then a BackendError (recorded against
        the question)."""
        s, oa = self.settings, self._openai
        assert self._limiter is not None
        budget = QUESTION_BUDGET.get() or QuestionBudget(time.monotonic() + s.retry_budget_s)
        if budget.retries_left is None:
            budget.retries_left = s.max_retries
        deadline = budget.deadline
        last, raw_text, why_stopped = None, None, ""
        spent = f"retry budget of {s.retry_budget_s:g} s spent"
        attempt = -1
        for attempt in itertools.count():
            left = deadline - time.monotonic()
            if left <= 0:
                why_stopped = spent
                break
            await self._limiter.acquire()
            ok, pause, why = False, 0.0, ""
            t0 = time.monotonic()
            try:
                reply = await self._client.chat.completions.with_raw_response.create(
                    model=self.model,
                    messages=messages,
                    timeout=min(s.timeout_s, max(left, 0.01)),
                    **params,
                )
                body: bytes = reply.content
                raw_text = body[:_RAW_KEEP].decode("utf-8", errors="replace")
                done = completion_from(
                    parse_reply(body),
                    self.price,
                    time.monotonic() - t0,
                    batch=False,
                    raw=raw_text,
                )
                ok = True
                return done
            except oa.RateLimitError as exc:
                asked = parse_retry_after(exc.response.headers)
                wait = None if asked is None else min(asked, s.max_retry_wait_s)
                await self._limiter.throttled(wait)
                asked_text = (
                    "no usable Retry-After"
                    if asked is None
                    else (
                        f"Retry-After {asked:.3g} s, capped at {s.max_retry_wait_s:g} s"
                        if asked > s.max_retry_wait_s
                        else f"Retry-After {asked:.3g} s"
                    )
                )
                last = f"HTTP 429 (rate limited; {asked_text}): {self._short(exc)}"
                pause = wait if wait is not None else self._backoff(attempt)
                why = "429 from server"
                raw_text = self._scrub(_body_text(exc))
            except oa.APIStatusError as exc:
                raw_text = self._scrub(_body_text(exc))
                if exc.status_code in (401, 403, 404):
                    raise BackendError(
                        f"{self.spec}: HTTP {exc.status_code}: {self._short(exc)}",
                        transient=False,
                        fatal=True,
                        raw=raw_text,
                    ) from None
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    raise BackendError(
                        f"HTTP {exc.status_code}: {self._short(exc)}",
                        transient=False,
                        raw=raw_text,
                    ) from None
                last = f"HTTP {exc.status_code}: {self._short(exc)}"
                pause, why = self._backoff(attempt), f"HTTP {exc.status_code} from server"
            except oa.APITimeoutError:
                last = f"no reply within {seconds(min(s.timeout_s, left))} (timed out)"
                pause, why = self._backoff(attempt), "server silent (timed out)"
            except oa.APIConnectionError as exc:
                cause = _cause_text(exc)
                if "complete message body" in cause:  # the server hung up mid-reply
                    last = f"truncated reply: {self._short(cause)}"
                    pause, why = self._backoff(attempt), "truncated reply"
                else:
                    last = f"connection failed: {self._short(cause or exc)}"
                    pause, why = self._backoff(attempt), "connection failed"
            except MalformedReplyError as exc:
                last = f"malformed reply: {exc}"
                pause, why = self._backoff(attempt), "malformed reply"
            except (oa.APIResponseValidationError, ValueError, RecursionError) as exc:
                last = f"malformed reply: {type(exc).__name__}"
                pause, why = self._backoff(attempt), "malformed reply"
            finally:
                await self._limiter.release(ok=ok)
            if budget.retries_left <= 0:
                # (earlier turns of a question may have used them up)
                why_stopped = f"no retries left for this question (max {s.max_retries})"
                break
            budget.retries_left -= 1
            if time.monotonic() + pause >= deadline:
                why_stopped = spent
                break
            if pause > 0:
                self.notify(f"{why}, retrying in {pause:.3g} s")
                await asyncio.sleep(pause)
        if last is None:
            text = f"gave up before sending ({why_stopped})"
        else:
            tries = "1 attempt" if attempt == 0 else f"{attempt + 1} attempts"
            text = f"gave up after {tries} ({why_stopped}); last error: {last}"
        raise BackendError(text, transient=True, raw=raw_text)

    def _scrub(self, text: str | None) -> str | None:
        """An error body without the key (servers echo it in auth errors)."""
        if text is None:
            return None
        key = getattr(self._client_obj, "api_key", None)
        if key and len(key) >= 8:
            text = text.replace(key, "***")
        return _KEYLIKE.sub(r"\1***", text)

    def _short(self, exc: BaseException | str) -> str:
        """The first line of an error, with anything key-like removed."""
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        key = getattr(self._client_obj, "api_key", None)
        if key and len(key) >= 8:
            text = text.replace(key, "***")
        return _KEYLIKE.sub(r"\1***", text)[:300]

    def _backoff(self, attempt: int) -> float:
        return backoff_s(attempt, self.settings.retry_base_s, self.settings.retry_cap_s, self._rng)

    async def aclose(self) -> None:
        if self._batcher is not None:
            await self._batcher.aclose()
        if self._client_obj is not None:
            await self._client_obj.close()
            self._client_obj = None


def seconds(x: float) -> str:
    """A duration for a message: `0.23 s`, `1.5 s`, `42 s`."""
    return f"{x:.0f} s" if x >= 10 else f"{x:.2g} s"


def _cause_text(exc: BaseException) -> str:
    """The first line of the innermost cause of a client error ("peer closed
    connection without sending complete message body (received 30 bytes,
    expected 373)" rather than "Connection error.")."""
    seen: set[int] = set()
    inner: BaseException | None = exc
    while inner is not None and id(inner) not in seen:
        seen.add(id(inner))
        text = str(inner).splitlines()[0] if str(inner) else ""
        inner = inner.__cause__ or inner.__context__
        if inner is None or not str(inner):
            return text
    return ""


# How much of a reply body a transcript keeps.
_RAW_KEEP = 65536


def _body_text(exc: Any) -> str | None:
    response = getattr(exc, "response", None)
    try:
        return None if response is None else str(response.text)[:_RAW_KEEP]
    except Exception:  # a body that cannot be read is simply not kept
        return None


# Servers echo keys in auth errors (OpenAI masks all but the last characters).
_KEYLIKE = re.compile(r"(sk-|key[=:]\s*)[\w*.-]{4,}", re.IGNORECASE)


def _path(text: str) -> Any:
    from pathlib import Path

    return Path(text)
