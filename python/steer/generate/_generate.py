"""Generate question banks from templates, every key proven by its solver."""

from __future__ import annotations

import json
import zlib
from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa

from steer.bank import questions_to_table, validate_questions
from steer.errors import FileFormatError, InputError
from steer.generate import _distractors, _solvers, _structures  # noqa: F401  (registration)
from steer.generate._options import choice_options, numeric_options, verify
from steer.generate._registry import SOLVERS, STRUCTURES, Instance, Resample
from steer.schema import Question
from steer.taxonomy import load_taxonomy
from steer.templates import Template, load_templates, render

MAX_DRAWS = 200


def _rng(seed: int, template_id: str, grade: int, index: int, draw: int) -> np.random.Generator:
    # crc32 rather than hash(): Python salts str hashes per process.
    key = [seed, zlib.crc32(template_id.encode()), grade, index, draw]
    return np.random.default_rng(np.random.SeedSequence(key))


def _one_question(
    template: Template, grade: int, index: int, seed: int, seen: set[str]
) -> Question:
    t = template.spec
    spec = t.grade[grade]
    structure, solver = STRUCTURES[t.structure], SOLVERS[t.solver]
    problem = "no draw made"
    for draw in range(MAX_DRAWS):
        rng = _rng(seed, t.id, grade, index, draw)
        try:
            instance = structure.sample(rng, spec, t)
            solution = solver.solve(instance)
            if solver.answer == "numeric":
                texts, tags, correct = numeric_options(rng, instance, solution, t, spec, grade)
            else:
                texts, tags, correct = choice_options(instance, solution, t)
        except Resample as exc:
            problem = str(exc)
            continue
        problem = verify(texts, tags, correct) or ""
        if problem:
            continue
        # The stored payload must reproduce the key on its own.
        payload = json.dumps(instance.data, separators=(",", ":"))
        again = solver.solve(Instance(json.loads(payload), instance.fields, instance.choices))
        if (again.choice, again.value) != (solution.choice, solution.value):
            raise AssertionError(f"{t.id}: solver is not deterministic on its payload")
        words = {name: str(rng.choice(choices)) for name, choices in t.words.items()}
        values = {**words, **instance.fields, **solution.fields, "answer": texts[correct]}
        text = render(t.phrasings[int(rng.integers(len(t.phrasings)))], values)
        fingerprint = text + "\x1f" + "\x1f".join(texts)
        if fingerprint in seen:
            problem = "duplicate of an earlier question"
            continue
        seen.add(fingerprint)
        explanation = (
            render(t.explanation, values)
            if t.explanation
            else (
                f"{solution.fields.get('working', '').rstrip('.')}. The answer is {texts[correct]}."
            ).lstrip(". ")
        )
        base_id = f"{t.id}.g{grade}.{index}"
        return Question(
            question_id=Question.make_id(template.element, base_id),
            element=template.element,
            base_id=base_id,
            part=0,
            question_text=text,
            options=texts,
            correct_index=correct,
            type=t.type,
            domain=t.domain,
            perspective=t.perspective,
            grade=grade,
            template_id=t.id,
            seed=seed,
            source=f"steer:{template.source}",
            explanation=explanation,
            option_tags=tags,
            answer_value=solution.value,
            payload=payload,
        )
    raise FileFormatError(
        f"template {t.id!r}, grade {grade}: no valid question in {MAX_DRAWS} draws "
        f"(last problem: {problem})",
        source=template.source,
        where=f"line {template.line}" if template.line else None,
    )


def generate_questions(
    templates: Iterable[Template],
    *,
    per_cell: int = 5,
    seed: int = 0,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
) -> pa.Table:
    """Generate `per_cell` questions per template × grade; returns a validated bank.

    Deterministic for a seed; no two questions share their text and options.
    """
    if per_cell < 1:
        raise InputError(f"per_cell must be at least 1, got {per_cell}")
    seen: set[str] = set()
    questions = []
    for template in templates:
        if domains and template.spec.domain not in domains:
            continue
        for grade in sorted(template.spec.grade):
            if grades and not grades[0] <= grade <= grades[1]:
                continue
            questions.extend(_one_question(template, grade, i, seed, seen) for i in range(per_cell))
    if not questions:
        raise InputError("no templates match the requested elements, grades and domains")
    return validate_questions(questions_to_table(questions), "<generated>")


def generate_bank(
    elements: Sequence[str] | None = None,
    *,
    per_cell: int = 5,
    seed: int = 0,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
) -> pa.Table:
    """Generate a bank for taxonomy selectors (`steer.3.1`, `1.1.c`, `steer.2.*.b`)."""
    taxonomy = load_taxonomy()
    templates = load_templates()
    if elements:
        wanted: set[str] = set()
        for selector in elements:
            matched = taxonomy.select(selector)
            if not matched:
                taxonomy.element(selector)  # raises with 'did you mean'
            wanted.update(e.id for e in matched)
        chosen = [t for t in templates if t.element in wanted]
        missing = sorted(wanted - {t.element for t in chosen})
        if missing and not chosen:
            raise InputError(f"no templates yet for {', '.join(missing)}")
    else:
        chosen = list(templates)
    return generate_questions(chosen, per_cell=per_cell, seed=seed, grades=grades, domains=domains)
