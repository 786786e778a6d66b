"""RAT014 coverage-unknown.

What: flags a card graded from a bare response table with no run manifest and
no `--bank`, so nothing says which questions were asked.

Why: without the questions asked, a question that was never answered leaves
no trace, and the grade counts only the rows present. The card says
"coverage unknown"; give the bank to make every question count.

Example: `steer grade responses.parquet` → RAT014; `steer grade
responses.parquet --bank bank.parquet` counts the bank's unanswered
questions as no-answers.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext

CODE = "RAT014"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.coverage_unknown
    for card in ctx.cards:
        cov = card.coverage
        if cov is None or cov.known:
            continue
        yield ctx.diagnostic(
            CODE,
            "coverage unknown: no run manifest says which questions were asked, so "
            "unanswered questions are not counted",
            model=card.model,
            severity=options.severity,
            hint="pass --bank FILE (the bank these responses answered), or grade the run directory",
        )
