"""Run manifests: everything needed to reproduce a run, and nothing secret."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from steer.schema.response import Adaptation

MANIFEST_VERSION = 1


class RunManifest(BaseModel):
    """`manifest.json` of a run directory.

    API keys never appear here: backends read them from the environment, and
    `generation` holds only sampling parameters.
    """

    model_config = ConfigDict(extra="forbid")

    manifest_version: int = MANIFEST_VERSION
    run_id: str
    created_at: str = Field(description="UTC, ISO 8601")
    steer_version: str
    bank_path: str
    bank_sha256: str
    n_questions: int = Field(ge=0)
    model: str = Field(description="model spec, e.g. 'agent:oracle' or 'openai:gpt-4o'")
    backend: str
    revision: str | None = None
    generation: dict[str, Any] = Field(default_factory=dict)
    adaptation: Adaptation = Adaptation()
    seed: int = 0
    limit: int | None = None
    asked: list[str] | None = Field(
        default=None,
        description="question ids the run was asked to answer (the denominator of its "
        "scores); None in manifests written before steer recorded it",
    )
    spent_usd: float = Field(
        default=0.0, ge=0, description="paid so far across every invocation on this directory"
    )
    python: str = ""
    platform: str = ""
