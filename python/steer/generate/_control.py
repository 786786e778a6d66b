"""Matched control parts (issue 20): where the construct fixes the key's form.

Avoiding a bias in 2.4.c–e means choosing the option of higher expected value,
which is the gamble, the sure thing or accepting the bet by design, so one
question alone is keyed by its form ("always the gamble" scores 100%). A
template with a `control` pairs each question with the same scenario drawn
under the control's constraints, where another choice has the higher expected
value. The two are the parts of one question, in a seeded order, right only if
both are: an agent that always picks one kind of option gets one part wrong,
and a biased model is still caught by the original. The control keeps its
original's order of choices, so its key sits at another position.
"""

from __future__ import annotations

import numpy as np

from steer.generate._registry import Instance, Resample, Solution
from steer.generate._scenario import scenario_instance
from steer.templates._model import GradeSpec, TemplateSpec, control_template
from steer.templates._vars import Unmet

MAX_DRAWS = 200

ORIGINAL, CONTROL = "original", "control"


def key_choice(instance: Instance, solution: Solution) -> int:
    """The template choice (index into `choices`) the key stands for."""
    assert solution.choice is not None
    return int(instance.data["order"][solution.choice])


def control_instance(
    rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec, original: Instance
) -> Instance:
    """The control of `original`: a fresh draw under the control's constraints
    (redrawn up to `MAX_DRAWS` times, keeping the original), its choices in the
    original's order, its payload marked with its role."""
    control = control_template(t)
    problem = ""
    for _ in range(MAX_DRAWS):
        try:
            instance = scenario_instance(rng, spec, control, order=list(original.data["order"]))
        except Unmet as exc:
            problem = str(exc)
            continue
        original.data["role"] = ORIGINAL
        instance.data["role"] = CONTROL
        return instance
    raise Resample(f"no control drawn in {MAX_DRAWS} draws ({problem})")


def check_flipped(original: tuple[Instance, Solution], control: tuple[Instance, Solution]) -> None:
    """The control must be keyed on another choice than its original."""
    if key_choice(*original) == key_choice(*control):
        raise Resample("the control is keyed on the same choice as its original")
