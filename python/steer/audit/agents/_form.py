"""Form agents: the longest or shortest option, the option with the most
numbers, the largest or the smallest number.

Why: distractors built by a different process than the key often differ in
form (only the key has cents in 1.1.b; the correct plan is the only moderate
one). Example: `["$12", "$8", "$15.50"]` with key `$15.50` leaks to "longest".
"""

from __future__ import annotations

import numpy as np

from steer.audit._frame import OptionFrame
from steer.audit.agents._base import Agent, Scores, only_where


def longest(frame: OptionFrame) -> Scores:
    return frame.o_len.copy()


def shortest(frame: OptionFrame) -> Scores:
    return -frame.o_len


def most_numbers(frame: OptionFrame) -> Scores:
    return frame.o_nnum.copy()


def _with_numbers(frame: OptionFrame) -> np.ndarray:
    """Rows where at least one option holds a number."""
    has = np.zeros(frame.n_rows, dtype=bool)
    np.logical_or.at(has, frame.o_row, frame.o_nnum > 0)
    return has


def largest_number(frame: OptionFrame) -> Scores:
    # Options without numbers score -inf: never preferred to one with a number.
    return only_where(frame, frame.o_max.copy(), _with_numbers(frame))


def smallest_number(frame: OptionFrame) -> Scores:
    return only_where(frame, -frame.o_min, _with_numbers(frame))


AGENTS = (
    Agent("longest", "form", "the option with the most characters", longest),
    Agent("shortest", "form", "the option with the fewest characters", shortest),
    Agent("most-numbers", "form", "the option that holds the most numbers", most_numbers),
    Agent("largest-number", "form", "the option holding the largest number", largest_number),
    Agent("smallest-number", "form", "the option holding the smallest number", smallest_number),
)
