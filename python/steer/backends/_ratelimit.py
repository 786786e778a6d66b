"""Adaptive rate limiting and retry timing for API backends.

A window of concurrent requests grows by one per window of successes and
halves on every 429 (AIMD, as TCP does); a 429's `Retry-After` pauses every
request until it has passed. Retries back off exponentially with full jitter.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import datetime as dt
import email.utils
import math
import random
import time
from dataclasses import dataclass


class AdaptiveLimiter:
    """At most `window` requests in flight (1 ≤ window ≤ limit), and none
    before a server-imposed pause ends."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.window = float(self.limit)
        self.in_flight = 0
        self.paused_until = 0.0
        self._cond = asyncio.Condition()

    async def acquire(self) -> None:
        async with self._cond:
            while True:
                wait = self.paused_until - time.monotonic()
                if wait > 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._cond.wait(), wait)
                    continue
                if self.in_flight < int(self.window):
                    self.in_flight += 1
                    return
                await self._cond.wait()

    async def release(self, *, ok: bool) -> None:
        async with self._cond:
            self.in_flight -= 1
            if ok and self.window < self.limit:
                self.window = min(self.limit, self.window + 1.0 / self.window)
            self._cond.notify_all()

    async def throttled(self, retry_after: float | None) -> None:
        """A 429: halve the window and pause everyone for `retry_after` seconds."""
        async with self._cond:
            self.window = max(1.0, self.window / 2)
            if retry_after:
                self.paused_until = max(self.paused_until, time.monotonic() + retry_after)
            self._cond.notify_all()


def backoff_s(attempt: int, base_s: float, cap_s: float, rng: random.Random) -> float:
    """Full-jitter exponential backoff: uniform in [0, min(cap, base·2^attempt)]."""
    return rng.uniform(0.0, min(cap_s, base_s * 2.0**attempt))


def parse_retry_after(headers: object, now: float | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms` or `retry-after` (seconds or an
    HTTP date). None when absent or unusable (zero, negative, NaN, infinite,
    garbage): the caller then backs off on its own. Callers cap the result."""
    get = getattr(headers, "get", None)
    if get is None:
        return None
    for name, scale in (("retry-after-ms", 1e-3), ("retry-after", 1.0)):
        value = get(name)
        if not isinstance(value, str) or not value.strip():
            continue
        seconds: float | None
        try:
            seconds = float(value) * scale
        except ValueError:
            seconds = _http_date_s(value, now) if scale == 1.0 else None
        if seconds is not None and math.isfinite(seconds) and seconds > 0:
            return seconds
    return None


def _http_date_s(value: str, now: float | None) -> float | None:
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # RFC 9110 dates are GMT
        when = when.replace(tzinfo=dt.UTC)
    return when.timestamp() - (time.time() if now is None else now)


@dataclass
class QuestionBudget:
    """What one question may still spend on retries: a time limit
    (`time.monotonic()` deadline) and a number of failed attempts (None: the
    backend fills in its own `max_retries` on first use)."""

    deadline: float
    retries_left: int | None = None


# The budget of the question being answered, set by the runner around each
# question (one per task), so every request of a multi-turn question and
# every retry of it draws on one budget; unset, each request gets its own.
QUESTION_BUDGET: contextvars.ContextVar[QuestionBudget | None] = contextvars.ContextVar(
    "steer_question_budget", default=None
)
