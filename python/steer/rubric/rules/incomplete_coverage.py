"""RAT012 incomplete-coverage.

What: flags a card whose run asked only part of its question bank (questions
asked / questions in the bank below `min_bank_coverage`, 1 by default), a
card with no usable answer at all, and grading with no response at all.

Why: a grade is a claim about the whole bank. A run stopped with `--limit`,
a budget or a crash answers the questions it reached; graded on those alone,
an oracle that answers 10% of the bank gets an A. Every asked question
already counts (an unanswered one is a no-answer, RAT013); this rule covers
the questions that were never asked.

A card whose rubric grades none of the questions its run asked (the run's
elements are outside every section, or the rubric's filters drop them all)
has nothing graded ("grade —, answered 0/0 asked"): that is an error too,
never a pass. The one exception is a run of experiment trials, game rounds
or survey items (`steer play`, `steer survey`: keyless choices, nothing to
grade as right or wrong) under a rubric that checks fitted parameters or run
metrics (game metrics, subscale scores): its verdict is those checks (RAT008
says when a value is missing).

Example: `steer run bank.parquet --limit 61` on a 610-question bank, then
`steer grade` → "asked 61 of the bank's 610 questions (10.0%)" → RAT012.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from steer.bank._validate import is_elicit_element
from steer.rubric._card import ModelCard
from steer.rubric._diagnostic import Diagnostic
from steer.rubric._model import RUN_METRICS
from steer.rubric.rules._context import RuleContext

CODE = "RAT012"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.incomplete_coverage
    if not ctx.cards:
        yield ctx.diagnostic(
            CODE,
            "nothing to grade: the runs hold no response (of the models the rubric grades)",
            severity=options.severity,
            hint="check the paths, and the rubric's `filters.models`",
        )
        return
    checks_fits = any(
        c.parameter is not None or c.metric in RUN_METRICS for c in ctx.loaded.rubric.check
    )
    for card in ctx.cards:
        cov = card.coverage
        if cov is None:
            continue
        run_asked = cov.asked if cov.asked is not None else cov.run_questions
        trials_only = bool(cov.run_elements) and all(is_elicit_element(e) for e in cov.run_elements)
        if not cov.graded and run_asked and trials_only and checks_fits:
            continue  # graded by its fits (the rubric's parameter checks)
        if not cov.graded and run_asked:
            yield ctx.diagnostic(
                CODE,
                f"nothing graded: the rubric grades none of the {run_asked} questions the run "
                f"asked ({_brief(cov.run_elements, 'element')}); it {_selection(ctx, card)}",
                model=card.model,
                severity=options.severity,
                hint=(
                    "fit the run (`steer fit`) and grade the fits with --fits and a rubric "
                    "that checks parameters, e.g. --rubric preferences"
                    if trials_only
                    else "grade with a rubric that selects the run's elements (`steer rubric "
                    "list`), or run a bank with the rubric's elements"
                ),
            )
        if cov.graded and cov.answered == 0:
            yield ctx.diagnostic(
                CODE,
                f"no usable answer: all {cov.graded} questions graded are no-answers "
                "(missing, errored or unparsable)",
                model=card.model,
                severity=options.severity,
                hint="look at the `error` column of the responses (`steer score --by error`)",
            )
            continue
        if cov.asked is None or cov.bank is None or not cov.bank:
            continue
        share = cov.asked / cov.bank
        if share < options.min_bank_coverage:
            yield ctx.diagnostic(
                CODE,
                f"asked {cov.asked} of the bank's {cov.bank} questions ({100 * share:.1f}%), "
                f"below min_bank_coverage {options.min_bank_coverage:g}: the grade does not "
                "speak for the whole bank",
                model=card.model,
                severity=options.severity,
                hint="run the rest of the bank (rerun without --limit: answered questions "
                "are not asked again)",
            )


def _brief(names: Sequence[str], what: str, most: int = 3) -> str:
    """'element steer.1.1.c' / 'elements a, b, c and 4 more' / 'no element'."""
    if not names:
        return f"no {what}"
    shown = ", ".join(names[:most])
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return f"{what}{'s' if len(names) > 1 else ''} {shown}{more}"


def _selection(ctx: RuleContext, card: ModelCard) -> str:
    """What the rubric grades, briefly: its elements and its filters."""
    selected = sorted({e for s in card.sections for e in s.selected})
    what = f"selects {_brief(selected, 'element')}"
    filters = ctx.loaded.rubric.filters.model_dump(exclude_none=True)
    filters.pop("models", None)  # the card's model passed that filter
    if "grades" in filters:
        low, high = filters["grades"]
        filters["grades"] = f"{low}–{high}"
    kept = "; ".join(
        f"{k} {v if isinstance(v, str) else ', '.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in filters.items()
    )
    return f"{what}, filtered to {kept}" if kept else what
