"""Every diagnostic code steer emits, in one table. Codes are stable forever
once released: retire a code rather than reuse it.

`RUB…` codes are about a rubric or config file itself (`steer rubric check`);
`RAT…` codes are the built-in rules `steer grade` runs on scores. Checks a
rubric declares carry the rubric's own codes (any prefix except these two).
"""

from __future__ import annotations

from dataclasses import dataclass

from steer.rubric._diagnostic import Severity


@dataclass(frozen=True)
class Code:
    code: str
    name: str
    severity: Severity
    summary: str
    module: str | None = None  # the rule's module (its docstring documents it)


_TABLE = (
    # Rubric and config files.
    Code("RUB001", "invalid-toml", "error", "the file is not valid TOML"),
    Code("RUB002", "unknown-key", "error", "a key the format does not define"),
    Code("RUB003", "invalid-value", "error", "a value of the wrong type or out of range"),
    Code("RUB004", "selector-matches-nothing", "warning", "a selector matches no element"),
    Code("RUB005", "bad-extends", "error", "`extends` names no rubric, or forms a cycle"),
    Code("RUB006", "bad-letter-scale", "error", "letter thresholds overlap or are not monotone"),
    Code("RUB007", "unknown-code", "error", "`select`/`ignore` name no known code or prefix"),
    Code("RUB008", "no-sections", "error", "the rubric (with what it extends) has no section"),
    # Built-in rules on scores.
    Code(
        "RAT001",
        "below-random-guessing",
        "error",
        "an element scored below random guessing, beyond CI noise",
        "below_random",
    ),
    Code(
        "RAT002",
        "dependency-inversion",
        "warning",
        "an element scored above one of its prerequisites, beyond CI noise",
        "dependency_inversion",
    ),
    Code(
        "RAT003",
        "domain-fragility",
        "warning",
        "the worst domain of an element is far below its mean",
        "domain_fragility",
    ),
    Code("RAT004", "miscalibration", "warning", "ECE above the bound", "miscalibration"),
    Code(
        "RAT005",
        "inconsistency",
        "warning",
        "consistency-graded questions answered inconsistently",
        "inconsistency",
    ),
    Code(
        "RAT006",
        "too-few-samples",
        "warning",
        "a section's confidence interval is too wide for its grade",
        "too_few_samples",
    ),
    Code(
        "RAT007",
        "regression",
        "error",
        "an element dropped below the baseline: a paired test, significant after correction",
        "regression",
    ),
    Code(
        "RAT008",
        "check-without-data",
        "info",
        "a check found no scored element, fitted parameter or run record (game, crowd, "
        "survey) to test",
        "user_check",
    ),
    Code(
        "RAT009",
        "section-without-data",
        "info",
        "a section selects elements absent from the runs",
        "section_without_data",
    ),
    Code(
        "RAT010",
        "baseline-mismatch",
        "warning",
        "the baseline is for another model, adaptation, rubric or bank: not compared",
        "baseline_mismatch",
    ),
    Code(
        "RAT011",
        "unpaired-baseline",
        "info",
        "a version-1 baseline: compared without pairing questions (interval rule)",
        "unpaired_baseline",
    ),
    Code(
        "RAT012",
        "incomplete-coverage",
        "error",
        "the run asked only part of its bank, or answered nothing",
        "incomplete_coverage",
    ),
    Code(
        "RAT013",
        "no-answer-rate",
        "error",
        "too many asked questions without a usable answer",
        "no_answer_rate",
    ),
    Code(
        "RAT014",
        "coverage-unknown",
        "warning",
        "no manifest or --bank says which questions were asked",
        "coverage_unknown",
    ),
)

CODES: dict[str, Code] = {c.code: c for c in _TABLE}
RULE_CODES: tuple[str, ...] = tuple(c for c in CODES if c.startswith("RAT"))
RESERVED_PREFIXES = ("RUB", "RAT")


def by_name(name: str) -> Code | None:
    """The code called `name` (e.g. 'domain-fragility'), or None."""
    return next((c for c in _TABLE if c.name == name), None)
