"""The shortcut audit: answer a bank with blind agents that do not solve its
questions, and flag every element where one of them beats chance.

`audit_bank(table)` returns an `AuditReport`; `steer bank audit BANK` prints
it like a linter (exit 1 when an element fails or the graded learner
scores above its bars). See `steer.audit.agents`
for the agents and `_audit` for the failure rule.
"""

from steer.audit._audit import (
    MIN_N,
    THRESHOLD,
    AgentResult,
    AuditReport,
    ElementAudit,
    audit_bank,
    audit_frame,
)
from steer.audit._frame import OptionFrame, build_frame
from steer.audit._graded import (
    DEFAULT_RUBRIC,
    MAX_MODULE_SCORE,
    MAX_SCORE,
    LearnerGrade,
    ModuleGrade,
    grade_learner,
)
from steer.audit._render import render
from steer.audit._responses import MODEL, blind_responses

__all__ = [
    "DEFAULT_RUBRIC",
    "MAX_MODULE_SCORE",
    "MAX_SCORE",
    "MIN_N",
    "MODEL",
    "THRESHOLD",
    "AgentResult",
    "AuditReport",
    "ElementAudit",
    "LearnerGrade",
    "ModuleGrade",
    "OptionFrame",
    "audit_bank",
    "audit_frame",
    "blind_responses",
    "build_frame",
    "grade_learner",
    "render",
]
