"""Checks declared in the rubric ([[check]]), and RAT008 check-without-data.

What: each [[check]] bounds a metric of the elements it selects (each element,
or their mean) or a fitted utility parameter (from `--fits FILE`), and reports
under the check's own code and severity when a value is out of bounds. A
check with nothing to test for a model reports RAT008 (info) instead.

Why: a rubric states what "good enough" means for a use; the checks are that
statement, enforceable in CI.

Example: `[[check]] code = "HE001", parameter = "lambda", min = 0.9, max = 1.1`
with a fitted λ of 2.1 → HE001.

With `shift_from = "baseline"` a parameter check bounds the parameter's
shift between two conditions of `steer play` instead (`parameter =
"prospect-theory.lambda@persona:a banker"`, `min = -0.3`, `max = 0.3`): the
shift is the estimate under the parameter's condition minus the estimate
under `shift_from`, and by default (`significant = true`) it fails only when
the two 95% intervals do not overlap (a conservative test at the 5% level).

A check on a game metric (`metric = "%NE"`, `"defection_rate"`, `"Eff"`, …)
bounds that metric in each game the check selects (`select`: game names or
globs, default every game), or their mean with `aggregate = "mean"`. The
values are the game runs' metrics among the graded runs, the same records a
parameter check reads as `parameter = "GAME.METRIC"` (`steer grade` passes
them as fits): the ``fin`` row of a game played under both wordings, else
its one wording.

Collectives and questionnaires are checked the same way
(`steer.rubric._records`): `metric = "crowd_gain"` (or
`"collective_accuracy"`, `"member_accuracy"`) bounds each collective run
among the graded runs that the check selects by its spec (`select =
["majority:*"]`), on the vote's card; `metric = "subscale"` bounds each
subscale score of a survey run that it selects as ``INSTRUMENT.SUBSCALE``
(`select = ["decision-style.deliberation"]`), on the survey's card. As for
game metrics the bound is on the estimate, and a value out of bounds is
reported with its interval. A model with no such run among the graded runs
gets RAT008 (not checked), never a pass; a `select` naming none of the
model's games, collectives or subscales says which it has (did you mean).
"""

from __future__ import annotations

from collections.abc import Iterator
from fnmatch import fnmatchcase

from steer._suggest import did_you_mean
from steer.rubric._diagnostic import Diagnostic, Location
from steer.rubric._fits import Fit
from steer.rubric._model import COLLECTIVE_METRICS, GAME_METRICS, RUN_METRICS, Check
from steer.rubric._selectors import select_elements
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT008"


def _bounds(check: Check) -> str:
    if check.min is not None and check.max is not None:
        return f"within [{check.min}, {check.max}]"
    return f"≥ {check.min}" if check.min is not None else f"≤ {check.max}"


def _outside(check: Check, value: float) -> bool:
    return (check.min is not None and value < check.min) or (
        check.max is not None and value > check.max
    )


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    for check in ctx.loaded.rubric.check:
        where = ctx.loaded.locate(check._file, check._path)
        explain = f" ({check.message})" if check.message else ""
        elements = select_elements(ctx.taxonomy, check.select, check.exclude)
        if check.metric in RUN_METRICS:
            yield from _run_check(ctx, check, where, explain)
            continue
        if check.parameter is not None and ctx.fits is None:
            yield ctx.diagnostic(
                CODE,
                f"check {check.code}: no fits given, `{check.parameter}` not checked",
                location=where,
                hint="pass --fits FILE (fitted utility parameters)",
            )
            continue
        for card in ctx.cards:
            if check.parameter is not None:
                fit = ctx.fits.get(card.model, check.parameter) if ctx.fits else None
                others = ctx.fits.alternatives(card.model, check.parameter) if ctx.fits else []
                if fit is not None and fit.adaptation not in (None, card.adaptation):
                    continue  # one card's own record (a collective's): checked on that card
                if fit is None and others:
                    yield ctx.diagnostic(
                        CODE,
                        f"check {check.code}: `{check.parameter}` names several fits of this model",
                        model=card.model,
                        location=where,
                        hint=f"name one of {', '.join(others)}",
                    )
                elif fit is None:
                    names = {n for f in ctx.fits.records if f.model == card.model
                             for n in f.names()} if ctx.fits else set()  # fmt: skip
                    close = did_you_mean(check.parameter, sorted(names))
                    yield ctx.diagnostic(
                        CODE,
                        f"check {check.code}: no fitted `{check.parameter}` for this model",
                        model=card.model,
                        location=where,
                        hint=f"did you mean `{close[0]}`?" if close else None,
                    )
                elif check.shift_from is not None:
                    yield from _shift(ctx, check, card.model, fit, where, explain)
                elif fit.estimate is None:
                    yield _as(
                        ctx,
                        check,
                        card.model,
                        None,
                        where,
                        f"fitted `{check.parameter}` is not identified ({fit.reason}), "
                        f"expected {_bounds(check)}{explain}",
                    )
                elif _outside(check, fit.estimate):
                    ci = f" [{fmt(fit.ci_lo)}, {fmt(fit.ci_hi)}]" if fit.ci_lo is not None else ""
                    yield _as(
                        ctx,
                        check,
                        card.model,
                        None,
                        where,
                        f"fitted `{check.parameter}` = {fmt(fit.estimate)}{ci}, expected "
                        f"{_bounds(check)}{explain}",
                    )
                continue
            assert check.metric is not None
            scored = [
                (e, v)
                for e in elements
                if e in card.elements and (v := card.elements[e].value(check.metric)) is not None
            ]
            if not scored:
                yield ctx.diagnostic(
                    CODE,
                    f"check {check.code}: no selected element has `{check.metric}` in the runs",
                    model=card.model,
                    location=where,
                )
            elif check.aggregate == "mean":
                mean = sum(v for _, v in scored) / len(scored)
                if _outside(check, mean):
                    yield _as(
                        ctx,
                        check,
                        card.model,
                        None,
                        where,
                        f"mean {check.metric} {fmt(mean)} over {len(scored)} elements, "
                        f"expected {_bounds(check)}{explain}",
                    )
            else:
                for element, value in scored:
                    if _outside(check, value):
                        yield _as(
                            ctx,
                            check,
                            card.model,
                            element,
                            where,
                            f"`{element}` {check.metric} {fmt(value)}, expected "
                            f"{_bounds(check)}{explain}",
                        )


def _as(
    ctx: RuleContext, check: Check, model: str, element: str | None, where: Location, text: str
) -> Diagnostic:
    return Diagnostic(check.code, check.severity, text, where, model=model, element=element)


def _shift(
    ctx: RuleContext, check: Check, model: str, fit: Fit, where: Location, explain: str
) -> Iterator[Diagnostic]:
    """The check of a parameter's shift from condition `check.shift_from`."""
    assert ctx.fits is not None and check.parameter is not None and check.shift_from is not None
    name = check.parameter.split("@", 1)[0]
    base = ctx.fits.get(model, f"{name}@{check.shift_from}")
    if base is None:
        yield ctx.diagnostic(
            CODE,
            f"check {check.code}: no fitted `{name}` under `{check.shift_from}` to compare with",
            model=model,
            location=where,
        )
        return
    if fit.estimate is None or base.estimate is None:
        why = fit.reason if fit.estimate is None else base.reason
        yield _as(ctx, check, model, None, where,
                  f"`{name}` is not identified under both conditions ({why}){explain}")  # fmt: skip
        return
    shift = fit.estimate - base.estimate
    if not _outside(check, shift):
        return
    parted = (
        fit.ci_lo is not None
        and base.ci_lo is not None
        and fit.ci_hi is not None
        and base.ci_hi is not None
        and (fit.ci_lo > base.ci_hi or base.ci_lo > fit.ci_hi)
    )
    if check.significant and not parted:
        return
    yield _as(
        ctx, check, model, None, where,
        f"`{name}` moved by {fmt(shift)} from `{check.shift_from}` ({fmt(base.estimate)}) to "
        f"`{check.parameter.split('@', 1)[1] if '@' in check.parameter else 'baseline'}` "
        f"({fmt(fit.estimate)}){' and the intervals part' if parted else ''}, expected a "
        f"shift {_bounds(check)}{explain}",
    )  # fmt: skip


#: Per kind of run metric (also the prefix of a finding's element, `KIND.NAME`):
#: what a check selects, and how to get such a run among the graded runs.
_KINDS = {
    "game": ("game this model played", "grade the game runs (steer play GAME) with the other runs"),
    "collective": ("collective run of this model",
                   "grade a collective run (steer run BANK --collective majority:N) with the "
                   "other runs"),
    "survey": ("survey subscale this model answered",
               "grade a survey run (steer survey INSTRUMENT) with the other runs"),
}  # fmt: skip


def _kind(metric: str) -> str:
    if metric in GAME_METRICS:
        return "game"
    return "collective" if metric in COLLECTIVE_METRICS else "survey"


def _selects(check: Check, name: str, kind: str) -> bool:
    """Whether `check`'s selectors pick `name` (a game, a collective's spec,
    a survey's INSTRUMENT.SUBSCALE), also written `KIND.NAME`."""

    def hit(patterns: list[str]) -> bool:
        return any(fnmatchcase(name, p) or fnmatchcase(f"{kind}.{name}", p) for p in patterns)

    return hit(check.select) and not hit(check.exclude)


def _run_check(
    ctx: RuleContext, check: Check, where: Location, explain: str
) -> Iterator[Diagnostic]:
    """A check of a run metric (a game's, a collective's, a survey's) over the
    games, collectives or subscales it selects (module docstring)."""
    metric = check.metric
    assert metric is not None
    kind = _kind(metric)
    noun, how = _KINDS[kind]
    unit = "subscale" if kind == "survey" else kind
    records = [] if ctx.fits is None else ctx.fits.records
    for card in ctx.cards:
        mine = [
            f
            for f in records
            if f.model == card.model
            and f.parameter == metric
            and f.condition in (None, "baseline")
            and f.family is not None
        ]
        own = [f for f in mine if f.adaptation in (None, card.adaptation)]
        if mine and not own:
            continue  # the model's records are another card's own: checked there
        found = {
            f.family: f for f in own if f.family is not None and _selects(check, f.family, kind)
        }
        if not found:
            has = sorted({f.family or "" for f in own})
            close = [c for p in check.select for c in did_you_mean(p.removeprefix(f"{kind}."), has)]
            hint = (
                f"did you mean `{close[0]}`?" if close
                else f"this model has: {', '.join(has)}" if has else how
            )  # fmt: skip
            yield ctx.diagnostic(
                CODE,
                f"check {check.code}: no selected {noun} has `{metric}`",
                model=card.model,
                location=where,
                hint=hint,
            )
            continue
        if check.aggregate == "mean":
            values = [f.estimate for f in found.values()]
            if any(v is None for v in values):
                yield _as(ctx, check, card.model, None, where,
                          f"`{metric}` has no value in every selected {unit} ("
                          f"{next(f.reason for f in found.values() if f.estimate is None)}), "
                          f"expected {_bounds(check)}{explain}")  # fmt: skip
                continue
            mean = sum(v for v in values if v is not None) / len(values)
            if _outside(check, mean):
                yield _as(ctx, check, card.model, None, where,
                          f"mean {metric} {fmt(mean)} over {len(values)} "
                          f"{unit}{'' if len(values) == 1 else 's'}, expected "
                          f"{_bounds(check)}{explain}")  # fmt: skip
            continue
        for name, fit in found.items():
            if fit.estimate is None:
                yield _as(ctx, check, card.model, f"{kind}.{name}", where,
                          f"`{name}` {metric} has no value ({fit.reason}), expected "
                          f"{_bounds(check)}{explain}")  # fmt: skip
            elif _outside(check, fit.estimate):
                ci = f" [{fmt(fit.ci_lo)}, {fmt(fit.ci_hi)}]" if fit.ci_lo is not None else ""
                yield _as(ctx, check, card.model, f"{kind}.{name}", where,
                          f"`{name}` {metric} {fmt(fit.estimate)}{ci}, expected "
                          f"{_bounds(check)}{explain}")  # fmt: skip
