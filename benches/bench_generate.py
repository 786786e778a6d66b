"""`steer generate` of 100,000 verified questions across every element with
templates of a benchmark (STEER, then STEER-ME), on 2 worker processes
(target: under 10 s each). Prints the time; no timed asserts.

    python -m pytest benches/bench_generate.py --benchmark-enable -s

The wall time is only meaningful on an otherwise idle machine. On a shared
one compare CPU time (user + sys) of every process the command starts: the
workers are children of a fork server, not of the command, so the command's
own rusage of waited children leaves them out.
"""

from __future__ import annotations

import math
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from steer.templates import load_templates

TARGET = 100_000
WORKERS = 2


def per_cell_for(target: int, suite: str = "steer") -> int:
    # A few small grades (a box of few sizes, the logic forms) run out of
    # distinct questions before the rest; aim 1% high so the bank still
    # reaches the target (asserted below) without timing much more than it.
    cells = sum(len(t.spec.grade) for t in load_templates() if t.element.startswith(f"{suite}."))
    return math.ceil(1.01 * target / cells)


@pytest.mark.parametrize("suite", ["steer", "steer-me"])
def test_generate_100k_questions(suite: str, tmp_path: Path, benchmark: Any) -> None:
    per_cell = per_cell_for(TARGET, suite)
    out = tmp_path / "bank.parquet"
    command = [
        sys.executable, "-m", "steer", "generate", "--suite", suite,
        "--per-cell", str(per_cell), "--seed", "1", "--workers", str(WORKERS), "-o", str(out),
    ]  # fmt: skip

    def run() -> float:
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        return time.perf_counter() - start

    seconds = benchmark.pedantic(run, rounds=1, iterations=1)
    table = pq.read_table(out, columns=["element", "base_id"])
    n = len(set(zip(table["element"].to_pylist(), table["base_id"].to_pylist(), strict=True)))
    elements = len(set(table["element"].to_pylist()))
    print(
        f"\nsteer generate --suite {suite}: {n:,} questions ({table.num_rows:,} rows with the "
        f"parts of multi-part ones; {elements} elements, per cell {per_cell}) in {seconds:.2f} s "
        f"on {WORKERS} workers = {seconds / n * 1e6:.0f} µs per question (target < 10 s)"
    )
    assert n >= TARGET
