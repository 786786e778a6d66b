"""`steer play EXPERIMENT`: one experiment, one model, N samples, durably."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict

from steer._atomic import atomic_path
from steer.bank import validate_questions
from steer.errors import InputError
from steer.experiments import build_trials, check_experiment, intervention_text, load_grid
from steer.run import RunResult, run_bank
from steer.run._record import read_record, refuse_other_run, write_record
from steer.schema import Adaptation

#: The trials of a play run (the question rows and the trial columns), and what was played.
TRIALS = "trials.parquet"
PLAY_FILE = "play.json"
MAX_SAMPLES = 10_000


class PlayRecord(BaseModel):
    """What a play directory holds: the experiment, its grid and the intervention."""

    model_config = ConfigDict(extra="forbid")

    play_version: int = 1
    experiment: str
    grid: str
    grid_sha256: str
    samples: int
    intervention: str


@dataclass
class PlayResult:
    run: RunResult
    record: PlayRecord
    trials: pa.Table


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write_trials(table: pa.Table, path: Path) -> None:
    """Write the trials atomically. Parquet without a timestamp: the same
    trials give the same bytes, so a resumed run keeps its bank fingerprint."""
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")


def read_play(directory: str | Path) -> tuple[PlayRecord, pa.Table]:
    """The play record and the trial table of a play run directory."""
    directory = Path(directory)
    record = read_record(directory / PLAY_FILE, PlayRecord, "play", "steer play")
    from steer.bank._read import read_table

    return record, read_table(directory / TRIALS)


def play_experiment(
    experiment: str,
    model: str,
    out_dir: str | Path,
    *,
    samples: int = 1,
    seed: int = 0,
    intervention: str | None = None,
    grid: str | Path | None = None,
    adaptation: Adaptation | None = None,
    backend_options: dict[str, Any] | None = None,
    max_cost: float | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> PlayResult:
    """Ask every trial of `experiment` `samples` times and keep the answers.

    Re-running the same command resumes; a directory holding another
    experiment, grid, sample count or intervention is an error (its trials
    differ, so its bank fingerprint does).
    """
    check_experiment(experiment)
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"--samples must be from 1 to {MAX_SAMPLES}, got {samples}")
    intervention = intervention or "baseline"
    intervention_text(intervention)  # unknown interventions fail before anything is written
    if adaptation is not None and adaptation.shots:
        raise InputError(
            "--adapt shots=K draws keyed examples, and an experiment's choices have no key: "
            "use --intervention examples:1 or examples:2 (worked examples of the same "
            "experiment)"
        )
    if adaptation is not None and adaptation.format == "none":
        raise InputError(
            "--adapt none replaces the right option with 'none of the above', and an "
            "experiment's choices have no right option: use mc, shown, hidden, together, "
            "separate or free"
        )
    loaded = load_grid(experiment, grid)
    questions, trials = build_trials(loaded, samples=samples, intervention=intervention)
    questions = validate_questions(questions, f"<{experiment} trials>")
    # One file: the question columns the runner reads, then the trial columns.
    extra = [n for n in trials.column_names if n not in questions.column_names]
    table = questions
    for name in extra:
        table = table.append_column(trials.schema.field(name), trials[name])
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record = PlayRecord(
        experiment=experiment,
        grid=loaded.source if grid is not None else f"steer:{experiment}",
        grid_sha256=_sha256(Path(loaded.source)),
        samples=samples,
        intervention=intervention,
    )
    record_path = out / PLAY_FILE
    refuse_other_run(
        record_path, record, ("experiment", "grid_sha256", "samples", "intervention"), "play"
    )
    _write_trials(table, out / TRIALS)
    write_record(record_path, record)
    result = run_bank(
        out / TRIALS,
        model,
        out,
        adaptation=adaptation,
        seed=seed,
        backend_options=backend_options,
        max_cost=max_cost,
        cache_dir=cache_dir,
        progress=progress,
    )
    return PlayResult(result, record, trials)
