"""`openai:MODEL` — any OpenAI-compatible chat-completions server through the
official async client (OpenAI, vLLM serve, llama.cpp server, TGI, Ollama).

The API key is read from the environment variable named by `api_key_env`
(OPENAI_API_KEY by default) when the client is made, and lives only inside
the client: it is never an option, a generation parameter, or a cache key.
"""

from __future__ import annotations

import asyncio
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
from steer.backends._pricing import Price, load_pricing, price_for
from steer.backends._ratelimit import AdaptiveLimiter, backoff_s, parse_retry_after
from steer.errors import InputError


class OpenAIOptions(BaseModel):
    """Settings of the openai backend (`--base-url`, `--concurrency`, ...)."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    concurrency: int = Field(default=16, ge=1)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=6, ge=0)
    retry_base_s: float = Field(default=1.0, ge=0)
    retry_cap_s: float = Field(default=60.0, ge=0)
    temperature: float = 0.0
    max_tokens_answer: int = Field(default=16, ge=1)
    max_tokens_reason: int = Field(default=1024, ge=1)
    logprobs: bool = True
    top_logprobs: int = Field(default=20, ge=0, le=20)
    seed: int | None = None
    pricing_file: str | None = None
    batch_api: bool = False
    batch_poll_s: float = Field(default=30.0, gt=0)


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


def completion_from(
    response: Any, price: Price | None, latency: float, *, batch: bool
) -> Completion:
    """A Completion from a chat.completion object (client model or plain dict)."""
    get = (lambda o, k: o.get(k)) if isinstance(response, dict) else getattr
    choice = get(response, "choices")[0]
    message = get(choice, "message")
    text = get(message, "content") or ""
    tokens: list[str] | None = None
    tops: list[dict[str, float]] | None = None
    logprobs = get(choice, "logprobs")
    content = get(logprobs, "content") if logprobs is not None else None
    if content:
        tokens, tops = [], []
        for entry in content:
            tokens.append(get(entry, "token"))
            top = {
                get(t, "token"): float(get(t, "logprob")) for t in get(entry, "top_logprobs") or []
            }
            top.setdefault(get(entry, "token"), float(get(entry, "logprob")))
            tops.append(top)
    usage = get(response, "usage")
    t_in = int(get(usage, "prompt_tokens") or 0) if usage is not None else 0
    t_out = int(get(usage, "completion_tokens") or 0) if usage is not None else 0
    cost = price.cost(t_in, t_out, batch=batch) if price is not None else None
    return Completion(text, tokens, tops, t_in, t_out, cost, latency)


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
        s, oa = self.settings, self._openai
        assert self._limiter is not None
        last = "no attempt"
        for attempt in range(s.max_retries + 1):
            await self._limiter.acquire()
            ok, pause = False, 0.0
            t0 = time.monotonic()
            try:
                response = await self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    **params,
                )
                done = completion_from(response, self.price, time.monotonic() - t0, batch=False)
                ok = True
                return done
            except oa.RateLimitError as exc:
                retry_after = parse_retry_after(exc.response.headers)
                await self._limiter.throttled(retry_after)
                last = f"HTTP 429 (rate limited): {self._short(exc)}"
                pause = 0.0 if retry_after is not None else self._backoff(attempt)
            except oa.APIStatusError as exc:
                if exc.status_code in (401, 403, 404):
                    raise BackendError(
                        f"{self.spec}: HTTP {exc.status_code}: {self._short(exc)}",
                        transient=False,
                        fatal=True,
                    ) from None
                if exc.status_code < 500 and exc.status_code not in (408, 409):
                    raise BackendError(
                        f"HTTP {exc.status_code}: {self._short(exc)}", transient=False
                    ) from None
                last = f"HTTP {exc.status_code}: {self._short(exc)}"
                pause = self._backoff(attempt)
            except oa.APITimeoutError:
                last = f"timed out after {s.timeout_s:g} s"
                pause = self._backoff(attempt)
            except oa.APIConnectionError as exc:
                last = f"connection failed: {self._short(exc)}"
                pause = self._backoff(attempt)
            except (oa.APIResponseValidationError, ValueError, LookupError, TypeError) as exc:
                last = f"malformed reply: {type(exc).__name__}"
                pause = self._backoff(attempt)
            finally:
                await self._limiter.release(ok=ok)
            if attempt < s.max_retries and pause > 0:
                await asyncio.sleep(pause)
        raise BackendError(
            f"gave up after {s.max_retries + 1} attempts; last: {last}", transient=True
        )

    def _short(self, exc: BaseException) -> str:
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


# Servers echo keys in auth errors (OpenAI masks all but the last characters).
_KEYLIKE = re.compile(r"(sk-|key[=:]\s*)[\w*.-]{4,}", re.IGNORECASE)


def _path(text: str) -> Any:
    from pathlib import Path

    return Path(text)
