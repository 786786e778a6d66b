"""Durable runs: a manifest, a journal written as answers arrive, a Parquet
table at the end. Re-running the same command resumes where it stopped."""

from __future__ import annotations

import datetime as dt
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from steer._atomic import atomic_path, atomic_text
from steer.backends import Backend, resolve_backend
from steer.bank import file_sha256, read_bank
from steer.errors import FileFormatError, InputError
from steer.run._journal import append_rows, read_journal, trim_partial_line
from steer.schema import RESPONSE_SCHEMA, Adaptation, RunManifest

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
RESPONSES = "responses.parquet"

# Manifest fields that must match for a directory to be resumed.
_IDENTITY = ("bank_sha256", "model", "adaptation", "seed", "generation")


@dataclass
class RunResult:
    directory: Path
    manifest: RunManifest
    responses: pa.Table
    n_new: int
    problems: list[str]


def _steer_version() -> str:
    from steer import __version__

    return __version__


def _load_manifest(path: Path) -> RunManifest:
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        first = str(exc).splitlines()
        raise FileFormatError(
            f"not a valid run manifest ({first[1] if len(first) > 1 else exc})", source=str(path)
        ) from None


def run_bank(
    bank_path: str | Path,
    model: str | Backend,
    out_dir: str | Path,
    *,
    adaptation: Adaptation | None = None,
    limit: int | None = None,
    seed: int = 0,
    batch_size: int = 32,
    on_batch: Callable[[int, int], None] | None = None,
) -> RunResult:
    """Answer every question of a bank with a backend, durably.

    Writes `manifest.json`, appends to `journal.jsonl` batch by batch (fsync),
    and compacts to `responses.parquet` at the end. When `out_dir` already
    holds the same run (same bank, model, adaptation, seed) only the missing
    questions are asked; a different run there is an error.
    """
    bank_path, out = Path(bank_path), Path(out_dir)
    adaptation = adaptation or Adaptation()
    backend = resolve_backend(model, seed=seed) if isinstance(model, str) else model
    bank = read_bank(bank_path)
    if limit is not None:
        if limit < 0:
            raise InputError(f"--limit must be non-negative, got {limit}")
        bank = bank.slice(0, limit)

    manifest = RunManifest(
        run_id=out.name,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        steer_version=_steer_version(),
        bank_path=str(bank_path),
        bank_sha256=file_sha256(bank_path),
        n_questions=bank.num_rows,
        model=backend.spec,
        backend=backend.family,
        revision=backend.revision,
        generation=backend.generation_params(),
        adaptation=adaptation,
        seed=seed,
        limit=limit,
        python=sys.version.split()[0],
        platform=platform.platform(),
    )
    manifest_path = out / MANIFEST
    if manifest_path.exists():
        previous = _load_manifest(manifest_path)
        for name in _IDENTITY:
            if getattr(previous, name) != getattr(manifest, name):
                raise InputError(
                    f"{out}: holds a different run ({name} was {getattr(previous, name)!r}, "
                    f"now {getattr(manifest, name)!r}); use another --out directory"
                )
        manifest = manifest.model_copy(update={"created_at": previous.created_at})
    out.mkdir(parents=True, exist_ok=True)
    with atomic_text(manifest_path) as fh:
        fh.write(manifest.model_dump_json(indent=2) + "\n")

    journal_path = out / JOURNAL
    done = read_journal(journal_path)
    trim_partial_line(journal_path, done.complete_bytes)
    answered = set(done.table["question_id"].to_pylist())
    todo = bank.filter(
        pc.invert(pc.is_in(bank["question_id"], pa.array(sorted(answered), pa.string())))
    )
    total, n_new = bank.num_rows, 0
    for start in range(0, todo.num_rows, batch_size):
        batch = todo.slice(start, batch_size).to_pylist()
        answers = backend.answer(batch)
        rows = []
        for q, a in zip(batch, answers, strict=True):
            rows.append(
                {
                    "run_id": manifest.run_id,
                    "model": backend.spec,
                    "backend": backend.family,
                    "adaptation": adaptation.model_dump(),
                    "question_id": q["question_id"],
                    "base_id": q["base_id"],
                    "part": q["part"],
                    "element": q["element"],
                    "domain": q["domain"],
                    "type": q["type"],
                    "perspective": q["perspective"],
                    "grade": q["grade"],
                    "n_options": len(q["options"]),
                    "chosen_index": a.chosen_index,
                    "correct_index": q["correct_index"],
                    "consistency_rule": q["consistency_rule"],
                    "option_probs": a.option_probs,
                    "response_text": a.response_text,
                    "explanation": a.explanation,
                    "tokens_in": a.tokens_in,
                    "tokens_out": a.tokens_out,
                    "cost_usd": a.cost_usd,
                    "latency_s": a.latency_s,
                    "error": a.error,
                }
            )
        append_rows(journal_path, rows)
        n_new += len(rows)
        if on_batch:
            on_batch(len(answered) + n_new, total)

    final = read_journal(journal_path)
    table = final.table.cast(RESPONSE_SCHEMA)
    with atomic_path(out / RESPONSES) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return RunResult(out, manifest, table, n_new, done.problems + final.problems)


def read_responses(path: str | Path) -> tuple[pa.Table, list[str]]:
    """Responses from a run directory (finished or in progress) or a table file."""
    from steer.bank import read_table
    from steer.schema import RESPONSE_COLUMNS, conform

    path = Path(path)
    if path.is_dir():
        if (path / JOURNAL).exists():
            # The journal is the source of truth; it also covers runs in progress.
            read = read_journal(path / JOURNAL)
            return read.table, read.problems
        if (path / RESPONSES).exists():
            path = path / RESPONSES
        else:
            raise FileFormatError(
                f"not a run directory (no {JOURNAL} or {RESPONSES})", source=str(path)
            )
    if path.suffix == ".jsonl":
        read = read_journal(path)
        return read.table, read.problems
    return conform(read_table(path), RESPONSE_COLUMNS, str(path)), []
