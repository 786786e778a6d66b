"""RAT004 miscalibration.

What: flags an element whose expected calibration error (10 equal-width bins
over the top option's probability) is above `max_ece` (default 0.15). Skipped
where the run has no option probabilities.

Why: a decision agent's confidence is used to decide when to defer; an agent
that is 90% sure and right half the time makes that impossible.

Example: ECE 0.31 on steer.1.3.a → RAT004.
Options: `[rules.miscalibration] max_ece = 0.15`.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT004"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.miscalibration
    for card in ctx.cards:
        for element, es in card.elements.items():
            ece = es.value("ece")
            if ece is None or ece <= options.max_ece:
                continue
            yield ctx.diagnostic(
                CODE,
                f"`{element}` is miscalibrated: ECE {fmt(ece)} above {options.max_ece}",
                model=card.model,
                element=element,
                severity=options.severity,
                hint="try prob_mode = mixing, or calibrate the model's probabilities",
            )
