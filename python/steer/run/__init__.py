"""Durable, resumable runs of a backend over a question bank."""

from steer.run._journal import append_rows, read_journal
from steer.run._runner import JOURNAL, MANIFEST, RESPONSES, RunResult, read_responses, run_bank

__all__ = [
    "JOURNAL",
    "MANIFEST",
    "RESPONSES",
    "RunResult",
    "append_rows",
    "read_journal",
    "read_responses",
    "run_bank",
]
