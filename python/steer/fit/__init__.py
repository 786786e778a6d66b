"""Preference fits from experiment choices.

- Revealed preference over budget choices (`garp`, `ccei`, `houtman_maks`,
  `money_pump`): the work runs in steer-core, in parallel over subjects.
- Play runs (`fit_runs`): every parameter and score of `steer play`
  directories, one row per (model, condition, experiment, family, parameter)
  with bootstrap intervals; `compare_conditions` for `steer fit --compare`.
- Utility parameters (`prospect_theory`, `discounting`, `fehr_schmidt`): fits
  with bootstrapped intervals, batched over groups, in steer-core.
"""

from steer.fit._compare import COMPARE_SCHEMA, compare_conditions
from steer.fit._discounting import DISCOUNT_FAMILIES, discounting
from steer.fit._fairness import fehr_schmidt
from steer.fit._prospect import PT_BOUNDS, PT_MEDIANS, prospect_theory
from steer.fit._revealed import Panel, ccei, garp, houtman_maks, money_pump, panel
from steer.fit._runs import FIT_SCHEMA, fit_runs

__all__ = [
    "COMPARE_SCHEMA",
    "DISCOUNT_FAMILIES",
    "FIT_SCHEMA",
    "PT_BOUNDS",
    "PT_MEDIANS",
    "Panel",
    "ccei",
    "compare_conditions",
    "discounting",
    "fehr_schmidt",
    "fit_runs",
    "garp",
    "houtman_maks",
    "money_pump",
    "panel",
    "prospect_theory",
]
