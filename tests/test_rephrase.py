"""`steer rephrase` (issue 21 §4): a model rewrites wordings through the real
`openai` client against a loopback server; numbers, options and keys stay
fixed, checked mechanically, and bad rewrites are retried then given up."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from llm_fixtures import FAKE_KEY
from openai_server import FakeOpenAI
from steer.bank import read_bank_metadata, write_bank
from steer.cli import cli
from steer.generate import generate_bank
from steer.generate.llm._reject import Rejected
from steer.generate.llm._rephrase import check_rewrite, rephrase_bank, written_numbers


def _question(messages: list[dict[str, str]]) -> str:
    return str(json.loads(messages[1]["content"])["question"])


def reword(messages: list[dict[str, str]]) -> str:
    """A faithful rewrite: the sentences in reverse order under a new opening."""
    sentences = [s for s in _question(messages).split(". ") if s]
    return json.dumps({"question_text": "Here is a problem. " + ". ".join(reversed(sentences))})


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(["steer.1.1.a", "steer.2.4.a", "steer.1.5"], per_cell=2, seed=5)


def test_written_numbers_read_a_question_the_way_it_writes_them() -> None:
    assert written_numbers("Pay $1,250.50 for 3/4 of 12.5% of -7 units, not 1,2") == [
        1250.5, 3, 4, 12.5, -7, 1, 2,
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("rewrite", "reason"),
    [
        ("", "empty"),
        ("Ann has $5 and buys 3 apples. What is left?", "unchanged"),
        ("Ann holds $5 and buys 4 apples. What remains?", "changed_numbers"),
        ("Ann holds $5, buys 3 apples and 3 pears. What remains?", "changed_numbers"),
        ("With $5, Ann buys 3 apples, keeping two dollars. What remains?", "leaks_option"),
        ("x" * 500, "too_long"),
    ],
)
def test_check_rewrite_rejects_with_a_reason(rewrite: str, reason: str) -> None:
    original = "Ann has $5 and buys 3 apples. What is left?"
    with pytest.raises(Rejected) as caught:
        check_rewrite(original, rewrite, ["two dollars", "$2", "$3"])
    assert caught.value.reason == reason


def test_check_rewrite_accepts_a_faithful_rewording() -> None:
    check_rewrite(
        "Ann has $5 and buys 3 apples. What is left?",
        "After buying 3 apples with her $5, how much money does Ann have left?",
        ["two dollars", "$2"],
    )


def test_rephrase_keeps_everything_but_the_wording(
    fake: tuple[FakeOpenAI, str], bank: pa.Table
) -> None:
    state, url = fake
    state.reply = reword
    out, summary = rephrase_bank(bank, "openai:test-model", options={"base_url": url})
    single = [r for r in bank.to_pylist() if r["grading"] == "answer"]
    multi_ids = {r["base_id"] for r in bank.to_pylist() if r["part"] > 0}
    assert summary.questions == sum(1 for r in single if r["base_id"] not in multi_ids)
    assert summary.rephrased == summary.questions and summary.kept == 0
    for before, after in zip(bank.to_pylist(), out.to_pylist(), strict=True):
        fixed = {k: v for k, v in before.items() if k not in ("question_text", "tags")}
        assert fixed == {k: v for k, v in after.items() if k not in ("question_text", "tags")}
        if "rephrased" in (after["tags"] or []):
            assert after["question_text"] != before["question_text"]
            assert sorted(written_numbers(after["question_text"])) == sorted(
                written_numbers(before["question_text"])
            )
        else:
            assert after["question_text"] == before["question_text"]
    assert FAKE_KEY not in json.dumps(out.to_pylist())


def test_a_model_that_changes_numbers_is_retried_then_left_alone(
    fake: tuple[FakeOpenAI, str], bank: pa.Table
) -> None:
    state, url = fake
    calls: list[int] = []

    def sloppy(messages: list[dict[str, str]]) -> str:
        calls.append(len(messages))
        return json.dumps({"question_text": _question(messages) + " Assume 9999 more."})

    state.reply = sloppy
    small = bank.slice(0, 3)
    out, summary = rephrase_bank(
        small, "openai:test-model", options={"base_url": url, "attempts": 2}
    )
    assert summary.rephrased == 0 and summary.kept == 3
    assert summary.rejected["changed_numbers"] == 6
    assert sorted(calls) == [2, 2, 2, 4, 4, 4]  # each retry carries the rejected reply and why
    assert out.equals(small)


def test_cli_writes_a_rephrased_bank_and_exits_1_when_nothing_passes(
    fake: tuple[FakeOpenAI, str], bank: pa.Table, tmp_path: Path
) -> None:
    state, url = fake
    source = write_bank(bank, tmp_path / "bank.parquet")
    state.reply = reword
    out = tmp_path / "new.parquet"
    args = ["rephrase", str(source), "--llm", "openai:test-model", "--base-url", url]
    result = CliRunner().invoke(cli, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output
    meta = read_bank_metadata(out)
    assert meta is not None and meta.sources[-1] == "rephrase:openai:test-model"
    assert pq.read_table(out).num_rows == bank.num_rows
    state.reply = lambda messages: json.dumps({"question_text": _question(messages)})
    again = CliRunner().invoke(cli, [*args, "--attempts", "1", "-o", str(tmp_path / "x.parquet")])
    assert again.exit_code == 1
    assert "unchanged" in again.output
    assert not (tmp_path / "x.parquet").exists()
    bad = CliRunner().invoke(cli, ["rephrase", str(source), "--llm", "hf:x", "-o", str(out)])
    assert bad.exit_code == 2 and "openai:MODEL" in bad.output
