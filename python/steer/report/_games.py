"""The games among a report's runs: each player's metrics with their
intervals over samples (`steer score GAME_RUN`'s numbers) beside the human
baseline Rationality Check publishes for the game, and with `--published
game_results.csv` beside the published models too (`_published`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from steer.errors import InputError
from steer.report.formats._common import interval, num

if TYPE_CHECKING:
    from steer.play import RCTable


@dataclass
class GameTable:
    game: str
    header: list[str]  # player, wording, samples, then the metrics (and nearest published)
    rows: list[list[str]]
    human: list[str] | None  # the human baseline row, or None when none is published
    notes: list[str]
    #: With a published table: the published models' min · median · max row
    #: (None when the table does not have the game).
    published: list[str] | None = None


@dataclass
class DomainTable:
    """The Rationality Check domain scores of the runs' models, the human
    baseline and the published models, one row per (domain, type)."""

    header: list[str]
    rows: list[list[str]]
    note: str


@dataclass
class Games:
    tables: list[GameTable] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    domains: DomainTable | None = None


def game_tables(runs: list[str]) -> tuple[list[GameTable], list[str]]:
    """One table per game among `runs`, and the runs that could not be read
    (a game stopped before its end has no moves yet)."""
    found = games_section(runs)
    return found.tables, found.skipped


def _scored(runs: list[str]) -> tuple[pa.Table | None, list[str]]:
    from steer.play import GAME_FILE, game_metrics, read_game_run
    from steer.play._game_metrics import combine_wordings

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
        return None, skipped
    return combine_wordings(pa.concat_tables(tables, promote_options="permissive")), skipped


def games_section(runs: list[str], published: RCTable | None = None) -> Games:
    """The games section's tables; with `published` (the Rationality Check
    game table) each game it has also gets a row with the published models'
    min · median · max of the game's headline metric (the ``fin`` row the
    paper shows: ``%NE``, ``ActDev`` or ``Eff``) and a column naming the two
    published models nearest each player on it, and the section a domain
    table."""
    from steer.play._game_metrics import HUMAN_BASELINES, equilibrium_note, metric_names
    from steer.report._published import game_values, nearest_text, spread

    scored, skipped = _scored(runs)
    if scored is None:
        return Games([], skipped)
    out = []
    for game in dict.fromkeys(scored["game"].to_pylist()):
        mine = scored.filter(pa.compute.equal(scored["game"], game))
        metrics = [m for m in metric_names(mine) if mine[m].null_count < mine.num_rows]
        headline, theirs, humans = (
            game_values(published, game) if published is not None else (None, {}, {})
        )
        rows = []
        notes = []
        for r in mine.to_pylist():  # one row per player and wording
            cells = [str(r["model"]), str(r.get("wording") or ""), str(r.get("n_samples") or "")]
            for m in metrics:
                text = num(r.get(m))
                bounds = interval(r.get(f"{m}_lo"), r.get(f"{m}_hi"))
                cells.append(f"{text} {bounds}".strip())
            if headline is not None:
                cells.append(nearest_text(theirs[headline], r.get(headline), num))
            rows.append(cells)
            note = equilibrium_note(r)
            if note is not None and note not in notes:
                notes.append(note)
        tail = [] if headline is None else [""]
        # The given table's human baseline where it has the game, else the
        # shipped one (the published table's).
        baseline = HUMAN_BASELINES.get(game, {})
        if headline is not None:
            baseline = {headline: humans[headline]} if headline in humans else {}
        human = None
        if baseline:
            human = ["humans (Rationality Check)", "", ""] + [
                num(baseline[m]) if m in baseline else "—" for m in metrics
            ] + tail  # fmt: skip
        header = ["player", "wording", "samples", *metrics]
        summary = None
        if headline is not None:
            header.append(f"nearest published ({headline})")
            n = len(theirs[headline])
            # The headline metric only: the published ``Dev↓`` rows are not
            # 1 − %NE (gpt-4, OnePD v1: Dev 0.544, %NE 0.4), so steer's Dev
            # is not theirs.
            summary = [f"published models ({n}): min · median · max", "fin", ""] + [
                spread(theirs[m], num) if m == headline else "—" for m in metrics
            ] + tail  # fmt: skip
        out.append(GameTable(game, header, rows, human, notes, summary))
    domains = None
    if published is not None:
        domains = _domain_table(published, scored)
    return Games(out, skipped, domains)


def _domain_table(published: RCTable, scored: pa.Table) -> DomainTable:
    from steer.report._published import domain_scores, nearest_text, spread

    found = domain_scores(published, scored.to_pylist())
    header = ["domain", "type", *found.models, "humans (Rationality Check)",
              f"published models ({found.n_published}): min · median · max"]  # fmt: skip
    rows = []
    for r in found.rows:
        cells = [r.domain, r.type]
        for v in r.mine:
            near = nearest_text(r.published, v, num, k=1)
            cells.append(num(v) if v is None else f"{num(v)} (nearest {near})")
        cells += [num(r.human), spread(r.published, num)]
        rows.append(cells)
    note = (
        "Rationality Check domain scores: each game's headline metric normalised by the "
        "published rule and clipped to [0, 1], averaged over the domain's games (a game not "
        "played is left out of the mean; the crowd games MMLU and MATH are not games steer "
        "plays). Each run model's score names the published model nearest it."
    )
    return DomainTable(header, rows, note)
