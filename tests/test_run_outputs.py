"""Outputs: `-o -` writes to standard output, and the temp-then-rename
writer replaces only regular files — a FIFO (or /dev/null) is written
through, never replaced by a regular file."""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bank_factory import write_test_bank
from steer._atomic import atomic_path, atomic_text
from steer.run import run_bank


def _drain(fifo: Path, into: list[bytes]) -> threading.Thread:
    def read() -> None:
        with fifo.open("rb") as fh:
            into.append(fh.read())

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    bank = write_test_bank(tmp_path / "bank.parquet", 6)
    run_bank(bank, "agent:oracle", tmp_path / "run")
    return tmp_path / "run"


def test_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _drain(fifo, got)
    with atomic_text(fifo) as fh:
        fh.write("complete content\n")
    reader.join(10)
    assert got == [b"complete content\n"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert [p.name for p in tmp_path.iterdir()] == ["out.fifo"]  # no temp left beside it


def test_a_failed_write_sends_nothing_to_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError), atomic_text(fifo) as fh:
        fh.write("half")
        raise RuntimeError("boom")
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # never opened, never replaced


def test_regular_files_are_still_replaced_atomically(tmp_path: Path) -> None:
    target = tmp_path / "t.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_text(target) as fh:
        fh.write("new")
        raise RuntimeError("boom")
    assert target.read_text() == "old"
    with atomic_text(target) as fh:
        fh.write("new")
    assert target.read_text() == "new" and len(list(tmp_path.iterdir())) == 1


def test_score_writes_to_a_fifo_and_to_stdout(run_dir: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "scores.fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = _drain(fifo, got)
    steer = [sys.executable, "-m", "steer", "score", str(run_dir), "--format"]
    done = subprocess.run([*steer, "json", "-o", str(fifo)], capture_output=True, timeout=120)
    reader.join(10)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    from_fifo = json.loads(got[0])
    to_stdout = subprocess.run([*steer, "json", "-o", "-"], capture_output=True, timeout=120)
    assert to_stdout.returncode == 0 and json.loads(to_stdout.stdout) == from_fifo
    assert not (Path.cwd() / "-").exists()
    parquet = subprocess.run([*steer, "parquet", "-o", "-"], capture_output=True, timeout=120)
    assert parquet.returncode == 0, parquet.stderr
    assert pq.read_table(io.BytesIO(parquet.stdout)).to_pylist() == from_fifo


def test_atomic_path_to_stdout_streams_binary(capfdbinary: pytest.CaptureFixture[bytes]) -> None:
    with atomic_path("-") as tmp:
        tmp.write_bytes(b"\x00\x01parquet-ish")
    assert capfdbinary.readouterr().out == b"\x00\x01parquet-ish"


def test_generate_and_report_write_to_stdout_with_the_summary_on_stderr(
    run_dir: Path, tmp_path: Path
) -> None:
    steer = [sys.executable, "-m", "steer"]
    bank = subprocess.run(
        [*steer, "generate", "--elements", "2.5.b", "--per-cell", "1", "-o", "-"],
        capture_output=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert bank.returncode == 0, bank.stderr
    assert pq.read_table(io.BytesIO(bank.stdout)).num_rows > 0
    assert b"wrote" in bank.stderr and not (tmp_path / "-").exists()
    report = subprocess.run(
        [*steer, "report", str(run_dir), "-o", "-"], capture_output=True, timeout=300, cwd=tmp_path
    )
    assert report.returncode in (0, 1), report.stderr
    assert report.stdout.lstrip().lower().startswith(b"<!doctype html")
    assert b"wrote -" in report.stderr
    assert not (tmp_path / "-").exists()


def test_an_output_through_a_symlink_replaces_the_target_and_keeps_the_link(
    run_dir: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere" / "scores.json"
    target.parent.mkdir()
    target.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    steer = [sys.executable, "-m", "steer", "score", str(run_dir), "--format", "json"]
    done = subprocess.run([*steer, "-o", str(link)], capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert json.loads(target.read_text())  # written through the link
    # Atomically beside the target: no temporary file left in either folder.
    assert sorted(p.name for p in target.parent.iterdir()) == ["scores.json"]
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []
