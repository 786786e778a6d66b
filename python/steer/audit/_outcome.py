"""From an agent's option scores to its expected held-out correctness.

An agent scores every option; it picks an option of highest score and breaks
ties uniformly at random, so its expected correctness on a question is
1[key among the best] / |best|. NaN scores mean "no preference": an agent
with no preference on a question guesses, which is exactly chance. A
multi-part question counts once, right only if every part is (as `steer
score` counts it): its expected correctness is the product over its parts.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from steer.audit._frame import OptionFrame

F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]


@dataclass
class RowOutcome:
    """Per question row: expected correctness, whether the agent had a
    preference (not every option tied) and the first option of highest score."""

    p_correct: F64
    decided: B
    choice: npt.NDArray[np.int64]


def row_outcome(frame: OptionFrame, scores: F64) -> RowOutcome:
    s = np.where(np.isnan(scores), -np.inf, scores)
    n_rows = frame.n_rows
    best = np.full(n_rows, -np.inf)
    np.maximum.at(best, frame.o_row, s)
    at_best = s == best[frame.o_row]
    n_best = np.bincount(frame.o_row, weights=at_best, minlength=n_rows)
    key_best = np.bincount(frame.o_row, weights=at_best & frame.o_is_key, minlength=n_rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = np.where(n_best > 0, key_best / n_best, 0.0)
    # First option at the best score: smallest position among the maxima.
    pos = np.where(at_best, frame.o_pos, np.iinfo(np.int64).max)
    choice = np.full(n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(choice, frame.o_row, pos)
    choice[frame.q_n == 0] = -1
    return RowOutcome(p_correct=p, decided=n_best < frame.q_n, choice=choice)


@dataclass
class UnitOutcome:
    """Per unit (multi-part question): expected correctness, chance, whether
    the agent decided any part, and whether the unit is answer-graded."""

    p_correct: F64
    chance: F64
    decided: B
    graded: B
    element: npt.NDArray[np.int64]
    half: npt.NDArray[np.int8]


def unit_outcome(frame: OptionFrame, rows: RowOutcome) -> UnitOutcome:
    """Answer-graded units only (`graded`); consistency units are judged by
    `steer.audit._consistency`."""
    u = frame.q_unit
    n = frame.n_units
    p = np.ones(n)
    chance = np.ones(n)
    graded = np.zeros(n, dtype=bool)
    decided = np.zeros(n, dtype=bool)
    ans = frame.q_answer
    np.multiply.at(p, u[ans], rows.p_correct[ans])
    np.multiply.at(chance, u[ans], 1.0 / np.maximum(frame.q_n[ans], 1))
    graded[u[ans]] = True
    np.logical_or.at(decided, u[ans], rows.decided[ans])
    element = np.zeros(n, dtype=np.int64)
    element[u] = frame.q_element
    half = np.zeros(n, dtype=np.int8)
    half[u] = frame.q_half
    return UnitOutcome(p, chance, decided, graded, element, half)
