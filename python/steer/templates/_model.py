"""The template file format (TOML under `templates/<benchmark>/`).

One file per element. Each `[[template]]` fixes a domain and the wording, the
structure to sample (a lottery, a menu of lotteries, a bimatrix game …), the
solver that proves the key, the distractor generators (each tagged with the
error it represents) and per-grade sizes.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GradeSpec(_Strict):
    """How big the sampled problem is at one grade level."""

    size: int = Field(ge=1, le=12, description="outcomes, choices or actions to sample")
    options: int | None = Field(
        default=None,
        ge=2,
        le=10,
        description="answer options (numeric answers only; choice answers use `size`)",
    )
    low: float = Field(default=1, description="smallest sampled amount")
    high: float = Field(default=100, description="largest sampled amount")
    step: float = Field(default=1, gt=0, description="sampled amounts are multiples of this")

    @model_validator(mode="after")
    def _range(self) -> GradeSpec:
        if self.high < self.low:
            raise ValueError(f"high ({self.high}) is below low ({self.low})")
        return self


class TemplateSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    domain: str
    type: str = ""
    perspective: str = ""
    structure: str
    solver: str
    distractors: list[str] = []
    phrasings: list[str] = Field(min_length=1)
    explanation: str | None = None
    unit: str = Field(default="", description="prefix for amounts, e.g. '$'")
    decimals: int = Field(default=2, ge=0, le=6)
    words: dict[str, list[str]] = {}
    grade: dict[int, GradeSpec] = Field(min_length=1)

    @field_validator("grade")
    @classmethod
    def _grade_levels(cls, v: dict[int, GradeSpec]) -> dict[int, GradeSpec]:
        bad = [g for g in v if not 0 <= g <= 14]
        if bad:
            raise ValueError(f"grade levels must be 0-14, got {bad[0]}")
        return v

    @field_validator("words")
    @classmethod
    def _non_empty_words(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, choices in v.items():
            if not choices:
                raise ValueError(f"words.{name} has no choices")
        return v


class TemplateFile(_Strict):
    element: str
    template: list[TemplateSpec] = Field(min_length=1)
