"""One round of a game: each spec's rows answered through `run_bank`, the
groups of a round at the same time, the round's share of a cost budget."""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer.backends import Backend
from steer.backends._chat import ChatBackend
from steer.bank import validate_questions
from steer.run import RunLoop, RunResult, run_bank
from steer.schema import Adaptation

QUESTIONS = "questions.parquet"

#: (spec, run directory, question rows) of one group of seats in a round.
Job = tuple[str, Path, list[dict[str, Any]]]


def paid(backend: Backend) -> bool:
    """A seat that costs money per request (a chat API, not a local model or a strategy)."""
    return isinstance(backend, ChatBackend) and backend.family not in ("hf", "vllm", "agent")


def spent(run_dir: Path) -> float:
    """What a round directory's manifest says it has spent (0 before its first run)."""
    try:
        data = json.loads((run_dir / "manifest.json").read_text(encoding="utf-8"))
        return float(data.get("spent_usd") or 0.0)
    except (OSError, ValueError, TypeError, AttributeError):
        return 0.0


def run_groups(
    jobs: list[Job],
    backends: dict[str, Backend],
    *,
    adaptation: Adaptation,
    seed: int,
    cache: Path,
    share: float | None,
    loop: RunLoop | None = None,
) -> list[RunResult]:
    """Answer every group's rows, each in its own run directory (a resumed
    round asks only what its journal lacks). `share`: the USD each paid
    group may spend beyond what its directory spent before (None: no budget).
    `loop`: the game's `steer.run.RunLoop` (one client per backend for the
    whole game, not one per round)."""

    def one(job: Job) -> RunResult:
        spec, run_dir, rows = job
        run_dir.mkdir(parents=True, exist_ok=True)
        bank = run_dir / QUESTIONS
        table = validate_questions(pa.Table.from_pylist(rows), str(bank))
        with atomic_path(bank) as tmp:
            pq.write_table(table, tmp, compression="zstd")
        budget = None
        if share is not None and paid(backends[spec]):
            budget = spent(run_dir) + share
        return run_bank(
            bank, backends[spec], run_dir, adaptation=adaptation, seed=seed, cache_dir=cache,
            max_cost=budget, loop=loop,
        )  # fmt: skip

    if len(jobs) == 1:
        return [one(jobs[0])]
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        return list(pool.map(one, jobs))
