"""Scoring response tables: metrics per group computed by the Rust engine.

`score` returns one row per group with additive cells (mergeable with
`merge_cells`), the requested metrics and their confidence intervals.
"""

from steer.score._columns import prepare
from steer.score._load import load_responses
from steer.score._metrics import DEFAULT_METRICS, METRICS, resolve_metrics
from steer.score._score import ADDITIVE, cells_table, merge_cells, score, wilson

__all__ = [
    "ADDITIVE",
    "DEFAULT_METRICS",
    "METRICS",
    "cells_table",
    "load_responses",
    "merge_cells",
    "prepare",
    "resolve_metrics",
    "score",
    "wilson",
]
