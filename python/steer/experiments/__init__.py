"""Behavioural experiments: grids as data, turned into trials a model answers.

`EXPERIMENTS` names them; `load_grid` reads a grid (the shipped one or a
user's file) and `build_trials` turns it into the question rows `steer play`
asks and the trial table the fits read.
"""

from __future__ import annotations

from steer._suggest import did_you_mean
from steer.errors import UnknownNameError
from steer.experiments._grid import Grid, load_grid
from steer.experiments._trials import (
    ELEMENT_PREFIX,
    SETTING,
    TRIAL_SCHEMA,
    build_trials,
    intervention_text,
    ladder,
    mixed_gains,
)

#: Every experiment `steer play` runs, in the order `--all` plays them.
EXPERIMENTS: tuple[str, ...] = tuple(SETTING)


def check_experiment(name: str) -> str:
    if name not in EXPERIMENTS:
        raise UnknownNameError("experiment", name, did_you_mean(name, EXPERIMENTS))
    return name


__all__ = [
    "ELEMENT_PREFIX",
    "EXPERIMENTS",
    "TRIAL_SCHEMA",
    "Grid",
    "build_trials",
    "check_experiment",
    "intervention_text",
    "ladder",
    "load_grid",
    "mixed_gains",
]
