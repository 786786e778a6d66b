"""`steer generate --llm` against replies nested 10,000 levels deep (issue 19 §3).

Before the depth check, `json.loads` raised RecursionError on such a reply and
the command died with an internal error. Now the reply is rejected as
`bad_json` like any malformed reply, and the model is asked again. The model
is a real HTTP server on loopback (tests/openai_server.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from steer.generate.llm._parse import load_object
from steer.generate.llm._reject import Rejected
from test_generate_llm import is_retry, run, valid

DEEP = "[" * 10_000 + "]" * 10_000


def deep_reply(messages: list[dict[str, str]]) -> str:
    return '{"question_text": "q", "payload": {"x": ' + DEEP + "}}"


@pytest.mark.parametrize(
    "reply",
    [
        DEEP,
        '{"a": ' + "{" * 5000 + "}" * 5000 + "}",
        "```json\n" + DEEP + "\n```",
        '{"question_text": NaN}',
        '{"x": Infinity}',
    ],
)
def test_hostile_reply_is_rejected_as_bad_json(reply: str) -> None:
    with pytest.raises(Rejected) as info:
        load_object(reply)
    assert info.value.reason == "bad_json"


def test_deep_reply_is_rejected_then_retried(fake: Any) -> None:
    state, url = fake
    table, summary = run(
        url, lambda m: valid(m) if is_retry(m) else deep_reply(m), state, per_cell=2
    )
    assert summary.accepted == 2 and summary.rejected == {"bad_json": 2}
    assert table.num_rows >= 2


def test_cli_with_only_deep_replies_exits_1_without_a_crash(fake: Any, tmp_path: Path) -> None:
    state, url = fake
    state.reply = deep_reply
    out = tmp_path / "b.parquet"
    env = {k: v for k, v in os.environ.items() if k != "STEER_DEBUG"}
    result = subprocess.run(
        [sys.executable, "-m", "steer", "generate", "--llm", "openai:m", "--base-url", url,
         "--elements", "1.1.c", "--grades", "3", "--per-cell", "1", "--llm-attempts", "2",
         "-o", str(out)],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "bad_json" in result.stdout + result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()
