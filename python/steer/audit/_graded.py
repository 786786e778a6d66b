"""The strongest blind agent, graded: the cross-fitted learner's answers to
the whole bank scored under a rubric like a model's run.

A leak that is small per element still adds up on a report card (issue 20
§1: a content-blind learner scored 0.37 normalized accuracy overall and an A
on one module). The audit fails when the graded learner scores above
`MAX_SCORE` overall or above `MAX_MODULE_SCORE` in any module; a module is
one of the rubric's innermost sections (under `whole-benchmark`, one per
taxonomy module such as 2.5).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from steer.audit._frame import OptionFrame
from steer.audit._responses import blind_responses
from steer.rubric import SectionScore

DEFAULT_RUBRIC = "whole-benchmark"
MAX_SCORE = 0.05
MAX_MODULE_SCORE = 0.10


class ModuleGrade(BaseModel):
    """The learner's score on one innermost section of the rubric."""

    model_config = ConfigDict(extra="forbid")

    name: str
    score: float
    low: float | None
    high: float | None
    letter: str
    over: bool  # above the module bar


class LearnerGrade(BaseModel):
    """The graded learner: its score under `rubric`'s metric overall and per
    module, with the bars it is held to."""

    model_config = ConfigDict(extra="forbid")

    rubric: str
    metric: str
    score: float | None
    letter: str
    max_score: float
    max_module_score: float
    modules: list[ModuleGrade]
    over: bool  # above the bar overall or in some module: the audit fails


def _leaves(sections: list[SectionScore], max_module: float) -> list[ModuleGrade]:
    out = []
    for s in sections:
        if s.children:
            out.extend(_leaves(s.children, max_module))
        elif s.score is not None:
            out.append(
                ModuleGrade(
                    name=s.name,
                    score=float(s.score),
                    low=s.lo,
                    high=s.hi,
                    letter=s.letter,
                    over=float(s.score) > max_module,
                )
            )
    return out


def grade_learner(
    frame: OptionFrame,
    choices: dict[str, np.ndarray],
    *,
    rubric: str | Path = DEFAULT_RUBRIC,
    bank_sha256: str | None = None,
    max_score: float = MAX_SCORE,
    max_module_score: float = MAX_MODULE_SCORE,
) -> LearnerGrade:
    """Grade the learner's answers to `frame`'s bank (`choices` from
    `audit_frame`) under `rubric` (a shipped name or a file), in process.
    A rubric that cannot be loaded raises `RubricError` (bad input)."""
    from steer.rubric import RubricError, grade, load_rubric

    loaded = load_rubric(str(rubric))
    if loaded.warnings:
        raise RubricError(loaded.warnings)
    responses: pa.Table = blind_responses(frame, choices, bank_sha256)
    result = grade([responses], loaded, bank=frame.table)
    card = result.cards[0] if result.cards else None
    score = card.score if card else None
    modules = _leaves(card.sections, max_module_score) if card else []
    return LearnerGrade(
        rubric=loaded.rubric.name,
        metric=loaded.rubric.metric,
        score=score,
        letter=card.letter if card else "—",
        max_score=max_score,
        max_module_score=max_module_score,
        modules=modules,
        over=(score is not None and score > max_score) or any(m.over for m in modules),
    )
