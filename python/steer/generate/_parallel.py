"""Spread generation over worker processes, one template (all its grades) per job.

A template's questions depend only on the template, its grades and the seed,
so the bank is identical whatever the number of workers. Workers are spawned, not
forked: a forked child would inherit steer-core's thread pool without its
threads.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

import pyarrow as pa

from steer.schema import QUESTION_SCHEMA

if TYPE_CHECKING:
    from steer.templates import Template

# Below this many questions starting workers costs more than it saves.
MIN_PARALLEL = 20000


def _rows(job: tuple[Template, list[int], int, int]) -> list[dict[str, object]]:
    from steer.generate._generate import _template_rows

    template, grades, per_cell, seed = job
    return _template_rows(template, grades, per_cell, seed)


def _table(job: tuple[Template, list[int], int, int]) -> pa.Table:
    # Workers hand back Arrow tables: cheaper to send than dicts, built in parallel.
    return to_table(_rows(job))


def to_table(rows: list[dict[str, object]]) -> pa.Table:
    """Question rows as a table; column by column, which pyarrow converts
    faster than a list of dicts (rows lack the columns they leave empty)."""
    columns = {name: [row.get(name) for row in rows] for name in QUESTION_SCHEMA.names}
    return pa.Table.from_pydict(columns, schema=QUESTION_SCHEMA)


def run_cells(
    cells: list[tuple[Template, list[int]]], per_cell: int, seed: int, workers: int
) -> pa.Table:
    """The questions of every template × grade, in order, as one table."""
    workers = max(1, min(workers, len(cells), os.cpu_count() or 1))
    jobs = [(t, g, per_cell, seed) for t, g in cells]
    if workers == 1 or per_cell * sum(len(g) for _, g in cells) < MIN_PARALLEL:
        return to_table([row for job in jobs for row in _rows(job)])
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context)
    try:
        tables = list(pool.map(_table, jobs, chunksize=1))
    finally:
        # Every result is in hand: let the workers wind down (a few hundred
        # milliseconds of interpreter teardown) while the bank is validated
        # and written, instead of waiting for them here.
        pool.shutdown(wait=False, cancel_futures=True)
    # Left in chunks (one per template): copying 100k rows into one buffer
    # buys nothing, since validation and Parquet take chunked columns.
    return pa.concat_tables(tables)
