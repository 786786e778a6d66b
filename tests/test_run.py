"""Durable runs: manifest, journal, resume after interruption and SIGKILL."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from steer.bank import read_bank, write_bank
from steer.errors import InputError, UnknownNameError
from steer.generate import generate_bank
from steer.run import JOURNAL, MANIFEST, RESPONSES, read_journal, read_responses, run_bank
from steer.schema import RESPONSE_SCHEMA, RunManifest


@pytest.fixture(scope="module")
def bank_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("bank") / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b"], per_cell=3, seed=7), path)
    return path


def journal_lines(run_dir: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in (run_dir / JOURNAL).read_text().splitlines()]


def test_oracle_run_writes_manifest_journal_and_parquet(bank_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    result = run_bank(bank_path, "agent:oracle", out)
    bank = read_bank(bank_path)
    assert result.n_new == bank.num_rows
    manifest = RunManifest.model_validate_json((out / MANIFEST).read_text())
    assert manifest.model == "agent:oracle"
    assert manifest.n_questions == bank.num_rows
    assert len(manifest.bank_sha256) == 64
    table = pq.read_table(out / RESPONSES)
    assert table.schema == RESPONSE_SCHEMA
    assert table["chosen_index"].to_pylist() == table["correct_index"].to_pylist()
    assert sorted(table["question_id"].to_pylist()) == sorted(bank["question_id"].to_pylist())
    assert len(journal_lines(out)) == bank.num_rows
    assert not list(out.glob(".*.tmp"))


def test_rerun_resumes_without_duplicates(bank_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "random"
    first = run_bank(bank_path, "agent:random", out, limit=5, seed=3)
    assert first.n_new == 5
    # Same command without the limit: only the missing questions are asked.
    second = run_bank(bank_path, "agent:random", out, seed=3)
    bank = read_bank(bank_path)
    assert second.n_new == bank.num_rows - 5
    ids = [row["question_id"] for row in journal_lines(out)]
    assert len(ids) == len(set(ids)) == bank.num_rows
    # Nothing is asked again the third time.
    assert run_bank(bank_path, "agent:random", out, seed=3).n_new == 0
    # Random answers depend only on the seed and question, not on batching.
    fresh = run_bank(bank_path, "agent:random", tmp_path / "fresh", seed=3, batch_size=4)

    def answers(t: pa.Table) -> list[tuple[str, int]]:
        return sorted(zip(t["question_id"].to_pylist(), t["chosen_index"].to_pylist(), strict=True))

    assert answers(fresh.responses) == answers(second.responses)


def test_a_different_run_in_the_same_directory_is_refused(bank_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_bank(bank_path, "agent:oracle", out, limit=2)
    before = (out / JOURNAL).read_bytes()
    with pytest.raises(InputError, match="holds a different run"):
        run_bank(bank_path, "agent:random", out)
    assert (out / JOURNAL).read_bytes() == before


def test_truncated_last_line_is_reported_and_trimmed(bank_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "cut"
    run_bank(bank_path, "agent:oracle", out, limit=4)
    with (out / JOURNAL).open("a") as fh:
        fh.write('{"run_id": "cut", "question_')  # what a kill mid-write leaves
    read = read_journal(out / JOURNAL)
    assert read.table.num_rows == 4
    assert read.problems == [f"{out / JOURNAL}:5: truncated line ignored (the run was interrupted)"]
    result = run_bank(bank_path, "agent:oracle", out)
    rows = journal_lines(out)  # every line parses again
    assert len(rows) == len({r["question_id"] for r in rows}) == read_bank(bank_path).num_rows
    assert result.responses.num_rows == len(rows)


def test_corrupt_middle_line_is_skipped_and_reported(tmp_path: Path, bank_path: Path) -> None:
    out = tmp_path / "mid"
    run_bank(bank_path, "agent:oracle", out, limit=3)
    lines = (out / JOURNAL).read_text().splitlines()
    lines[1] = lines[1][:20] + "}"
    (out / JOURNAL).write_text("\n".join(lines) + "\n")
    table, problems = read_responses(out)
    assert table.num_rows == 2
    assert len(problems) == 1 and problems[0].startswith(f"{out / JOURNAL}:2: invalid JSON")


def test_unknown_model_specs(bank_path: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'oracle'"):
        run_bank(bank_path, "agent:oracel", tmp_path / "x")
    with pytest.raises(UnknownNameError, match="did you mean 'agent'"):
        run_bank(bank_path, "agnet:oracle", tmp_path / "x")
    with pytest.raises(InputError, match="FAMILY:MODEL"):
        run_bank(bank_path, "oracle", tmp_path / "x")
    assert not (tmp_path / "x").exists()


SLOW_RUN = textwrap.dedent(
    """
    import sys, time
    from dataclasses import dataclass
    from steer.backends import OracleAgent
    from steer.run import run_bank

    @dataclass
    class SlowOracle(OracleAgent):
        def answer(self, questions):
            time.sleep(0.05)
            return super().answer(questions)

    backend = SlowOracle(spec="agent:oracle", family="agent", model="oracle")
    run_bank(sys.argv[1], backend, sys.argv[2], batch_size=2)
    """
)


def test_sigkill_mid_run_then_resume_loses_and_duplicates_nothing(
    bank_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "killed"
    script = tmp_path / "slow_run.py"
    script.write_text(SLOW_RUN)
    child = subprocess.Popen([sys.executable, str(script), str(bank_path), str(out)])
    deadline = time.monotonic() + 60
    journal = out / JOURNAL
    while time.monotonic() < deadline:
        if journal.exists() and journal.read_text().count("\n") >= 6:
            break
        time.sleep(0.01)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    survived = journal.read_bytes()
    kept = survived[: survived.rfind(b"\n") + 1]
    n_kept = kept.count(b"\n")
    bank = read_bank(bank_path)
    assert 6 <= n_kept < bank.num_rows, "the kill should land mid-run"
    assert not (out / RESPONSES).exists()

    # Re-running the same command resumes.
    result = run_bank(bank_path, "agent:oracle", out)
    assert result.n_new == bank.num_rows - n_kept
    after = journal.read_bytes()
    assert after.startswith(kept), "lines written before the kill are kept byte for byte"
    rows = journal_lines(out)
    ids = [r["question_id"] for r in rows]
    assert len(ids) == len(set(ids)) == bank.num_rows
    expected = dict(
        zip(bank["question_id"].to_pylist(), bank["correct_index"].to_pylist(), strict=True)
    )
    for row in rows:
        assert row["chosen_index"] == expected[row["question_id"]]
        assert row["correct_index"] == expected[row["question_id"]]


def test_written_files_get_the_usual_permissions(bank_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "perm"
    run_bank(bank_path, "agent:oracle", out, limit=2)
    mask = os.umask(0)
    os.umask(mask)
    for name in (MANIFEST, RESPONSES):
        assert (out / name).stat().st_mode & 0o777 == 0o666 & ~mask, name
