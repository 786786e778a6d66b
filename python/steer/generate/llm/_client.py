"""The OpenAI-compatible client that `generate --llm` and `rephrase` share:
one request at a time per slot, errors mapped to steer's (a bad key or model
is bad input; anything else rejects the reply), the key never in a message."""

from __future__ import annotations

import asyncio
import urllib.parse
from typing import Any, Protocol

from steer.backends._openai import _KEYLIKE, OpenAIOptions, _read_key
from steer.errors import InputError
from steer.generate.llm._options import LLMOptions
from steer.generate.llm._reject import Rejected


class Counts(Protocol):
    requests: int


def host_of(url: str | None) -> str:
    """The server's host (and port) as recorded in provenance, never its credentials."""
    if url is None:
        return "api.openai.com"
    parts = urllib.parse.urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)


def model_of(spec: str) -> str:
    family, sep, model = spec.partition(":")
    if family != "openai" or not sep or not model:
        raise InputError(f"--llm takes openai:MODEL (an OpenAI-compatible server), got {spec!r}")
    return model


class LLMClient:
    """Chat completions from `spec` (openai:MODEL) under `opts`; each request
    is counted in `counts.requests`."""

    def __init__(self, spec: str, opts: LLMOptions, counts: Counts) -> None:
        import openai

        self.spec, self.model, self.opts, self.counts = spec, model_of(spec), opts, counts
        self._oa = openai
        self._key = _read_key(OpenAIOptions(base_url=opts.base_url, api_key_env=opts.api_key_env))
        self.client = openai.AsyncOpenAI(
            api_key=self._key,
            base_url=opts.base_url,
            max_retries=opts.max_retries,
            timeout=opts.timeout_s,
        )
        self.limit = asyncio.Semaphore(opts.concurrency)

    def short(self, exc: BaseException) -> str:
        """The first line of an error, with the key and anything key-like masked."""
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if len(self._key) >= 8:
            text = text.replace(self._key, "***")
        return _KEYLIKE.sub(r"\1***", text)[:200]

    async def ask(self, messages: list[dict[str, str]]) -> tuple[str, str]:
        """(reply text, response id); raises InputError or Rejected."""
        params: dict[str, Any] = {
            "temperature": self.opts.temperature,
            "max_tokens": self.opts.max_tokens,
        }
        if self.opts.json_mode:
            params["response_format"] = {"type": "json_object"}
        oa = self._oa
        async with self.limit:
            self.counts.requests += 1
            try:
                response = await self.client.chat.completions.create(
                    model=self.model, messages=messages, **params
                )
                return response.choices[0].message.content or "", str(response.id)
            except (oa.AuthenticationError, oa.PermissionDeniedError, oa.NotFoundError) as exc:
                status = exc.status_code
                raise InputError(f"{self.spec}: HTTP {status}: {self.short(exc)}") from None
            except oa.APIStatusError as exc:
                status = exc.status_code
                raise Rejected("request_failed", f"HTTP {status}: {self.short(exc)}") from None
            except (oa.APIError, ValueError, LookupError, TypeError, AttributeError) as exc:
                raise Rejected("request_failed", self.short(exc)) from None

    async def close(self) -> None:
        await self.client.close()
