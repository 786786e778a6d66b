"""`steer view` on a run of 1,000,000 responses: from starting the viewer to
the first page (the run opened: responses read, every card's counts by
outcome), then one filtered page, beside polars reading the same Parquet
file and counting by model and outcome (what a user would otherwise do to
look at a large run). Target from the issue: the run opens in under 2 s.

Run: python -m pytest benches/bench_view.py --benchmark-enable -s
"""

from __future__ import annotations

import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from synthetic import write_run_dir

N = 1_000_000


def write_run(folder: Path) -> Path:
    return write_run_dir(folder / "run", N, seed=5)


def fetch(url: str) -> str:
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read().decode()


def measure() -> str:
    import polars as pl

    from steer.report.viewer import ViewerData, serve_in_thread

    with tempfile.TemporaryDirectory() as tmp:
        run = write_run(Path(tmp))
        t0 = time.perf_counter()
        server, base = serve_in_thread(ViewerData([run]))
        first = fetch(f"{base}/")
        opened = time.perf_counter() - t0
        t0 = time.perf_counter()
        page = fetch(f"{base}/questions?outcome=wrong&grade=3&domain=domain-004")
        filtered = time.perf_counter() - t0
        server.shutdown()
        server.server_close()
        assert "Answers by card" in first and 'id="count"' in page
        t0 = time.perf_counter()
        frame = pl.read_parquet(run / "responses.parquet")
        (
            frame.with_columns(
                wrong=(pl.col("chosen_index") >= 0)
                & (pl.col("chosen_index") != pl.col("correct_index"))
            )
            .group_by("model", "wrong")
            .len()
        )
        rival = time.perf_counter() - t0
    return "\n".join([
        f"steer view, {N:,} responses: opened (first page) in {opened:.2f} s (target < 2 s); "
        f"a filtered page in {filtered * 1e3:.0f} ms",
        f"polars read + count by model and outcome: {rival:.2f} s  "
        f"(ratio steer/polars {opened / rival:.1f}x)",
    ])  # fmt: skip


def test_bench_view(benchmark: Any) -> None:
    report: list[str] = []
    benchmark.pedantic(lambda: report.append(measure()), rounds=1, iterations=1)
    print("\n" + report[-1])


if __name__ == "__main__":
    print(measure())
