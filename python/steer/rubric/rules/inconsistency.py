"""RAT005 inconsistency.

What: flags an element whose consistency-graded questions (e.g. transitivity
or completeness, where no single answer is right but answers must agree) are
answered consistently less often than `min_consistency` (default 0.9).

Why: the axioms of utility are consistency requirements; violating them is
irrationality no accuracy number shows.

Example: consistency 0.62 on steer.2.1.b → RAT005.
Options: `[rules.inconsistency] min_consistency = 0.9`.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT005"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.inconsistency
    for card in ctx.cards:
        for element, es in card.elements.items():
            value = es.value("consistency")
            if value is None or value >= options.min_consistency:
                continue
            yield ctx.diagnostic(
                CODE,
                f"`{element}` answers consistency groups consistently only {fmt(value)} "
                f"of the time (min_consistency {options.min_consistency})",
                model=card.model,
                element=element,
                severity=options.severity,
            )
