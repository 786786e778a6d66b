"""Durable, resumable runs of a backend over a question bank."""

from steer.run._estimate import Estimate, estimate_run
from steer.run._journal import append_rows, read_journal
from steer.run._runner import JOURNAL, MANIFEST, RESPONSES, RunResult, read_responses, run_bank

__all__ = [
    "JOURNAL",
    "MANIFEST",
    "RESPONSES",
    "Estimate",
    "RunResult",
    "append_rows",
    "estimate_run",
    "read_journal",
    "read_responses",
    "run_bank",
]
