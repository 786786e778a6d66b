"""Baselines: a previous grade to detect regressions against, question by question.

`steer grade --write-baseline FILE` writes version 2 (JSON): per card (model,
adaptation) the element summary and every question's outcome keyed by (bank
fingerprint, question id), stored column-wise:

    {"baseline_version": 2, "rubric": "whole-benchmark", "metric": "exact_match",
     "banks": ["<sha256>"],
     "cards": [{"model": "m", "adaptation": "mc;shots=0;cot=none;prob=conditioning",
                "banks": ["<sha256>"],
                "summary": {"<element>": {"value": .8, "lo": .7, "hi": .9, "n": 40}},
                "questions": {"bank_sha256": [...], "element": [...], "question": [...],
                              "n_samples": [...], "answered": [...], "exact_match": [...],
                              "normalized_accuracy": [...], ...}}]}

`--baseline` also takes run directories and response tables, graded under the
same rubric. Version 1 (summaries only, per model) still loads; it is compared
with the old interval rule, without pairing.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from steer._atomic import atomic_path
from steer.errors import FileFormatError, InputError
from steer.rubric._card import GradeResult
from steer.score._outcomes import OUTCOME_METRICS, question_outcomes

if TYPE_CHECKING:
    from steer.rubric._load import LoadedRubric

BASELINE_VERSION = 2
QUESTION_COLUMNS = ("bank_sha256", "element", "question", "n_samples", "answered")
RESPONSE_SUFFIXES = (".parquet", ".jsonl", ".json.gz", ".jsonl.gz")
Summary = dict[str, dict[str, float | None]]  # element → value, lo, hi, n


@dataclass
class BaselineCard:
    """One (model, adaptation) of a version-2 baseline."""

    model: str
    adaptation: str
    banks: list[str]
    summary: Summary
    questions: pa.Table  # QUESTION_COLUMNS + OUTCOME_METRICS


@dataclass
class Baseline:
    file: str
    banks: list[str]
    metric: str
    scores: dict[str, Summary]  # version 1: model → summary
    version: int = 1
    rubric: str = ""
    cards: list[BaselineCard] = field(default_factory=list)
    # Outcomes of the graded responses, computed once for every card's rules.
    # (Holding the table itself, not its id, so a new table never hits the cache.)
    _current: tuple[pa.Table, pa.Table] | None = field(default=None, repr=False)

    def current_outcomes(self, responses: pa.Table, banks: list[str]) -> pa.Table:
        if self._current is None or self._current[0] is not responses:
            default = banks[0] if len(banks) == 1 else None
            self._current = (responses, question_outcomes(responses, bank=default))
        return self._current[1]


@dataclass
class Match:
    """The baseline card to compare a card with, or what differs."""

    card: BaselineCard | None
    differs: list[str]


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def _summary(result: GradeResult, model: str, adaptation: str) -> Summary:
    out: Summary = {}
    for card in result.cards:
        if card.model != model or card.adaptation != adaptation:
            continue
        for element, es in sorted(card.elements.items()):
            lo, hi = es.bounds.get(result.metric, (None, None))
            out[element] = {
                "value": _finite(es.value(result.metric)),
                "lo": _finite(lo),
                "hi": _finite(hi),
                "n": es.n,
            }
    return out


def baseline_doc(result: GradeResult) -> dict[str, Any]:
    """The version-2 baseline of a grade (what `--write-baseline` writes)."""
    cards = []
    if result.responses is not None and result.responses.num_rows:
        default = result.banks[0] if len(result.banks) == 1 else None
        outcomes = question_outcomes(result.responses, bank=default)
        keys = outcomes.select(["model", "adaptation"]).group_by(["model", "adaptation"])
        for row in keys.aggregate([]).sort_by("model").to_pylist():
            model, adaptation = str(row["model"]), str(row["adaptation"])
            mine = outcomes.filter(
                pc.and_(
                    pc.equal(outcomes["model"], model), pc.equal(outcomes["adaptation"], adaptation)
                )
            )
            questions = mine.select([*QUESTION_COLUMNS, *OUTCOME_METRICS])
            cards.append(
                {
                    "model": model,
                    "adaptation": adaptation,
                    "banks": sorted(set(pc.unique(mine["bank_sha256"]).to_pylist()) - {""}),
                    "summary": _summary(result, model, adaptation),
                    "questions": questions.to_pydict(),
                }
            )
    cards.sort(key=lambda c: (c["model"], c["adaptation"]))
    return {
        "baseline_version": BASELINE_VERSION,
        "rubric": result.rubric_name,
        "metric": result.metric,
        "banks": result.banks,
        "cards": cards,
    }


def write_baseline(result: GradeResult, path: Path) -> None:
    """Record every card's summary and question outcomes (version 2)."""
    doc = baseline_doc(result)
    with atomic_path(path) as tmp:
        text = json.dumps(doc, sort_keys=True, allow_nan=False, separators=(",", ":"))
        tmp.write_text(text + "\n", encoding="utf-8")


def _bad(path: Path, message: str) -> FileFormatError:
    return FileFormatError(message, source=str(path))


def _card(path: Path, i: int, raw: object) -> BaselineCard:
    where = f"cards[{i}]"
    if not isinstance(raw, dict):
        raise _bad(path, f"{where}: expected an object")
    questions = raw.get("questions")
    if not isinstance(questions, dict):
        raise _bad(path, f"{where}.questions: expected an object of columns")
    columns = [*QUESTION_COLUMNS, *OUTCOME_METRICS]
    missing = [c for c in columns if c not in questions]
    if missing:
        raise _bad(path, f"{where}.questions: missing column {missing[0]!r}")
    types = {"bank_sha256": pa.string(), "element": pa.string(), "question": pa.string()}
    types["n_samples"] = pa.int32()
    try:
        table = pa.table({c: pa.array(questions[c], types.get(c, pa.float64())) for c in columns})
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError) as exc:
        raise _bad(path, f"{where}.questions: {exc}") from None
    model, adaptation = raw.get("model"), raw.get("adaptation", "")
    if not isinstance(model, str) or not isinstance(adaptation, str):
        raise _bad(path, f"{where}: `model` and `adaptation` must be strings")
    banks = raw.get("banks") or []
    if not isinstance(banks, list):
        raise _bad(path, f"{where}.banks: expected a list")
    summary = _checked_summary(path, f"{where}.summary", raw.get("summary") or {})
    return BaselineCard(model, adaptation, sorted(str(b) for b in banks), summary, table)


def _checked_summary(path: Path, where: str, raw: object) -> Summary:
    """element → {value, lo, hi, n}, each a number or null."""
    if not isinstance(raw, dict):
        raise _bad(path, f"{where}: expected an object")
    for element, entry in raw.items():
        if not isinstance(entry, dict):
            raise _bad(path, f"{where}.{element}: expected an object")
        for key in ("value", "lo", "hi", "n"):
            x = entry.get(key)
            if x is not None and (isinstance(x, bool) or not isinstance(x, int | float)):
                raise _bad(path, f"{where}.{element}.{key}: expected a number, got {x!r}")
    return raw


def _from_doc(path: Path, doc: object) -> Baseline:
    if not isinstance(doc, dict) or doc.get("baseline_version") not in (1, 2):
        raise _bad(
            path,
            "not a steer baseline (expected baseline_version 1 or 2; write one with "
            "`steer grade --write-baseline FILE`)",
        )
    banks = sorted(str(b) for b in doc.get("banks") or [])
    metric, rubric = str(doc.get("metric", "")), str(doc.get("rubric", ""))
    if doc["baseline_version"] == 1:
        scores = doc.get("scores") or {}
        if not isinstance(scores, dict):
            raise _bad(path, "`scores`: expected an object")
        checked = {str(m): _checked_summary(path, f"scores.{m}", s) for m, s in scores.items()}
        return Baseline(str(path), banks, metric, checked, 1, rubric)
    raw_cards = doc.get("cards")
    if not isinstance(raw_cards, list):
        raise _bad(path, "`cards`: expected a list")
    cards = [_card(path, i, c) for i, c in enumerate(raw_cards)]
    return Baseline(str(path), banks, metric, {}, 2, rubric, cards)


def read_baseline(path: Path, banks: list[str] | None = None) -> Baseline:
    """Read a baseline file (version 1 or 2). A baseline for other banks loads:
    the rules report the mismatch (RAT010) instead of comparing. `banks` is
    accepted for compatibility and ignored."""
    del banks
    if not path.is_file():
        raise InputError(f"{path}: no such baseline file")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise _bad(path, "not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"invalid JSON: {exc.msg}", source=str(path), where=f"line {exc.lineno}:{exc.colno}"
        ) from None
    except RecursionError:
        raise _bad(path, "JSON nested too deeply") from None
    return _from_doc(path, doc)


def load_baseline(path: Path, loaded: LoadedRubric, *, bank: Path | None = None) -> Baseline:
    """A baseline file, or a run directory / response table graded under the
    same rubric (`loaded`; `bank` for a bare table, as for the graded runs)
    into a version-2 baseline held in memory."""
    if not path.exists():
        raise InputError(f"{path}: no such baseline file, run directory or response table")
    if path.is_dir() or path.name.endswith(RESPONSE_SUFFIXES):
        from steer.rubric._grade import grade

        result = grade([path], loaded, bank=bank)
        return _from_doc(path, json.loads(json.dumps(baseline_doc(result))))
    return read_baseline(path)


def match(
    baseline: Baseline, rubric: str, metric: str, model: str, adaptation: str, banks: list[str]
) -> Match:
    """The baseline card for (model, adaptation), or the list of what differs:
    rubric, metric, model, adaptation or bank fingerprints (`banks`: the
    card's own, empty when unknown)."""
    differs = []
    if baseline.rubric and baseline.rubric != rubric:
        differs.append(f"rubric `{baseline.rubric}` (graded: `{rubric}`)")
    if baseline.metric and baseline.metric != metric:
        differs.append(f"metric `{baseline.metric}` (graded: `{metric}`)")
    if baseline.version == 1:
        theirs = baseline.banks
        if model not in baseline.scores:
            held = ", ".join(f"`{m}`" for m in sorted(baseline.scores)) or "none"
            differs.append(f"no model `{model}` (baseline has {held})")
        if theirs and banks and sorted(theirs) != sorted(banks):
            differs.append(_banks(theirs, banks))
        return Match(None, differs)
    same_model = [c for c in baseline.cards if c.model == model]
    card = next((c for c in same_model if c.adaptation == adaptation), None)
    if not same_model:
        held = ", ".join(sorted({f"`{c.model}`" for c in baseline.cards})) or "none"
        differs.append(f"no model `{model}` (baseline has {held})")
    elif card is None:
        held = ", ".join(f"`{c.adaptation}`" for c in same_model)
        differs.append(f"no adaptation `{adaptation}` for `{model}` (baseline has {held})")
    elif card.banks and banks and card.banks != sorted(banks):
        differs.append(_banks(card.banks, banks))
    return Match(None if differs else card, differs)


def _banks(theirs: list[str], ours: list[str]) -> str:
    def short(banks: list[str]) -> str:
        return ", ".join(b[:12] for b in sorted(banks))

    return f"question bank {short(theirs)} (graded: {short(ours)})"


def card_outcomes(outcomes: pa.Table, model: str, adaptation: str) -> pa.Table:
    """The rows of one card in a question-outcome table."""
    mask = pc.and_(pc.equal(outcomes["model"], model), pc.equal(outcomes["adaptation"], adaptation))
    return outcomes.filter(mask)


def for_card(
    baseline: Baseline,
    responses: pa.Table | None,
    banks: list[str],
    rubric: str,
    metric: str,
    model: str,
    adaptation: str,
) -> tuple[Match, pa.Table | None]:
    """Match one card against the baseline, with the card's question outcomes
    (None when the graded responses are not at hand)."""
    current = None
    if responses is not None:
        current = card_outcomes(baseline.current_outcomes(responses, banks), model, adaptation)
        own = sorted(set(pc.unique(current["bank_sha256"]).to_pylist()) - {""})
        banks = own or banks
    return match(baseline, rubric, metric, model, adaptation, banks), current
