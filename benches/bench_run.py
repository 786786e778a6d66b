"""`steer run` against a loopback OpenAI-compatible server answering in 50 ms,
at concurrency 64, beside a bare `openai` async client loop making the same
requests (the floor steer cannot beat).

Run: python -m pytest benches/bench_run.py --benchmark-enable -s
 (or: python benches/bench_run.py)

The server runs in its own process (stdlib threads). Reported: requests/s of
both, their ratio, and steer's own overhead per request — the extra CPU time
of the steer process over the bare loop (prompt building, cache, parsing,
journal, fsync), divided by the number of requests. Targets from the issue:
>= 200 requests/s on 2 cores, overhead < 1 ms per request. Nothing asserts.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from bank_factory import make_questions, write_test_bank  # noqa: E402
from steer.adapt import opening  # noqa: E402
from steer.adapt._prompts import LETTER_ONLY, with_options  # noqa: E402
from steer.run import run_bank  # noqa: E402
from steer.schema import Adaptation  # noqa: E402

N = 3000
CONCURRENCY = 64
DELAY_S = 0.05


def start_server(delay_s: float = DELAY_S) -> tuple[subprocess.Popen[str], str]:
    """The loopback server in its own process, answering after `delay_s`."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE.parent / "tests" / "openai_server.py"), "--delay", str(delay_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    port = int(proc.stdout.readline())
    return proc, f"http://127.0.0.1:{port}/v1"


def run_steer(bank: Path, url: str, out: Path) -> dict[str, float]:
    cpu0, t0 = time.process_time(), time.perf_counter()
    result = run_bank(
        bank,
        "openai:gpt-4o-mini",
        out,
        backend_options={"base_url": url, "concurrency": CONCURRENCY},
        batch_size=64,
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    assert result.responses.num_rows == N and result.requests == N, result.problems
    return {"wall": wall, "cpu": cpu, "meter_overhead": result.overhead_s}


def run_bare(url: str) -> dict[str, float]:
    import openai

    questions = [q.model_dump() for q in make_questions(N)]
    head = opening([], Adaptation())

    async def main() -> None:
        client = openai.AsyncOpenAI(api_key="EMPTY", base_url=url, max_retries=0)
        todo = iter(questions)

        async def worker() -> None:  # the same shape as steer's: 64 workers, one queue
            for q in todo:
                messages = [*head, {"role": "user", "content": with_options(q, LETTER_ONLY)}]
                r = await client.chat.completions.create(
                    model="gpt-4o-mini", messages=messages, temperature=0.0,  # type: ignore[arg-type]
                    max_tokens=16, logprobs=True, top_logprobs=20,
                )  # fmt: skip
                assert r.choices[0].message.content

        await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
        await client.close()

    cpu0, t0 = time.process_time(), time.perf_counter()
    asyncio.run(main())
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time() - cpu0}


def measure() -> str:
    proc, url = start_server()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            bank = write_test_bank(Path(tmp) / "bank.parquet", N)
            run_bare(url)  # warm up the server and the client
            first = run_bare(url)
            steer = run_steer(bank, url, Path(tmp) / "run")
            second = run_bare(url)
            bare = min(first, second, key=lambda r: r["wall"])  # the better floor
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
    steer_rps, bare_rps = N / steer["wall"], N / bare["wall"]
    extra_cpu_ms = (steer["cpu"] - bare["cpu"]) / N * 1e3
    lines = [
        f"{N} requests, server delay {DELAY_S * 1e3:.0f} ms, concurrency {CONCURRENCY}, "
        f"{os.cpu_count()} cores",
        f"bare openai loop : {bare_rps:8.1f} req/s  cpu {bare['cpu'] / N * 1e3:.3f} ms/req",
        f"steer run        : {steer_rps:8.1f} req/s  cpu {steer['cpu'] / N * 1e3:.3f} ms/req",
        f"ratio steer/bare : {steer_rps / bare_rps:8.2f}   (target: >= 200 req/s)",
        f"steer overhead   : {extra_cpu_ms:8.3f} ms/req extra CPU over the bare loop "
        f"(target < 1 ms); {steer['meter_overhead'] / N * 1e3:.3f} ms/req inside call()",
    ]
    return "\n".join(lines)


def test_bench_run(benchmark: Any) -> None:
    report: list[str] = []
    benchmark.pedantic(lambda: report.append(measure()), rounds=1, iterations=1)
    print("\n" + report[-1])


if __name__ == "__main__":
    print(measure())
