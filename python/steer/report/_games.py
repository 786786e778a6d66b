"""The games among a report's runs: each player's metrics with their
intervals over samples (`steer score GAME_RUN`'s numbers) beside the human
baseline Rationality Check publishes for the game."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa

from steer.errors import InputError
from steer.report.formats._common import interval, num


@dataclass
class GameTable:
    game: str
    header: list[str]  # player, wording, samples, then the metrics
    rows: list[list[str]]
    human: list[str] | None  # the human baseline row, or None when none is published
    notes: list[str]


def game_tables(runs: list[str]) -> tuple[list[GameTable], list[str]]:
    """One table per game among `runs`, and the runs that could not be read
    (a game stopped before its end has no moves yet)."""
    from steer.play import GAME_FILE, game_metrics, read_game_run
    from steer.play._game_metrics import (
        HUMAN_BASELINES,
        combine_wordings,
        equilibrium_note,
        metric_names,
    )

    tables, skipped = [], []
    for run in runs:
        path = Path(run)
        if not (path / GAME_FILE).is_file():
            continue
        try:
            record, game, moves = read_game_run(path)
        except InputError as exc:
            skipped.append(str(exc))
            continue
        tables.append(game_metrics(game, moves, wording=record.wording))
    if not tables:
        return [], skipped
    scored = combine_wordings(pa.concat_tables(tables, promote_options="permissive"))
    out = []
    for game in dict.fromkeys(scored["game"].to_pylist()):
        mine = scored.filter(pa.compute.equal(scored["game"], game))
        metrics = [m for m in metric_names(mine) if mine[m].null_count < mine.num_rows]
        rows = []
        notes = []
        for r in mine.to_pylist():  # one row per player and wording
            cells = [str(r["model"]), str(r.get("wording") or ""), str(r.get("n_samples") or "")]
            for m in metrics:
                text = num(r.get(m))
                bounds = interval(r.get(f"{m}_lo"), r.get(f"{m}_hi"))
                cells.append(f"{text} {bounds}".strip())
            rows.append(cells)
            note = equilibrium_note(r)
            if note is not None and note not in notes:
                notes.append(note)
        baseline = HUMAN_BASELINES.get(game, {})
        human = None
        if baseline:
            human = ["humans (Rationality Check)", "", ""] + [
                num(baseline[m]) if m in baseline else "—" for m in metrics
            ]
        out.append(GameTable(game, ["player", "wording", "samples", *metrics], rows, human, notes))
    return out, skipped
