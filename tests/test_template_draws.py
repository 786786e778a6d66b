"""Drawing a template's variables: `sample_env` draws every variable from one
batch of uniforms and checks each `require` as soon as the names it reads are
bound, so a bad draw is dropped before the remaining derives run. That must
not change which draws pass or what they hold: the reference below draws one
variable at a time, derives everything, then checks every constraint."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.templates import load_templates
from steer.templates._expr import ExprError, compile_expr
from steer.templates._identity import by_identity
from steer.templates._model import GradeSpec, RangeSpec, TemplateSpec
from steer.templates._vars import Unmet, sample_env, var_specs

CELLS = [
    (t.spec, t.spec.grade[g])
    for t in load_templates()
    if t.spec.require and t.spec.derive
    for g in sorted(t.spec.grade)
]


def reference_draw(rng: np.random.Generator, v: RangeSpec | list[float]) -> float:
    """One variable from one uniform: the k-th step of a range, the k-th item of a list."""
    count = len(v) if isinstance(v, list) else int((v.high - v.low) / v.step + 1e-9) + 1
    k = min(int(rng.random() * count), count - 1)
    return float(v[k]) if isinstance(v, list) else round(v.low + v.step * k, 10)


def reference_env(rng: np.random.Generator, t: TemplateSpec, spec: GradeSpec) -> dict | None:
    """The draw with every derive computed first, or None if any step fails."""
    env = {name: reference_draw(rng, v) for name, v in var_specs(t, spec).items()}
    try:
        for name, text in t.derive.items():
            env[name] = round(compile_expr(text).evaluate(env), 10)
        if not all(compile_expr(text).evaluate(env) for text in t.require):
            return None
    except ExprError:
        return None
    return env


def test_there_are_templates_with_early_constraints() -> None:
    assert len(CELLS) > 20


@settings(max_examples=300, deadline=None)
@given(cell=st.sampled_from(CELLS), seed=st.integers(0, 2**32 - 1))
def test_early_constraints_accept_exactly_the_reference_draws(
    cell: tuple[TemplateSpec, GradeSpec], seed: int
) -> None:
    t, spec = cell
    expected = reference_env(np.random.default_rng(seed), t, spec)
    try:
        got: dict | None = sample_env(np.random.default_rng(seed), t, spec)
    except Unmet:
        got = None
    assert got == expected


def scenario(derive: dict[str, str], require: list[str]) -> TemplateSpec:
    """A one-variable scenario template (a = 1 or 2) with these derives and requires."""
    return TemplateSpec.model_validate(
        {
            "id": "x.draws",
            "domain": "test",
            "type": "positive",
            "structure": "scenario",
            "solver": "formula",
            "answer": "a",
            "vars": {"a": [1, 2]},
            "derive": derive,
            "require": require,
            "phrasings": ["{a}"],
            "grade": {"1": {"size": 1, "options": 3}},
        }
    )


def test_a_failing_variable_only_constraint_stops_before_the_derives() -> None:
    t = scenario({"b": "1 / (a - 1)"}, ["a > 1"])
    for seed in range(40):
        try:
            env = sample_env(np.random.default_rng(seed), t, t.grade[1])
        except Unmet as exc:
            # a = 1 breaks the constraint before b divides by zero.
            assert exc.constraint == "a > 1"
        else:
            assert env == {"a": 2.0, "b": 1.0}


@pytest.mark.parametrize("seed", range(3))
def test_unknown_names_in_constraints_still_fail_with_their_message(seed: int) -> None:
    t = scenario({"b": "a + 1"}, ["c > 0"])
    with pytest.raises(Unmet, match="unknown variable 'c'"):
        sample_env(np.random.default_rng(seed), t, t.grade[1])


def test_by_identity_caches_per_object_not_per_value() -> None:
    calls: list[object] = []

    @by_identity
    def size(x: list[int]) -> int:
        calls.append(x)
        return len(x)

    a, b = [1, 2], [1, 2]
    assert size(a) == size(a) == 2 and len(calls) == 1
    assert size(b) == 2 and len(calls) == 2  # equal but another object
    a.append(3)
    assert size(a) == 2  # the cached value for that object, by design
