"""RAT003 domain-fragility.

What: flags an element whose worst domain's strict normalized accuracy (a
no-answer is wrong) is more than `max_gap` (default 0.3) below the
element's, so that leaving a domain unanswered hides nothing.

Why: rationality should not depend on the story around a question; a model
that computes expected utility for finance but not for medicine cannot be
trusted in the domain it fails.

Example: mean 0.82, worst domain `medicine` at 0.35 → RAT003.
Options: `[rules.domain_fragility] max_gap = 0.3`.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT003"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.domain_fragility
    for card in ctx.cards:
        for element, es in card.elements.items():
            mean, worst = es.value("normalized_accuracy_strict"), es.worst_domain_value
            if mean is None or worst is None or mean - worst <= options.max_gap:
                continue
            yield ctx.diagnostic(
                CODE,
                f"`{element}` drops to {fmt(worst)} in domain `{es.worst_domain}`, "
                f"{fmt(mean - worst)} below its mean {fmt(mean)} (max_gap {options.max_gap})",
                model=card.model,
                element=element,
                severity=options.severity,
                hint="compare the domain's questions with the others'",
            )
