"""Response inputs are strict (issue 19, verifier items 1-3, 7, 9, 10): a key
repeated within one input, rows from another bank, a bad line of a JSONL table
file, an empty input, a FIFO or a device are one-line errors (exit 2, nothing
written); repeated samples never dilute the no-answers; a run directory's own
journal stays lenient and its row errors name the journal's line.

Every check runs the `steer` command in a subprocess, as a user would.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from steer.bank import write_bank
from steer.cli.demo_cmd import DEMO_ELEMENTS
from steer.generate import generate_bank
from steer.run import run_bank

N_ASKED = 12


def steer(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
    )


def one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "internal error" not in lines[0] and "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bank and an oracle run asked its first 12 questions."""
    root = tmp_path_factory.mktemp("inputs")
    bank = generate_bank(list(DEMO_ELEMENTS), per_cell=2, seed=0)
    write_bank(bank, root / "bank.parquet")
    run_bank(root / "bank.parquet", "agent:oracle", root / "run", limit=N_ASKED)
    return root


def bank_size(work: Path) -> int:
    return pq.read_metadata(work / "bank.parquet").num_rows


def rows_of(work: Path) -> pa.Table:
    return pq.read_table(work / "run" / "responses.parquet")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


# --- items 1 and 2: padding never beats the no-answer rule ----------------------------------------


def test_a_key_repeated_within_one_file_is_exit_2_naming_both_rows(
    work: Path, tmp_path: Path
) -> None:
    pq.write_table(pa.concat_tables([rows_of(work)] * 10), tmp_path / "dup.parquet")
    for command in ("grade", "score"):
        result = steer(command, "dup.parquet", "--bank", work / "bank.parquet", cwd=tmp_path)
        one_line_error(result, "dup.parquet", "row 0 and row 12", "both hold the response")
    result = steer("grade", "dup.parquet", cwd=tmp_path)
    one_line_error(result, "dup.parquet", "--dedupe latest")
    # --dedupe latest keeps one row per key: 12 answered of the bank.
    kept = steer(
        "grade", "dup.parquet", "--bank", work / "bank.parquet", "--dedupe", "latest", cwd=tmp_path
    )
    assert f"answered {N_ASKED}/{bank_size(work)} asked" in kept.stdout, kept.stdout


def test_a_repeated_jsonl_line_is_exit_2_naming_both_lines(work: Path, tmp_path: Path) -> None:
    rows = rows_of(work).to_pylist()
    write_jsonl(tmp_path / "dup.jsonl", rows + rows[:1])
    result = steer("score", "dup.jsonl", cwd=tmp_path)
    one_line_error(result, "dup.jsonl", "line 1 and line 13")


def test_padding_with_samples_does_not_dilute_the_no_answers(work: Path, tmp_path: Path) -> None:
    table = rows_of(work)
    at = table.schema.get_field_index("sample")
    copies = [
        table.set_column(at, "sample", pa.array([s] * table.num_rows, table.schema.field(at).type))
        for s in range(30)
    ]
    pq.write_table(pa.concat_tables(copies), tmp_path / "samples.parquet")
    n = bank_size(work)
    result = steer("grade", "samples.parquet", "--bank", work / "bank.parquet", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    # Coverage counts distinct questions: answered ≤ asked.
    rate = (n - N_ASKED) / n
    assert f"answered {N_ASKED}/{n} asked · asked {n}/{n} of the bank" in result.stdout
    assert f"no-answer rate {rate:.3f}" in result.stdout
    # The engine's unit is (question, sample): every unanswered question gets
    # a no-answer in each of the 30 samples, so the rate is the same.
    scored = steer(
        "score", "samples.parquet", "--bank", work / "bank.parquet", "--by", "model",
        "--format", "json", cwd=tmp_path,
    )  # fmt: skip
    (row,) = json.loads(scored.stdout)
    assert row["n_units"] == 30 * n
    assert math.isclose(row["n_no_answer"] / row["n_units"], rate)


# --- item 3: rows from another bank ---------------------------------------------------------------


def test_rows_stamped_with_another_bank_are_exit_2(work: Path, tmp_path: Path) -> None:
    small = pq.read_table(work / "bank.parquet").slice(0, N_ASKED)
    write_bank(small, tmp_path / "small.parquet")
    result = steer(
        "grade", work / "run" / "responses.parquet", "--bank", "small.parquet", cwd=tmp_path
    )
    one_line_error(result, "responses.parquet", "row 0", "'bank_sha256'", "not --bank")


# --- items 7 and 9: a JSONL table file is strict --------------------------------------------------


def bad_files(work: Path, tmp_path: Path) -> dict[str, tuple[Path, tuple[str, ...]]]:
    rows = rows_of(work).to_pylist()
    out: dict[str, tuple[Path, tuple[str, ...]]] = {}

    def with_row(name: str, change: dict[str, Any], *expect: str) -> None:
        changed = [*rows[:1], rows[1] | change, *rows[2:]]
        out[name] = (write_jsonl(tmp_path / f"{name}.jsonl", changed), (":2:", *expect))

    with_row("huge", {"chosen_index": 10**30}, "'chosen_index'", "out of range")
    with_row("nan_cost", {"cost_usd": math.nan}, "'cost_usd'", "not a finite number")
    with_row("nan_probs", {"option_probs": [math.nan] * rows[1]["n_options"]}, "'option_probs'")
    deep = tmp_path / "deep.jsonl"
    deep.write_text(json.dumps(rows[0]) + "\n" + "[" * 10000 + "]" * 10000 + "\n")
    out["deep"] = (deep, (":2:", "nested"))
    utf = tmp_path / "utf.jsonl"
    utf.write_bytes(json.dumps(rows[0]).encode() + b'\n{"model": "a\xffb"}\n')
    out["utf"] = (utf, (":2:", "UTF-8"))
    garbage = tmp_path / "garbage.jsonl"
    garbage.write_text("not json\n{\n")
    out["garbage"] = (garbage, (":1:", "invalid JSON"))
    return out


@pytest.mark.parametrize("name", ["huge", "nan_cost", "nan_probs", "deep", "utf", "garbage"])
@pytest.mark.parametrize("command", ["score", "grade", "report"])
def test_a_bad_line_of_a_jsonl_table_is_exit_2(
    work: Path, tmp_path: Path, name: str, command: str
) -> None:
    path, expect = bad_files(work, tmp_path)[name]
    extra = ("-o", "out.html") if command == "report" else ()
    result = steer(command, path, *extra, cwd=tmp_path)
    one_line_error(result, str(path), *expect)
    assert not (tmp_path / "out.html").exists()


def test_a_run_directorys_own_journal_stays_lenient(work: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(work / "run", run)
    (run / "run.lock").unlink(missing_ok=True)
    (run / "responses.parquet").unlink()
    with (run / "journal.jsonl").open("ab") as fh:
        fh.write(b"not json\n")
    result = steer("score", run, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "journal.jsonl:13: invalid JSON" in result.stderr and "line skipped" in result.stderr


def test_a_fake_question_in_a_run_names_the_journal_line(work: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    shutil.copytree(work / "run", run)
    (run / "run.lock").unlink(missing_ok=True)
    row = json.loads((run / "journal.jsonl").read_text().splitlines()[0])
    with (run / "journal.jsonl").open("a") as fh:
        fh.write(json.dumps(row | {"question_id": "fake"}) + "\n")
    result = steer("score", run, cwd=tmp_path)
    one_line_error(result, f"{run / 'journal.jsonl'}:{N_ASKED + 1}:", "'question_id'", "`fake`")


# --- item 10: empty inputs ------------------------------------------------------------------------


def test_an_empty_table_with_a_bank_is_exit_2(work: Path, tmp_path: Path) -> None:
    pq.write_table(rows_of(work).slice(0, 0), tmp_path / "empty.parquet")
    for command in ("score", "grade"):
        result = steer(command, "empty.parquet", "--bank", work / "bank.parquet", cwd=tmp_path)
        one_line_error(result, "no responses in empty.parquet")
    one_line_error(steer("score", "empty.parquet", cwd=tmp_path), "no responses in empty.parquet")


def test_a_run_asked_nothing_is_exit_2_for_score_and_1_for_grade(
    work: Path, tmp_path: Path
) -> None:
    run_bank(work / "bank.parquet", "agent:oracle", tmp_path / "rempty", limit=0)
    one_line_error(steer("score", "rempty", cwd=tmp_path), "nothing was asked")
    graded = steer("grade", "rempty", cwd=tmp_path)
    assert graded.returncode == 1 and "RAT012" in graded.stdout, graded.stdout


# --- non-regular files ----------------------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
@pytest.mark.parametrize("name", ["pipe.jsonl", "pipe.parquet"])
def test_a_fifo_is_refused_not_waited_on(tmp_path: Path, name: str) -> None:
    os.mkfifo(tmp_path / name)
    one_line_error(steer("score", name, cwd=tmp_path), name, "not a regular file")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="needs /dev/zero")
def test_a_device_as_bank_is_refused(work: Path, tmp_path: Path) -> None:
    result = steer("grade", work / "run", "--bank", "/dev/zero", cwd=tmp_path)
    one_line_error(result, "/dev/zero", "not a regular file")
