"""`steer bank audit` through a real subprocess: exit codes like a linter,
every format, atomic outputs, bad input, and the blind answers graded."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from audit_banks import bank, longest_key_bank, random_bank
from grade_helpers import steer
from steer.bank import write_bank

pytest.importorskip("sklearn")


@pytest.fixture(scope="module")
def banks(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("audit")
    write_bank(longest_key_bank(120, seed=1, element="steer.1.1.a"), folder / "leak.parquet")
    write_bank(random_bank(500, seed=2, element="steer.1.1.c"), folder / "fair.parquet")
    return folder


def test_a_leaking_bank_fails_with_exit_1_and_writes_blind_answers(banks: Path) -> None:
    out = steer(
        "bank",
        "audit",
        "leak.parquet",
        "--responses",
        "blind.parquet",
        "--format",
        "json",
        cwd=banks,
    )
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    (el,) = report["elements"]
    assert el["status"] == "fail"
    assert el["worst"]["agent"] in ("longest", "learner", "shortest")
    answers = pq.read_table(banks / "blind.parquet")
    assert answers.num_rows == 120
    assert set(answers["model"].to_pylist()) == {"agent:blind-learner"}
    # The blind answers grade like a model's run under a shipped rubric.
    graded = steer(
        "grade",
        "blind.parquet",
        "--bank",
        "leak.parquet",
        "-r",
        "whole-benchmark",
        "--format",
        "json",
        cwd=banks,
    )
    assert graded.returncode in (0, 1), graded.stderr
    (card,) = json.loads(graded.stdout)["models"]
    assert card["model"] == "agent:blind-learner"
    (element,) = card["elements"]
    assert element["n"] == 120
    # The leak makes the blind learner look competent: far above random (0).
    assert element["metrics"]["normalized_accuracy"] > 0.8


def test_a_fair_bank_passes_with_exit_0(banks: Path) -> None:
    out = steer("bank", "audit", "fair.parquet", cwd=banks)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.splitlines()
    assert any(line.startswith("steer.1.1.c") and " pass " in line for line in lines)
    assert "1 element: 0 fail, 1 pass" in out.stdout
    assert len(lines) < 40  # one screen


def test_formats_and_output_file(banks: Path) -> None:
    out = steer(
        "bank",
        "audit",
        "leak.parquet",
        "--no-learner",
        "--format",
        "csv",
        "-o",
        "report.csv",
        "--exit-zero",
        cwd=banks,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    rows = list(csv.DictReader(io.StringIO((banks / "report.csv").read_text())))
    assert {r["agent"] for r in rows} >= {"first", "middle", "last", "longest", "shortest"}
    assert "learner" not in {r["agent"] for r in rows}
    # Markdown in process (the subprocess path is the same `render`).
    from steer.audit import audit_bank, render
    from steer.bank import read_bank

    md = render(audit_bank(read_bank(banks / "leak.parquet"), learner=False), "markdown")
    assert md.startswith("| element | n | status |")
    assert "| steer.1.1.a | 120 | FAIL | longest |" in md


def test_bad_input_exits_2_in_one_line_and_writes_nothing(banks: Path, tmp_path: Path) -> None:
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not really")
    for args in (["broken.parquet"],):
        out = steer(
            "bank", "audit", *args, "-o", "report.txt", "--responses", "r.parquet", cwd=tmp_path
        )
        assert out.returncode == 2, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1
        assert args[0] in out.stderr
    assert not (tmp_path / "report.txt").exists()
    assert not (tmp_path / "r.parquet").exists()
    bad_rule = bank(
        [
            {
                "base_id": "g",
                "part": p,
                "question_text": f"q{p}",
                "options": ["a", "b"],
                "correct_index": None,
                "grading": "consistency",
                "consistency_group": "g",
                "consistency_rule": "equal:01",
            }
            for p in range(2)
        ]
    )
    write_bank(bad_rule, tmp_path / "rule.parquet")
    out = steer("bank", "audit", "rule.parquet", cwd=tmp_path)
    assert out.returncode == 2
    assert "rule.parquet" in out.stderr
    assert "consistency_rule" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


NO_SKLEARN = (
    "import sys; sys.modules['sklearn'] = None; sys.argv = ['steer', *sys.argv[1:]]; "
    "from steer.cli import main; main()"
)


def test_without_scikit_learn_the_learner_is_skipped_with_a_note(banks: Path) -> None:
    import subprocess
    import sys

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", NO_SKLEARN, "bank", "audit", *args],
            cwd=banks,
            capture_output=True,
            text=True,
            check=False,
        )

    out = run("leak.parquet")
    assert out.returncode == 1, out.stderr
    assert "note: scikit-learn is not installed: the learned agent was skipped" in out.stdout
    assert "learner" not in out.stdout.replace("learned agent", "")
    refused = run("leak.parquet", "--responses", "x.parquet")
    assert refused.returncode == 2
    assert "--responses needs the learned agent" in refused.stderr
    assert not (banks / "x.parquet").exists()
