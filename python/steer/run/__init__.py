"""Durable, resumable runs of a backend over a question bank."""

from steer.run._collective import (
    CollectiveResult,
    crowd_gain,
    majority_vote,
    run_collective,
)
from steer.run._estimate import Estimate, estimate_run
from steer.run._journal import append_rows, read_journal
from steer.run._loop import RunLoop, run_loop
from steer.run._runner import JOURNAL, MANIFEST, RESPONSES, RunResult, read_responses, run_bank

__all__ = [
    "JOURNAL",
    "MANIFEST",
    "RESPONSES",
    "CollectiveResult",
    "Estimate",
    "RunLoop",
    "RunResult",
    "append_rows",
    "crowd_gain",
    "estimate_run",
    "majority_vote",
    "read_journal",
    "read_responses",
    "run_bank",
    "run_collective",
    "run_loop",
]
