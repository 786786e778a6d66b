"""Sampled variables of a template: draw `vars`, compute `derive`, enforce `require`."""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from steer.templates._expr import Expr, ExprError, Fn, compile_expr
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


# A range with at most this many steps has its values listed once per plan, so
# a draw is an index into a list (the same numbers: low + step·k, rounded).
MAX_LISTED = 4096


@dataclass(frozen=True)
class _Plan:
    """How one template grade draws: each variable as (name, low, step, count,
    listed values or None), the requires that read only drawn variables, and
    each derive with the requires that become checkable once it is bound.
    Expressions are held compiled, as (text, evaluate)."""

    draws: tuple[tuple[str, float, float, int, tuple[float, ...] | None], ...]
    first: tuple[tuple[str, Fn], ...]
    steps: tuple[tuple[str, str, Fn, tuple[tuple[str, Fn], ...]], ...]


def _listed(low: float, step: float, count: int) -> tuple[float, ...] | None:
    if not 1 <= count <= MAX_LISTED:
        return None
    return tuple(round(low + step * k, 10) for k in range(count))


@by_identity
def _plan(t: TemplateSpec, spec: GradeSpec) -> _Plan:
    draws = []
    for name, v in var_specs(t, spec).items():
        if isinstance(v, RangeSpec):
            count = math.floor((v.high - v.low) / v.step + 1e-9) + 1
            draws.append((name, v.low, v.step, count, _listed(v.low, v.step, count)))
        else:
            draws.append((name, 0.0, 0.0, len(v), tuple(float(x) for x in v)))
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

    def compiled(texts: tuple[str, ...]) -> tuple[tuple[str, Fn], ...]:
        return tuple((text, expr(text).fn) for text in texts)

    return _Plan(
        tuple(draws),
        compiled(first),
        tuple((name, text, expr(text).fn, compiled(checks)) for name, text, checks in steps),
    )


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
    # Expr.evaluate inlined (the compiled function, then the finiteness check).
    for text, fn in plan.first:
        _check(text, fn, env)
    for name, text, fn, checks in plan.steps:
        try:
            value = fn(env)
        except ExprError as exc:
            raise Unmet(f"derive.{name}: {exc}", text) from None
        if not math.isfinite(value):
            raise Unmet(f"derive.{name}: {text!r} is not a finite number", text)
        env[name] = round(value, 10)
        for check, check_fn in checks:
            _check(check, check_fn, env)
    return env


def _check(text: str, fn: Fn, env: dict[str, float]) -> None:
    """A `require`: Unmet when it is false or cannot be evaluated."""
    try:
        ok = fn(env)
    except ExprError as exc:
        raise Unmet(f"require {text!r}: {exc}", text) from None
    if not math.isfinite(ok):
        raise Unmet(f"require {text!r}: {text!r} is not a finite number", text)
    if not ok:
        raise Unmet(f"constraint {text!r} not met", text)


def evaluate(text: str, env: dict[str, float]) -> float:
    """Evaluate a template expression on a draw; `Unmet` if it cannot be."""
    try:
        return expr(text).evaluate(env)
    except ExprError as exc:
        raise Unmet(f"{text!r}: {exc}", text) from None
