"""Deterministic runs for the rubric and grade tests (no generator involved,
so snapshots do not move when question templates change)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

BANK = "b" * 64
OTHER_BANK = "c" * 64
DOMAINS = ("finance", "medicine", "sports")
# model → element → (accuracy per domain, confidence on the chosen option)
PLAN: dict[str, dict[str, tuple[tuple[float, float, float], float]]] = {
    "model-a": {
        "steer.1.1.c": ((1.0, 0.95, 1.0), 0.95),
        "steer.1.2.a": ((0.3, 0.3, 0.3), 0.9),  # weak prerequisite of 2.4.a/2.4.b
        "steer.2.4.a": ((0.95, 0.9, 0.95), 0.92),
        "steer.2.4.b": ((1.0, 0.95, 1.0), 0.95),
        "steer.3.1.b": ((1.0, 0.2, 1.0), 0.8),  # fragile in medicine
    },
    "model-b": {
        "steer.1.1.c": ((0.3, 0.25, 0.3), 0.25),
        "steer.1.2.a": ((0.25, 0.3, 0.25), 0.25),
        "steer.2.4.a": ((0.0, 0.0, 0.05), 0.25),  # below random guessing
        "steer.2.4.b": ((0.3, 0.25, 0.25), 0.25),
        "steer.3.1.b": ((0.25, 0.3, 0.25), 0.25),
    },
}
PER_DOMAIN = 20
N_OPTIONS = 4


def response_rows(model: str) -> dict[str, list[object]]:
    cols: dict[str, list[object]] = {
        k: []
        for k in [
            "run_id",
            "model",
            "backend",
            "adaptation",
            "question_id",
            "base_id",
            "part",
            "element",
            "domain",
            "type",
            "perspective",
            "grade",
            "n_options",
            "chosen_index",
            "correct_index",
            "option_probs",
        ]
    }
    for element, (accuracy, confidence) in PLAN[model].items():
        for d, domain in enumerate(DOMAINS):
            right = round(accuracy[d] * PER_DOMAIN)
            for i in range(PER_DOMAIN):
                correct = i % N_OPTIONS
                chosen = correct if i < right else (correct + 1) % N_OPTIONS
                probs = [(1 - confidence) / (N_OPTIONS - 1)] * N_OPTIONS
                probs[chosen] = confidence
                base = f"{domain}.{i}"
                cols["run_id"].append(model)
                cols["model"].append(model)
                cols["backend"].append("agent")
                cols["adaptation"].append(
                    {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
                )
                cols["question_id"].append(f"{element}/{base}/0")
                cols["base_id"].append(base)
                cols["part"].append(0)
                cols["element"].append(element)
                cols["domain"].append(domain)
                cols["type"].append("positive")
                cols["perspective"].append("")
                cols["grade"].append(3 + i % 4)
                cols["n_options"].append(N_OPTIONS)
                cols["chosen_index"].append(chosen)
                cols["correct_index"].append(correct)
                cols["option_probs"].append(probs)
    return cols


def write_run(folder: Path, model: str, bank: str = BANK) -> Path:
    """A run directory (responses.parquet + manifest.json) for `model`."""
    run = folder / model
    run.mkdir(parents=True, exist_ok=True)
    table = pa.table(response_rows(model))
    table = table.set_column(
        table.schema.get_field_index("part"), "part", table["part"].cast(pa.int32())
    )
    for name in ("grade", "n_options", "chosen_index", "correct_index"):
        table = table.set_column(
            table.schema.get_field_index(name), name, table[name].cast(pa.int32())
        )
    pq.write_table(table, run / "responses.parquet")
    manifest = {"run_id": model, "model": model, "bank_sha256": bank}
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return run


def make_runs(folder: Path, bank: str = BANK) -> list[Path]:
    """Both models' runs under `folder/runs`, returned relative to `folder`."""
    for model in PLAN:
        write_run(folder / "runs", model, bank)
    return [Path("runs") / m for m in PLAN]


def steer(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m steer ARGS` in a real subprocess."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("GITHUB_STEP_SUMMARY", None) if env is None else None
    return subprocess.run(
        [sys.executable, "-m", "steer", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        check=False,
    )


def steer_as_user(
    *args: str | Path, cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """`python -m steer ARGS` in a real subprocess as a user meets it: without
    STEER_DEBUG, so an error is one line and never a traceback."""
    env = {k: v for k, v in os.environ.items() if k != "STEER_DEBUG"}
    return subprocess.run(
        [sys.executable, "-m", "steer", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
