"""`steer fit RUN…`: every parameter and score of a set of play runs.

Runs are grouped by (model, condition): the condition is the run's
intervention, plus its adaptation when that is not the default, so a
persona run and a baseline run of one model are fitted apart and compared
with `--compare`. Gambling and mixed-gamble runs of one model and condition
are fitted together (the mixed gambles identify lambda).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import InputError
from steer.fit import _scores
from steer.fit._observations import answered_trials
from steer.fit._table import SCHEMA as RESULT_SCHEMA

#: The parameters table: one row per (model, condition, experiment, family,
#: parameter): the fits' result columns (steer.fit._table.SCHEMA) without the
#: group id and method, keyed by who played under which condition.
FIT_SCHEMA = pa.schema(
    [("model", pa.string()), ("condition", pa.string()), ("experiment", pa.string())]
    + [f for f in RESULT_SCHEMA if f.name not in ("group", "method")]
)


@dataclass(frozen=True)
class PlayRun:
    directory: Path
    experiment: str
    table: pa.Table  # answered trials (answered_trials) with `condition`, all models


def load_play_run(directory: str | Path) -> PlayRun:
    from steer.play import read_play
    from steer.run import read_responses

    directory = Path(directory)
    record, trials = read_play(directory)
    responses, _problems = read_responses(directory)
    if not responses.num_rows:
        raise InputError(f"{directory}: the run has no answers yet (steer play it first)")
    table = answered_trials(responses, trials, record.intervention)
    return PlayRun(directory, record.experiment, table)


def _competent_only(experiment: str, table: pa.Table) -> pa.Table:
    """The rows of competent ladders (those with one switching point)."""
    from steer.fit._observations import delay_ladders, ladders

    if experiment not in ("gambling", "mixed-gamble", "waiting", "discounting"):
        return table
    lad = delay_ladders(table) if experiment in ("waiting", "discounting") else ladders(table)
    return table.filter(pa.array(lad.competent[lad.group]))


def fit_runs(
    directories: Sequence[str | Path],
    *,
    bootstrap: int = 1000,
    seed: int = 0,
    include_incompetent: bool = False,
    method: str = "mle",
) -> pa.Table:
    """The parameters table (FIT_SCHEMA) of the play runs in `directories`."""
    if not directories:
        raise InputError("steer fit needs at least one play run directory")
    if not 0 <= bootstrap <= 100_000:
        raise InputError(f"--bootstrap must be from 0 to 100000, got {bootstrap}")
    runs = [load_play_run(d) for d in directories]
    # (model, condition) -> experiment -> tables (several runs may add samples).
    cells: dict[tuple[str, str], dict[str, list[pa.Table]]] = defaultdict(lambda: defaultdict(list))
    for run in runs:
        t = run.table
        pairs = pc.unique(pc.binary_join_element_wise(t["model"], t["condition"], "\x1f"))
        for pair in pairs.to_pylist():
            model, condition = pair.split("\x1f", 1)
            mine = pc.and_(pc.equal(t["model"], model), pc.equal(t["condition"], condition))
            cells[(model, condition)][run.experiment].append(t.filter(mine))
    rows: list[dict[str, Any]] = []
    for (model, condition), experiments in sorted(cells.items()):
        tables = {e: pa.concat_tables(t) for e, t in experiments.items()}
        for experiment, table in sorted(tables.items()):
            out = _scores.competence_rows(experiment, table, b=bootstrap, seed=seed)
            used = table if include_incompetent else _competent_only(experiment, table)
            out += _experiment_rows(experiment, used, b=bootstrap, seed=seed)
            rows += [{"model": model, "condition": condition, "experiment": experiment, **r}
                     for r in out]  # fmt: skip
        rows += _parametric_rows(model, condition, tables, include_incompetent, bootstrap, seed,
                                 method)  # fmt: skip
    table = pa.Table.from_pylist(
        [{k: r.get(k) for k in FIT_SCHEMA.names} for r in rows], schema=FIT_SCHEMA
    )
    return table


def _experiment_rows(experiment: str, table: pa.Table, *, b: int, seed: int) -> list[dict]:
    if experiment == "mm-triangle":
        return _scores.triangle_rows(table, b=b, seed=seed)
    if experiment in ("ultimatum-proposer",):
        return _scores.offer_rows(experiment, table, b=b, seed=seed)
    if experiment == "dictator":
        return _scores.offer_rows(experiment, table, b=b, seed=seed)
    if experiment == "ultimatum-responder":
        return _scores.responder_rows(table, b=b, seed=seed)
    if experiment == "budget":
        return _scores.budget_rows(table)
    return []


def _parametric_rows(
    model: str,
    condition: str,
    tables: dict[str, pa.Table],
    include_incompetent: bool,
    b: int,
    seed: int,
    method: str,
) -> list[dict[str, Any]]:
    from steer.fit._utility import utility_rows

    used = {e: (t if include_incompetent else _competent_only(e, t)) for e, t in tables.items()}
    return [
        {"model": model, "condition": condition, **r}
        for r in utility_rows(used, b=b, seed=seed, method=method)
    ]
