"""RAT001 below-random-guessing.

What: flags an element whose normalized accuracy is below 0 (what guessing
uniformly at random scores) with the whole confidence interval below 0.

Why: an agent that does worse than a coin on a question type is not merely
weak; it is systematically drawn to wrong answers (a bias or a misreading),
which is worse for a decision agent than abstaining.

Example: `normalized_accuracy = -0.31 [-0.45, -0.17]` on steer.2.5.b → RAT001.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT001"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    severity = ctx.loaded.rubric.rules.below_random.severity
    for card in ctx.cards:
        for element, es in card.elements.items():
            value = es.value("normalized_accuracy")
            lo, hi = es.bounds.get("normalized_accuracy", (None, None))
            if value is None or hi is None or hi >= 0:
                continue
            yield ctx.diagnostic(
                CODE,
                f"`{element}` scores below random guessing: normalized accuracy "
                f"{fmt(value)} [{fmt(lo)}, {fmt(hi)}] over {es.n} questions",
                model=card.model,
                element=element,
                severity=severity,
                hint="look for a distractor the model prefers (option_tags in the bank)",
            )
