"""The built-in rules in run order (see `_codes.py` for the table of codes)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from steer.rubric._diagnostic import Diagnostic
from steer.rubric.rules import (
    baseline_mismatch,
    below_random,
    coverage_unknown,
    dependency_inversion,
    domain_fragility,
    incomplete_coverage,
    inconsistency,
    miscalibration,
    no_answer_rate,
    regression,
    section_without_data,
    too_few_samples,
    unpaired_baseline,
    user_check,
)
from steer.rubric.rules._context import RuleContext

Rule = Callable[[RuleContext], Iterator[Diagnostic]]

# Run order; user checks (and RAT008) come from `user_check`.
RULES: tuple[Rule, ...] = (
    incomplete_coverage.run,
    no_answer_rate.run,
    coverage_unknown.run,
    below_random.run,
    dependency_inversion.run,
    domain_fragility.run,
    miscalibration.run,
    inconsistency.run,
    too_few_samples.run,
    regression.run,
    baseline_mismatch.run,
    unpaired_baseline.run,
    user_check.run,
    section_without_data.run,
)
