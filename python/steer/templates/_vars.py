"""Sampled variables of a template: draw `vars`, compute `derive`, enforce `require`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from steer.templates._expr import Expr, ExprError, compile_expr
from steer.templates._identity import by_identity
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


@dataclass(frozen=True)
class _Plan:
    """How one template grade draws: each variable as (name, low, step, count,
    listed values or None), the requires that read only drawn variables, and
    each derive with the requires that become checkable once it is bound."""

    draws: tuple[tuple[str, float, float, int, tuple[float, ...] | None], ...]
    first: tuple[str, ...]
    steps: tuple[tuple[str, str, tuple[str, ...]], ...]


@by_identity
def _plan(t: TemplateSpec, spec: GradeSpec) -> _Plan:
    draws = tuple(
        (name, v.low, v.step, math.floor((v.high - v.low) / v.step + 1e-9) + 1, None)
        if isinstance(v, RangeSpec)
        else (name, 0.0, 0.0, len(v), tuple(float(x) for x in v))
        for name, v in var_specs(t, spec).items()
    )
    known = {d[0] for d in draws}
    pending = list(t.require)

    def ready() -> tuple[str, ...]:
        now = tuple(r for r in pending if expr(r).names <= known)
        for r in now:
            pending.remove(r)
        return now

    first = ready()
    steps = []
    for name, text in t.derive.items():
        known.add(name)
        steps.append((name, text, ready()))
    # A require naming a variable nothing binds runs last and fails with its message.
    if steps:
        name, text, checks = steps[-1]
        steps[-1] = (name, text, checks + tuple(pending))
    else:
        first += tuple(pending)
    return _Plan(draws, first, tuple(steps))


def _require(text: str, env: dict[str, float]) -> None:
    try:
        ok = expr(text).evaluate(env)
    except ExprError as exc:
        raise Unmet(f"require {text!r}: {exc}", text) from None
    if not ok:
        raise Unmet(f"constraint {text!r} not met", text)


def sample_env(rng: np.random.Generator, t: TemplateSpec, spec: GradeSpec) -> dict[str, float]:
    """One draw of every variable; raises `Unmet` when a constraint fails.

    Each requirement is checked as soon as the names it reads are bound, so a
    draw that breaks a cheap constraint skips the rest of the derives. The
    variables take one uniform each, drawn in one call: a range of `count`
    steps maps u to step min(floor(u * count), count - 1), a list to that
    item."""
    plan = _plan(t, spec)
    env: dict[str, float] = {}
    for (name, low, step, n, values), u in zip(
        plan.draws, rng.random(len(plan.draws)).tolist(), strict=True
    ):
        k = min(int(u * n), n - 1)
        env[name] = values[k] if values is not None else round(low + step * k, 10)
    for text in plan.first:
        _require(text, env)
    for name, text, checks in plan.steps:
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
