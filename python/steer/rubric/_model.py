"""The rubric file format, as pydantic models (unknown keys are errors).

A rubric is data: nothing in it is evaluated. See rubrics/README.md for the
format with examples; `steer rubric schema` prints it as JSON Schema.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from steer._limits import MAX_BOOTSTRAP
from steer._suggest import did_you_mean
from steer.rubric._diagnostic import Severity

# Metrics a section can grade on: higher is better for all of them.
SectionMetric = Literal[
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "exact_match",
    "gap",
    "consistency",
    "epa",
    "domain_robustness",
    "type_robustness",
    "perspective_robustness",
]
# Metrics a check can bound (either direction).
CheckMetric = Literal[
    "normalized_accuracy",
    "normalized_accuracy_strict",
    "exact_match",
    "gap",
    "no_answer_rate",
    "consistency",
    "ece",
    "brier",
    "epa",
    "domain_robustness",
    "type_robustness",
    "perspective_robustness",
    "position_robustness",
    "position_agreement",
]
# A game run's metrics (`steer score GAME_RUN`, `steer.play.game_metrics`),
# which a check bounds over the games it selects, like a question metric over
# elements; the values come from the game runs among the graded runs.
GameMetric = Literal[
    "payoff",
    "bid_deviation",
    "ActDev",
    "guess_deviation",
    "defection_rate",
    "%NE",
    "Dev",
    "private_share",
    "Eff",
    "regret",
    "gama_score",
    "strongest_share",
    "proposal_distance",
    "vote_accuracy",
]
GAME_METRICS: frozenset[str] = frozenset(GameMetric.__args__)  # type: ignore[attr-defined]
# A collective run's comparison with its members (`steer run BANK --collective`,
# `steer.run.crowd_gain`): the gain (collective accuracy minus the members'
# mean, with its paired bootstrap interval) and both accuracies, over the
# answer-graded question parts; a check selects collectives by their spec
# ("majority:7", "majority:*", "debate:*").
CollectiveMetric = Literal["crowd_gain", "collective_accuracy", "member_accuracy"]
COLLECTIVE_METRICS: frozenset[str] = frozenset(CollectiveMetric.__args__)  # type: ignore[attr-defined]
# A survey run's subscale scores (`steer survey INSTRUMENT`); a check selects
# subscales as "INSTRUMENT.SUBSCALE" ("decision-style.deliberation", "decision-style.*").
SurveyMetric = Literal["subscale"]
SURVEY_METRICS: frozenset[str] = frozenset(SurveyMetric.__args__)  # type: ignore[attr-defined]
#: Metrics whose values are records of the graded runs (games, collectives,
#: surveys; `steer.rubric._records`), not element scores: a check's `select`
#: names games, collectives or subscales, not taxonomy elements.
RUN_METRICS: frozenset[str] = GAME_METRICS | COLLECTIVE_METRICS | SURVEY_METRICS
#: Every metric a check may name, in the order `steer rubric schema` lists them.
CHECK_METRICS: tuple[str, ...] = tuple(
    name
    for kind in (CheckMetric, GameMetric, CollectiveMetric, SurveyMetric)
    for name in kind.__args__  # type: ignore[attr-defined]
)


class _Strict(BaseModel):
    # NaN and ±inf are never meaningful in a rubric (weights, thresholds, levels).
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class AdaptationFilter(_Strict):
    """Keep only runs whose adaptation matches every listed field."""

    format: list[str] | None = None
    shots: list[int] | None = None
    cot: list[str] | None = None
    prob_mode: list[str] | None = None


class Filters(_Strict):
    """Which responses are graded; an omitted filter keeps everything."""

    grades: tuple[int, int] | None = Field(default=None, description="inclusive [low, high], 0–14")
    domains: list[str] | None = None
    types: list[str] | None = None
    perspectives: list[str] | None = None
    models: list[str] | None = Field(default=None, description="model names or globs")
    adaptation: AdaptationFilter | None = None

    @model_validator(mode="after")
    def _grade_order(self) -> Filters:
        if self.grades is not None:
            lo, hi = self.grades
            if not 0 <= lo <= hi <= 14:
                raise ValueError(f"grades must be [low, high] within 0–14, got [{lo}, {hi}]")
        return self


class Section(_Strict):
    """Elements (or subsections) graded together; the score is a weighted mean."""

    name: str
    description: str = ""
    select: list[str] = Field(default_factory=list, description="ids, prefixes or globs")
    exclude: list[str] = Field(default_factory=list)
    weight: float = Field(
        default=1.0, gt=0, le=1e6, description="weight in the parent's mean (> 0)"
    )
    metric: SectionMetric | None = Field(default=None, description="overrides the rubric's metric")
    section: list[Section] = Field(default_factory=list, description="nested subsections")
    _file: str = PrivateAttr(default="")
    _path: tuple[str | int, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _one_kind(self) -> Section:
        if bool(self.select) == bool(self.section):
            raise ValueError(
                f"section {self.name!r} needs either `select` (elements) or nested "
                "[[section]] entries, not both and not neither"
            )
        return self


class Scale(_Strict):
    """Lowest score for each letter; anything below D is an F (points 4, 3, 2, 1, 0)."""

    A: float = 0.9
    B: float = 0.8
    C: float = 0.7
    D: float = 0.6


class Letter(_Strict):
    """One step of a custom letter scale, best first."""

    letter: str = Field(min_length=1)
    min: float
    points: float


class Check(_Strict):
    """A bound on a metric of selected elements, on a run metric (of selected
    games, collectives or survey subscales), or on a fitted parameter."""

    code: str = Field(pattern=r"^[A-Z]{1,4}[0-9]{3}$", description="e.g. HE001")
    select: list[str] = Field(
        default_factory=lambda: ["*"],
        description="elements checked; for a game metric, games (names or globs, "
        "e.g. 'prisoners-dilemma', 'repeated-*'); for a collective metric, collectives "
        "('majority:*'); for `subscale`, INSTRUMENT.SUBSCALE ('decision-style.*')",
    )
    exclude: list[str] = Field(default_factory=list)
    metric: CheckMetric | GameMetric | CollectiveMetric | SurveyMetric | None = None
    parameter: str | None = Field(default=None, description="a fitted parameter, e.g. lambda")
    shift_from: str | None = Field(
        default=None,
        description="bound the parameter's shift from this condition instead of its value "
        "(e.g. parameter = 'prospect-theory.lambda@persona:a banker', shift_from = 'baseline')",
    )
    significant: bool = Field(
        default=True,
        description="with shift_from: only a shift whose 95% intervals do not overlap fails",
    )
    min: float | None = None
    max: float | None = None
    aggregate: Literal["each", "mean"] = Field(
        "each", description="check every element, or the mean over them"
    )
    severity: Severity = "error"
    message: str = ""
    _file: str = PrivateAttr(default="")
    _path: tuple[str | int, ...] = PrivateAttr(default=())

    @field_validator("metric", mode="before")
    @classmethod
    def _known_metric(cls, value: object) -> object:
        # One line naming the closest metrics, not one error per kind of metric.
        if isinstance(value, str) and value not in CHECK_METRICS:
            hint = did_you_mean(value, CHECK_METRICS)
            also = f" — did you mean {', '.join(repr(h) for h in hint)}?" if hint else ""
            raise ValueError(f"unknown metric {value!r}{also} (`steer rubric schema` lists them)")
        return value

    @model_validator(mode="after")
    def _target_and_bounds(self) -> Check:
        if (self.metric is None) == (self.parameter is None):
            raise ValueError(f"check {self.code}: give exactly one of `metric` or `parameter`")
        if self.shift_from is not None and self.parameter is None:
            raise ValueError(f"check {self.code}: `shift_from` needs a `parameter`")
        if self.min is None and self.max is None:
            raise ValueError(f"check {self.code}: give `min`, `max` or both")
        if self.min is not None and self.max is not None and self.min > self.max:
            raise ValueError(f"check {self.code}: min {self.min} is above max {self.max}")
        return self


class _RuleOptions(_Strict):
    severity: Severity | None = Field(default=None, description="overrides the rule's default")


class BelowRandomOptions(_RuleOptions):
    pass


class DependencyInversionOptions(_RuleOptions):
    pass


class DomainFragilityOptions(_RuleOptions):
    max_gap: float = Field(default=0.3, gt=0, description="mean minus worst domain, at most")


class MiscalibrationOptions(_RuleOptions):
    max_ece: float = Field(default=0.15, gt=0, le=1)


class InconsistencyOptions(_RuleOptions):
    min_consistency: float = Field(default=0.9, ge=0, le=1)


class TooFewSamplesOptions(_RuleOptions):
    max_ci_width: float = Field(default=0.25, gt=0)


class IncompleteCoverageOptions(_RuleOptions):
    """RAT012: the runs asked only part of their bank (or answered nothing)."""

    min_bank_coverage: float = Field(
        default=1.0,
        gt=0,
        le=1,
        description="questions asked / questions in the bank, at least (1: the whole bank)",
    )


class NoAnswerRateOptions(_RuleOptions):
    """RAT013: too many asked questions without a usable answer."""

    max_no_answer_rate: float = Field(
        default=0.05,
        ge=0,
        le=1,
        description="share of asked questions without a usable answer (missing, "
        "errored, unparsable), at most",
    )


class CoverageUnknownOptions(_RuleOptions):
    """RAT014: no manifest or --bank says which questions were asked."""


class RegressionOptions(_RuleOptions):
    """RAT007: a paired test per element against the baseline, corrected across
    the elements of one card."""

    level: float = Field(
        default=0.05, gt=0, lt=1, description="significance level after correction"
    )
    correction: Literal["holm", "bh", "none"] = Field(
        default="holm",
        description="multiple-comparison control across a card's elements: Holm "
        "(family-wise), Benjamini–Hochberg (false discovery rate) or none",
    )
    resamples: int = Field(
        default=2000, ge=100, le=100_000, description="paired-bootstrap resamples"
    )
    seed: int = Field(default=0, ge=0, lt=2**32, description="seed of the paired bootstrap")


class Rules(_Strict):
    """Options of the built-in rules, by rule name."""

    below_random: BelowRandomOptions = Field(default_factory=lambda: BelowRandomOptions())
    dependency_inversion: DependencyInversionOptions = Field(
        default_factory=lambda: DependencyInversionOptions()
    )
    domain_fragility: DomainFragilityOptions = Field(
        default_factory=lambda: DomainFragilityOptions()
    )
    miscalibration: MiscalibrationOptions = Field(default_factory=lambda: MiscalibrationOptions())
    inconsistency: InconsistencyOptions = Field(default_factory=lambda: InconsistencyOptions())
    too_few_samples: TooFewSamplesOptions = Field(default_factory=lambda: TooFewSamplesOptions())
    regression: RegressionOptions = Field(default_factory=lambda: RegressionOptions())
    incomplete_coverage: IncompleteCoverageOptions = Field(
        default_factory=lambda: IncompleteCoverageOptions()
    )
    no_answer_rate: NoAnswerRateOptions = Field(default_factory=lambda: NoAnswerRateOptions())
    coverage_unknown: CoverageUnknownOptions = Field(
        default_factory=lambda: CoverageUnknownOptions()
    )


class Rubric(_Strict):
    """One rubric file. With `extends`, unset fields come from the parent."""

    name: str
    description: str = ""
    extends: str | None = Field(default=None, description="a shipped rubric's name or a path")
    metric: SectionMetric = "normalized_accuracy"
    filters: Filters = Field(default_factory=lambda: Filters())
    ci: float = Field(default=0.95, gt=0, lt=1, description="confidence level of the intervals")
    bootstrap: int = Field(
        default=0,
        ge=0,
        le=MAX_BOOTSTRAP,
        description="bootstrap resamples (0: Wilson intervals, much faster)",
    )
    select: list[str] | None = Field(
        default=None, description="codes or prefixes to run (default all)"
    )
    ignore: list[str] = Field(default_factory=list)
    per_model_ignores: dict[str, list[str]] = Field(
        default_factory=dict, description="model name or glob → codes to ignore"
    )
    scale: Scale | None = None
    letters: list[Letter] | None = Field(default=None, description="a custom scale, best first")
    rules: Rules = Field(default_factory=lambda: Rules())
    section: list[Section] = Field(default_factory=list)
    check: list[Check] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_scale(self) -> Rubric:
        if self.scale is not None and self.letters is not None:
            raise ValueError("give either [scale] or [[letters]], not both")
        return self

    def letter_steps(self) -> list[tuple[str, float, float]]:
        """(letter, lowest score, points), best first; below the last is F with 0."""
        if self.letters is not None:
            return [(x.letter, x.min, x.points) for x in self.letters]
        s = self.scale or Scale()
        return [("A", s.A, 4.0), ("B", s.B, 3.0), ("C", s.C, 2.0), ("D", s.D, 1.0)]
