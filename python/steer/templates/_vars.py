"""Sampled variables of a template: draw `vars`, compute `derive`, enforce `require`."""

from __future__ import annotations

import functools
import math

import numpy as np

from steer.templates._expr import Expr, ExprError, compile_expr
from steer.templates._model import GradeSpec, RangeSpec, TemplateSpec, VarSpec


class Unmet(Exception):  # noqa: N818 - a control-flow signal
    """The draw broke a `require` constraint (or an expression could not be evaluated)."""

    def __init__(self, message: str, constraint: str | None = None) -> None:
        super().__init__(message)
        self.constraint = constraint


@functools.lru_cache(maxsize=4096)
def expr(text: str) -> Expr:
    """Compiled expression, cached (templates reuse the same texts many times)."""
    return compile_expr(text)


def var_specs(t: TemplateSpec, spec: GradeSpec) -> dict[str, VarSpec]:
    return {**t.vars, **spec.vars}


def pick(rng: np.random.Generator, n: int) -> int:
    """A uniform index below `n`. One `rng.random()` costs a quarter of an
    `rng.integers(n)` call from Python, and these draws run hundreds of
    thousands of times per bank; with 53 random bits the bias is negligible."""
    return min(int(rng.random() * n), n - 1)


def _draw(rng: np.random.Generator, v: VarSpec) -> float:
    if isinstance(v, RangeSpec):
        n = math.floor((v.high - v.low) / v.step + 1e-9) + 1
        # Round away float noise from the step multiplication (0.1 * 3 → 0.3).
        return round(v.low + v.step * pick(rng, n), 10)
    return float(v[pick(rng, len(v))])


@functools.lru_cache(maxsize=1024)
def _plan(
    bound: tuple[str, ...], derive: tuple[str, ...], require: tuple[str, ...]
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The requires to check before the first derive (they read only drawn
    variables) and after each derive: a draw that breaks a cheap constraint is
    rejected before the rest of the derives are computed."""
    known = set(bound)
    pending = list(require)

    def ready() -> tuple[str, ...]:
        now = tuple(r for r in pending if expr(r).names <= known)
        for r in now:
            pending.remove(r)
        return now

    first = ready()
    steps = []
    for name in derive:
        known.add(name)
        steps.append(ready())
    # A require naming a variable nothing binds runs last and fails with its message.
    if steps:
        steps[-1] += tuple(pending)
    else:
        first += tuple(pending)
    return first, tuple(steps)


def _require(text: str, env: dict[str, float]) -> None:
    try:
        ok = expr(text).evaluate(env)
    except ExprError as exc:
        raise Unmet(f"require {text!r}: {exc}", text) from None
    if not ok:
        raise Unmet(f"constraint {text!r} not met", text)


def sample_env(rng: np.random.Generator, t: TemplateSpec, spec: GradeSpec) -> dict[str, float]:
    """One draw of every variable; raises `Unmet` when a constraint fails."""
    env = {name: _draw(rng, v) for name, v in var_specs(t, spec).items()}
    first, steps = _plan(tuple(env), tuple(t.derive), tuple(t.require))
    for text in first:
        _require(text, env)
    for (name, text), checks in zip(t.derive.items(), steps, strict=True):
        try:
            env[name] = round(expr(text).evaluate(env), 10)
        except ExprError as exc:
            raise Unmet(f"derive.{name}: {exc}", text) from None
        for check in checks:
            _require(check, env)
    return env


def evaluate(text: str, env: dict[str, float]) -> float:
    """Evaluate a template expression on a draw; `Unmet` if it cannot be."""
    try:
        return expr(text).evaluate(env)
    except ExprError as exc:
        raise Unmet(f"{text!r}: {exc}", text) from None
