"""One template × grade to ask about: the gold example shown to the model and
what is learned from the template path's renderings of it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from steer.bank._order import in_payload_order
from steer.generate._generate import MAX_DRAWS, generate_questions
from steer.generate._registry import SOLVERS, STRUCTURES, Resample
from steer.generate.llm._stated import Sample, Stated, learn_stated
from steer.taxonomy import Element
from steer.templates import Template
from steer.templates._vars import Unmet

# Renderings the stated numbers are learned from (the first is the gold example).
SAMPLES = 12


@dataclass
class Cell:
    template: Template
    element: Element
    grade: int
    rows: list[dict[str, Any]]  # the gold question, one row per part
    stated: Stated
    n_choices: int | None = None  # how many natural choices the structure has at this grade

    @property
    def gold(self) -> dict[str, Any]:
        return self.rows[0]

    @property
    def multipart(self) -> bool:
        return SOLVERS[self.template.spec.solver].answer == "consistency"

    @property
    def gold_payload(self) -> dict[str, Any] | None:
        payload = self.gold.get("payload")
        return json.loads(payload) if payload else None


def _n_choices(template: Template, grade: int, seed: int) -> int | None:
    """The structure's number of natural choices at `grade` (fixed by the grade)."""
    t = template.spec
    rng = np.random.default_rng([seed & 0xFFFFFFFF, grade])
    for _ in range(MAX_DRAWS):
        try:
            choices = STRUCTURES[t.structure].sample(rng, t.grade[grade], t).choices
        except (Resample, Unmet):
            continue
        return None if choices is None else len(choices)
    return None


def _questions(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Rows grouped by question (the parts of one question share a base_id).
    Of an original paired with its matched control (a template's `control`)
    only the original is kept: a model writes single questions under the
    template's own constraints."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if row.get("payload") and json.loads(row["payload"]).get("role") == "control":
            continue
        grouped.setdefault(row["base_id"], []).append(row)
    return list(grouped.values())


def _sample(rows: list[dict[str, Any]]) -> Sample:
    options = [list(r["options"]) for r in rows]
    text = "\n".join(r["question_text"] + "\n" + "\n".join(r["options"]) for r in rows)
    return Sample(json.loads(rows[0]["payload"] or "{}"), text, options)


def make_cell(template: Template, element: Element, grade: int, seed: int) -> Cell:
    """The gold example (the template path's first question at this seed) and
    what its renderings say about the numbers a question must state."""
    table = generate_questions([template], per_cell=SAMPLES, seed=seed, grades=(grade, grade))
    # Generated questions are shown in a seeded order (`option_order`) while
    # their payload keeps the structure's order. The model is asked for options
    # that follow its payload (a choice solver's answer is a position in it),
    # so the example goes back to the payload's order: its options, key and
    # tags, and for a consistency question the template's own rule.
    written = {"consistency_rule": template.spec.consistency_rule}
    rows = [
        in_payload_order(r) | (written if r["grading"] == "consistency" else {})
        for r in table.to_pylist()
    ]
    questions = _questions(rows)
    stated = learn_stated([_sample(q) for q in questions if q[0]["payload"]])
    return Cell(template, element, grade, questions[0], stated, _n_choices(template, grade, seed))
