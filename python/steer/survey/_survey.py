"""`steer survey INSTRUMENT --model SPEC`: a questionnaire answered durably.

Every item is a keyless question row (`grading = "elicit"`, element
``survey.<name>``) whose options are the scale's points ("1 = Strongly
disagree" …), answered through `steer.run` like any bank: journal, response
cache, transcripts, resumption. `--samples N` asks each item N times (each its
own request; the sample joins the cache key), so scores get intervals.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict

from steer._atomic import atomic_path
from steer.bank import validate_questions
from steer.errors import InputError
from steer.run import RunResult, run_bank
from steer.run._record import read_record, refuse_other_run, write_record
from steer.schema import Adaptation
from steer.survey._instrument import Instrument, load_instrument

SURVEY_FILE = "survey.json"
ITEMS = "items.parquet"
MAX_SAMPLES = 10_000


class SurveyRecord(BaseModel):
    model_config = ConfigDict(extra="forbid")

    survey_version: int = 1
    instrument: str
    source: str
    instrument_sha256: str
    samples: int


@dataclass
class SurveyResult:
    run: RunResult
    record: SurveyRecord
    instrument: Instrument


def option_labels(instrument: Instrument) -> list[str]:
    s = instrument.scale
    return [f"{s.min + i} = {label}" for i, label in enumerate(s.labels)]


def build_rows(instrument: Instrument, samples: int) -> pa.Table:
    """The question rows: every item `samples` times."""
    element = f"survey.{instrument.name}"
    options = option_labels(instrument)
    rows: list[dict[str, Any]] = []
    for sample in range(samples):
        for item in instrument.item:
            base_id = f"i{item.id}.s{sample}"
            payload = {"instrument": instrument.name, "item": item.id, "sample": sample}
            rows.append(
                {
                    "question_id": f"{element}/{base_id}/0",
                    "element": element,
                    "base_id": base_id,
                    "part": 0,
                    "question_text": f"{instrument.instructions}\n\n{item.text}",
                    "options": options,
                    "correct_index": None,
                    "grading": "elicit",
                    "type": item.subscale,
                    "domain": "survey",
                    "perspective": "first",
                    "template_id": f"survey:{instrument.name}",
                    "source": instrument.source,
                    "payload": json.dumps(payload, separators=(",", ":")),
                }
            )
    return pa.Table.from_pylist(rows)


def read_survey(directory: str | Path) -> tuple[SurveyRecord, Instrument]:
    record = read_record(Path(directory) / SURVEY_FILE, SurveyRecord, "survey", "steer survey")
    source = record.source.removeprefix("steer:")
    return record, load_instrument(source if record.source.startswith("steer:") else Path(source))


def run_survey(
    instrument_name: str | Path,
    model: str,
    out_dir: str | Path,
    *,
    samples: int = 1,
    seed: int = 0,
    adaptation: Adaptation | None = None,
    backend_options: dict[str, Any] | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
) -> SurveyResult:
    """Ask every item `samples` times; re-running resumes."""
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"--samples must be from 1 to {MAX_SAMPLES}, got {samples}")
    if adaptation is not None and (adaptation.shots or adaptation.format == "none"):
        raise InputError(
            "a questionnaire's items have no key: --adapt shots=K and none do not apply"
        )
    instrument = load_instrument(instrument_name)
    text = str(instrument_name)
    shipped = not (isinstance(instrument_name, Path) or text.endswith(".toml") or "/" in text)
    record = SurveyRecord(
        instrument=instrument.name,
        source=f"steer:{instrument.name}" if shipped else str(Path(instrument_name).resolve()),
        instrument_sha256=hashlib.sha256(
            Path(instrument_name if not shipped else _shipped_path(instrument.name)).read_bytes()
        ).hexdigest(),
        samples=samples,
    )
    out = Path(out_dir)
    table = validate_questions(build_rows(instrument, samples), f"<{instrument.name} items>")
    out.mkdir(parents=True, exist_ok=True)
    path = out / SURVEY_FILE
    refuse_other_run(path, record, ("instrument", "instrument_sha256", "samples"), "survey")
    with atomic_path(out / ITEMS) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    write_record(path, record)
    result = run_bank(
        out / ITEMS, model, out, adaptation=adaptation, seed=seed,
        backend_options=backend_options, cache_dir=cache_dir, progress=progress,
    )  # fmt: skip
    return SurveyResult(result, record, instrument)


def _shipped_path(name: str) -> Path:
    from steer.survey._instrument import shipped_instruments

    return shipped_instruments()[name]
