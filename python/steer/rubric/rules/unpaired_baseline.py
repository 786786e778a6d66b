"""RAT011 unpaired-baseline.

What: notes that the baseline is a version-1 file (element summaries only),
so RAT007 compares intervals instead of pairing questions.

Why: the interval rule is conservative and ignores which questions were
asked; a reader of the verdict should know it was not the paired test.

Example: `--baseline old.json` written by steer before baselines held
question outcomes → RAT011; rewrite it with `--write-baseline`.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext

CODE = "RAT011"


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    baseline = ctx.baseline
    if baseline is None or baseline.version != 1:
        return
    for card in ctx.cards:
        found, _ = ctx.baseline_match(baseline, card)
        if not found.differs:
            yield ctx.diagnostic(
                CODE,
                f"baseline {baseline.file} is version 1 (no question outcomes): compared "
                "without pairing, by the interval rule",
                model=card.model,
                hint="rewrite it with --write-baseline for a paired, corrected test",
            )
