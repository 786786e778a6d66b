"""Spread generation cells (template × grade) over worker processes.

Each cell's questions depend only on the template, grade and seed, so the
bank is identical whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from steer.templates import Template

# Below this many questions a pool costs more than it saves.
MIN_PARALLEL = 4000

_CELLS: list[tuple[Template, int]] = []


def _run(args: tuple[int, int, int]) -> list[dict[str, object]]:
    from steer.generate._generate import _template_rows

    index, per_cell, seed = args
    template, grade = _CELLS[index]
    return _template_rows(template, grade, per_cell, seed)


def run_cells(
    cells: list[tuple[Template, int]], per_cell: int, seed: int, workers: int
) -> list[dict[str, object]]:
    """Rows of every cell, in cell order."""
    from steer.generate._generate import _template_rows

    workers = max(1, min(workers, len(cells), os.cpu_count() or 1))
    if workers == 1 or per_cell * len(cells) < MIN_PARALLEL or os.name != "posix":
        return [row for t, g in cells for row in _template_rows(t, g, per_cell, seed)]
    global _CELLS
    _CELLS = cells  # inherited by the forked workers, never pickled
    # Largest cells first would need sizes; interleaving keeps the load even.
    jobs = [(i, per_cell, seed) for i in range(len(cells))]
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        results = list(pool.map(_run, jobs, chunksize=1))
    return [row for rows in results for row in rows]
