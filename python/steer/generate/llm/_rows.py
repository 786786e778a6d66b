"""Accepted model questions as bank rows, in the template path's schema."""

from __future__ import annotations

import json
from typing import Any

from steer.generate._options import FALLBACK_CHOICE, KEY_TAG
from steer.generate.llm._parse import LLMQuestion
from steer.generate.llm._parse_parts import LLMMultiPart
from steer.templates import Template


def _common(
    template: Template,
    grade: int,
    base_id: str,
    seed: int,
    spec: str,
    explanation: str,
    payload: str | None,
    provenance: dict[str, Any],
) -> dict[str, Any]:
    t = template.spec
    verified = bool(provenance["verified"])
    return {
        "element": template.element,
        "base_id": base_id,
        "type": t.type,
        "domain": t.domain,
        "perspective": "",
        "grade": grade,
        "template_id": t.id,
        "seed": seed,
        "source": f"llm:{spec}",
        "explanation": explanation.strip(),
        "tags": [
            "llm",
            "verified" if verified else "unverified",
            "provenance:" + json.dumps(provenance, sort_keys=True, separators=(",", ":")),
        ],
        "payload": payload,
    }


def answer_rows(
    q: LLMQuestion, template: Template, grade: int, base_id: str, value: float | None, **kw: Any
) -> list[dict[str, Any]]:
    """A single-answer question: one row with its key."""
    row = _common(template, grade, base_id, explanation=q.explanation, **kw)
    return [
        {
            **row,
            "question_id": f"{template.element}/{base_id}/0",
            "part": 0,
            "question_text": q.question_text,
            "options": q.options,
            "correct_index": q.correct_index,
            "grading": "answer",
            "option_tags": [
                KEY_TAG if i == q.correct_index else FALLBACK_CHOICE for i in range(len(q.options))
            ],
            "answer_value": value,
        }
    ]


def consistency_rows(
    q: LLMMultiPart, template: Template, grade: int, base_id: str, **kw: Any
) -> list[dict[str, Any]]:
    """A consistency-graded question: one row per part, no key, grouped under
    `base_id` with the template's rule (the introduction opens part 0, as in
    the template path)."""
    row = _common(template, grade, base_id, explanation=q.explanation, **kw)
    return [
        {
            **row,
            "question_id": f"{template.element}/{base_id}/{i}",
            "part": i,
            "question_text": f"{q.question_text}\n\n{p.question_text}"
            if i == 0
            else p.question_text,
            "options": p.options,
            "correct_index": None,
            "grading": "consistency",
            "consistency_group": base_id,
            "consistency_rule": template.spec.consistency_rule,
        }
        for i, p in enumerate(q.parts)
    ]
