"""`steer play GAME` against a loopback OpenAI-compatible server: a 10-round,
4-player public-goods game × 100 samples (4,000 moves) at concurrency 64,
beside a bare `openai` async client loop making the same requests round by
round (the floor: the same prompts, no journal, cache, transcripts or
history bookkeeping).

Run: python -m pytest benches/bench_play.py --benchmark-enable -s
 (or: python benches/bench_play.py)

Reported: wall time of both, their ratio, and the engine's overhead (steer's
extra wall time over the bare loop, per round). Target from the issue: the
game finishes in under 10 s at -j 64. Nothing asserts.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_run import start_server
from steer.adapt import opening
from steer.adapt._prompts import FREE, without_options
from steer.play import play_game
from steer.schema import Adaptation

GAME = "repeated-public-goods"
SAMPLES = 100
ROUNDS = 10
SEATS = 4
CONCURRENCY = 64
DELAY_S = 0.01


def run_steer(url: str, out: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    done = play_game(
        GAME, f"openai:gpt-4o-mini*{SEATS}", out, samples=SAMPLES, rounds=ROUNDS,
        backend_options={"base_url": url, "concurrency": CONCURRENCY},
    )  # fmt: skip
    wall = time.perf_counter() - t0
    assert done.moves.num_rows == SAMPLES * ROUNDS * SEATS and done.n_forfeits == 0
    return {"wall": wall}


def run_bare(url: str, prompts: list[list[str]]) -> dict[str, float]:
    import openai

    head = opening([], Adaptation(format="free"))

    async def main() -> None:
        client = openai.AsyncOpenAI(api_key="EMPTY", base_url=url, max_retries=0)
        for texts in prompts:  # a round starts when the previous one has ended
            todo = iter(texts)

            async def worker(todo: Iterator[str]) -> None:
                for text in todo:
                    messages = [*head, {"role": "user", "content": text}]
                    r = await client.chat.completions.create(
                        model="gpt-4o-mini", messages=messages, temperature=0.0,  # type: ignore[arg-type]
                        max_tokens=1024,
                    )  # fmt: skip
                    assert r.choices[0].message.content

            await asyncio.gather(*(worker(todo) for _ in range(CONCURRENCY)))
        await client.close()

    t0 = time.perf_counter()
    asyncio.run(main())
    return {"wall": time.perf_counter() - t0}


def _prompts(out: Path) -> list[list[str]]:
    """The prompts steer sent, round by round (so the bare loop sends the same)."""
    import pyarrow.parquet as pq

    rounds = []
    for r in range(1, ROUNDS + 1):
        table = pq.read_table(out / "rounds" / f"r{r:04d}" / "p1" / "questions.parquet")
        rounds.append([without_options(q, FREE) for q in table.to_pylist()])
    return rounds


def measure() -> str:
    proc, url = start_server(DELAY_S)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            warm = play_game(GAME, f"openai:gpt-4o-mini*{SEATS}", Path(tmp) / "warm", samples=2,
                             rounds=2, backend_options={"base_url": url})  # fmt: skip
            assert warm.moves.num_rows
            steer = run_steer(url, Path(tmp) / "run")
            prompts = _prompts(Path(tmp) / "run")
            bare = run_bare(url, prompts)
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout:
            proc.stdout.close()
    n = SAMPLES * ROUNDS * SEATS
    lines = [
        f"{GAME}: {SAMPLES} samples x {ROUNDS} rounds x {SEATS} seats = {n} moves, server "
        f"delay {DELAY_S * 1e3:.0f} ms, concurrency {CONCURRENCY}, {os.cpu_count()} cores",
        f"bare openai loop : {bare['wall']:6.2f} s  ({n / bare['wall']:7.1f} req/s)",
        f"steer play       : {steer['wall']:6.2f} s  ({n / steer['wall']:7.1f} req/s)  "
        "(target: < 10 s)",
        f"ratio steer/bare : {steer['wall'] / bare['wall']:6.2f}x wall time; engine overhead "
        f"{(steer['wall'] - bare['wall']) / ROUNDS * 1e3:.0f} ms per round",
    ]
    return "\n".join(lines)


def test_bench_play(benchmark: Any) -> None:
    report: list[str] = []
    benchmark.pedantic(lambda: report.append(measure()), rounds=1, iterations=1)
    print("\n" + report[-1])


if __name__ == "__main__":
    print(json.dumps(measure()) if "--json" in sys.argv else measure())
