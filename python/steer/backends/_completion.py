"""Turn a chat-completion reply (raw bytes or a decoded object) into a
`Completion`, or say exactly why it is not one.

Servers send HTML error pages with status 200, `choices: []`, `message: null`,
JSON nested thousands of levels deep, bodies cut short. Each of those is a
`MalformedReplyError` naming the reason, which the caller retries and, when its
budget is spent, records against the question; nothing here may raise any
other exception for any input.
"""

from __future__ import annotations

import json
import math
from typing import Any

from steer._native import scan_json
from steer._scan import MAX_DEPTH
from steer.adapt import Completion
from steer.backends._pricing import Price


class MalformedReplyError(ValueError):
    """A reply that is not a usable chat completion; the message says why."""


def parse_reply(raw: bytes) -> dict[str, Any]:
    """The decoded JSON object of a reply body."""
    head = raw.lstrip()[:1]
    if head == b"<":
        raise MalformedReplyError("reply is HTML, not JSON")
    problem = scan_json(raw, MAX_DEPTH)  # one linear pass in Rust
    if problem is not None:
        if problem[0] == "depth":
            raise MalformedReplyError(f"reply JSON is nested more than {MAX_DEPTH} levels deep")
        raise MalformedReplyError("reply is not valid UTF-8")
    try:
        obj = json.loads(raw)
    except UnicodeDecodeError:
        raise MalformedReplyError("reply is not valid UTF-8") from None
    except RecursionError:
        raise MalformedReplyError("reply JSON is nested too deeply") from None
    except json.JSONDecodeError as exc:
        # Cut off: the parser ran out of input, or inside a string.
        if exc.pos >= len(raw.rstrip()) or exc.msg.startswith("Unterminated string"):
            raise MalformedReplyError(f"reply body is truncated ({len(raw)} bytes)") from None
        raise MalformedReplyError(f"reply is not valid JSON ({exc.msg}, byte {exc.pos})") from None
    if not isinstance(obj, dict):
        raise MalformedReplyError(f"reply is a JSON {type(obj).__name__}, not an object")
    return obj


def _count(usage: dict[str, Any], name: str) -> int:
    value = usage.get(name)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0
    return max(0, int(value))


def _logprobs(choice: dict[str, Any]) -> tuple[list[str] | None, list[dict[str, float]] | None]:
    logprobs = choice.get("logprobs")
    content = logprobs.get("content") if isinstance(logprobs, dict) else None
    if not isinstance(content, list) or not content:
        return None, None
    tokens: list[str] = []
    tops: list[dict[str, float]] = []
    for entry in content:
        if not isinstance(entry, dict) or not isinstance(entry.get("token"), str):
            return None, None  # unusable log-probs: the text still answers
        top: dict[str, float] = {}
        for alt in entry.get("top_logprobs") or []:
            if isinstance(alt, dict) and isinstance(alt.get("token"), str):
                value = alt.get("logprob")
                if isinstance(value, int | float) and not isinstance(value, bool):
                    top[alt["token"]] = float(value)
        own = entry.get("logprob")
        if isinstance(own, int | float) and not isinstance(own, bool):
            top.setdefault(entry["token"], float(own))
        tokens.append(entry["token"])
        tops.append(top)
    return tokens, tops


def completion_from(
    response: Any,
    price: Price | None,
    latency: float,
    *,
    batch: bool,
    raw: str | None = None,
) -> Completion:
    """A Completion from a decoded chat.completion object; MalformedReplyError if
    it has no assistant text."""
    if not isinstance(response, dict):
        raise MalformedReplyError(f"reply is a JSON {type(response).__name__}, not an object")
    choices = response.get("choices")
    if not isinstance(choices, list):
        raise MalformedReplyError(f"reply has no `choices` list (got {_kind(choices)})")
    if not choices:
        raise MalformedReplyError("reply has an empty `choices` list")
    choice = choices[0]
    if not isinstance(choice, dict):
        raise MalformedReplyError(f"`choices[0]` is {_kind(choice)}, not an object")
    message = choice.get("message")
    if not isinstance(message, dict):
        raise MalformedReplyError(f"`choices[0].message` is {_kind(message)}")
    text = message.get("content")
    if not isinstance(text, str):
        raise MalformedReplyError(f"`choices[0].message.content` is {_kind(text)}")
    tokens, tops = _logprobs(choice)
    usage = response.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    t_in, t_out = _count(usage, "prompt_tokens"), _count(usage, "completion_tokens")
    cost = price.cost(t_in, t_out, batch=batch) if price is not None else None
    return Completion(text, tokens, tops, t_in, t_out, cost, latency, raw=raw)


def _kind(value: object) -> str:
    return "null or missing" if value is None else f"a {type(value).__name__}"
