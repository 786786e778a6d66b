"""What produced the numbers of a report: steer's version and commit, and for
each run its model, revision, backend, adaptation, sampling, bank and seed,
dates, tokens and cost. Read from the run manifests and, for the totals, the
responses (grouped by Arrow, not a loop over rows)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc


@dataclass(frozen=True)
class RunMetadata:
    run_id: str
    path: str
    model: str
    backend: str
    revision: str | None
    adaptation: str
    sampling: str
    bank: str
    bank_sha256: str
    generation_seed: str
    seed: str
    steer_version: str
    created_at: str
    answers: int
    elements: int
    first: str
    last: str
    tokens_in: int
    tokens_out: int
    cost_usd: float | None


def build_info() -> tuple[str, str]:
    """(steer version, commit it was built from or "unknown")."""
    import steer
    from steer import _native

    return steer.__version__, getattr(_native, "__git_revision__", "unknown")


def _adaptation(data: dict[str, Any]) -> str:
    from pydantic import ValidationError

    from steer.schema import Adaptation

    try:
        return Adaptation.model_validate(data).label()
    except ValidationError:
        return json.dumps(data, sort_keys=True)


def _totals(table: pa.Table | None) -> dict[str, dict[str, Any]]:
    if table is None or not table.num_rows or "run_id" not in table.column_names:
        return {}
    aggs: list[tuple[str, str]] = [("question_id", "count"), ("element", "count_distinct")]
    for name, how in (("tokens_in", "sum"), ("tokens_out", "sum"), ("cost_usd", "sum"),
                      ("recorded_at", "min"), ("recorded_at", "max")):  # fmt: skip
        if name in table.column_names:
            aggs.append((name, how))
    grouped = table.group_by("run_id").aggregate(aggs)
    out: dict[str, dict[str, Any]] = {}
    for row in grouped.to_pylist():  # one row per run
        out[row["run_id"]] = row
    return out


def _when(value: Any) -> str | None:
    """A response's recorded_at (Unix seconds, or already a timestamp) as UTC ISO text."""
    import datetime as dt

    if value is None:
        return None
    if isinstance(value, int | float):
        return dt.datetime.fromtimestamp(value, dt.UTC).isoformat(timespec="seconds")
    return str(value)


def run_metadata(runs: list[str], responses: pa.Table | None) -> list[RunMetadata]:
    totals = _totals(responses)
    out = []
    for run in runs:
        manifest = Path(run) / "manifest.json"
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # a responses file or a game directory: nothing recorded here
        if not isinstance(data, dict) or not isinstance(data.get("run_id"), str):
            continue
        t = totals.get(data["run_id"], {})
        generation = data.get("generation") or {}
        sampling = ", ".join(f"{k}={v}" for k, v in sorted(generation.items()) if k != "seed")
        cost = t.get("cost_usd_sum")
        first, last = (_when(t.get(f"recorded_at_{x}")) for x in ("min", "max"))
        out.append(
            RunMetadata(
                run_id=data["run_id"],
                path=str(run),
                model=str(data.get("model", "")),
                backend=str(data.get("backend", "")),
                revision=data.get("revision"),
                adaptation=_adaptation(data.get("adaptation") or {}),
                sampling=sampling or "greedy / backend defaults",
                bank=str(data.get("bank_path", "")),
                bank_sha256=str(data.get("bank_sha256", ""))[:12],
                generation_seed=str(generation.get("seed", "—")),
                seed=str(data.get("seed", "—")),
                steer_version=str(data.get("steer_version", "")),
                created_at=str(data.get("created_at", "")),
                answers=int(t.get("question_id_count") or 0),
                elements=int(t.get("element_count_distinct") or 0),
                first=str(first or "—"),
                last=str(last or "—"),
                tokens_in=int(t.get("tokens_in_sum") or 0),
                tokens_out=int(t.get("tokens_out_sum") or 0),
                cost_usd=None if cost is None else float(cost),
            )
        )
    return out


def coverage(responses: pa.Table | None) -> dict[str, str]:
    """Elements, grades and domains the graded responses cover."""
    if responses is None or not responses.num_rows:
        return {}
    out = {}
    for name in ("element", "grade", "domain"):
        if name in responses.column_names:
            values = pc.unique(responses[name].drop_null()).to_pylist()
            shown = sorted(values, key=lambda v: (isinstance(v, str), v))
            text = ", ".join(map(str, shown[:12])) + (" …" if len(shown) > 12 else "")
            out[name] = f"{len(shown)}: {text}"
    return out
