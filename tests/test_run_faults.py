"""Runs that survive real servers: `steer run` subprocesses against a real
loopback HTTP server (tests/openai_server.py) through the real `openai`
client — one writer per directory, bounded waiting, malformed replies
recorded per question, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bank_factory import write_test_bank
from openai_server import FAULTS, FakeOpenAI, serving

STEER = [sys.executable, "-m", "steer"]


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAI, str]]:
    state = FakeOpenAI()
    with serving(state) as url:
        yield state, url
        state.release.set()


def env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}


def run_args(bank: Path, out: Path, url: str, *extra: str) -> list[str]:
    return [
        *STEER, "run", str(bank), "-m", "openai:m", "--base-url", url, "-o", str(out),
        "--no-progress", *extra,
    ]  # fmt: skip


# Tiny caps so a server that never cooperates costs well under a second per question.
FAST = [
    "--timeout", "0.3", "--max-retry-wait", "0.05", "--retry-budget", "1.0",
    "--backend-opt", "max_retries=2", "--backend-opt", "retry_base_s=0.01",
    "--backend-opt", "retry_cap_s=0.05",
]  # fmt: skip


def test_a_second_run_on_a_directory_in_use_exits_2_and_nothing_is_paid_twice(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    state.hold = threading.Event()  # the first run waits mid-way until released
    bank = write_test_bank(tmp_path / "bank.parquet", 6)
    out = tmp_path / "run"
    args = run_args(bank, out, url, "-j", "1")
    first = subprocess.Popen(args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    while state.arrived == 0 and time.monotonic() < deadline:
        time.sleep(0.02)  # the first run holds the lock once it asks anything
    second = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=60)
    state.hold.set()
    _, err1 = first.communicate(timeout=60)
    assert first.returncode == 0, err1
    assert second.returncode == 2
    assert f"in use by another steer run (pid {first.pid})" in second.stderr
    assert state.chat_requests() == 6  # once per question
    assert pq.read_table(out / "responses.parquet").num_rows == 6
    # The kernel released the lock with the process: the next run goes ahead.
    again = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=60)
    assert again.returncode == 0 and state.chat_requests() == 6


def test_hostile_server_run_finishes_within_caps_and_a_rerun_asks_nothing(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 8)
    out = tmp_path / "run"
    state.sticky = {
        "(q00001)": "429-forever",
        "(q00002)": "html",
        "(q00003)": "message-null",
        "(q00004)": "silent",
        "(q00005)": "deep",
    }
    args = run_args(bank, out, url, "-j", "4", *FAST)
    t0 = time.monotonic()
    first = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=120)
    elapsed = time.monotonic() - t0
    assert first.returncode == 1, first.stderr
    assert "5 questions recorded as errors" in first.stderr
    assert elapsed < 20  # 1 s budget per question; the process start dominates
    table = pq.read_table(out / "responses.parquet")
    rows = {r["base_id"]: r for r in table.to_pylist()}
    assert len(rows) == 8
    errors = {base: r["error"] for base, r in rows.items() if r["error"]}
    assert set(errors) == {"q00001", "q00002", "q00003", "q00004", "q00005"}
    assert "Retry-After 1e+09 s, capped at 0.05 s" in errors["q00001"]
    assert "HTML" in errors["q00002"]
    assert "`choices[0].message` is null" in errors["q00003"]
    assert "timed out" in errors["q00004"] or "retry budget" in errors["q00004"]
    assert "nested more than" in errors["q00005"]
    assert all(rows[b]["chosen_index"] == -1 for b in errors)
    asked = state.chat_requests()

    again = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=120)
    # The directory still holds recorded errors: exit 1, as `steer run --help` says.
    assert again.returncode == 1, again.stderr
    assert "0 new responses, 8 in" in again.stdout
    assert "recorded errors stand for 5 questions" in again.stderr
    assert state.chat_requests() == asked  # nothing asked again

    state.sticky = {}
    state.release.set()
    retried = subprocess.run(
        [*args, "--retry-errors"], env=env(), capture_output=True, text=True, timeout=120
    )
    assert retried.returncode == 0, retried.stderr
    assert state.chat_requests() == asked + 5
    final = pq.read_table(out / "responses.parquet").to_pylist()
    assert len(final) == 8 and not any(r["error"] for r in final)  # later rows win
    assert (out / "journal.jsonl").read_bytes().count(b"\n") == 13  # append-only


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_fault_mode_is_one_recorded_error(
    server: tuple[FakeOpenAI, str], tmp_path: Path, fault: str
) -> None:
    from steer.run import run_bank

    state, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 3)
    state.sticky = {"(q00001)": fault}
    options = {
        "base_url": url, "timeout_s": 0.3, "max_retry_wait_s": 0.05, "retry_budget_s": 1.0,
        "max_retries": 1, "retry_base_s": 0.01, "retry_cap_s": 0.02,
    }  # fmt: skip
    result = run_bank(bank, "openai:m", tmp_path / "r", backend_options=options)
    errors = [r for r in result.responses.to_pylist() if r["error"]]
    assert result.n_failed == 1 and len(errors) == 1 and result.responses.num_rows == 3
    assert errors[0]["base_id"] == "q00001" and errors[0]["chosen_index"] == -1


def test_the_progress_line_says_what_it_waits_for(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 2)
    state.faults[:] = ["429-date"]
    args = run_args(bank, tmp_path / "run", url, "--max-retry-wait", "0.3")
    args.remove("--no-progress")
    done = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "429 from server, retrying in" in done.stderr


def test_ctrl_c_flushes_and_prints_the_resume_command(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    state.delay_s = 0.05
    bank = write_test_bank(tmp_path / "bank.parquet", 200)
    out = tmp_path / "run"
    args = run_args(bank, out, url, "-j", "1")
    proc = subprocess.Popen(args, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    journal = out / "journal.jsonl"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (
        not journal.exists() or journal.read_bytes().count(b"\n") < 3
    ):
        time.sleep(0.05)
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "Resume with:" in err.decode()
    assert f"steer run {bank} -m openai:m" in err.decode()
    kept = journal.read_bytes()
    assert kept.endswith(b"\n")
    asked_before = state.chat_requests()
    # Every reply received before the interrupt was journaled (or is in flight
    # and in the cache): a resume asks each question at most once more.
    assert kept.count(b"\n") >= asked_before - 1
    state.delay_s = 0.0
    resumed = subprocess.run(args, env=env(), capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    ids = [json.loads(line)["question_id"] for line in journal.read_text().splitlines()]
    assert len(ids) == len(set(ids)) == 200
    assert state.chat_requests() <= 201


def test_a_silent_server_shows_on_the_progress_line(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 1)
    state.sticky = {"(q00000)": "silent"}
    args = run_args(bank, tmp_path / "run", url, "--timeout", "2.6")
    args.remove("--no-progress")
    done = subprocess.run(
        [*args, "--backend-opt", "max_retries=0"], env=env(), capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "waiting for replies: nothing back for 2 s (timeout 2.6 s per request)" in (done.stderr)
    assert "1 question recorded as errors" in done.stderr
