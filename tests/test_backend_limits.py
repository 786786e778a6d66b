"""The adaptive limiter, retry timing and the response cache file."""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import random
import re
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.adapt import Completion
from steer.backends import cache_key
from steer.backends._budget import CostBudget, worst_prompt_tokens
from steer.backends._completion import MalformedReplyError, completion_from, parse_reply
from steer.backends._pricing import Price, load_pricing
from steer.backends._ratelimit import AdaptiveLimiter, backoff_s, parse_retry_after
from steer.errors import FileFormatError
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
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) is None  # past
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


# -- Retry-After ---------------------------------------------------------------


def test_retry_after_as_an_http_date() -> None:
    now = 1_700_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after({"retry-after": date}, now=now) == pytest.approx(30.0)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"retry-after": past}, now=now) is None  # back off instead


@pytest.mark.parametrize(
    "value", ["0", "-5", "nan", "NaN", "inf", "-inf", "1e400", "soon", "", "  ", "Wed, 99 Foo"]
)
def test_unusable_retry_after_values_mean_our_own_backoff(value: str) -> None:
    assert parse_retry_after({"retry-after": value}) is None
    assert parse_retry_after({"retry-after-ms": value}) is None


def _reference_retry_after(value: str) -> float | None:
    """Plain reading of RFC 9110 delay-seconds (ours also takes decimals)."""
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds > 0 else None


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True).map(repr), st.text(max_size=30)))
def test_retry_after_matches_the_reference_and_is_always_usable(value: str) -> None:
    got = parse_retry_after({"retry-after": value}, now=0.0)
    if _reference_retry_after(value) is not None:
        assert got == _reference_retry_after(value)
    assert got is None or (math.isfinite(got) and got > 0)


# -- pricing files -------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "suffix", "message"),
    [
        ('{"a": {"input": 1, "output": NaN}}', ".json", "cannot parse"),
        ('{"a": {"input": 1, "output": Infinity}}', ".json", "cannot parse"),
        ('{\n"a": {"input": -1, "output": 1}}', ".json", ":2: field 'a.input': price must be"),
        ("[a]\ninput = nan\noutput = 1\n", ".toml", ":1: field 'a.input': price must be a finite"),
        ("[a]\ninput = 1\noutput = inf\n", ".toml", "field 'a.output'"),
        ('{"a": {"input": "1", "output": 1}}', ".json", "must be a number"),
        ('{"a": {"input": true, "output": 1}}', ".json", "must be a number"),
        ("[" * 5000, ".json", "cannot parse"),
    ],
)
def test_prices_must_be_finite_and_not_negative(
    tmp_path: Path, text: str, suffix: str, message: str
) -> None:
    path = tmp_path / f"prices{suffix}"
    path.write_text(text)
    with pytest.raises(FileFormatError, match=re.escape(message)) as info:
        load_pricing(path)
    assert str(info.value).startswith(str(path))


def test_worst_case_reservation_is_an_upper_bound_of_the_real_cost() -> None:
    price = Price(2.0, 8.0)
    budget = CostBudget(1.0)
    messages = [{"role": "user", "content": "héllo " * 50}]
    held = budget.reserve(price, messages, 16)
    assert held is not None and held == price.cost(worst_prompt_tokens(messages), 16)
    budget.settle(held, 0.0001)
    assert budget.held_usd == 0 and budget.spent_usd == 0.0001
    assert CostBudget(held / 2).reserve(price, messages, 16) is None


def test_the_prompt_bound_is_realistic_not_one_token_per_byte() -> None:
    def tokens(text: str) -> int:
        return worst_prompt_tokens([{"role": "user", "content": text}]) - 7

    prose = "The quick brown fox jumps over the lazy dog, and then it rests. " * 20
    # About characters / 2 for English (real tokenizers: characters / 4).
    assert len(prose) / 4 < tokens(prose) <= len(prose) / 1.8
    assert tokens("12345") == 5  # digits may be one token each
    assert tokens("日本語") == len("日本語".encode())  # bytes for other scripts


def test_a_request_that_does_not_fit_waits_for_those_in_flight() -> None:
    price = Price(1_000_000.0, 1_000_000.0)  # $1 a token
    messages = [{"role": "user", "content": "hi"}]
    worst = price.cost(worst_prompt_tokens(messages), 10)
    budget = CostBudget(2.5 * worst)

    async def go() -> tuple[float | None, float | None]:
        first = await budget.acquire(price, messages, 10)
        second = await budget.acquire(price, messages, 10)
        assert first is not None and second is not None
        third = asyncio.create_task(budget.acquire(price, messages, 10))
        await asyncio.sleep(0.01)
        assert not third.done()  # two worst cases held: the third waits
        budget.settle(first, 1.0)  # the real cost is far below the worst case
        got = await third
        assert got is not None
        budget.settle(second, worst)
        budget.settle(got, worst)  # now nothing is held and nothing more fits
        return got, await budget.acquire(price, messages, 10)

    got, refused = asyncio.run(go())
    assert got == worst and refused is None
    assert budget.holders == 0 and budget.held_usd == 0


# -- replies -------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
_reply_like = st.fixed_dictionaries(
    {},
    optional={
        "choices": st.one_of(
            _json,
            st.lists(
                st.fixed_dictionaries(
                    {},
                    optional={
                        "message": st.one_of(
                            _json, st.fixed_dictionaries({}, optional={"content": _json})
                        ),
                        "logprobs": _json,
                    },
                ),
                max_size=2,
            ),
        ),
        "usage": _json,
    },
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.binary(max_size=200), _reply_like.map(lambda o: json.dumps(o).encode())))
def test_any_reply_is_a_completion_or_one_malformed_reply_error(raw: bytes) -> None:
    try:
        done = completion_from(parse_reply(raw), Price(1.0, 2.0), 0.1, batch=False)
    except MalformedReplyError as exc:
        assert str(exc)
        return
    assert isinstance(done.text, str) and done.tokens_in >= 0 and done.tokens_out >= 0
    assert done.cost_usd is not None and math.isfinite(done.cost_usd)


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (b"<!DOCTYPE html><html>502</html>", "HTML"),
        (b'{"choices": []}', "empty `choices`"),
        (b'{"choices": null}', "no `choices` list"),
        (b'{"choices": [{"message": null}]}', "`choices[0].message` is null"),
        (b'{"choices": [{"message": {"role": "assistant"}}]}', "content` is null or missing"),
        (b'{"choices": [{"message": {"content": 7}}]}', "content` is a int"),
        (b"[" * 10000 + b"]" * 10000, "nested more than"),
        (b'{"choices": [{"mess', "truncated"),
        (b"\xff\xfe", "UTF-8"),
        (b"[1, 2]", "not an object"),
    ],
)
def test_malformed_replies_say_why(raw: bytes, reason: str) -> None:
    with pytest.raises(MalformedReplyError, match=re.escape(reason)):
        completion_from(parse_reply(raw), None, 0.0, batch=False)
