"""Question-bank metadata: provenance kept in the Parquet file's footer."""

from __future__ import annotations

import datetime as dt
import os
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

# Key of the JSON document in the Parquet schema metadata.
BANK_METADATA_KEY = b"steer.bank"


def _now() -> str:
    # SOURCE_DATE_EPOCH (reproducible-builds.org) pins the stamp for byte-identical banks.
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    when = (
        dt.datetime.fromtimestamp(int(epoch), dt.UTC)
        if epoch.isdigit()
        else dt.datetime.now(dt.UTC)
    )
    return when.isoformat(timespec="seconds")


class BankMetadata(BaseModel):
    """Who made a bank and how: enough to regenerate or trace it."""

    model_config = ConfigDict(extra="forbid")

    steer_version: str
    created_at: str = Field(default_factory=_now, description="UTC, ISO 8601")
    origin: Literal["generate", "import", "other"] = "other"
    n_questions: int = Field(ge=0)
    elements: list[str] = []
    seed: int | None = None
    per_cell: int | None = None
    grades: tuple[int, int] | None = None
    domains: list[str] | None = None
    sources: list[str] = Field(default_factory=list, description="imported files")
    option_order: Literal["permuted", "kept"] | None = Field(
        default=None,
        description="'permuted': each question's options were put in a seeded order "
        "(recorded per question in `option_order`); 'kept': the source's order",
    )
    order_seed: int | None = Field(
        default=None, description="seed of the option permutation (import: --order-seed)"
    )
