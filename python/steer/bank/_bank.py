"""Question banks: validated question tables stored as Parquet."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer.bank._read import read_table
from steer.bank._validate import validate_questions
from steer.schema import QUESTION_SCHEMA, Question
from steer.taxonomy import Taxonomy


def questions_to_table(questions: list[Question]) -> pa.Table:
    """Arrow table (question schema) from pydantic questions."""
    return pa.Table.from_pylist([q.model_dump() for q in questions], schema=QUESTION_SCHEMA)


def read_bank(path: str | Path, taxonomy: Taxonomy | None = None) -> pa.Table:
    """Read and validate a question bank (Parquet or JSONL in steer's layout)."""
    return validate_questions(read_table(path), str(path), taxonomy)


def write_bank(table: pa.Table, path: str | Path) -> Path:
    """Write a bank as Parquet atomically (temp file, then rename)."""
    path = Path(path)
    table = table.cast(QUESTION_SCHEMA)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return path


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
