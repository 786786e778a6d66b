"""`steer grade` end to end on a 1-million-row run with a shipped rubric:
read the run directory, score, grade, run every rule and render the text
card. Target: under 2 s on the reference machine (printed, never asserted).

    python -m pytest benches/bench_grade.py --benchmark-enable -s
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from steer.report.formats import render_text
from steer.rubric import grade, load_rubric
from synthetic import write_run_dir

N_ROWS = 1_000_000
RUBRIC = "whole-benchmark"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_run_dir(tmp_path_factory.mktemp("bench-grade") / "run", N_ROWS, seed=3)


def grade_text(run: Path) -> str:
    return render_text(grade([run], load_rubric(RUBRIC)))


def test_grade_one_million_rows(benchmark, run_dir: Path) -> None:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    text = grade_text(run_dir)
    first = time.perf_counter() - t0
    assert "grade" in text
    benchmark.pedantic(grade_text, args=(run_dir,), rounds=3, iterations=1)
    best = benchmark.stats.stats.min if benchmark.stats else first
    print(
        f"\nsteer grade, {N_ROWS:,} rows, rubric {RUBRIC}: first {first:.2f} s, "
        f"best {best:.2f} s (target < 2 s)"
    )
