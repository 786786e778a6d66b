"""RAT007 regression.

What: with `--baseline FILE`, flags an element whose score's confidence
interval now lies entirely below the baseline's interval for the same model.

Why: CI gates must fail on real drops and stay quiet on noise; requiring the
two intervals to be disjoint (a conservative test) keeps a rerun with a new
seed from failing the build.

Example: baseline 0.81 [0.74, 0.87], now 0.52 [0.44, 0.60] → RAT007.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT007"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    if ctx.baseline is None:
        return
    severity = ctx.loaded.rubric.rules.regression.severity
    metric = ctx.baseline.metric or ctx.loaded.rubric.metric
    for card in ctx.cards:
        before = ctx.baseline.scores.get(card.model, {})
        for element, es in card.elements.items():
            old = before.get(element)
            _, hi = es.bounds.get(metric, (None, None))
            if old is None or hi is None or old.get("lo") is None:
                continue
            old_lo = float(old["lo"])  # type: ignore[arg-type]
            if hi >= old_lo:
                continue
            yield ctx.diagnostic(
                CODE,
                f"`{element}` regressed: {metric} {fmt(es.value(metric))} (CI up to "
                f"{fmt(hi)}) against baseline {fmt(old.get('value'))} (CI from {fmt(old_lo)})",
                model=card.model,
                element=element,
                severity=severity,
                hint="if the drop is intended, rewrite the baseline with --write-baseline",
            )
