"""Collective answers (`steer run --collective majority:N`): the vote, the
crowd's gain, durability, scoring as its own adaptation, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank_factory import write_test_bank
from openai_server import FakeOpenAI
from steer.errors import InputError
from steer.run import crowd_gain, majority_vote, run_collective
from steer.schema import NO_ANSWER, OFF_OPTIONS, RESPONSE_SCHEMA, Adaptation
from steer.score import load_responses, score


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_test_bank(tmp_path / "bank.parquet", 60)


def _members(
    choices: list[list[int]], n_options: list[int], errors: set[tuple[int, int]]
) -> pa.Table:
    """Response rows: member m's answer to question q is choices[q][m]."""
    rows = []
    for q, answers in enumerate(choices):
        for m, c in enumerate(answers):
            rows.append(
                {
                    "run_id": f"m{m}", "model": "agent:x", "backend": "agent",
                    "adaptation": Adaptation().model_dump(), "question_id": f"q{q:03d}",
                    "base_id": f"q{q:03d}", "part": 0, "element": "steer.1.1.a",
                    "domain": "d", "type": "t", "perspective": "first", "grade": 1,
                    "n_options": n_options[q], "chosen_index": c, "correct_index": 0,
                    "consistency_rule": None, "option_probs": None, "response_text": "x",
                    "explanation": None, "tokens_in": 1, "tokens_out": 1, "cost_usd": None,
                    "latency_s": None, "error": "boom" if (q, m) in errors else None,
                    "bank_sha256": "b", "sample": m, "recorded_at": 0.0,
                    "answer_read": None, "error_type": None,
                }
            )  # fmt: skip
    return pa.Table.from_pylist(rows, schema=RESPONSE_SCHEMA)


@settings(max_examples=60, deadline=None)
@given(
    data=st.data(),
    n_q=st.integers(1, 12),
    n_members=st.integers(2, 7),
    seed=st.integers(0, 1000),
)
def test_the_vote_is_a_plurality_with_the_members_vote_shares(
    data: st.DataObject, n_q: int, n_members: int, seed: int
) -> None:
    n_options = [data.draw(st.integers(2, 5)) for _ in range(n_q)]
    choices = [
        [data.draw(st.sampled_from([*range(k), NO_ANSWER, OFF_OPTIONS])) for _ in range(n_members)]
        for k in n_options
    ]
    errors = {(q, m) for q in range(n_q) for m in range(n_members) if data.draw(st.booleans()) and
              data.draw(st.integers(0, 4)) == 0}  # fmt: skip
    table = _members(choices, n_options, errors)
    vote = majority_vote(table, f"majority:{n_members}", seed=seed)
    assert vote.num_rows == n_q
    got = {r["question_id"]: r for r in vote.to_pylist()}
    for q, answers in enumerate(choices):
        ballots = [c for m, c in enumerate(answers) if (q, m) not in errors and c != NO_ANSWER]
        row = got[f"q{q:03d}"]
        assert row["adaptation"]["collective"] == f"majority:{n_members}"
        assert row["sample"] == 0
        if not ballots:
            assert row["chosen_index"] == NO_ANSWER and row["option_probs"] is None
            continue
        counts = Counter(ballots)
        top = max(counts.values())
        assert row["chosen_index"] in {c for c, k in counts.items() if k == top}
        shares = [counts.get(i, 0) / len(ballots) for i in range(n_options[q])]
        assert row["option_probs"] == pytest.approx(shares)
    # Deterministic, and independent of the order of the rows.
    again = majority_vote(table.take(np.random.default_rng(seed).permutation(table.num_rows)),
                          f"majority:{n_members}", seed=seed)  # fmt: skip
    assert sorted(again["chosen_index"].to_pylist()) == sorted(vote["chosen_index"].to_pylist())
    assert dict(zip(again["question_id"].to_pylist(), again["chosen_index"].to_pylist(),
                    strict=True)) == {k: v["chosen_index"] for k, v in got.items()}  # fmt: skip


def test_crowd_gain_against_a_plain_computation() -> None:
    # Three members, four questions (key 0): per-question member accuracy
    # 2/3, 1/3, 1, 0 → mean 0.5; the majority is right on q0 and q2 → 0.5.
    table = _members([[0, 0, 1], [0, 1, 1], [0, 0, 0], [1, 2, 1]], [3, 3, 3, 3], set())
    vote = majority_vote(table, "majority:3")
    gain = crowd_gain(table, vote)
    assert gain["collective"] == pytest.approx(0.5) and gain["members"] == pytest.approx(0.5)
    assert gain["gain"] == pytest.approx(0.0) and gain["n"] == 4
    assert gain["lo"] <= 0.0 <= gain["hi"]


def test_a_collective_of_noisy_humans_beats_its_members(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "crowd"
    done = run_collective(bank, "agent:human", out, "majority:7", seed=3)
    g = done.gain
    assert g["collective"] > g["members"] and g["lo"] > 0, g
    # Every member is its own sample; the vote is its own adaptation.
    loaded = load_responses([out])
    by = score(loaded, by=["adaptation"], metrics=["exact_match"], ci=None).to_pylist()
    labels = {r["adaptation"]: r for r in by}
    assert set(labels) == {
        "mc;shots=0;cot=none;prob=conditioning",
        "mc;shots=0;cot=none;prob=conditioning;collective=majority:7",
    }
    members = loaded.table.filter(pc.is_null(pc.struct_field(loaded.table["adaptation"],
                                                             "collective")))  # fmt: skip
    assert sorted(set(members["sample"].to_pylist())) == list(range(7))
    # Re-running resumes: nothing is asked again.
    again = run_collective(bank, "agent:human", out, "majority:7", seed=3)
    assert again.n_new == 0 and again.vote.equals(done.vote)
    with pytest.raises(InputError, match="another collective run"):
        run_collective(bank, "agent:human", out, "majority:5", seed=3)


def test_members_of_a_model_are_separate_requests(
    fake: tuple[FakeOpenAI, str], bank: Path, tmp_path: Path
) -> None:
    state, url = fake
    done = run_collective(bank, "openai:gpt-x", tmp_path / "c", "majority:3",
                          backend_options={"base_url": url})  # fmt: skip
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    n_parts = sum(m.responses.num_rows for m in done.members) // 3
    assert len(chat) == 3 * n_parts  # the member index joins the cache key
    state.log.clear()
    run_collective(bank, "openai:gpt-x", tmp_path / "c", "majority:3",
                   backend_options={"base_url": url})  # fmt: skip
    assert not state.log


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("majority:1", "2 to 100 members"),
        ("majority:101", "2 to 100 members"),
        ("debate:3,0", "1 to 10 rounds"),
        ("vote:3", "unknown collective 'vote'"),
        ("majority", "is not a collective"),
        ("debate:3", "write debate:N,R"),
    ],
)
def test_bad_collectives_are_one_line_and_exit_2(
    bank: Path, tmp_path: Path, spec: str, message: str
) -> None:
    out = tmp_path / "x"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "run", str(bank), "-m", "agent:random",
         "--collective", spec, "-o", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not out.exists()


def test_cli_reports_the_gain(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "c"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "run", str(bank), "-m", "agent:human",
         "--collective", "majority:5", "-o", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "accuracy: collective" in done.stdout and "gain +" in done.stdout
    scored = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(out), "--by", "adaptation", "--format",
         "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    assert len(json.loads(scored.stdout)) == 2


def test_debaters_see_the_others_answers_and_reasons(
    fake: tuple[FakeOpenAI, str], bank: Path, tmp_path: Path
) -> None:
    state, url = fake
    seen: list[str] = []

    def reply(messages: list[dict[str, str]]) -> str:
        last = messages[-1]["content"]
        seen.append(last)
        return (
            "Because the first option adds up. ANSWER: A"
            if "Other agents" in last
            else ("It looks like the second. ANSWER: B")
        )

    state.reply = reply
    done = run_collective(bank, "openai:gpt-x", tmp_path / "d", "debate:3,2", limit=5,
                          adaptation=Adaptation(format="together"),
                          backend_options={"base_url": url})  # fmt: skip
    parts = done.members[0].responses.num_rows
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(chat) == 3 * parts * 3  # three members, the opening round and two more
    later = [t for t in seen if "Other agents" in t]
    assert len(later) == 3 * parts * 2
    assert all("Agent 1" not in t or "Agent 2" in t or "Agent 3" in t for t in later)
    first_round = [t for t in later if "It looks like the second" in t]
    assert first_round and all("chose B. Their reasoning: It looks like" in t for t in first_round)
    # The collective takes the last round's plurality (A); the members' opening
    # answers (B) are what its gain is measured against.
    assert set(done.vote["chosen_index"].to_pylist()) == {0}
    assert done.vote["adaptation"][0].as_py()["collective"] == "debate:3,2"


@pytest.mark.parametrize(
    ("args", "record"),
    [
        (["run", "BANK", "-m", "agent:random", "--collective", "majority:3"], "collective.json"),
        (["play", "prisoners-dilemma", "-p", "agent:random*2"], "game.json"),
        (["survey", "decision-style", "-m", "agent:random"], "survey.json"),
        (["play", "gambling", "-m", "agent:random"], "play.json"),
    ],
)
def test_a_damaged_record_is_one_line_naming_the_file(
    bank: Path, tmp_path: Path, args: list[str], record: str
) -> None:
    out = tmp_path / "d"
    out.mkdir()
    (out / record).write_text('{"not": "a record"')
    argv = [str(bank) if a == "BANK" else a for a in args]
    done = subprocess.run(
        [sys.executable, "-m", "steer", *argv, "-o", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"{out / record}" in done.stderr and "not a valid" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
