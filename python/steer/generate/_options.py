"""Assemble answer options around a proven key, then verify the result."""

from __future__ import annotations

import numpy as np

from steer.generate._format import amount
from steer.generate._registry import DISTRACTORS, Instance, Resample, Solution
from steer.templates._model import GradeSpec, TemplateSpec

KEY_TAG = "key"
FALLBACK_NUMERIC = "arithmetic_slip"
FALLBACK_CHOICE = "other"


def min_gap(key: float, grade: int, decimals: int) -> float:
    """How far a distractor must be from the key and from each other.

    Younger grades get wider gaps so options are told apart without precise
    arithmetic; every gap is at least one unit of the displayed rounding.
    """
    relative = 0.05 if grade <= 4 else 0.02
    return max(10.0**-decimals, relative * abs(key))


def numeric_options(
    rng: np.random.Generator,
    instance: Instance,
    solution: Solution,
    t: TemplateSpec,
    spec: GradeSpec,
    grade: int,
) -> tuple[list[str], list[str], int]:
    """Options (texts), tags and the key's index for a numeric answer."""
    assert solution.value is not None and spec.options is not None
    key = round(solution.value, t.decimals)
    gap = min_gap(key, grade, t.decimals)
    chosen: list[tuple[float, str]] = [(key, KEY_TAG)]

    def fits(value: float) -> bool:
        return all(abs(value - v) >= gap - 1e-12 for v, _ in chosen)

    for name in t.distractors:
        made = DISTRACTORS[name].make(instance, solution)
        if made is None:
            continue
        value = round(float(made), t.decimals)
        if len(chosen) < spec.options and fits(value):
            chosen.append((value, name))
    for _ in range(200):
        if len(chosen) >= spec.options:
            break
        sign = 1 if rng.random() < 0.5 else -1
        value = round(key * (1 + sign * rng.uniform(0.08, 0.45)), t.decimals)
        if fits(value):
            chosen.append((value, FALLBACK_NUMERIC))
    if len(chosen) < spec.options:
        raise Resample("could not find enough distinct distractors")
    order = rng.permutation(len(chosen))
    texts = [amount(chosen[i][0], t.unit, t.decimals) for i in order]
    tags = [chosen[i][1] for i in order]
    return texts, tags, int(np.flatnonzero(order == 0)[0])


def choice_options(
    instance: Instance, solution: Solution, t: TemplateSpec
) -> tuple[list[str], list[str], int]:
    """The structure's natural choices in order, each wrong one tagged by the
    first listed error that leads to it."""
    assert instance.choices is not None and solution.choice is not None
    tags = [FALLBACK_CHOICE] * len(instance.choices)
    tags[solution.choice] = KEY_TAG
    for name in t.distractors:
        index = DISTRACTORS[name].make(instance, solution)
        if index is not None and tags[int(index)] == FALLBACK_CHOICE:
            tags[int(index)] = name
    return list(instance.choices), tags, solution.choice


def verify(texts: list[str], tags: list[str], correct: int) -> str | None:
    """Why the options are unusable, or None when they are fine."""
    if len(set(texts)) != len(texts):
        return "two options read the same"
    if tags.count(KEY_TAG) != 1 or tags[correct] != KEY_TAG:
        return "the key is not exactly one option"
    return None
