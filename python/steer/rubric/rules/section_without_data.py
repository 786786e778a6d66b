"""RAT009 section-without-data.

What: reports a section none of whose selected elements appear in the runs
(for any model, or for some models only). The section is left ungraded and
out of the GPA; a parent with no data is reported once, not per subsection.

Why: grading a partial run is normal (a quick CI subset), but a card must say
what it did not grade rather than silently shrink.

Example: section "4.4 Mechanism design" selects steer.4.4 but the run has
none of its elements → RAT009 (info).
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._card import SectionScore
from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules._context import RuleContext

CODE = "RAT009"


def _walk(ctx: RuleContext, per_model: list[tuple[str, SectionScore]]) -> Iterator[Diagnostic]:
    first = per_model[0][1]
    empty = [model for model, s in per_model if not s.present]
    where = ctx.loaded.locate(first.file, first.path)
    what = f"section {first.name!r} selects {len(first.selected)} elements, none in the runs"
    if len(empty) == len(per_model):
        yield ctx.diagnostic(CODE, f"{what} (left ungraded)", location=where)
        return
    for model in empty:
        yield ctx.diagnostic(CODE, f"{what} for this model", model=model, location=where)
    for k in range(len(first.children)):
        yield from _walk(ctx, [(m, s.children[k]) for m, s in per_model if s.present])


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    if not ctx.cards:
        return
    for k in range(len(ctx.cards[0].sections)):
        yield from _walk(ctx, [(card.model, card.sections[k]) for card in ctx.cards])
