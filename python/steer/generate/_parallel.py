"""Spread generation over worker processes, one template (all its grades) per job.

A template's questions depend only on the template, its grades and the seed,
so the bank is identical whatever the number of workers. Workers come from
a fork server (`steer._forkserver`), a fresh process that imports the
generator once and then forks each worker, so the imports are paid once, not
once per worker.
"""

from __future__ import annotations

import contextlib
import os
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import TYPE_CHECKING

import pyarrow as pa

from steer import _forkserver
from steer._forkserver import MIN_PARALLEL
from steer.schema import QUESTION_SCHEMA

if TYPE_CHECKING:
    from steer.templates import Template


def import_pandas() -> None:
    """pyarrow imports pandas, when it is installed, on its first conversion
    of a Python list (a fifth of a second): import it at a time of our choosing."""
    with contextlib.suppress(ImportError):
        import pandas  # noqa: F401


def _rows(job: tuple[Template, list[int], int, int]) -> list[tuple[object, ...]]:
    from steer.generate._generate import _template_rows

    template, grades, per_cell, seed = job
    return _template_rows(template, grades, per_cell, seed)


def _table(job: tuple[Template, list[int], int, int]) -> pa.Table:
    # Workers hand back Arrow tables: cheaper to send than dicts, built in parallel.
    return to_table(_rows(job))


# A generated question row is a tuple of these columns: two dicts per row and
# a lookup per cell cost more than the rest of to_table.
COLUMNS = (
    "question_id", "element", "base_id", "part", "question_text", "options",
    "correct_index", "grading", "consistency_group", "consistency_rule", "type", "domain",
    "perspective", "grade", "template_id", "seed", "source", "explanation", "option_tags",
    "answer_value", "tags", "payload", "answer_tolerance", "answer_form", "option_order",
)  # fmt: skip


def to_table(rows: list[tuple[object, ...]]) -> pa.Table:
    """Question rows (tuples of COLUMNS) as a table in QUESTION_SCHEMA's
    order; column by column, which pyarrow converts faster than rows."""
    fields = [QUESTION_SCHEMA.field(name) for name in COLUMNS]  # KeyError: not in the schema
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(COLUMNS)
    table = pa.Table.from_arrays(
        [pa.array(c, type=f.type) for c, f in zip(columns, fields, strict=True)],
        schema=pa.schema(fields),
    )
    # Raises if the schema has a column that COLUMNS lacks.
    return table if tuple(QUESTION_SCHEMA.names) == COLUMNS else table.select(QUESTION_SCHEMA.names)


def run_cells(
    cells: list[tuple[Template, list[int]]], per_cell: int, seed: int, workers: int
) -> pa.Table:
    """The questions of every template × grade, in order, as one table."""
    workers = max(1, min(workers, len(cells), os.cpu_count() or 1))
    jobs = [(t, g, per_cell, seed) for t, g in cells]
    if workers == 1 or per_cell * sum(len(g) for _, g in cells) < MIN_PARALLEL:
        return to_table([row for job in jobs for row in _rows(job)])
    # Largest jobs (most grades) first, so the last ones to finish are short.
    order = sorted(range(len(jobs)), key=lambda i: len(jobs[i][1]), reverse=True)
    # Unless the fork server was started ahead (warm_up), the smallest
    # quarter is held back for this process, which would otherwise sit idle
    # while the server imports the generator (about a second): it works
    # through them until a worker has answered, then hands over the rest. A
    # warm server leaves nothing to wait for, and this process's own imports
    # for generating (pandas, inflect) would only take time from the workers.
    held = [] if _forkserver.warmed() else order[len(order) - len(order) // 4 :]
    tables: list[pa.Table | None] = [None] * len(jobs)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=_forkserver.context())
    try:
        futures = {i: pool.submit(_table, jobs[i]) for i in order[: len(order) - len(held)]}
        while held and not wait(futures.values(), timeout=0, return_when=FIRST_COMPLETED)[0]:
            i = held.pop()
            tables[i] = _table(jobs[i])
        futures.update({i: pool.submit(_table, jobs[i]) for i in held})
        if not held:
            # Idle while the workers start: load what validating their
            # tables will need, rather than after the last one is in.
            import_pandas()
        for i, future in sorted(futures.items()):
            tables[i] = future.result()
    finally:
        # Every result is in hand: let the workers wind down (a few hundred
        # milliseconds of interpreter teardown) while the bank is validated
        # and written, instead of waiting for them here.
        pool.shutdown(wait=False, cancel_futures=True)
    # Left in chunks (one per template): copying 100k rows into one buffer
    # buys nothing, since validation and Parquet take chunked columns.
    return pa.concat_tables(tables)
