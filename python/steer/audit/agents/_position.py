"""Position agents: always the first, the last or the middle option.

Why: generated or imported banks that put the key in a favourite place let a
model score by position alone (the imported STEER expectation questions keep
their key last). Example: keys at index 0 in 14 of 18 questions of 2.3.b.
"""

from __future__ import annotations

import numpy as np

from steer.audit._frame import OptionFrame
from steer.audit.agents._base import Agent, Scores


def first(frame: OptionFrame) -> Scores:
    return -frame.o_pos.astype(np.float64)


def last(frame: OptionFrame) -> Scores:
    return frame.o_pos.astype(np.float64)


def middle(frame: OptionFrame) -> Scores:
    # With an even count the two central options tie (and split the guess).
    centre = (frame.rows_of(frame.q_n) - 1) / 2.0
    return -np.abs(frame.o_pos - centre)


AGENTS = (
    Agent("first", "position", "always the first option", first),
    Agent("last", "position", "always the last option", last),
    Agent("middle", "position", "always the middle option", middle),
)
