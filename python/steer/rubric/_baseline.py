"""Baselines: a previous grade's element scores and intervals, to detect
regressions. Written by `steer grade --write-baseline FILE` (JSON):

    {"baseline_version": 1, "rubric": "whole-benchmark", "banks": ["<sha256>"],
     "metric": "normalized_accuracy",
     "scores": {"<model>": {"<element>": {"value": .8, "lo": .7, "hi": .9, "n": 40}}}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from steer._atomic import atomic_path
from steer.errors import FileFormatError, InputError
from steer.rubric._card import GradeResult


@dataclass
class Baseline:
    file: str
    banks: list[str]
    metric: str
    scores: dict[str, dict[str, dict[str, float | None]]]


def write_baseline(result: GradeResult, path: Path) -> None:
    """Record every model × element score of `result` with its interval."""
    scores: dict[str, dict[str, dict[str, float | None]]] = {}
    for card in result.cards:
        per = scores.setdefault(card.model, {})
        for element, es in sorted(card.elements.items()):
            lo, hi = es.bounds.get(result.metric, (None, None))
            per[element] = {"value": es.value(result.metric), "lo": lo, "hi": hi, "n": es.n}
    doc = {
        "baseline_version": 1,
        "rubric": result.rubric_name,
        "banks": result.banks,
        "metric": result.metric,
        "scores": scores,
    }
    with atomic_path(path) as tmp:
        tmp.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def read_baseline(path: Path, banks: list[str]) -> Baseline:
    """Read a baseline; one from a different bank than `banks` is an `InputError`."""
    if not path.is_file():
        raise InputError(f"{path}: no such baseline file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"invalid JSON: {exc.msg}", source=str(path), where=f"line {exc.lineno}:{exc.colno}"
        ) from None
    if not isinstance(doc, dict) or doc.get("baseline_version") != 1:
        raise FileFormatError(
            "not a steer baseline (expected baseline_version 1; write one with "
            "`steer grade --write-baseline FILE`)",
            source=str(path),
        )
    theirs = sorted(doc.get("banks") or [])
    if theirs and banks and theirs != sorted(banks):
        raise InputError(
            f"{path}: baseline is from a different question bank "
            f"({', '.join(b[:12] for b in theirs)}) than these runs "
            f"({', '.join(b[:12] for b in sorted(banks))}); scores on different questions "
            "cannot show a regression — regrade the baseline runs on this bank"
        )
    return Baseline(str(path), theirs, str(doc.get("metric", "")), doc.get("scores") or {})
