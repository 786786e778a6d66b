"""Settings of `steer generate --llm` (never holds the API key itself)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class LLMOptions(BaseModel):
    """How to ask the model. The key is read from `api_key_env` when the
    client is made and is never stored, logged or written to a bank."""

    model_config = ConfigDict(extra="forbid")

    base_url: str | None = None
    api_key_env: str = "OPENAI_API_KEY"
    temperature: float = Field(default=0.7, ge=0, le=2)
    max_tokens: int = Field(default=1024, ge=16)
    attempts: int = Field(default=3, ge=1, le=20, description="requests per question")
    concurrency: int = Field(default=8, ge=1)
    timeout_s: float = Field(default=120.0, gt=0)
    max_retries: int = Field(default=2, ge=0, description="client retries on 429/5xx")
    json_mode: bool = Field(default=True, description="ask for response_format json_object")
    require_payload: bool = Field(
        default=False, description="reject questions without a structured payload"
    )
