"""What a blind agent is: a named rule that scores every option of a bank
without solving any question. Highest score is its answer (ties split)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from steer.audit._frame import OptionFrame

Scores = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Agent:
    """`score(frame)` returns one float per option (NaN: no preference).
    Learned agents are cross-fitted: options of half h are scored by a rule
    fitted on the other half only."""

    name: str
    family: str
    doc: str
    score: Callable[[OptionFrame], Scores]
    learned: bool = False


def per_row_max(frame: OptionFrame, values: Scores) -> Scores:
    """Largest value among each row's options, broadcast back to options."""
    best = np.full(frame.n_rows, -np.inf)
    np.maximum.at(best, frame.o_row, values)
    return best[frame.o_row]


def only_where(frame: OptionFrame, scores: Scores, applies: npt.NDArray[np.bool_]) -> Scores:
    """NaN (no preference) for every option of rows where `applies` is False."""
    return np.where(applies[frame.o_row], scores, np.nan)
