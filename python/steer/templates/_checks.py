"""Load-time checks of a template's expressions: syntax, names, satisfiability."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from steer._suggest import did_you_mean
from steer.errors import FileFormatError
from steer.templates._expr import ExprError, compile_expr
from steer.templates._model import TemplateSpec
from steer.templates._vars import Unmet, sample_env

Fail = Callable[..., FileFormatError]

# Draws tried per grade before a set of constraints is declared impossible.
SATISFY_DRAWS = 400


def _short(text: str, limit: int = 60) -> str:
    """`text` quoted, cut to `limit` characters (hostile expressions can be huge)."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "…"


def check_expressions(spec: TemplateSpec, _text: str, _line: int | None, fail: Fail) -> set[str]:
    """Compile every expression and check its names; return the variable names."""
    names = set(spec.vars)
    for g in spec.grade.values():
        names |= set(g.vars)

    def check(where: str, source: str, known: set[str], needle: str | None = None) -> None:
        try:
            parsed = compile_expr(source)
        except ExprError as exc:
            raise fail(
                f"{where}: bad expression {_short(source)}: {exc}", where, needle or source
            ) from None
        for name in sorted(parsed.names - known):
            hint = did_you_mean(name, known)
            extra = f" — did you mean {hint[0]!r}?" if hint else ""
            raise fail(
                f"{where}: unknown variable {name!r} in {source!r}{extra}", where, needle or source
            )

    for name, source in spec.derive.items():
        if name in names:
            raise fail(f"derive.{name}: {name!r} is already a variable", "derive", source)
        check(f"derive.{name}", source, names)
        names.add(name)
    for source in spec.require:
        check("require", source, names)
    if spec.answer is not None:
        check("answer", spec.answer, names)
    for tag, source in spec.wrong.items():
        check(f"wrong.{tag}", source, names)
    for i, choice in enumerate(spec.choices):
        if len(choice.probs) != len(choice.values):
            raise fail(
                f"choices[{i}]: {len(choice.values)} values but {len(choice.probs)} probs",
                "choices",
                choice.text,
            )
        for source in [*choice.values, *choice.probs]:
            check(f"choices[{i}]", source, names)
    for name in spec.formats:
        if name not in names:
            raise fail(f"formats.{name}: no variable {name!r}", "formats", name)
    return names


def check_satisfiable(spec: TemplateSpec, grade: int, fail: Fail) -> None:
    """Raise when no draw of the variables at `grade` meets every constraint."""
    if not spec.require and not spec.derive:
        return
    rng = np.random.default_rng(grade)
    failures: Counter[tuple[str, str | None]] = Counter()
    for _ in range(SATISFY_DRAWS):
        try:
            sample_env(rng, spec, spec.grade[grade])
            return
        except Unmet as exc:
            failures[(str(exc), exc.constraint)] += 1
    (message, constraint), _ = failures.most_common(1)[0]
    raise fail(
        f"grade {grade}: no draw in {SATISFY_DRAWS} meets the constraints ({message}); "
        "the constraint can never (or almost never) be met",
        "require",
        constraint,
    )
