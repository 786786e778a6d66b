"""RAT010 baseline-mismatch.

What: with `--baseline`, flags a card whose baseline is for something else:
another rubric or metric, a model or adaptation the baseline does not hold,
or another question bank, or no question in common. Such a card is not
compared (RAT007 stays quiet).

Why: scores of different models, prompts or questions cannot show a
regression; comparing them would fail or pass CI at random, and silently
skipping them would print "All checks passed" for a gate that checked nothing.

Example: baseline written for `gpt-4o · mc;shots=0;cot=none;prob=conditioning`,
graded `gpt-4o · mc;shots=5;…` → RAT010 naming both adaptations.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from steer.rubric._baseline import BaselineCard
from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext
from steer.stats import paired_values

CODE = "RAT010"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    baseline = ctx.baseline
    if baseline is None:
        return
    for card in ctx.cards:
        found, current = ctx.baseline_match(baseline, card)
        differs = found.differs
        if found.card is not None and current is not None and _disjoint(found.card, current):
            differs = ["no question in common (bank fingerprint and question id)"]
        if differs:
            yield ctx.diagnostic(
                CODE,
                f"baseline {baseline.file} is for something else — {'; '.join(differs)}: "
                "not compared",
                model=card.model,
                hint="pass a baseline written for this model, adaptation, rubric and bank",
            )


def _disjoint(card: BaselineCard, current: pa.Table) -> bool:
    """The card has answers, yet none pairs with a baseline question."""
    pairs = paired_values(card.questions, current, "exact_match")
    return bool(current.num_rows) and not pairs.num_rows
