"""The adaptive limiter, retry timing and the response cache file."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path

import pytest

from steer.adapt import Completion
from steer.backends import cache_key
from steer.backends._ratelimit import AdaptiveLimiter, backoff_s, parse_retry_after
from steer.run._cache import ResponseCache


def test_window_caps_requests_in_flight_and_recovers_additively() -> None:
    async def go() -> tuple[int, float, float]:
        limiter = AdaptiveLimiter(8)
        peak = 0

        async def one() -> None:
            nonlocal peak
            await limiter.acquire()
            peak = max(peak, limiter.in_flight)
            await asyncio.sleep(0.001)
            await limiter.release(ok=True)

        await limiter.throttled(None)
        await limiter.throttled(None)
        halved = limiter.window
        await asyncio.gather(*(one() for _ in range(40)))
        return peak, halved, limiter.window

    peak, halved, after = asyncio.run(go())
    assert halved == 2.0 and peak <= 8
    assert 2.0 < after <= 8.0  # grows by 1/window per success


def test_retry_after_pauses_everyone() -> None:
    async def go() -> float:
        limiter = AdaptiveLimiter(4)
        await limiter.throttled(0.15)
        t0 = time.monotonic()
        await limiter.acquire()
        return time.monotonic() - t0

    assert asyncio.run(go()) >= 0.14


def test_backoff_and_retry_after_headers() -> None:
    rng = random.Random(1)
    delays = [backoff_s(a, 0.5, 4.0, rng) for a in range(8) for _ in range(50)]
    assert all(0 <= d <= 4.0 for d in delays) and max(delays) > 2.0
    assert parse_retry_after({"retry-after": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None
    assert parse_retry_after({}) is None


def test_cache_keys_cover_identity_messages_and_parameters() -> None:
    who = {"family": "openai", "model": "m", "revision": None}
    msgs = [{"role": "user", "content": "hi"}]
    base = cache_key(who, msgs, {"temperature": 0})
    assert base == cache_key(dict(reversed(who.items())), msgs, {"temperature": 0})
    assert base != cache_key({**who, "model": "n"}, msgs, {"temperature": 0})
    assert base != cache_key({**who, "revision": "r1"}, msgs, {"temperature": 0})
    assert base != cache_key(who, [{"role": "system", "content": "hi"}], {"temperature": 0})
    assert base != cache_key(who, msgs, {"temperature": 0.1})


def test_cache_file_survives_a_cut_line(tmp_path: Path) -> None:
    path = tmp_path / "cache.jsonl"
    cache = ResponseCache(path)
    done = Completion("B", ["B"], [{"B": -0.1}], 10, 1, 0.5, 0.2)
    cache.put("k1", done)
    cache.put("k1", done)  # idempotent
    cache.close()
    with path.open("ab") as fh:
        fh.write(b'{"k": "k2", "v": {"te')
    again = ResponseCache(path)
    assert len(again) == 1 and path.read_bytes().count(b"\n") == 1
    hit = again.get("k1")
    assert hit is not None and hit.cached and hit.text == "B" and hit.cost_usd == 0.5
    assert again.get("k2") is None
    again.close()


@pytest.mark.parametrize("bad", [b"not json\n", b'{"k": 1}\n'])
def test_unreadable_cache_lines_are_reported(tmp_path: Path, bad: bytes) -> None:
    path = tmp_path / "cache.jsonl"
    path.write_bytes(bad)
    cache = ResponseCache(path)
    assert len(cache) == 0 and "unreadable cache line" in cache.problems[0]
    cache.close()
