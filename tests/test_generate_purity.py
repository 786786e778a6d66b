"""Solvers are deterministic and pure: the premise on which generation skips
the second solve of a payload that decodes to the very data its key was
solved from (steer.generate._generate._resolved_payload).

For every shipped template (both suites) and grade, a few sampled instances
(and their matched controls) are solved twice on deep copies and give the same
solution; solving never changes `instance.data`; and the payload's JSON round
trip, solved again, gives the same key (what the skipped second solve checked).
Generation with every payload re-solved writes the same questions as
generation with the skip.
"""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from steer.generate import _generate
from steer.generate._control import control_instance
from steer.generate._registry import SOLVERS, STRUCTURES, Instance, Resample, Solution
from steer.templates import Template, load_templates
from steer.templates._vars import Unmet

TEMPLATES = load_templates()
PER_GRADE = 3
TRIES = 60


def _copy(instance: Instance) -> Instance:
    return Instance(
        copy.deepcopy(instance.data),
        dict(instance.fields),
        None if instance.choices is None else list(instance.choices),
    )


def _outcome(solve, instance: Instance) -> tuple[object, ...] | str:  # type: ignore[no-untyped-def]
    """Everything a solution says (a Resample's message when there is none)."""
    try:
        s: Solution = solve(instance)
    except Resample as exc:
        return f"resample: {exc}"
    pool = s.pool() if callable(s.pool) else s.pool
    return (s.choice, s.value, s.text, s.text_fields(), list(pool[:8]))


def _check_pure(template_id: str, solve, instance: Instance) -> bool:  # type: ignore[no-untyped-def]
    """Asserts the solver's determinism and purity on `instance`; whether it
    solved (False: the draw is one the generator would redraw)."""
    first = _outcome(solve, _copy(instance))
    assert _outcome(solve, _copy(instance)) == first, f"{template_id}: not deterministic"
    before = repr(instance.data)
    own = _outcome(solve, instance)
    assert repr(instance.data) == before, f"{template_id}: solve changed instance.data"
    assert own == first, f"{template_id}: a deep copy solves differently"
    payload = json.loads(_generate._PAYLOAD.encode(instance.data))
    again = _outcome(solve, Instance(payload, dict(instance.fields), instance.choices))
    if isinstance(first, str):
        return False
    assert isinstance(again, tuple), f"{template_id}: its payload does not solve ({again})"
    assert again[:3] == first[:3], f"{template_id}: its payload solves to another key"
    return True


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda t: t.spec.id)
def test_solvers_are_deterministic_and_pure(template: Template) -> None:
    t = template.spec
    structure, solver = STRUCTURES[t.structure], SOLVERS[t.solver]
    rng = np.random.default_rng(list(t.id.encode()))
    for grade, spec in sorted(t.grade.items()):
        solved = 0
        for _ in range(TRIES):
            try:
                instance = structure.sample(rng, spec, t)
            except (Resample, Unmet):
                continue
            if not _check_pure(f"{t.id} grade {grade}", solver.solve, instance):
                continue
            if t.control is not None:
                try:
                    control = control_instance(rng, spec, t, instance)
                except Resample:
                    continue
                _check_pure(f"{t.id} grade {grade} (control)", solver.solve, control)
            solved += 1
            if solved == PER_GRADE:
                break
        assert solved, f"{t.id} grade {grade}: no instance solved in {TRIES} draws"


@pytest.mark.parametrize("suite", ["steer", "steer-me"])
def test_skipping_the_second_solve_changes_nothing(
    suite: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every payload re-solved (the check the skip stands for) passes and
    writes the same bank."""
    templates = [t for t in load_templates(suite) if t.element.startswith(f"{suite}.")]
    skipped = _generate.generate_questions(templates, per_cell=2, seed=3)
    monkeypatch.setattr(_generate, "ALWAYS_RESOLVE", True)
    resolved = _generate.generate_questions(templates, per_cell=2, seed=3)
    assert resolved.equals(skipped)
