"""Transcripts: every exchange of a run is kept beside its responses
(transcripts.jsonl, schema steer.schema.transcript) and `steer show` prints
one; checked against what a real loopback server received and sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bank_factory import write_test_bank
from openai_server import FakeOpenAI, serving
from steer.run import run_bank
from steer.schema import Adaptation
from steer.schema.transcript import Transcript


@pytest.fixture
def server() -> Iterator[tuple[FakeOpenAI, str]]:
    state = FakeOpenAI()
    with serving(state) as url:
        yield state, url


def transcripts(run: Path) -> list[Transcript]:
    lines = (run / "transcripts.jsonl").read_text(encoding="utf-8").splitlines()
    return [Transcript.model_validate_json(line) for line in lines]


def steer(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "steer", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_each_exchange_is_what_the_server_saw_and_sent(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 5, multipart_every=2)
    state.sticky = {"(q00003)": "html"}
    out = tmp_path / "run"
    options = {"base_url": url, "max_retries": 1, "retry_base_s": 0.01, "temperature": 0.25}
    result = run_bank(
        bank, "openai:m", out, adaptation=Adaptation(format="shown"), backend_options=options
    )
    rows = {r["question_id"]: r for r in result.responses.to_pylist()}
    found = transcripts(out)
    assert sorted(q for t in found for q in t.question_ids) == sorted(rows)
    assert len(found) == 5  # one per question, parts together
    asked = [e["last_user"] for e in state.log if e["path"] == "/v1/chat/completions"]
    for t in found:
        assert t.model == "openai:m" and t.adaptation.format == "shown"
        for ex in t.exchanges:
            assert ex.params["temperature"] == 0.25 and "max_tokens" in ex.params
            assert ex.messages[-1]["content"] in asked
            assert ex.messages[0]["role"] == "system"
        for answer in t.answers:
            assert answer.chosen_index == rows[answer.question_id]["chosen_index"]
            assert answer.error == rows[answer.question_id]["error"]
        if t.base_id == "q00003":
            assert t.error is not None and "HTML" in t.error
            assert t.exchanges[-1].error is not None and "<html>" in (
                t.exchanges[-1].raw_reply or ""
            )
            continue
        assert t.error is None and len(t.exchanges) == 2 * len(t.question_ids)
        for ex in t.exchanges:
            reply = json.loads(ex.raw_reply or "")
            assert reply["choices"][0]["message"]["content"] == ex.reply_text
            assert ex.tokens_in == reply["usage"]["prompt_tokens"]
    # A multi-part question: the second part's conversation carries the first.
    two = next(t for t in found if len(t.question_ids) == 2)
    assert len(two.exchanges[2].messages) > len(two.exchanges[1].messages)


def test_agents_write_what_they_were_given(tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 3)
    result = run_bank(bank, "agent:oracle", tmp_path / "run")
    found = transcripts(tmp_path / "run")
    assert [t.question_ids[0] for t in found] == result.responses["question_id"].to_pylist()
    assert all(t.given and t.given[0]["options"] for t in found)
    assert all(not t.exchanges for t in found)


def test_show_prints_one_transcript_and_suggests_close_ids(
    server: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    _, url = server
    bank = write_test_bank(tmp_path / "bank.parquet", 3)
    out = tmp_path / "run"
    result = run_bank(bank, "openai:m", out, backend_options={"base_url": url})
    # Rows are journaled in the order replies arrive: pick the question by id.
    (qid,) = [q for q in result.responses["question_id"].to_pylist() if "/q00001/" in q]
    shown = steer("show", str(out), qid)
    assert shown.returncode == 0, shown.stderr
    assert "[system]" in shown.stdout and "(q00001)" in shown.stdout
    assert f"answer {qid}: option 1" in shown.stdout
    as_json = steer("show", str(out), qid, "--json")
    assert as_json.returncode == 0, as_json.stderr
    assert Transcript.model_validate_json(as_json.stdout).question_ids == [qid]
    wrong = steer("show", str(out), qid[:-1] + "7")
    assert wrong.returncode == 2, wrong.stderr
    assert "no transcript for question" in wrong.stderr and "did you mean" in wrong.stderr
    assert qid[:-1] in wrong.stderr and wrong.stderr.count("\n") == 1, wrong.stderr


def test_a_transcript_line_cut_by_a_kill_is_trimmed_before_appending(tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 4)
    out = tmp_path / "run"
    run_bank(bank, "agent:oracle", out, limit=2)
    path = out / "transcripts.jsonl"
    whole = path.read_bytes()
    path.write_bytes(whole + whole[:37])  # a kill in the middle of an append
    run_bank(bank, "agent:oracle", out)
    lines = path.read_bytes().splitlines()
    assert len(lines) == 4
    assert [Transcript.model_validate_json(line).question_ids[0] for line in lines] == (
        run_bank(bank, "agent:oracle", out).responses["question_id"].to_pylist()
    )


def test_an_error_body_that_echoes_the_key_is_scrubbed(
    server: tuple[FakeOpenAI, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = server
    secret = "sk-test-ECHOED-9c2b71"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    state.faults[:] = ["400-echo"]
    bank = write_test_bank(tmp_path / "bank.parquet", 2)
    out = tmp_path / "run"
    run_bank(bank, "openai:m", out, backend_options={"base_url": url, "concurrency": 1})
    assert all(e["auth"] == f"Bearer {secret}" for e in state.log)
    for path in out.iterdir():
        assert secret.encode() not in path.read_bytes(), path
    rejected = next(t for t in transcripts(out) if t.error)
    assert "HTTP 400" in rejected.error and "***" in (rejected.exchanges[0].raw_reply or "")
