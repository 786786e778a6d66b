"""The generation prompt: a template's instructions plus one gold example that
the ordinary generator rendered (and its solver proved)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from steer.generate._consistency import rule_pairs
from steer.generate._registry import DISTRACTORS
from steer.generate.llm._env import derivation_notes
from steer.taxonomy import Element
from steer.templates import Template

SYSTEM = (
    "You write multiple-choice questions for a benchmark of economic rationality. "
    "Every question must have exactly one correct option, wrong options that "
    "reflect realistic mistakes, and numbers that make the correct answer "
    "checkable by hand. You reply with a single JSON object and nothing else."
)


def example_of_rows(rows: list[dict[str, Any]], with_payload: bool) -> dict[str, Any]:
    """The gold question as the model should answer: one object, its parts
    nested for a consistency-graded question."""
    gold = rows[0]
    shown: dict[str, Any]
    if gold["grading"] == "consistency":
        intro, _, first = gold["question_text"].partition("\n\n")
        texts = [first] + [r["question_text"] for r in rows[1:]]
        shown = {
            "question_text": intro,
            "parts": [
                {"question_text": text, "options": r["options"]}
                for text, r in zip(texts, rows, strict=True)
            ],
        }
    else:
        shown = {
            "question_text": gold["question_text"],
            "options": gold["options"],
            "correct_index": gold["correct_index"],
        }
    shown["explanation"] = gold.get("explanation") or ""
    if with_payload and gold.get("payload"):
        shown["payload"] = json.loads(gold["payload"])
    return shown


def _answer_keys(n_options: int) -> list[str]:
    return [
        '- "question_text": the question, self-contained, as a string;',
        f'- "options": a list of exactly {n_options} distinct answer strings;',
        f'- "correct_index": the 0-based position of the correct option (0 to {n_options - 1});',
        '- "explanation": a short worked solution that ends with the correct answer;',
    ]


def _rule_words(rule: str) -> str:
    said = []
    for kind, a, b in rule_pairs(rule):
        if kind == "same":
            said.append(f"the same position in part {a + 1} and part {b + 1}")
        elif kind == "flip":
            said.append(f"mirrored positions in part {a + 1} and part {b + 1} (first and last)")
        else:
            said.append(
                f"in part {b + 1} an option the rule allows after their part {a + 1} answer"
            )
    return "; ".join(said)


def _parts_keys(template: Template, rows: list[dict[str, Any]]) -> list[str]:
    rule = template.spec.consistency_rule or ""
    counts = ", ".join(f"part {i + 1}: {len(r['options'])}" for i, r in enumerate(rows))
    return [
        '- "question_text": the situation all parts share, as a string;',
        f'- "parts": a list of exactly {len(rows)} objects, one per part in order, each with '
        '"question_text" (that part\'s question) and "options" (its distinct answer '
        f"strings; {counts});",
        '- "explanation": a short argument for why a consistent answerer\'s choices agree;',
        "There is no single correct answer, so do not include correct_index. The parts are "
        f"graded together (rule {rule}): a consistent answerer picks {_rule_words(rule)}. "
        "Keep the example's order of options so that positions the rule pairs offer the "
        "same choice, written alike where the example writes them alike.",
    ]


def build_messages(
    template: Template, element: Element, grade: int, rows: list[dict[str, Any]], variant: int
) -> list[dict[str, str]]:
    """System and user turns asking for one new question like the gold one
    (`rows`: its rows, one per part)."""
    t = template.spec
    gold = rows[0]
    multipart = gold["grading"] == "consistency"
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
    if mistakes and not multipart:
        lines += ["Wrong options should come from mistakes such as:", *dict.fromkeys(mistakes)]
    shown = (
        "an example multi-part question of this kind, with its verified structure"
        if multipart
        else "an example question of this kind, with its verified answer"
    )
    lines += [
        "",
        f"Here is {shown}:",
        json.dumps(example_of_rows(rows, with_payload), indent=2, ensure_ascii=False),
        "",
        "Write ONE new question that tests the same skill in the same domain at the "
        "same grade level. Change the setting, the names and all the numbers; do not "
        "copy the example's wording.",
        "",
        "Reply with a JSON object with exactly these keys:",
        *(_parts_keys(template, rows) if multipart else _answer_keys(len(gold["options"]))),
    ]
    if with_payload:
        keys = ", ".join(sorted(json.loads(gold["payload"])))
        lines += [
            '- "payload": the problem in the same structure as the example\'s payload '
            f"(keys: {keys}), with the numbers of YOUR question, so a solver can check "
            "the answer. Options that name choices must follow the payload's order.",
            "Every number of the payload that the question relies on must be written in the "
            "question text or options (as an amount, a count or a percentage).",
        ]
        notes = derivation_notes(template)
        if notes and "env" in json.loads(gold["payload"]):
            lines += ["In the payload, these values follow from the others:", *notes]
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
