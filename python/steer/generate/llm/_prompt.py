"""The generation prompt: a template's instructions plus one gold example that
the ordinary generator rendered (and its solver proved)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from steer.generate._registry import DISTRACTORS
from steer.taxonomy import Element
from steer.templates import Template

SYSTEM = (
    "You write multiple-choice questions for a benchmark of economic rationality. "
    "Every question must have exactly one correct option, wrong options that "
    "reflect realistic mistakes, and numbers that make the correct answer "
    "checkable by hand. You reply with a single JSON object and nothing else."
)


def _example(gold: dict[str, Any], with_payload: bool) -> str:
    shown: dict[str, Any] = {
        "question_text": gold["question_text"],
        "options": gold["options"],
        "correct_index": gold["correct_index"],
        "explanation": gold.get("explanation") or "",
    }
    if with_payload and gold.get("payload"):
        shown["payload"] = json.loads(gold["payload"])
    return json.dumps(shown, indent=2, ensure_ascii=False)


def build_messages(
    template: Template, element: Element, grade: int, gold: dict[str, Any], variant: int
) -> list[dict[str, str]]:
    """System and user turns asking for one new question like `gold`."""
    t = template.spec
    n_options = len(gold["options"])
    with_payload = bool(gold.get("payload"))
    lines = [
        f"Skill under test: {element.name} ({element.label}).",
        f"Definition: {element.definition}",
        f"Domain: {t.domain}. Grade level: {grade} (write for a student at this level).",
    ]
    if t.type:
        lines.append(f"Question type: {t.type}.")
    mistakes = [f"- {name}: {DISTRACTORS[name].doc}" for name in t.distractors]
    mistakes += [f"- {tag}" for tag in t.wrong]
    mistakes += [f"- {c.error}" for c in t.choices if c.error != "other"]
    if mistakes:
        lines += ["Wrong options should come from mistakes such as:", *dict.fromkeys(mistakes)]
    lines += [
        "",
        "Here is an example question of this kind, with its verified answer:",
        _example(gold, with_payload),
        "",
        "Write ONE new question that tests the same skill in the same domain at the "
        "same grade level. Change the setting, the names and all the numbers; do not "
        "copy the example's wording.",
        "",
        "Reply with a JSON object with exactly these keys:",
        '- "question_text": the question, self-contained, as a string;',
        f'- "options": a list of exactly {n_options} distinct answer strings;',
        f'- "correct_index": the 0-based position of the correct option (0 to {n_options - 1});',
        '- "explanation": a short worked solution that ends with the correct answer;',
    ]
    if with_payload:
        keys = ", ".join(sorted(json.loads(gold["payload"])))
        lines += [
            '- "payload": the problem in the same structure as the example\'s payload '
            f"(keys: {keys}), with the numbers of YOUR question, so a solver can check "
            "the answer. Options that name choices must follow the payload's order.",
        ]
    if t.unit:
        lines.append(f'Write amounts with the unit "{t.unit}" as in the example.')
    if gold.get("answer_value") is not None:
        lines.append(f"Round numeric options to {t.decimals} decimal places at most.")
    lines.append(f"(Request {variant + 1}; make this question different from any other.)")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": "\n".join(lines)}]


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """sha256 of the canonical JSON of the conversation."""
    blob = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode()).hexdigest()
