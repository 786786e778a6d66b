"""Rationality Check scores: per-metric normalisation and domain aggregation.

The Rationality Check toolkit (Zhou et al.) publishes its game results as a
table with one row per (game, prompt version, metric) and one column per model
(``game_results.csv``), and its domain scores as a table with one row per
(domain, type) (``domain_results.csv``). This module reads tables of the first
shape and computes the second from them. The rules below were found from the
published tables of 19 models and the human baseline, and reproduce every
published game-theory and society score and every ``fin`` value that has both
prompt versions (``tests/test_rc_scores.py``).

Reading the table (``read_rc_table``)
    Columns: ``Game``, ``ver``, ``Metric``, one column per model (``Human``
    included), then ``Max_score``, ``Min_score``, ``Reverse``, ``Show``. The
    file is a spreadsheet export with merged cells, so a blank ``Game`` or
    ``ver`` repeats the row above (``OnePD``'s second row ``,,%NE`` is ``v1``),
    and a blank ``Metric`` takes the metric of the nearest row of the same game
    that names one: the one above (``InfRepPD``'s ``v2`` row sits between two
    ``Eff↑`` rows), else the one below (``MMLU``'s ``Orig`` row is blank and its
    ``Discuss`` row says ``Accuracy``). A blank cell or ``-`` (the human column
    of the ``v1``/``v2`` rows) is a value not given (NaN). Rows are counted from
    0, after the header, as elsewhere in steer.

Metric names
    The arrows in the published labels (``ActDev↓``, ``Dev↓``, ``Eff↑``) are
    decoration saying which way is rational; `METRIC_LABELS` maps each label to
    the bare name (``ActDev``, ``Dev``, ``%NE``, ``Eff``, ``Accuracy``) that
    steer uses. The ``Reverse`` column carries the same information as the
    arrow (1 exactly on the ``↓`` rows) and the reader checks they agree.

Normalisation (``normalize``)
    ``y = (x − Min_score) / (Max_score − Min_score)``, and ``1 − y`` where
    ``Reverse`` = 1 (deviations from equilibrium, where lower is more rational).
    In the published table every shown row has ``Min_score`` 0 and
    ``Max_score`` 1, and every shown value lies in [0, 1], so the published
    numbers cannot tell whether values outside [min, max] are clipped: steer
    does not clip by default (a value outside the range stays visible as a
    score below 0 or above 1) and clips with ``clip=True``. Rows with a blank
    ``Max_score`` (the raw ``v1``/``v2`` deviations, e.g. ``BeaCon`` ``v1``
    in guess units up to 67) have no published scale and are not normalised.

Prompt versions (``combine_versions``)
    Each ``fin`` value whose game and metric also have ``v1`` and ``v2`` values
    for that model is their mean, ``(v1 + v2) / 2``, bit for bit in all 123
    such published cells (``OnePD``, ``FinRepPD``: ``Dev`` and ``%NE``;
    ``InfRepPD``, ``FinRepBoS``, ``FinRepSH``: ``Eff``). Where only ``v1`` is
    published (``SecPriAuc``, ``BeaCon``) the ``fin`` value is not its ``v1``
    (``SecPriAuc`` gpt-4: v1 0.383, fin 0.269; ``BeaCon`` ``v1`` is in other
    units), so nothing is derived from a single version. Games published only
    as ``fin`` (``OnePG``, ``FinRepPG``, ``FinRepME``) have nothing to combine.

Domain scores (``domain_scores``)
    A domain score is the plain mean of the normalised values of the rows with
    ``Show`` = 1 of the domain's games, skipping values not given. Each game
    has exactly one shown row (its ``fin`` row of the headline metric: ``%NE``
    for the dilemmas and public-goods games, ``ActDev`` for the auction and
    the beauty contest, ``Eff`` for the collective games, the ``Discuss``
    accuracy for MMLU and MATH), so it is also the mean over games:

    - Game theory (``Practical`` and ``Overall``): ``SecPriAuc``, ``BeaCon``,
      ``OnePD``, ``FinRepPD``, ``OnePG``, ``FinRepPG``. The human column has no
      ``SecPriAuc`` value and its published 0.72 is the mean of the other five
      (counting it as 0 would give 0.60).
    - Society, ``Cooperation and coordination``: ``InfRepPD``, ``FinRepBoS``,
      ``FinRepSH``, ``FinRepME``.
    - Society, ``Wisdom of crowd``: ``MMLU``, ``MATH``.
    - Society, ``Practical`` and ``Overall``: the mean over the six shown rows
      of both, not the mean of the two sub-scores (gpt-4: published 0.72, the
      pooled mean 0.719; the mean of 0.650 and 0.857 would be 0.75).

    Including the ``Show`` = 0 rows (the ``v1``/``v2`` rates, ``MMLU``
    ``Orig``) would change the scores; the ``Dev`` rows cannot be included at
    all (no ``Max_score``).

Not reproduced
    The psychology, cognitive science, decision-making and economics domains
    are survey scores (``survey_result.csv``), outside this module. ``bard``
    has domain scores for those but no game results and no game-domain scores.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from steer.errors import FileFormatError, row_location

__all__ = [
    "DOMAINS",
    "METRIC_LABELS",
    "REVERSED_METRICS",
    "RCDomain",
    "RCScores",
    "RCTable",
    "combine_versions",
    "domain_scores",
    "metric_label",
    "normalize",
    "normalized_metrics",
    "read_rc_table",
    "score_rc",
]

FloatArray = npt.NDArray[np.float64]

# Published label -> steer's name. The arrow says which way is rational.
METRIC_LABELS: dict[str, str] = {
    "ActDev↓": "ActDev",
    "Dev↓": "Dev",
    "%NE": "%NE",
    "Eff↑": "Eff",
    "Accuracy": "Accuracy",
}
# Metrics where lower is more rational (the ↓ labels, Reverse = 1).
REVERSED_METRICS: frozenset[str] = frozenset({"ActDev", "Dev"})
_LABEL_OF = {name: label for label, name in METRIC_LABELS.items()}

_HEAD = ("Game", "ver", "Metric")
_TAIL = ("Max_score", "Min_score", "Reverse", "Show")
_NOT_GIVEN = ("", "-")


@dataclass(frozen=True)
class RCDomain:
    """A published domain score: the mean of the shown rows of `games`."""

    domain: str
    type: str
    games: tuple[str, ...]


_GAME_THEORY = ("SecPriAuc", "BeaCon", "OnePD", "FinRepPD", "OnePG", "FinRepPG")
_COOPERATION = ("InfRepPD", "FinRepBoS", "FinRepSH", "FinRepME")
_CROWD = ("MMLU", "MATH")

# In the order of domain_results.csv.
DOMAINS: tuple[RCDomain, ...] = (
    RCDomain("Game theory", "Practical", _GAME_THEORY),
    RCDomain("Game theory", "Overall", _GAME_THEORY),
    RCDomain("Society", "Cooperation and coordination", _COOPERATION),
    RCDomain("Society", "Wisdom of crowd", _CROWD),
    RCDomain("Society", "Practical", _COOPERATION + _CROWD),
    RCDomain("Society", "Overall", _COOPERATION + _CROWD),
)


def metric_label(metric: str) -> str:
    """The published label of a metric (``Dev`` -> ``Dev↓``)."""
    return _LABEL_OF[metric]


@dataclass(frozen=True)
class RCTable:
    """Per-model game metrics in the shape of ``game_results.csv``.

    One entry per row of the published table in each of the row arrays
    (`game`, `version`, `metric` with the bare metric names, `max_score` and
    `min_score` with NaN where blank, `reverse`, `show`); `values` is rows ×
    `models`, NaN where a value is not given.
    """

    models: tuple[str, ...]
    game: npt.NDArray[np.str_]
    version: npt.NDArray[np.str_]
    metric: npt.NDArray[np.str_]
    values: FloatArray
    max_score: FloatArray
    min_score: FloatArray
    reverse: npt.NDArray[np.bool_]
    show: npt.NDArray[np.bool_]
    source: str | None = None

    def __post_init__(self) -> None:
        n = len(self.game)
        if self.values.shape != (n, len(self.models)):
            raise ValueError(f"values is {self.values.shape}, expected {(n, len(self.models))}")
        for name in ("version", "metric", "max_score", "min_score", "reverse", "show"):
            if len(getattr(self, name)) != n:
                raise ValueError(f"{name} has {len(getattr(self, name))} rows, expected {n}")

    def row(self, game: str, version: str, metric: str) -> int:
        """Index of the row (game, version, metric); KeyError if absent."""
        hit = np.flatnonzero(
            (self.game == game) & (self.version == version) & (self.metric == metric)
        )
        if hit.size == 0:
            raise KeyError((game, version, metric))
        return int(hit[0])

    def value(self, model: str, game: str, version: str, metric: str) -> float:
        """One cell (NaN where not given)."""
        return float(self.values[self.row(game, version, metric), self.models.index(model)])


@dataclass(frozen=True)
class RCScores:
    """What `score_rc` returns, both as Arrow tables shaped like the CSVs.

    `normalized`: the shown rows (``game``, ``version``, ``metric``, one float
    column per model, in [0, 1] for values in range). `domains`: ``domain``,
    ``type``, one float column per model (NaN where the model has no value in
    any of the domain's games).
    """

    normalized: pa.Table
    domains: pa.Table


def normalize(
    values: npt.ArrayLike,
    min_score: npt.ArrayLike,
    max_score: npt.ArrayLike,
    reverse: npt.ArrayLike,
    *,
    clip: bool = False,
) -> FloatArray:
    """``(x − min)/(max − min)``, as ``1 − …`` where `reverse`; broadcasts.

    NaN stays NaN. `clip` bounds the result to [0, 1]; the published scores
    cannot tell whether the toolkit clips (none of its values is out of range),
    so the default leaves out-of-range values visible.
    """
    x = np.asarray(values, dtype=np.float64)
    lo = np.asarray(min_score, dtype=np.float64)
    hi = np.asarray(max_score, dtype=np.float64)
    y = (x - lo) / (hi - lo)
    y = np.where(np.asarray(reverse, dtype=bool), 1.0 - y, y)
    if clip:
        y = np.clip(y, 0.0, 1.0)  # NaN passes through np.clip
    return np.asarray(y, dtype=np.float64)


def combine_versions(table: RCTable) -> RCTable:
    """Fill ``fin`` cells not given with the mean of the model's ``v1`` and ``v2``.

    Only cells whose game and metric have both a ``v1`` and a ``v2`` value for
    that model; given ``fin`` values are kept (the published ones equal the
    mean wherever both versions are published).
    """
    values = table.values.copy()
    for i in np.flatnonzero(table.version == "fin"):
        same = (table.game == table.game[i]) & (table.metric == table.metric[i])
        v1 = np.flatnonzero(same & (table.version == "v1"))
        v2 = np.flatnonzero(same & (table.version == "v2"))
        if v1.size == 0 or v2.size == 0:
            continue
        mean = (table.values[v1[0]] + table.values[v2[0]]) / 2
        values[i] = np.where(np.isnan(values[i]), mean, values[i])
    return replace(table, values=values)


def _normalized_shown(table: RCTable, clip: bool) -> tuple[npt.NDArray[np.intp], FloatArray]:
    rows = np.flatnonzero(table.show)
    scores = normalize(
        table.values[rows],
        table.min_score[rows, None],
        table.max_score[rows, None],
        table.reverse[rows, None],
        clip=clip,
    )
    return rows, scores


def normalized_metrics(table: RCTable, *, clip: bool = False) -> pa.Table:
    """The shown rows (``Show`` = 1) normalised, one float column per model."""
    rows, scores = _normalized_shown(table, clip)
    columns: dict[str, pa.Array] = {
        "game": pa.array(table.game[rows].tolist(), pa.string()),
        "version": pa.array(table.version[rows].tolist(), pa.string()),
        "metric": pa.array(table.metric[rows].tolist(), pa.string()),
    }
    for j, model in enumerate(table.models):
        columns[model] = pa.array(scores[:, j], pa.float64(), from_pandas=True)
    return pa.table(columns)


def domain_scores(
    table: RCTable, *, clip: bool = False, domains: tuple[RCDomain, ...] = DOMAINS
) -> pa.Table:
    """Each domain's score per model: the mean of its games' shown normalised rows.

    Values not given are skipped (the human ``SecPriAuc`` score); a model with
    none in a domain gets NaN (null in the table).
    """
    rows, scores = _normalized_shown(table, clip)
    games = table.game[rows]
    given = ~np.isnan(scores)
    filled = np.where(given, scores, 0.0)
    # One boolean row per domain selecting its games' shown rows.
    member = np.array([np.isin(games, d.games) for d in domains], dtype=np.float64).reshape(
        len(domains), len(rows)
    )
    counts = member @ given.astype(np.float64)
    sums = member @ filled
    means = np.divide(sums, counts, out=np.full_like(sums, np.nan), where=counts > 0)
    columns: dict[str, pa.Array] = {
        "domain": pa.array([d.domain for d in domains], pa.string()),
        "type": pa.array([d.type for d in domains], pa.string()),
    }
    for j, model in enumerate(table.models):
        columns[model] = pa.array(means[:, j], pa.float64(), from_pandas=True)
    return pa.table(columns)


def score_rc(table: RCTable, *, clip: bool = False) -> RCScores:
    """Combine prompt versions, normalise the shown rows, average per domain."""
    table = combine_versions(table)
    return RCScores(
        normalized=normalized_metrics(table, clip=clip),
        domains=domain_scores(table, clip=clip),
    )


def _number(cell: str, *, fail: FileFormatError) -> float:
    if cell.strip() in _NOT_GIVEN:
        return math.nan
    try:
        x = float(cell)
    except ValueError:
        raise fail from None
    if not math.isfinite(x):
        raise fail
    return x


def _flag(cell: str, *, source: str, row: int, field: str) -> bool:
    if cell.strip() not in ("0", "1"):
        raise FileFormatError(
            f"is {cell!r}, expected 0 or 1",
            source=source,
            where=row_location(source, row),
            field=field,
        )
    return cell.strip() == "1"


def read_rc_table(path: str | Path) -> RCTable:
    """Read a table in the published shape of ``game_results.csv``.

    Errors are `FileFormatError` naming the file, the row (counted from 0 after
    the header) and the column.
    """
    source = str(path)
    try:
        with Path(path).open(encoding="utf-8", newline="") as f:
            lines = list(csv.reader(f))
    except OSError as exc:
        raise FileFormatError(f"cannot be read ({exc.strerror})", source=source) from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise FileFormatError(f"not a UTF-8 CSV file ({exc})", source=source) from None
    if not lines:
        raise FileFormatError("is empty: expected a header row", source=source)
    header = [c.strip() for c in lines[0]]
    for i, want in enumerate(_HEAD):
        if i >= len(header) or header[i] != want:
            raise FileFormatError(
                f"header column {i} must be {want!r}", source=source, where="header", field=want
            )
    if tuple(header[-len(_TAIL) :]) != _TAIL:
        raise FileFormatError(
            f"the header must end with the columns {', '.join(_TAIL)}",
            source=source,
            where="header",
        )
    models = tuple(header[len(_HEAD) : -len(_TAIL)])
    if not models:
        raise FileFormatError("no model columns between Metric and Max_score", source=source)
    for k, model in enumerate(models):
        if not model or model in models[:k] or model in _HEAD + _TAIL:
            what = "empty" if not model else "repeated"
            raise FileFormatError(
                f"model column {len(_HEAD) + k} is {what}",
                source=source,
                where="header",
                field=model,
            )
    body = [r for r in lines[1:] if any(c.strip() for c in r)]  # trailing blank lines
    if not body:
        raise FileFormatError("has no data rows", source=source)

    n = len(body)
    game = ["" for _ in range(n)]
    block = [0] * n  # index of the row that starts each row's game
    version = ["" for _ in range(n)]
    label = ["" for _ in range(n)]
    values = np.full((n, len(models)), np.nan)
    max_score = np.full(n, np.nan)
    min_score = np.full(n, np.nan)
    reverse = np.zeros(n, dtype=bool)
    show = np.zeros(n, dtype=bool)
    for i, cells in enumerate(body):
        where = row_location(source, i)
        if len(cells) != len(header):
            raise FileFormatError(
                f"has {len(cells)} cells, the header {len(header)}", source=source, where=where
            )
        cells = [c.strip() for c in cells]
        # Merged spreadsheet cells: a blank Game or ver repeats the row above.
        if cells[0]:
            if cells[0] in game[:i]:
                raise FileFormatError(
                    f"game {cells[0]!r} was already given above",
                    source=source,
                    where=where,
                    field="Game",
                )
            game[i], block[i] = cells[0], i
        elif i == 0:
            raise FileFormatError(
                "the first row needs a game", source=source, where=where, field="Game"
            )
        else:
            game[i], block[i] = game[i - 1], block[i - 1]
        if cells[1]:
            version[i] = cells[1]
        elif cells[0] or i == 0:
            raise FileFormatError(
                f"the first row of game {game[i]!r} needs a version",
                source=source,
                where=where,
                field="ver",
            )
        else:
            version[i] = version[i - 1]
        if cells[2] and cells[2] not in METRIC_LABELS:
            known = ", ".join(METRIC_LABELS)
            raise FileFormatError(
                f"unknown metric {cells[2]!r} (known: {known})",
                source=source,
                where=where,
                field="Metric",
            )
        label[i] = cells[2]
        for j, model in enumerate(models):
            cell = cells[len(_HEAD) + j]
            values[i, j] = _number(
                cell,
                fail=FileFormatError(
                    f"is {cell!r}, expected a number, blank or '-'",
                    source=source,
                    where=where,
                    field=model,
                ),
            )
        for field, out in (("Max_score", max_score), ("Min_score", min_score)):
            cell = cells[header.index(field)]
            out[i] = _number(
                cell,
                fail=FileFormatError(
                    f"is {cell!r}, expected a number or blank",
                    source=source,
                    where=where,
                    field=field,
                ),
            )
        reverse[i] = _flag(cells[-2], source=source, row=i, field="Reverse")
        show[i] = _flag(cells[-1], source=source, row=i, field="Show")

    metric = _fill_metrics(block, label, source)
    seen: dict[tuple[str, str, str], int] = {}
    for i in range(n):
        where = row_location(source, i)
        if reverse[i] != (metric[i] in REVERSED_METRICS):
            raise FileFormatError(
                f"Reverse {int(reverse[i])} contradicts the metric {metric_label(metric[i])!r}",
                source=source,
                where=where,
                field="Reverse",
            )
        if show[i] and not max_score[i] > min_score[i]:
            raise FileFormatError(
                "a shown row needs Max_score greater than Min_score",
                source=source,
                where=where,
                field="Max_score",
            )
        key = (game[i], version[i], metric[i])
        if key in seen:
            raise FileFormatError(
                f"repeats game {key[0]!r}, version {key[1]!r}, metric {key[2]!r} "
                f"(first at row {seen[key]})",
                source=source,
                where=where,
                field="Metric",
            )
        seen[key] = i
    return RCTable(
        models=models,
        game=np.array(game, dtype=np.str_),
        version=np.array(version, dtype=np.str_),
        metric=np.array(metric, dtype=np.str_),
        values=values,
        max_score=max_score,
        min_score=min_score,
        reverse=reverse,
        show=show,
        source=source,
    )


def _fill_metrics(block: list[int], label: list[str], source: str) -> list[str]:
    """Bare metric names; a blank takes the nearest named row of its game
    block: the one above, else the one below (merged cells exported on one
    row of the group)."""
    n = len(block)
    above: list[str] = [""] * n
    below: list[str] = [""] * n
    for i in range(n):
        above[i] = label[i] or (above[i - 1] if i and block[i - 1] == block[i] else "")
    for i in reversed(range(n)):
        nxt = below[i + 1] if i + 1 < n and block[i + 1] == block[i] else ""
        below[i] = label[i] or nxt
    metric = []
    for i in range(n):
        pick = above[i] or below[i]
        if not pick:
            raise FileFormatError(
                "no row of this game names its metric",
                source=source,
                where=row_location(source, i),
                field="Metric",
            )
        metric.append(METRIC_LABELS[pick])
    return metric


#: steer's game names → the published table's game codes (Rationality Check).
RC_GAMES: dict[str, str] = {
    "second-price-auction": "SecPriAuc",
    "beauty-contest": "BeaCon",
    "prisoners-dilemma": "OnePD",
    "repeated-prisoners-dilemma": "FinRepPD",
    "public-goods": "OnePG",
    "repeated-public-goods": "FinRepPG",
    "infinitely-repeated-prisoners-dilemma": "InfRepPD",
    "battle-of-the-sexes": "FinRepBoS",
    "stag-hunt": "FinRepSH",
    "minimum-effort": "FinRepME",
}


def with_models(table: RCTable, metrics: list[dict[str, object]]) -> RCTable:
    """`table` with one more column per model of `metrics` (rows of
    `steer.play.game_metrics`: model, game, and metric columns): each played
    game's shown row gets the model's value of that row's metric; the other
    cells are NaN. A model named like a published one is suffixed " (run)"."""
    models = list(dict.fromkeys(str(m["model"]) for m in metrics))
    names = [m if m not in table.models else f"{m} (run)" for m in models]
    extra = np.full((len(table.game), len(models)), np.nan)
    for m in metrics:
        code = RC_GAMES.get(str(m["game"]))
        if code is None:
            continue
        j = models.index(str(m["model"]))
        for i in np.flatnonzero((table.game == code) & table.show):
            value = m.get(str(table.metric[i]))
            if isinstance(value, int | float):
                extra[i, j] = float(value)
    return replace(
        table,
        models=(*table.models, *names),
        values=np.concatenate([table.values, extra], axis=1),
    )
