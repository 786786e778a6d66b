"""`audit_bank`: answer a bank with blind agents and judge every element.

An element FAILS when some blind agent's held-out accuracy beats chance by
more than `threshold` (10 points by default) on at least `min_n` held-out
questions, or on fewer when even the lower end of the 95% Wilson interval
of the gap clears the threshold. An element with fewer than `min_n`
held-out questions and no such decisive leak is "too small" to judge: 400
gives an interval half-width near 5 points.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from steer.audit._balance import balance
from steer.audit._consistency import consistency_outcome, parse_rule
from steer.audit._frame import OptionFrame, build_frame
from steer.audit._outcome import row_outcome, unit_outcome
from steer.audit.agents import answer_agents, learner_available
from steer.errors import FileFormatError

THRESHOLD = 0.10
MIN_N = 400
LEVEL = 0.95
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


class AuditReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    bank: str
    seed: int
    threshold: float
    min_n: int
    learner: bool
    notes: list[str]
    elements: list[ElementAudit]

    @property
    def failing(self) -> list[ElementAudit]:
        return [e for e in self.elements if e.status == "fail"]


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
) -> tuple[AuditReport, dict[str, np.ndarray]]:
    """The report, and every agent's chosen index per question row."""
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
            )
        )
    out.sort(key=lambda a: a.element)
    small = sum(a.status == "too small" for a in out)
    if small:
        notes.append(
            f"{small} element{'s' if small != 1 else ''} had fewer than {min_n} held-out "
            f"questions: too small to judge; generate a larger bank (--per-cell)"
        )
    report = AuditReport(
        bank=source,
        seed=seed,
        threshold=threshold,
        min_n=min_n,
        learner=learner and learner_available(),
        notes=notes,
        elements=out,
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
) -> AuditReport:
    """Audit a validated bank table (`steer.bank.read_bank`). `seed` picks
    the halves the learned agents are cross-fitted on."""
    frame = build_frame(table, seed)
    return audit_frame(
        frame, source=source, seed=seed, threshold=threshold, min_n=min_n, learner=learner
    )[0]
