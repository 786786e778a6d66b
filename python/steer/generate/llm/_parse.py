"""Parse a model's reply into a candidate question, or say why not."""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from steer.generate.llm._reject import Rejected

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


class LLMQuestion(BaseModel):
    """What the model must return (unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question_text: str = Field(min_length=1)
    options: list[str]
    correct_index: int
    explanation: str = Field(min_length=1)
    payload: dict[str, Any] | None = None


def _clean(text: str) -> str:
    return " ".join(text.split())


def parse_reply(text: str, n_options: int) -> LLMQuestion:
    """The reply as a question with `n_options` distinct options; raises `Rejected`."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        raw = json.loads(body)
    except ValueError as exc:
        raise Rejected("bad_json", str(exc)[:120]) from None
    if not isinstance(raw, dict):
        raise Rejected("bad_json", f"expected an object, got {type(raw).__name__}")
    try:
        q = LLMQuestion.model_validate(raw)
    except ValidationError as exc:
        missing = [str(e["loc"][0]) for e in exc.errors() if e["type"] == "missing"]
        if missing:
            raise Rejected("missing_fields", ", ".join(missing)) from None
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise Rejected("bad_fields", f"{where}: {err['msg']}") from None
    options = [_clean(o) for o in q.options]
    if len(options) != n_options:
        raise Rejected("wrong_option_count", f"{len(options)} options, the grade needs {n_options}")
    if any(not o for o in options):
        raise Rejected("bad_fields", "an option is empty")
    if len({o.casefold() for o in options}) != len(options):
        raise Rejected("duplicate_options", "two options read the same")
    if not 0 <= q.correct_index < len(options):
        raise Rejected("index_out_of_range", f"correct_index {q.correct_index}")
    return q.model_copy(update={"options": options, "question_text": q.question_text.strip()})
