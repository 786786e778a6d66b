"""`audit_bank`: answer a bank with blind agents and judge every element.

An element FAILS when some blind agent's held-out accuracy beats chance by
more than `threshold` (10 points by default) on at least `min_n` held-out
questions, or on fewer when even the lower end of the 95% Wilson interval
of the gap clears the threshold. An element with fewer than `min_n`
held-out questions and no such decisive leak is "too small" to judge: 400
gives an interval half-width near 5 points.

The report also grades the cross-fitted learner's answers under a rubric
(`_graded`: the audit fails when it scores above 0.05 overall or 0.10 in a
module) and lists the bank side of issue 20 §4 per element (`findings`):
distractors tagged `other` (BAL001, at most 10%), perspective balance
(BAL002, each of the five within ±20% of a fifth) and two-option items whose
template offers more elsewhere (BAL003, at most 10%; a template whose construct
has two answers keeps two options). Findings are reported, not
failed on: imported banks carry no perspectives or tags; the quality gate
(tests/test_quality_gate.py) holds generated banks to them.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Literal

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from steer.audit._balance import balance
from steer.audit._consistency import consistency_outcome, parse_rule
from steer.audit._frame import OptionFrame, build_frame
from steer.audit._graded import (
    DEFAULT_RUBRIC,
    MAX_MODULE_SCORE,
    MAX_SCORE,
    LearnerGrade,
    grade_learner,
)
from steer.audit._outcome import row_outcome, unit_outcome
from steer.audit.agents import answer_agents, learner_available
from steer.errors import FileFormatError

THRESHOLD = 0.10
MIN_N = 400
LEVEL = 0.95
MAX_OTHER_SHARE = 0.10
PERSPECTIVE_TOLERANCE = 0.20
MAX_TWO_OPTION_SHARE = 0.10
BALANCE_CODES = {
    "BAL001": "other-tags",
    "BAL002": "perspective-imbalance",
    "BAL003": "two-option-items",
}
Status = Literal["pass", "fail", "too small"]


class AgentResult(BaseModel):
    """One blind agent on one element: held-out units where it had a
    preference (`n`), its expected accuracy, chance on those units, and the
    gap accuracy − chance with a 95% Wilson interval."""

    model_config = ConfigDict(extra="forbid")

    agent: str
    family: str
    n: int
    accuracy: float
    chance: float
    gap: float
    gap_low: float
    gap_high: float
    flagged: bool


class ElementAudit(BaseModel):
    model_config = ConfigDict(extra="forbid")

    element: str
    grading: Literal["answer", "consistency"]
    n: int  # held-out units (every unit is held out once, cross-fitted)
    status: Status
    worst: AgentResult | None
    agents: list[AgentResult]
    key_positions: list[int]
    key_position_chi2: float | None
    key_position_p: float | None
    key_text_diversity: float | None
    option_counts: dict[int, int]
    yes_no_questions: int
    yes_share: float | None
    other_share: float | None = None
    perspectives: dict[str, int] = {}
    perspective_spread: float | None = None
    two_option_share: float | None = None
    findings: list[str] = []  # BAL codes: the bank side of issue 20 §4


class AuditReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bank: str
    seed: int
    threshold: float
    min_n: int
    learner: bool
    notes: list[str]
    elements: list[ElementAudit]
    learner_grade: LearnerGrade | None = None

    @property
    def failing(self) -> list[ElementAudit]:
        return [e for e in self.elements if e.status == "fail"]

    @property
    def failed(self) -> bool:
        """Exit 1: an element fails, or the graded learner is above a bar."""
        return bool(self.failing) or bool(self.learner_grade and self.learner_grade.over)

    @property
    def findings(self) -> list[str]:
        """Every element's BAL findings, in element order."""
        return [f for e in self.elements for f in e.findings]


def _nan_none(x: float) -> float | None:
    return None if x != x else float(x)


def _wilson(k: float, n: int, z: float) -> tuple[float, float]:
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def judge(
    name: str, family: str, p: np.ndarray, chance: np.ndarray, threshold: float, min_n: int
) -> AgentResult | None:
    """Summarise one agent's expected correctness `p` against `chance` per
    unit (arrays over the units it decided)."""
    n = len(p)
    if n == 0:
        return None
    z = 1.959963984540054  # 97.5% normal quantile
    acc, ch = float(p.mean()), float(chance.mean())
    lo, hi = _wilson(float(p.sum()), n, z)
    gap = acc - ch
    flagged = gap > threshold and (n >= min_n or lo - ch > threshold)
    return AgentResult(
        agent=name,
        family=family,
        n=n,
        accuracy=acc,
        chance=ch,
        gap=gap,
        gap_low=lo - ch,
        gap_high=hi - ch,
        flagged=flagged,
    )


def balance_findings(
    element: str,
    other_share: float | None,
    spread: float | None,
    perspectives: dict[str, int],
    two_option_share: float | None,
) -> list[str]:
    """The BAL findings of one element: `element: CODE name: value, limit`."""

    def line(code: str, text: str) -> str:
        return f"{element}: {code} {BALANCE_CODES[code]}: {text}"

    out = []
    if other_share is not None and other_share >= MAX_OTHER_SHARE:
        out.append(
            line(
                "BAL001",
                f"{other_share:.0%} of distractors are tagged `other` (limit: under "
                f"{MAX_OTHER_SHARE:.0%}); tag each by the computation that made it",
            )
        )
    if spread is not None and spread > PERSPECTIVE_TOLERANCE:
        mix = " ".join(f"{k}:{v}" for k, v in perspectives.items()) or "none"
        out.append(
            line(
                "BAL002",
                f"perspectives {mix} are {spread:.0%} off an even fifth each (limit: "
                f"±{PERSPECTIVE_TOLERANCE:.0%}); declare and realise all five in every template",
            )
        )
    if two_option_share is not None and two_option_share > MAX_TWO_OPTION_SHARE:
        out.append(
            line(
                "BAL003",
                f"{two_option_share:.0%} of items have two options where their template offers "
                f"more (limit: {MAX_TWO_OPTION_SHARE:.0%})",
            )
        )
    return out


def _check_rules(frame: OptionFrame, source: str) -> None:
    rules = frame.table["consistency_rule"]
    for rule in rules.unique().drop_null().to_pylist():
        try:
            parse_rule(rule)
        except ValueError as exc:
            row = int(np.flatnonzero(rules.to_numpy(zero_copy_only=False) == rule)[0])
            raise FileFormatError(
                str(exc), source=source, where=f"row {row}", field="consistency_rule"
            ) from None


def audit_frame(
    frame: OptionFrame,
    *,
    source: str = "<bank>",
    seed: int = 0,
    threshold: float = THRESHOLD,
    min_n: int = MIN_N,
    learner: bool = True,
    rubric: str | Path | None = DEFAULT_RUBRIC,
    max_learner_score: float = MAX_SCORE,
    max_module_score: float = MAX_MODULE_SCORE,
    bank_sha256: str | None = None,
) -> tuple[AuditReport, dict[str, np.ndarray]]:
    """The report, and every agent's chosen index per question row. With
    `rubric` (a shipped name or a file; None: skip) the learner's answers
    are graded under it (see `_graded`)."""
    _check_rules(frame, source)
    notes = []
    if learner and not learner_available():
        notes.append(
            "scikit-learn is not installed: the learned agent was skipped "
            "(pip install 'steer[audit]')"
        )
    agents = answer_agents(with_learner=learner)
    per_element: dict[int, list[AgentResult]] = {e: [] for e in range(len(frame.elements))}
    choices: dict[str, np.ndarray] = {}
    unit_n: dict[int, int] = {}
    grading: dict[int, Literal["answer", "consistency"]] = {}
    for agent in agents:
        rows = row_outcome(frame, agent.score(frame))
        choices[agent.name] = rows.choice
        units = unit_outcome(frame, rows)
        for e in range(len(frame.elements)):
            in_el = units.graded & (units.element == e)
            if not in_el.any():
                continue
            unit_n[e] = int(in_el.sum())
            grading[e] = "answer"
            m = in_el & units.decided
            res = judge(
                agent.name, agent.family, units.p_correct[m], units.chance[m], threshold, min_n
            )
            if res:
                per_element[e].append(res)
    groups = consistency_outcome(frame)
    choices["keep"], choices["switch"] = groups.keep_choice, groups.switch_choice
    unit_element = np.zeros(frame.n_units, dtype=np.int64)
    unit_element[frame.q_unit] = frame.q_element
    for e in range(len(frame.elements)):
        m = groups.graded & (unit_element == e)
        if not m.any():
            continue
        if e not in grading:
            grading[e], unit_n[e] = "consistency", int(m.sum())
        for name, ok in (("keep", groups.keep), ("switch", groups.switch)):
            res = judge(name, "consistency", ok[m], groups.chance[m], threshold, min_n)
            if res:
                per_element[e].append(res)
    balances = balance(frame)
    out = []
    for e, name in enumerate(frame.elements):
        if e not in grading:
            continue
        results = per_element[e]
        # The flagged agent with the largest gap; else the most credible gap
        # (lower bound), so an agent that decided 1 question does not shout.
        worst = max(
            results, key=lambda r: (r.flagged, r.gap if r.flagged else r.gap_low), default=None
        )
        if any(r.flagged for r in results):
            status: Status = "fail"
        elif unit_n[e] < min_n:
            status = "too small"
        else:
            status = "pass"
        b = balances[e]
        other_share = _nan_none(b.other_share)
        spread = _nan_none(b.perspective_spread)
        two_option = _nan_none(b.two_option_share)
        out.append(
            ElementAudit(
                element=name,
                grading=grading[e],
                n=unit_n[e],
                status=status,
                worst=worst,
                agents=results,
                key_positions=b.key_positions,
                key_position_chi2=_nan_none(b.key_position_chi2),
                key_position_p=_nan_none(b.key_position_p),
                key_text_diversity=_nan_none(b.key_text_diversity),
                option_counts=b.option_counts,
                yes_no_questions=b.yes_no_questions,
                yes_share=_nan_none(b.yes_share),
                other_share=other_share,
                perspectives=b.perspectives,
                perspective_spread=spread,
                two_option_share=two_option,
                findings=balance_findings(name, other_share, spread, b.perspectives, two_option),
            )
        )
    out.sort(key=lambda a: a.element)
    small = sum(a.status == "too small" for a in out)
    if small:
        notes.append(
            f"{small} element{'s' if small != 1 else ''} had fewer than {min_n} held-out "
            f"questions: too small to judge; generate a larger bank (--per-cell)"
        )
    graded = None
    if rubric is not None and "learner" in choices and frame.n_rows:
        graded = grade_learner(
            frame,
            choices,
            rubric=rubric,
            bank_sha256=bank_sha256,
            max_score=max_learner_score,
            max_module_score=max_module_score,
        )
    report = AuditReport(
        bank=source,
        seed=seed,
        threshold=threshold,
        min_n=min_n,
        learner=learner and learner_available(),
        notes=notes,
        elements=out,
        learner_grade=graded,
    )
    return report, choices


def audit_bank(
    table: pa.Table,
    *,
    source: str = "<bank>",
    seed: int = 0,
    threshold: float = THRESHOLD,
    min_n: int = MIN_N,
    learner: bool = True,
    rubric: str | Path | None = DEFAULT_RUBRIC,
    max_learner_score: float = MAX_SCORE,
    max_module_score: float = MAX_MODULE_SCORE,
) -> AuditReport:
    """Audit a validated bank table (`steer.bank.read_bank`). `seed` picks
    the halves the learned agents are cross-fitted on; `rubric` grades the
    learner's answers (None: skip)."""
    frame = build_frame(table, seed)
    return audit_frame(
        frame,
        source=source,
        seed=seed,
        threshold=threshold,
        min_n=min_n,
        learner=learner,
        rubric=rubric,
        max_learner_score=max_learner_score,
        max_module_score=max_module_score,
    )[0]
