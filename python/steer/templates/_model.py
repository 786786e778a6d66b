"""The template file format (TOML under `templates/<benchmark>/`).

One file per element. Each `[[template]]` fixes a domain and the wording, the
structure to sample (a lottery, a menu of lotteries, a bimatrix game …), the
solver that proves the key, the distractor generators (each tagged with the
error it represents) and per-grade sizes.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from steer.templates._identity import by_identity

# Sampled numbers stay where float arithmetic is exact enough to print and
# compare (|x| < 1e15), and a range holds at most this many steps.
MAX_MAGNITUDE = 1e15
MAX_STEPS = 1e12


class _Strict(BaseModel):
    # TOML has `nan` and `inf`; neither is a usable bound, value or step.
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


def _check_range(low: float, high: float, step: float) -> None:
    if max(abs(low), abs(high)) >= MAX_MAGNITUDE:
        raise ValueError(f"bounds must lie within ±{MAX_MAGNITUDE:g}")
    if high < low:
        raise ValueError(f"high ({high}) is below low ({low})")
    if (high - low) / step > MAX_STEPS:
        raise ValueError(f"more than {MAX_STEPS:g} steps of {step} from low to high")


class RangeSpec(_Strict):
    """A sampled number: a multiple of `step` between `low` and `high`."""

    low: float
    high: float
    step: float = Field(default=1, gt=0)

    @model_validator(mode="after")
    def _range(self) -> RangeSpec:
        _check_range(self.low, self.high, self.step)
        return self


Number = Annotated[float, Field(gt=-MAX_MAGNITUDE, lt=MAX_MAGNITUDE, allow_inf_nan=False)]
VarSpec = RangeSpec | list[Number]
PERSPECTIVES = ("first", "second", "woman", "man", "anonymous")
FORMATS = ("number", "money", "percent")


def _is_two_way(fmt: str) -> bool:
    """A format "is|is not": the first wording for a nonzero value, the second
    for zero ("so the lab {built} built")."""
    parts = fmt.split("|")
    return len(parts) == 2 and all(p.strip() for p in parts)


class ChoiceSpec(_Strict):
    """One option of a `scenario`: its wording and, as expressions, the lottery it
    stands for (a sure amount is one value with probability 1). `error` names the
    mistake that leads to choosing it when it is wrong."""

    text: str
    values: list[str] = Field(min_length=1)
    probs: list[str] = ["1"]
    error: str = "other"


class PartSpec(_Strict):
    """One part of a consistency-graded question."""

    text: str
    options: list[str] = Field(min_length=2)
    order: Literal["shuffle", "reverse", "fixed"] = Field(
        default="shuffle",
        description="how each question orders the options: a seeded shuffle, a seeded "
        "choice between as written and reversed (for ordered brackets), or as written; "
        "the consistency rule is rewritten to match",
    )


class ControlSpec(_Strict):
    """A matched control part for a `scenario` choice template whose construct
    fixes the key's form (avoiding a bias means taking the gamble, say): the
    same scenario drawn again under `require` (replacing the template's) so
    that another choice is right. The original and its control are the two
    parts of one question, right only if both are, in a seeded order."""

    require: list[str] = Field(min_length=1, description="constraints of the control's draw")
    vars: dict[str, VarSpec] = Field(default={}, description="overrides of the template's vars")


class GradeSpec(_Strict):
    """How big the sampled problem is at one grade level."""

    size: int = Field(ge=1, le=12, description="outcomes, choices or actions to sample")
    options: int | None = Field(
        default=None,
        ge=2,
        le=10,
        description="answer options (numeric answers only; choice answers use `size`)",
    )
    low: float = Field(default=1, description="smallest sampled amount")
    high: float = Field(default=100, description="largest sampled amount")
    step: float = Field(default=1, gt=0, description="sampled amounts are multiples of this")
    depth: int = Field(default=2, ge=1, le=4, description="moves in a game tree")
    vars: dict[str, VarSpec] = Field(default={}, description="overrides of the template's vars")

    @model_validator(mode="after")
    def _range(self) -> GradeSpec:
        _check_range(self.low, self.high, self.step)
        return self


class TemplateSpec(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_.-]*$")
    domain: str
    type: str = ""
    perspective: str = ""
    structure: str
    solver: str
    distractors: list[str] = []
    phrasings: list[str] = Field(min_length=1)
    explanation: str | None = None
    unit: str = Field(default="", description="prefix for amounts, e.g. '$'")
    decimals: int = Field(default=2, ge=0, le=6)
    nonnegative: bool = Field(default=False, description="no negative numeric options")
    probability: bool = Field(
        default=False, description="every option is a probability: none outside [0, 1]"
    )
    tolerance: float | None = Field(
        default=None,
        gt=0,
        description="absolute tolerance of a free-text answer whose key can be zero "
        "(the relative rule cannot judge a zero key)",
    )
    words: dict[str, list[str]] = {}
    vars: dict[str, VarSpec] = Field(default={}, description="sampled numbers")
    derive: dict[str, str] = Field(default={}, description="name = expression, in order")
    require: list[str] = Field(default=[], description="constraints every draw must meet")
    formats: dict[str, str] = Field(
        default={},
        description="var → number | money | percent; money shows cents whenever the value has "
        'them, and a var written right after a literal $ ("${x}") is money without the unit; '
        '"A|B" writes A for a nonzero value and B for zero ("is|is not": "so the lab {built} '
        'built"), for explanations: in a stem it would spell out a number the audit masks',
    )
    answer: str | None = Field(default=None, description="expression for the `formula` solver")
    wrong: dict[str, str] = Field(default={}, description="error tag → wrong-answer expression")
    choices: list[ChoiceSpec] = []
    parts: list[PartSpec] = []
    control: ControlSpec | None = None
    consistency_rule: str | None = None
    perspectives: list[str] = []
    grade: dict[int, GradeSpec] = Field(min_length=1)

    @field_validator("perspectives")
    @classmethod
    def _known_perspectives(cls, v: list[str]) -> list[str]:
        for name in v:
            if name not in PERSPECTIVES:
                raise ValueError(f"unknown perspective {name!r} (use {', '.join(PERSPECTIVES)})")
        return v

    @field_validator("formats")
    @classmethod
    def _known_formats(cls, v: dict[str, str]) -> dict[str, str]:
        for name, fmt in v.items():
            if fmt not in FORMATS and not _is_two_way(fmt):
                raise ValueError(
                    f"formats.{name}: {fmt!r} is not one of {', '.join(FORMATS)} "
                    "nor a two-way wording 'IF TRUE|IF FALSE'"
                )
        return v

    @field_validator("grade")
    @classmethod
    def _grade_levels(cls, v: dict[int, GradeSpec]) -> dict[int, GradeSpec]:
        bad = [g for g in v if not 0 <= g <= 14]
        if bad:
            raise ValueError(f"grade levels must be 0-14, got {bad[0]}")
        return v

    @field_validator("words")
    @classmethod
    def _non_empty_words(cls, v: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, choices in v.items():
            if not choices:
                raise ValueError(f"words.{name} has no choices")
        return v


@by_identity
def control_template(t: TemplateSpec) -> TemplateSpec:
    """`t` as its control part draws: the control's constraints replace the
    template's `require`, its `vars` override the template's (no control)."""
    assert t.control is not None
    return t.model_copy(
        update={
            "require": list(t.control.require),
            "vars": {**t.vars, **t.control.vars},
            "control": None,
        }
    )


class TemplateFile(_Strict):
    element: str
    template: list[TemplateSpec] = Field(min_length=1)
