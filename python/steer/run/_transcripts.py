"""`transcripts.jsonl`: what each question's conversation sent and received
(schema: `steer.schema.transcript.Transcript`), appended in fsynced batches
just before the journal batch that holds the same questions' responses."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from steer.schema.transcript import Transcript

TRANSCRIPTS = "transcripts.jsonl"


def append_transcripts(path: Path, entries: Iterable[dict[str, Any]]) -> None:
    data = "".join(
        json.dumps(e, separators=(",", ":"), ensure_ascii=False, allow_nan=False) + "\n"
        for e in entries
    )
    if not data:
        return
    with path.open("a", encoding="utf-8") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def trim_partial_tail(path: Path) -> None:
    """Cut a last line left unfinished by a kill, so the next append starts
    on a line of its own (reads backwards from the end, not the whole file)."""
    if not path.exists():
        return
    with path.open("r+b") as fh:
        end = fh.seek(0, os.SEEK_END)
        pos = end
        while pos > 0:
            step = min(65536, pos)
            fh.seek(pos - step)
            chunk = fh.read(step)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                keep = pos - step + cut + 1
                break
            pos -= step
        else:
            keep = 0
        if keep < end:
            fh.truncate(keep)
            fh.flush()
            os.fsync(fh.fileno())


def find_transcript(path: Path, question_id: str) -> Transcript | None:
    """The last transcript that asked `question_id` (None if none did).
    Only lines that contain the id are decoded; unreadable ones are skipped."""
    found: Transcript | None = None
    needle = json.dumps(question_id, ensure_ascii=False).encode()
    with path.open("rb") as fh:
        for line in fh:
            if needle not in line or not line.endswith(b"\n"):
                continue  # another question, or a line cut short by a kill
            try:
                entry = Transcript.model_validate_json(line)
            except ValidationError:
                continue
            if question_id in entry.question_ids:
                found = entry
    return found
