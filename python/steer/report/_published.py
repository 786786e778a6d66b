"""Game players beside Rationality Check's published models.

What `steer score GAME_RUNS --published game_results.csv` and `steer report
… --published game_results.csv` share: the published table's ``fin`` values
of each game (prompt versions averaged, as the human baseline), summarised as
min · median · max over the published models with the models nearest a
player's value, and the normalised domain scores of the runs' models beside
the human baseline and the published models (`steer.play.score_rc`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from steer.play import RCTable

#: The published table's column of the human baseline (not a published model).
HUMAN = "Human"


def read_published(path: str | Path) -> RCTable:
    """The published game table (`steer.play.read_rc_table`); bad content is
    a `FileFormatError` naming the file, the row and the field."""
    from steer.play import read_rc_table

    return read_rc_table(path)


def published_models(table: RCTable) -> list[str]:
    """The published models' columns (the human baseline left out)."""
    return [m for m in table.models if m != HUMAN]


def game_values(
    table: RCTable, game: str
) -> tuple[str | None, dict[str, dict[str, float]], dict[str, float]]:
    """For steer's game `game`: the metric of its headline (shown) row, each
    metric's ``fin`` values per published model (given ones only; a ``fin``
    cell not given is the mean of ``v1`` and ``v2`` where both are), and the
    human baseline's ``fin`` values by metric. (None, {}, {}) for a game the
    table does not have."""
    from steer.play import RC_GAMES
    from steer.play._rc_scores import combine_versions

    code = RC_GAMES.get(game)
    rows = (
        np.flatnonzero((table.game == code) & (table.version == "fin"))
        if code
        else np.empty(0, dtype=np.intp)
    )
    if len(rows) == 0:
        return None, {}, {}
    filled = combine_versions(table)
    names = published_models(table)
    headline = None
    out: dict[str, dict[str, float]] = {}
    human: dict[str, float] = {}
    for i in rows:
        metric = str(table.metric[i])
        if table.show[i]:
            headline = metric
        values = {m: float(filled.values[i, table.models.index(m)]) for m in names}
        out[metric] = {m: v for m, v in values.items() if not math.isnan(v)}
        if HUMAN in table.models and not math.isnan(
            x := filled.values[i, table.models.index(HUMAN)]
        ):
            human[metric] = float(x)
    return headline, out, human


def spread(values: dict[str, float], fmt: Any) -> str:
    """'min · median · max' of the published values ('—' when none)."""
    if not values:
        return "—"
    x = np.array(list(values.values()))
    return " · ".join(fmt(float(v)) for v in (x.min(), np.median(x), x.max()))


def nearest(values: dict[str, float], x: float | None, k: int = 2) -> list[tuple[str, float]]:
    """The `k` published models whose values are nearest `x` (ties: table order)."""
    if x is None or (isinstance(x, float) and math.isnan(x)) or not values:
        return []
    order = sorted(values.items(), key=lambda kv: abs(kv[1] - x))  # stable: table order
    return order[:k]


def nearest_text(values: dict[str, float], x: float | None, fmt: Any, k: int = 2) -> str:
    """'gpt-4 0.515 · qwen-72b 0.520' ('—' when there is nothing to compare)."""
    near = nearest(values, x, k)
    return " · ".join(f"{m} {fmt(v)}" for m, v in near) or "—"


@dataclass
class DomainRow:
    domain: str
    type: str
    mine: list[float | None]  # per run model, in `DomainScores.models` order
    human: float | None
    published: dict[str, float]  # the published models' given scores


@dataclass
class DomainScores:
    models: list[str]  # the runs' models (" (run)" added where a published one has the name)
    rows: list[DomainRow]
    n_published: int


def domain_scores(table: RCTable, scored: list[dict[str, Any]]) -> DomainScores:
    """Rationality Check domain scores of the runs' models (rows of
    `steer.play.game_metrics`), clipped to [0, 1] (a deviation beyond the
    published maximum scores 0, not below), beside the human baseline and
    the published models; NaN and not-given scores are None."""
    from steer.play import score_rc, with_models

    both = with_models(table, scored)
    domains = score_rc(both, clip=True).domains.to_pydict()
    mine = list(both.models[len(table.models) :])
    theirs = published_models(table)

    def value(column: str, i: int) -> float | None:
        v = domains[column][i] if column in domains else None
        return None if v is None or math.isnan(v) else float(v)

    rows = []
    for i, domain in enumerate(domains["domain"]):
        given = {m: v for m in theirs if (v := value(m, i)) is not None}
        rows.append(
            DomainRow(
                domain, domains["type"][i], [value(m, i) for m in mine], value(HUMAN, i), given
            )
        )
    return DomainScores(mine, rows, len(theirs))
