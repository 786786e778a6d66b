"""The graded report card: per model, per section scores, letters and GPA."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa

from steer.rubric._diagnostic import Diagnostic


@dataclass
class ElementScore:
    """One model's scores on one element. Intervals may be None (not computed)."""

    element: str
    name: str
    n: int
    metrics: dict[str, float | None]
    bounds: dict[str, tuple[float, float]]  # metric → (lo, hi)
    worst_domain: str | None = None
    worst_domain_value: float | None = None

    def value(self, metric: str) -> float | None:
        v = self.metrics.get(metric)
        return None if v is None or v != v else v


@dataclass
class SectionScore:
    """A section's weighted mean; `score` is None when no selected element was scored."""

    name: str
    weight: float
    metric: str
    score: float | None
    lo: float | None
    hi: float | None
    letter: str
    selected: list[str]
    present: list[str]
    children: list[SectionScore] = field(default_factory=list)
    file: str = ""
    path: tuple[str | int, ...] = ()


@dataclass
class CardCoverage:
    """How much of its bank a card covers.

    `graded` asked questions (after the rubric's filters) of which `answered`
    have a usable answer; `asked` of the `bank`'s questions were put to the
    model (the whole run, before filters). `asked` is None when unknown (a
    bare table without `--bank`); `bank` is None when its file is unknown.
    `run_questions` distinct questions of the `run_elements` are in the card's
    responses before the rubric's filters: what the run asked, even where the
    rubric grades none of it.
    """

    graded: int
    answered: int
    asked: int | None
    bank: int | None
    run_questions: int = 0
    run_elements: tuple[str, ...] = ()

    @property
    def known(self) -> bool:
        return self.asked is not None

    @property
    def no_answer_rate(self) -> float | None:
        return (self.graded - self.answered) / self.graded if self.graded else None

    def describe(self) -> str:
        """One line for the card, e.g. 'answered 55/61 asked · asked 61/610 of the bank'."""
        if not self.known:
            return (
                f"answered {self.answered}/{self.graded} rows · coverage unknown "
                "(no run manifest; pass --bank FILE)"
            )
        bank = f"{self.asked}/{self.bank}" if self.bank is not None else f"{self.asked}/?"
        return f"answered {self.answered}/{self.graded} asked · asked {bank} of the bank"


@dataclass
class ModelCard:
    """One (model, adaptation)'s card: adaptations are never pooled.

    `adaptation` is `Adaptation.label()` ("mc;shots=0;cot=none;prob=conditioning"),
    or "" for responses without an adaptation column.
    """

    model: str
    sections: list[SectionScore]
    score: float | None
    letter: str
    gpa: float | None
    elements: dict[str, ElementScore]
    adaptation: str = ""
    coverage: CardCoverage | None = None

    @property
    def title(self) -> str:
        """The card's header: the model and, when known, its adaptation."""
        return f"{self.model} · {self.adaptation}" if self.adaptation else self.model


@dataclass
class GradeResult:
    """Everything `steer grade` reports; renderers only read it."""

    rubric_name: str
    rubric_file: str
    description: str
    metric: str
    runs: list[str]
    banks: list[str]
    cards: list[ModelCard]
    diagnostics: list[Diagnostic]
    letter_steps: list[tuple[str, float, float]]
    # The graded responses (after the rubric's filters), for further views.
    responses: pa.Table | None = field(default=None, repr=False)

    def counts(self) -> dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for d in self.diagnostics:
            out[d.severity] += 1
        return out

    def failed(self) -> bool:
        return any(d.severity == "error" for d in self.diagnostics)
