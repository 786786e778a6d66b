"""Question banks: validated question tables stored as Parquet."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer.bank._read import read_table
from steer.bank._validate import validate_questions
from steer.errors import FileFormatError
from steer.schema import BANK_METADATA_KEY, QUESTION_SCHEMA, BankMetadata, Question
from steer.taxonomy import Taxonomy


def questions_to_table(questions: list[Question]) -> pa.Table:
    """Arrow table (question schema) from pydantic questions."""
    return pa.Table.from_pylist([q.model_dump() for q in questions], schema=QUESTION_SCHEMA)


def read_bank(path: str | Path, taxonomy: Taxonomy | None = None) -> pa.Table:
    """Read and validate a question bank (Parquet or JSONL in steer's layout)."""
    return validate_questions(read_table(path), str(path), taxonomy)


def _steer_version() -> str:
    from steer import __version__

    return __version__


def write_bank(table: pa.Table, path: str | Path, metadata: BankMetadata | None = None) -> Path:
    """Write a bank as Parquet atomically (temp file, then rename).

    `metadata` (provenance) goes into the file's footer; without it the record
    the table carries (a bank read back) is kept, else a minimal one (version,
    time, size, elements) is written.
    """
    path = Path(path)
    # A bank read back and written again keeps its provenance (and so its bytes).
    table_elements = sorted(pc.unique(table["element"]).to_pylist())
    carried = None if metadata else _carried_metadata(table)
    if carried is not None:
        metadata = carried.model_copy(update={"elements": table_elements})
    table = table.cast(QUESTION_SCHEMA)
    metadata = metadata or BankMetadata(
        steer_version=_steer_version(),
        n_questions=table.num_rows,
        elements=table_elements,
    )
    metadata = metadata.model_copy(update={"n_questions": table.num_rows})
    table = table.replace_schema_metadata(
        {**(table.schema.metadata or {}), BANK_METADATA_KEY: metadata.model_dump_json()}
    )
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return path


def _carried_metadata(table: pa.Table) -> BankMetadata | None:
    raw = (table.schema.metadata or {}).get(BANK_METADATA_KEY)
    if raw is None:
        return None
    try:
        return BankMetadata.model_validate_json(raw)
    except ValueError:
        return None  # a foreign or damaged record is replaced, not propagated


def read_bank_metadata(path: str | Path) -> BankMetadata | None:
    """The provenance record of a Parquet bank (None for files steer did not write)."""
    path = Path(path)
    if path.suffix.lower() not in (".parquet", ".pq"):
        return None
    try:
        meta = pq.read_schema(path).metadata or {}
    except (pa.ArrowInvalid, OSError) as exc:
        raise FileFormatError(f"not a readable Parquet file ({exc})", source=str(path)) from None
    raw = meta.get(BANK_METADATA_KEY)
    if raw is None:
        return None
    try:
        return BankMetadata.model_validate_json(raw)
    except ValueError:
        raise FileFormatError(
            "bank metadata in the Parquet footer is malformed",
            source=str(path),
            field=BANK_METADATA_KEY.decode(),
        ) from None


def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
