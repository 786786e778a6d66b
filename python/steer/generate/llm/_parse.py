"""Parse a model's reply into a candidate question, or say why not."""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from steer._native import scan_json
from steer._scan import MAX_DEPTH
from steer.generate.llm._reject import Rejected

M = TypeVar("M", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*\n(.*?)\n\s*```\s*$", re.DOTALL)


class LLMQuestion(BaseModel):
    """What the model must return (unknown keys are an error)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    question_text: str = Field(min_length=1)
    options: list[str]
    correct_index: int
    explanation: str = Field(min_length=1)
    payload: dict[str, Any] | None = None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _clean(text: str) -> str:
    return " ".join(text.split())


def load_object(text: str) -> dict[str, Any]:
    """The reply's JSON object (a ```json fence is allowed); raises `Rejected`."""
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    # `json` recurses once per level: a reply nested thousands deep would raise
    # RecursionError, so measure the depth first (one linear pass in Rust).
    deep = scan_json(body.encode("utf-8", "surrogatepass"), MAX_DEPTH)
    if deep is not None:
        problem = f"nested more than {MAX_DEPTH} levels" if deep[0] == "depth" else "not UTF-8"
        raise Rejected("bad_json", f"{problem} (line {deep[1]}, column {deep[2]})")
    try:
        raw = json.loads(body, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:
        raise Rejected("bad_json", str(exc)[:120]) from None
    if not isinstance(raw, dict):
        raise Rejected("bad_json", f"expected an object, got {type(raw).__name__}")
    return raw


def validated(model: type[M], raw: dict[str, Any]) -> M:
    """`raw` as `model`; missing and malformed fields become a `Rejected`."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        missing = [".".join(map(str, e["loc"])) for e in exc.errors() if e["type"] == "missing"]
        if missing:
            raise Rejected("missing_fields", ", ".join(missing)) from None
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"])
        raise Rejected("bad_fields", f"{where}: {err['msg']}") from None


def clean_options(options: list[str], n_options: int, where: str = "") -> list[str]:
    """Whitespace-normalized options, `n_options` of them, non-empty and distinct."""
    out = [_clean(o) for o in options]
    if len(out) != n_options:
        raise Rejected(
            "wrong_option_count", f"{where}{len(out)} options, the grade needs {n_options}"
        )
    if any(not o for o in out):
        raise Rejected("bad_fields", f"{where}an option is empty")
    if len({o.casefold() for o in out}) != len(out):
        raise Rejected("duplicate_options", f"{where}two options read the same")
    return out


def parse_reply(text: str, n_options: int) -> LLMQuestion:
    """The reply as a question with `n_options` distinct options; raises `Rejected`."""
    q = validated(LLMQuestion, load_object(text))
    options = clean_options(q.options, n_options)
    if not 0 <= q.correct_index < len(options):
        raise Rejected("index_out_of_range", f"correct_index {q.correct_index}")
    return q.model_copy(update={"options": options, "question_text": q.question_text.strip()})
