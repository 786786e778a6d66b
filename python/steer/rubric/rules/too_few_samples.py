"""RAT006 too-few-samples.

What: flags a section whose score's confidence interval is wider than
`max_ci_width` (default 0.25) and reaches into another letter, naming the
letters the interval spans.

Why: a grade claims a level of competence; with a handful of questions per
element the same model could as well earn two letters more or less, and the
grade should not be read as a measurement.

Example: section "Foundations" graded B at 0.82 [0.55, 0.95] → RAT006.
Options: `[rules.too_few_samples] max_ci_width = 0.25`.
"""

from __future__ import annotations

from collections.abc import Iterator

from steer.rubric._card import SectionScore
from steer.rubric._diagnostic import Diagnostic
from steer.rubric._grade_math import letter_of
from steer.rubric.rules._context import RuleContext, fmt

CODE = "RAT006"


def _walk(sections: list[SectionScore]) -> Iterator[SectionScore]:
    for s in sections:
        yield s
        yield from _walk(s.children)


def run(ctx: RuleContext) -> Iterator[Diagnostic]:
    options = ctx.loaded.rubric.rules.too_few_samples
    steps = ctx.loaded.rubric.letter_steps()
    for card in ctx.cards:
        for s in _walk(card.sections):
            if s.score is None or s.lo is None or s.hi is None:
                continue
            low, high = letter_of(s.lo, steps)[0], letter_of(s.hi, steps)[0]
            if s.hi - s.lo <= options.max_ci_width or low == high:
                continue
            spans = f"{low}–{high}"
            yield ctx.diagnostic(
                CODE,
                f"section {s.name!r} graded {s.letter} at {fmt(s.score)} but its interval "
                f"[{fmt(s.lo)}, {fmt(s.hi)}] spans {spans} (max_ci_width {options.max_ci_width})",
                model=card.model,
                severity=options.severity,
                hint="generate more questions per element (steer generate --per-cell)",
                location=ctx.loaded.locate(s.file, s.path),
            )
