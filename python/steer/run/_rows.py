"""Response rows as the journal stores them."""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from steer.adapt import Answer
from steer.adapt._order import to_bank_order
from steer.schema import NO_ANSWER, OFF_OPTIONS, OFF_OPTIONS_TAG, Adaptation

UNTAGGED = "untagged"


def error_type(q: Mapping[str, Any], chosen: int) -> str | None:
    """The error type of answer `chosen` to question row `q` (in the order it
    was shown): the chosen option's tag, a digit slip `x+wrong_tens_digit`
    under `x` (`untagged` when the option has none), `off_options` for an
    answer that named no option; None for right answers, no-answers and
    parts without a key."""
    correct = q.get("correct_index")
    if correct is None or chosen == NO_ANSWER or chosen == int(correct):
        return None
    if chosen == OFF_OPTIONS:
        return OFF_OPTIONS_TAG
    tags = q.get("option_tags") or ()
    tag = tags[chosen] if 0 <= chosen < len(tags) else None
    return str(tag).split("+", 1)[0] if tag else UNTAGGED


#: A row's sample set by the runner (a collective's member, `run_bank(sample=…)`).
SAMPLE_KEY = "_sample"


def sample_of(q: Mapping[str, Any]) -> int:
    """Which sample of its question a row is: the runner's `SAMPLE_KEY` (a
    collective's member), else an elicitation row's payload sample (`steer
    play --samples`); 0 for every other question."""
    if SAMPLE_KEY in q:
        return int(q[SAMPLE_KEY])
    if q.get("grading") != "elicit" or not q.get("payload"):
        return 0
    return int(json.loads(q["payload"]).get("sample", 0))


def response_row(
    run_id: str,
    spec: str,
    family: str,
    adaptation: Adaptation,
    q: Mapping[str, Any],
    a: Answer,
    *,
    bank_sha256: str | None = None,
    sample: int = 0,
) -> dict[str, Any]:
    # Under `order=shuffle:K` the question was shown permuted: the row holds
    # the answer in the bank's option order (see steer.adapt._order).
    chosen, correct, probs = to_bank_order(q, a.chosen_index, a.option_probs)
    return {
        "run_id": run_id,
        "model": spec,
        "backend": family,
        "adaptation": adaptation.model_dump(),
        "question_id": q["question_id"],
        "base_id": q["base_id"],
        "part": q["part"],
        "element": q["element"],
        "domain": q["domain"],
        "type": q["type"],
        "perspective": q["perspective"],
        "grade": q["grade"],
        "n_options": len(q["options"]),
        "chosen_index": chosen,
        "correct_index": correct,
        "consistency_rule": q["consistency_rule"],
        "option_probs": probs,
        "response_text": a.response_text,
        "explanation": a.explanation,
        "tokens_in": a.tokens_in,
        "tokens_out": a.tokens_out,
        "cost_usd": a.cost_usd,
        "latency_s": a.latency_s,
        "error": a.error,
        "bank_sha256": bank_sha256,
        "sample": sample,
        "recorded_at": round(time.time(), 6),
        "answer_read": getattr(a, "answer_read", None),
        "error_type": error_type(q, a.chosen_index),
    }
