"""Parse a model's multi-part (consistency-graded) question, or say why not.

Such a question has no key: its parts are graded together by the template's
consistency rule, so the reply must have the template's parts, each with the
template's number of options, laid out so the rule can compare them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from steer.generate._consistency import verify_parts
from steer.generate.llm._parse import clean_options, load_object, validated
from steer.generate.llm._reject import Rejected


class LLMPart(BaseModel):
    """One part: its own question and options."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question_text: str = Field(min_length=1)
    options: list[str]


class LLMMultiPart(BaseModel):
    """What the model must return for a consistency-graded question (no
    `correct_index`: a key would be meaningless, so it is an unknown field)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question_text: str = Field(min_length=1, description="the introduction all parts share")
    parts: list[LLMPart]
    explanation: str = Field(min_length=1)
    payload: dict[str, Any] | None = None


def parse_parts(text: str, n_options: list[int], rule: str) -> LLMMultiPart:
    """The reply as `len(n_options)` parts with `n_options[i]` options each,
    able to carry `rule`; raises `Rejected`."""
    q = validated(LLMMultiPart, load_object(text))
    if len(q.parts) != len(n_options):
        raise Rejected(
            "wrong_part_count", f"{len(q.parts)} part(s), the question needs {len(n_options)}"
        )
    parts = []
    for i, (part, n) in enumerate(zip(q.parts, n_options, strict=True)):
        options = clean_options(part.options, n, f"part {i + 1}: ")
        parts.append(LLMPart(question_text=part.question_text.strip(), options=options))
    problem = verify_parts([(p.question_text, p.options) for p in parts], rule)
    if problem:
        raise Rejected("rule_mismatch", problem)
    return q.model_copy(update={"parts": parts, "question_text": q.question_text.strip()})
