"""kill -9 of a real `steer run` talking to a real loopback server, then a
resume: the journal is checked row by row, and the server's request log
shows that nothing already received was asked (or paid for) again."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bank_factory import make_questions, write_test_bank

HERE = Path(__file__).parent
SECRET = "sk-test-kill9-SECRET-9e1d"


@pytest.fixture
def server() -> Iterator[str]:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "openai_server.py"), "--delay", "0.05"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    yield f"http://127.0.0.1:{port}"
    proc.kill()
    proc.wait(timeout=10)
    proc.stdout.close()


def server_log(url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{url}/stats", timeout=10) as r:
        log: list[dict[str, Any]] = json.load(r)["log"]
    return [e for e in log if e["path"] == "/v1/chat/completions"]


def steer_run(bank: Path, out: Path, url: str) -> subprocess.Popen[str]:
    env = {**os.environ, "OPENAI_API_KEY": SECRET}
    cmd = [sys.executable, "-m", "steer", "run", str(bank), "--model", "openai:gpt-4o-mini"]
    cmd += ["--base-url", f"{url}/v1", "--out", str(out), "--concurrency", "4", "--progress"]
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def question_of(last_user: str) -> str:
    m = re.search(r"Question (\d+) part (\d+): .*\((q\d+)\)", last_user)
    assert m, last_user
    return f"{m.group(3)}/{m.group(2)}"


def test_kill9_mid_run_then_resume(server: str, tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 80, multipart_every=4)
    questions = make_questions(80, multipart_every=4)
    out = tmp_path / "run"
    child = steer_run(bank, out, server)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 20:
            break
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    time.sleep(0.3)  # requests in flight at the kill finish on the server
    before = server_log(server)

    kept = journal.read_bytes()
    kept = kept[: kept.rfind(b"\n") + 1]
    journaled_before = [json.loads(x) for x in kept.splitlines()]
    assert 20 <= len(journaled_before) < len(questions), "the kill should land mid-run"
    cache_lines = (out / "cache.jsonl").read_bytes()
    cached_at_kill = cache_lines[: cache_lines.rfind(b"\n") + 1].count(b"\n")
    assert not (out / "responses.parquet").exists()

    resumed = steer_run(bank, out, server)
    stdout, stderr = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, stderr
    after = server_log(server)[len(before) :]

    # Journal, row by row: the old lines kept byte for byte, every question
    # exactly once, each row the server's answer for that question.
    assert journal.read_bytes().startswith(kept)
    rows = [json.loads(x) for x in journal.read_text().splitlines()]
    ids = [r["question_id"] for r in rows]
    assert len(ids) == len(set(ids)) == len(questions)
    assert set(ids) == {q.question_id for q in questions}
    by_id = {q.question_id: q for q in questions}
    for r in rows:
        q = by_id[r["question_id"]]
        assert (r["part"], r["correct_index"], r["chosen_index"]) == (q.part, q.correct_index, 1)
        assert r["option_probs"] == pytest.approx([0.2 / 0.9, 0.7 / 0.9, 0.0, 0.0])

    # Nothing re-paid: every turn already received before the kill (cached)
    # is never asked again; only the rest is, once each.
    short = [f"{q.base_id}/{q.part}" for q in questions]
    asked_before = Counter(question_of(e["last_user"]) for e in before)
    asked_after = Counter(question_of(e["last_user"]) for e in after)
    assert len(after) == len(questions) - cached_at_kill
    assert all(n == 1 for n in asked_after.values())
    journaled = {f"{r['base_id']}/{r['part']}" for r in journaled_before}
    assert not journaled & set(asked_after)
    lost_in_flight = len(before) - cached_at_kill
    assert 0 <= lost_in_flight <= 4  # at most the requests in flight at the kill
    assert sum((asked_before + asked_after).values()) == len(short) + lost_in_flight

    # The key went to the server and nowhere else.
    assert all(e["auth"] == f"Bearer {SECRET}" for e in before + after)
    for path in out.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in stdout + stderr
    assert f"{len(questions)}/{len(questions)}" in stderr  # the progress bar's last line
