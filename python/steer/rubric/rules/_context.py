"""What a built-in rule sees: the graded cards, the rubric, and optional
baseline and fits."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from steer._json import plain_zero
from steer.rubric._baseline import Baseline, Match, for_card
from steer.rubric._card import ModelCard
from steer.rubric._diagnostic import Diagnostic, Location, Severity
from steer.rubric._fits import Fits
from steer.rubric._load import LoadedRubric
from steer.rubric.rules._codes import CODES
from steer.taxonomy import Taxonomy


@dataclass
class RuleContext:
    loaded: LoadedRubric
    cards: list[ModelCard]
    taxonomy: Taxonomy
    baseline: Baseline | None = None
    fits: Fits | None = None
    element_where: dict[str, Location] = field(default_factory=dict)
    # The graded responses and their banks, for rules that pair questions (RAT007).
    responses: pa.Table | None = None
    banks: list[str] = field(default_factory=list)

    def where(self, element: str | None = None) -> Location:
        """The rubric line that brought `element` in (its section's selector)."""
        if element is not None and element in self.element_where:
            return self.element_where[element]
        return Location(self.loaded.file, 1, 1)

    def baseline_match(self, baseline: Baseline, card: ModelCard) -> tuple[Match, pa.Table | None]:
        """`card` matched against `baseline` under this rubric's name and
        metric, with the card's question outcomes (see `for_card`)."""
        rubric = self.loaded.rubric
        return for_card(
            baseline, self.responses, self.banks, rubric.name, rubric.metric, card.model,
            card.adaptation,
        )  # fmt: skip

    def diagnostic(
        self,
        code: str,
        message: str,
        *,
        model: str | None = None,
        element: str | None = None,
        severity: Severity | None = None,
        hint: str | None = None,
        location: Location | None = None,
    ) -> Diagnostic:
        """A diagnostic with the code's default severity unless overridden."""
        return Diagnostic(
            code,
            severity or CODES[code].severity,
            message,
            location or self.where(element),
            model=model,
            element=element,
            hint=hint,
        )


def fmt(x: float | None) -> str:
    return "—" if x is None or x != x else plain_zero(f"{x:.3f}")  # never "-0.000"
