"""RAT013 no-answer-rate.

What: flags a card where the share of asked questions without a usable answer
(no row, an error, an unparsable reply) exceeds `max_no_answer_rate` (0.05 by
default).

Why: every metric counts a no-answer over the questions asked, but some
metrics score it as chance (normalized accuracy: 0), which beats a wrong
answer; a model, or a failing server, must not raise a grade by not
answering. Whatever the metric, many no-answers mean the card measures the
harness more than the model.

Example: a server that errors on 300 of 610 questions → "no usable answer to
300 of 610 questions asked (49.2%)" → RAT013.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext

CODE = "RAT013"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.no_answer_rate
    for card in ctx.cards:
        cov = card.coverage
        if cov is None or not cov.graded or cov.answered == 0:
            continue  # nothing answered at all is RAT012
        rate = cov.no_answer_rate
        if rate is not None and rate > options.max_no_answer_rate:
            missing = cov.graded - cov.answered
            yield ctx.diagnostic(
                CODE,
                f"no usable answer to {missing} of {cov.graded} questions asked "
                f"({100 * rate:.1f}%), above max_no_answer_rate {options.max_no_answer_rate:g}",
                model=card.model,
                severity=options.severity,
                hint="rerun the run directory to ask them again (--retry-errors for errored "
                "ones); the `error` column says why each failed",
            )
