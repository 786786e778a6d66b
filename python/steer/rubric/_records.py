"""The records of the graded runs that rubric checks bound like fitted
parameters: one path for game metrics, a collective's crowd gain and a
survey's subscale scores (`steer grade` and `steer report` add them to the
fits of `--fits FILE`).

Which runs give records (each recognised by its record file):

- a game run (`game.json`, `steer play GAME`): every metric of every player
  (`steer.play._game_metrics.metric_records`): `parameter` the metric,
  `family` the game;
- a collective run (`collective.json`, `steer run BANK --collective SPEC`):
  `crowd_gain` (collective accuracy minus the members' mean, with its 95%
  paired bootstrap interval), `collective_accuracy` and `member_accuracy`,
  exactly as `steer run` printed them (`steer.run.crowd_gain_of`);
  `family` the collective's spec (`majority:7`), on the vote's card only;
- a survey run (`survey.json`, `steer survey INSTRUMENT`): the `subscale`
  score of each subscale with its 95% bootstrap interval over samples, as
  `steer survey` printed it (`steer.survey.subscale_scores`, the run's
  seed): `family` ``INSTRUMENT.SUBSCALE``, on the survey's card only.

A check names them as a metric (`metric = "crowd_gain"`, `select` the
collectives; `metric = "subscale"`, `select` the subscales) or as a
parameter (`FAMILY.METRIC`, as fits). Like a game metric, a bound is on the
estimate; the interval is shown with a value out of bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa

from steer.rubric._fits import Fit


def run_records(runs: Sequence[str | Path | pa.Table]) -> tuple[list[Fit], list[str]]:
    """The records of every game, collective and survey run among `runs`, and
    those runs (as given), for messages naming the source."""
    from steer.play import GAME_FILE
    from steer.run._collective import COLLECTIVE_FILE
    from steer.survey import SURVEY_FILE

    paths = [Path(r) for r in runs if not isinstance(r, pa.Table)]
    games = [p for p in paths if (p / GAME_FILE).is_file()]
    collectives = [p for p in paths if (p / COLLECTIVE_FILE).is_file()]
    surveys = [p for p in paths if (p / SURVEY_FILE).is_file()]
    records = game_records(games) if games else []
    for path in collectives:
        records += collective_records(path)
    for path in surveys:
        records += survey_records(path)
    return records, [str(p) for p in (*games, *collectives, *surveys)]


def game_records(runs: Sequence[Path]) -> list[Fit]:
    """Every game run's metrics per player (a game played under both wordings:
    the ``fin`` row as the baseline, each wording its own condition)."""
    from steer.play import game_metrics, read_game_run
    from steer.play._game_metrics import combine_wordings, metric_records

    tables = []
    for run in runs:
        record, game, moves = read_game_run(run)
        tables.append(game_metrics(game, moves, wording=record.wording))
    merged = combine_wordings(pa.concat_tables(tables, promote_options="permissive"))
    return [Fit.model_validate(r) for r in metric_records(merged)]


def collective_records(directory: Path) -> list[Fit]:
    """A collective run's crowd gain and accuracies, on its vote's card."""
    from steer.run._collective import crowd_gain_of
    from steer.score._coverage import label_of

    record, vote, gain = crowd_gain_of(directory)
    model = str(vote["model"][0].as_py()) if vote.num_rows else record.model
    card = label_of(vote["adaptation"][0].as_py()) if vote.num_rows else None
    why = None if gain["gain"] is not None else "no answer-graded question part"
    common: dict[str, Any] = {
        "model": model, "family": record.collective, "experiment": str(directory),
        "n": int(gain["n"] or 0), "adaptation": card, "reason": why,
        "identified": why is None,
    }  # fmt: skip
    return [
        Fit(parameter="crowd_gain", estimate=gain["gain"], ci_lo=gain["lo"], ci_hi=gain["hi"],
            **common),
        Fit(parameter="collective_accuracy", estimate=gain["collective"], **common),
        Fit(parameter="member_accuracy", estimate=gain["members"], **common),
    ]  # fmt: skip


def survey_records(directory: Path) -> list[Fit]:
    """A survey run's subscale scores (one record per model and subscale), on
    the survey's card."""
    from steer.run import MANIFEST, read_responses
    from steer.run._runner import _load_manifest
    from steer.score._coverage import label_of
    from steer.survey import read_survey, subscale_scores

    _, instrument = read_survey(directory)
    seed = _load_manifest(directory / MANIFEST).seed if (directory / MANIFEST).is_file() else 0
    responses = read_responses(directory)[0]
    if not responses.num_rows:
        return []
    card = label_of(responses["adaptation"][0].as_py())
    out = []
    for row in subscale_scores(instrument, responses, seed=seed).to_pylist():
        out.append(
            Fit(
                model=str(row["model"]), parameter="subscale",
                family=f"{instrument.name}.{row['subscale']}", experiment=str(directory),
                estimate=row["score"], ci_lo=row["score_lo"], ci_hi=row["score_hi"],
                n=row["n_samples"], adaptation=card, identified=row["score"] is not None,
                reason=None if row["score"] is not None else "no item of it was answered",
            )
        )  # fmt: skip
    return out
