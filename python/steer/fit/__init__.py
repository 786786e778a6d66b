"""Preference fits from experiment choices.

- Revealed preference over budget choices (`garp`, `ccei`, `houtman_maks`,
  `money_pump`): the work runs in steer-core, in parallel over subjects.
- Play runs (`fit_runs`): every parameter and score of `steer play`
  directories, one row per (model, condition, experiment, family, parameter)
  with bootstrap intervals; `compare_conditions` for `steer fit --compare`.
"""

from steer.fit._compare import COMPARE_SCHEMA, compare_conditions
from steer.fit._revealed import Panel, ccei, garp, houtman_maks, money_pump, panel
from steer.fit._runs import FIT_SCHEMA, fit_runs

__all__ = [
    "COMPARE_SCHEMA",
    "FIT_SCHEMA",
    "Panel",
    "ccei",
    "compare_conditions",
    "fit_runs",
    "garp",
    "houtman_maks",
    "money_pump",
    "panel",
]
