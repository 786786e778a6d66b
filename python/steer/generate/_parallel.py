"""Spread generation cells (template × grade) over worker processes.

Each cell's questions depend only on the template, grade and seed, so the
bank is identical whatever the number of workers. Workers are spawned, not
forked: a forked child would inherit steer-core's thread pool without its
threads.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steer.templates import Template

# Below this many questions starting workers costs more than it saves.
MIN_PARALLEL = 20000


def _run(job: tuple[Template, int, int, int]) -> list[dict[str, object]]:
    from steer.generate._generate import _template_rows

    template, grade, per_cell, seed = job
    return _template_rows(template, grade, per_cell, seed)


def run_cells(
    cells: list[tuple[Template, int]], per_cell: int, seed: int, workers: int
) -> list[dict[str, object]]:
    """Rows of every cell, in cell order."""
    workers = max(1, min(workers, len(cells), os.cpu_count() or 1))
    if workers == 1 or per_cell * len(cells) < MIN_PARALLEL:
        return [row for t, g in cells for row in _run((t, g, per_cell, seed))]
    jobs = [(t, g, per_cell, seed) for t, g in cells]
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        results = list(pool.map(_run, jobs, chunksize=1))
    return [row for rows in results for row in rows]
