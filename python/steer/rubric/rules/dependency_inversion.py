"""RAT002 dependency-inversion.

What: flags an element the model does better on than on one of its
(transitive) prerequisites, when the two confidence intervals of normalized
accuracy do not overlap (so the inversion is not sampling noise).

Why: STEER's elements build on each other; succeeding at best response while
failing the arithmetic it needs suggests memorised answers or a broken
question set rather than competence.

Example: steer.2.4.b at 0.90 [0.84, 0.95] but its prerequisite steer.1.2.a at
0.40 [0.31, 0.49] → RAT002.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT002"
METRIC = "normalized_accuracy"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    severity = ctx.loaded.rubric.rules.dependency_inversion.severity
    for card in ctx.cards:
        for element, es in card.elements.items():
            if element not in ctx.taxonomy:
                continue
            lo, _ = es.bounds.get(METRIC, (None, None))
            if lo is None:
                continue
            for prereq in ctx.taxonomy.prerequisites(element).nodes[1:]:
                other = card.elements.get(prereq)
                if other is None:
                    continue
                _o_lo, o_hi = other.bounds.get(METRIC, (None, None))
                if o_hi is None or lo <= o_hi:
                    continue
                yield ctx.diagnostic(
                    CODE,
                    f"`{element}` ({fmt(es.value(METRIC))}, CI from {fmt(lo)}) beats its "
                    f"prerequisite `{prereq}` ({fmt(other.value(METRIC))}, CI up to "
                    f"{fmt(o_hi)})",
                    model=card.model,
                    element=element,
                    severity=severity,
                    hint="check the prerequisite's questions, or contamination of the element's",
                )
