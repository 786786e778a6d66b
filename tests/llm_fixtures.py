"""Constants shared by the `steer generate --llm` tests; their loopback-server
fixtures (`server`, `fake`) live in conftest.py."""

from __future__ import annotations

from collections.abc import Callable

FAKE_KEY = "sk-steer-test-SECRET-0123456789abcdef"
Reply = Callable[[list[dict[str, str]]], str]
