"""Transcripts: what a run sent and received for each question.

`transcripts.jsonl` in a run directory holds one `Transcript` per line, one
line per question (all parts of a multi-part question share a line),
appended and fsynced with the journal batch that holds its responses. A
question asked again (`--retry-errors`) gets a new line; the last line for a
question id is the current one. Nothing secret is stored: messages and
sampling parameters only, never an API key or a request header.

Readers (`steer show`, report drill-down, games) validate lines with these
models; `TRANSCRIPT_VERSION` changes when a field changes meaning.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from steer.schema.response import Adaptation

TRANSCRIPT_VERSION = 1


class Exchange(BaseModel):
    """One request to the model and what came back (or why nothing did)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["answer", "reason"] = Field(
        description="answer turns want a letter; reason turns free text"
    )
    messages: list[dict[str, str]] = Field(description="the exact messages sent, in order")
    params: dict[str, Any] = Field(description="sampling parameters sent with them")
    raw_reply: str | None = Field(
        default=None, description="reply body as received (first 64 KiB), when there was one"
    )
    reply_text: str | None = Field(default=None, description="assistant text parsed from it")
    tokens_in: int = Field(default=0, ge=0)
    tokens_out: int = Field(default=0, ge=0)
    cost_usd: float | None = None
    latency_s: float = Field(default=0.0, ge=0)
    cached: bool = Field(default=False, description="served by the response cache, not paid")
    error: str | None = Field(default=None, description="why the request failed, after retries")
    started_at: float = Field(description="Unix time the request was made")


class PartAnswer(BaseModel):
    """The answer parsed for one question part."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    chosen_index: int = Field(
        ge=-2, description="-1 = no answer; -2 = answered with no listed option"
    )
    option_probs: list[float] | None = None
    response_text: str | None = None
    explanation: str | None = None
    error: str | None = None


class Transcript(BaseModel):
    """Everything one question's conversation consisted of."""

    model_config = ConfigDict(extra="forbid")

    transcript_version: int = TRANSCRIPT_VERSION
    run_id: str
    model: str
    backend: str
    adaptation: Adaptation
    bank_sha256: str | None = None
    sample: int = Field(default=0, ge=0)
    base_id: str = ""
    question_ids: list[str] = Field(description="the parts asked, in order")
    given: list[dict[str, Any]] | None = Field(
        default=None,
        description="the question rows a non-chat backend (reference agent) was given",
    )
    exchanges: list[Exchange] = Field(default_factory=list)
    answers: list[PartAnswer] = Field(default_factory=list)
    error: str | None = Field(default=None, description="why the question has no answer")
    started_at: float
    finished_at: float
