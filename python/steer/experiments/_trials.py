"""Trials: an experiment's grid as question rows a backend can answer.

Every choice an experiment asks is one multiple-choice question with no key
(`grading = "elicit"`): the answer is data about the chooser, not right or
wrong. `steer play` writes these rows to the run directory and answers them
with `steer run`'s machinery (journal, cache, cost limit, transcripts), so an
experiment is durable and resumable exactly like a question bank.

Each row also carries the numbers its analysis needs (the columns of
`TRIAL_SCHEMA`): the stimulus it belongs to, the sample, the amount it offers
(`level`) and which option takes that amount (`accept`), so the fits read
arrays, never the text. `payload` holds the options as structured outcomes for
the reference agents with known preferences.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyarrow as pa

from steer.experiments._grid import (
    BudgetRow,
    DelayRow,
    DictatorRow,
    Grid,
    MixedRow,
    OfferRow,
    PoolRow,
    ProspectRow,
    TriangleRow,
)
from steer.experiments._prompts import (
    ADVICE,
    BIAS_PROMPTS,
    INSTRUCTIONS,
    PREMISE,
    lottery,
    money,
    outcome,
    persona,
)

#: The element id of an experiment's trials (no taxonomy element: nothing is graded).
ELEMENT_PREFIX = "experiment."

SETTING = {
    "gambling": "risk",
    "mixed-gamble": "risk",
    "mm-triangle": "risk",
    "waiting": "time",
    "discounting": "time",
    "ultimatum-proposer": "social",
    "ultimatum-responder": "social",
    "dictator": "social",
    "budget": "budget",
}

TRIAL_SCHEMA = pa.schema(
    [
        ("question_id", pa.string()),
        ("experiment", pa.string()),
        ("stimulus", pa.string()),
        ("kind", pa.string()),
        ("rung", pa.int32()),
        ("sample", pa.int32()),
        # The amount this trial offers and the option index that takes it: a
        # sure amount (gambling), a gain (mixed-gamble), an immediate amount
        # (waiting, discounting), an offer (ultimatum-responder).
        ("level", pa.float64()),
        ("accept", pa.int32()),
        ("x1", pa.float64()),
        ("p1", pa.float64()),
        ("x2", pa.float64()),
        ("p2", pa.float64()),
        ("amount", pa.float64()),
        ("years", pa.float64()),
        ("pool", pa.float64()),
        ("a_own", pa.float64()),
        ("a_other", pa.float64()),
        ("b_own", pa.float64()),
        ("b_other", pa.float64()),
        ("pair", pa.string()),
        ("control", pa.string()),
        ("income", pa.float64()),
        ("price1", pa.float64()),
        ("price2", pa.float64()),
        # Per option: what choosing it gives (budget: units of each good;
        # ultimatum-proposer / dictator give: the amount handed over).
        ("option_q1", pa.list_(pa.float64())),
        ("option_q2", pa.list_(pa.float64())),
    ]
)


def ladder(low: float, high: float, rungs: int = 7) -> list[float]:
    """Seven amounts from `low` to `high`, log-spaced (low + (high - low)(10^(i/6) - 1)/9),
    rounded to cents: the sure-option ladder of the gambling experiment."""
    return [round(low + (high - low) * (10 ** (i / (rungs - 1)) - 1) / 9, 2) for i in range(rungs)]


#: The LLM economicus ladder of gains as multiples of the break-even gain g*:
#: 0.75 + (10^(i/6) - 1)/9, i = 0..6 (0.75 g* to 1.75 g*).
PAPER_GAIN_RATIOS = tuple(0.75 + (10 ** (i / 6) - 1) / 9 for i in range(7))


def mixed_gains(
    loss: float, p_loss: float, ratios: tuple[float, ...] = PAPER_GAIN_RATIOS
) -> list[float]:
    """The gains offered against `loss`: multiples `ratios` of the break-even
    gain g* = -loss p/(1 - p), rounded to cents."""
    g = -loss * p_loss / (1 - p_loss)
    return [round(g * r, 2) for r in ratios]


def _trial(kind: str, **fields: Any) -> dict[str, Any]:
    return {"kind": kind, **fields}


def _gambling(row: ProspectRow) -> Iterator[dict[str, Any]]:
    branches = [(row.x2, row.p2), (row.x1, row.p1)]
    for rung, sure in enumerate(ladder(row.x1, row.x2)):
        text = (
            f"Option A: a lottery: {lottery(branches)}.\n"
            f"Option B: {outcome(sure)} for certain.\nWhich option do you choose?"
        )
        yield _trial(
            "ce", rung=rung, level=sure, accept=1, x1=row.x1, p1=row.p1, x2=row.x2, p2=row.p2,
            text=text, options=["the lottery", f"{money(sure)} for certain"],
            agent=[{"lottery": branches}, {"lottery": [(sure, 1.0)]}],
        )  # fmt: skip


def _mixed(row: MixedRow, ratios: tuple[float, ...]) -> Iterator[dict[str, Any]]:
    for rung, gain in enumerate(mixed_gains(row.loss, row.p_loss, ratios)):
        branches = [(gain, 1 - row.p_loss), (row.loss, row.p_loss)]
        text = (
            f"The lottery: {lottery(branches)}.\n"
            "Option A: decline it and get nothing.\nOption B: play the lottery.\n"
            "Which option do you choose?"
        )
        yield _trial(
            "mixed", rung=rung, level=gain, accept=1, x1=row.loss, p1=row.p_loss, x2=gain,
            p2=1 - row.p_loss, text=text, options=["decline", "play the lottery"],
            agent=[{"lottery": [(0.0, 1.0)]}, {"lottery": branches}],
        )  # fmt: skip


def _delay(row: DelayRow) -> Iterator[dict[str, Any]]:
    for rung, now in enumerate(sorted(row.immediate)):
        text = (
            f"Option A: {money(now)} today.\nOption B: {money(row.amount)} in {row.delay}.\n"
            "Which option do you choose?"
        )
        yield _trial(
            "delay", rung=rung, level=now, accept=0, amount=row.amount, years=row.years,
            text=text, options=[f"{money(now)} today", f"{money(row.amount)} in {row.delay}"],
            agent=[{"delayed": [(now, 0.0)]}, {"delayed": [(row.amount, row.years)]}],
        )  # fmt: skip


def _proposer(row: PoolRow) -> Iterator[dict[str, Any]]:
    offers = list(range(row.pool + 1))
    text = (
        f"The sum is {money(row.pool)}. How much do you offer the other participant "
        "(you keep the rest)?"
    )
    yield _trial(
        "offer", rung=0, pool=row.pool, text=text,
        options=[f"offer {money(s)} (you keep {money(row.pool - s)})" for s in offers],
        option_q1=[float(s) for s in offers],
        agent=[{"ultimatum": [row.pool - s, s]} for s in offers],
    )  # fmt: skip


def _responder(row: OfferRow) -> Iterator[dict[str, Any]]:
    keep = row.pool - row.offer
    text = (
        f"The sum is {money(row.pool)}. The other participant offers you "
        f"{money(row.offer)} and keeps {money(keep)}. Do you accept?"
    )
    yield _trial(
        "respond", rung=0, level=row.offer, accept=0, pool=row.pool, text=text,
        options=[f"accept ({money(row.offer)} for you)", "reject (nothing for either of you)"],
        agent=[{"split": [row.offer, keep]}, {"split": [0.0, 0.0]}],
    )  # fmt: skip


def _dictator(row: DictatorRow) -> Iterator[dict[str, Any]]:
    if row.kind == "give":
        assert row.pool is not None
        gifts = list(range(row.pool + 1))
        text = (
            f"You have {money(row.pool)}. How much do you give the other participant "
            "(you keep the rest; they cannot respond)?"
        )
        yield _trial(
            "give", rung=0, pool=row.pool, text=text,
            options=[f"give {money(s)} (you keep {money(row.pool - s)})" for s in gifts],
            option_q1=[float(s) for s in gifts],
            agent=[{"split": [row.pool - s, s]} for s in gifts],
        )  # fmt: skip
        return
    assert row.a is not None and row.b is not None
    (ao, ax), (bo, bx) = row.a, row.b
    text = (
        f"Option A: you get {money(ao)} and the other participant gets {money(ax)}.\n"
        f"Option B: you get {money(bo)} and the other participant gets {money(bx)}.\n"
        "Which option do you choose?"
    )
    yield _trial(
        "allocation", rung=0, a_own=ao, a_other=ax, b_own=bo, b_other=bx, text=text,
        options=[
            f"{money(ao)} for you, {money(ax)} for the other",
            f"{money(bo)} for you, {money(bx)} for the other",
        ],
        agent=[{"split": [ao, ax]}, {"split": [bo, bx]}],
    )  # fmt: skip


def _triangle(row: TriangleRow, outcomes: tuple[float, float, float]) -> Iterator[dict[str, Any]]:
    def branches(probs: tuple[float, float, float]) -> list[tuple[float, float]]:
        pairs = zip(outcomes, probs, strict=True)
        return sorted(((x, p) for x, p in pairs if p > 0), key=lambda b: -b[0])

    a, b = branches(row.a), branches(row.b)
    text = f"Option A: {lottery(a)}.\nOption B: {lottery(b)}.\nWhich option do you choose?"
    yield _trial(
        "lotteries", rung=0, pair=row.pair, control=row.control, text=text,
        options=["lottery A", "lottery B"], agent=[{"lottery": a}, {"lottery": b}],
        x1=row.a[1], p1=row.a[2], x2=row.b[1], p2=row.b[2],
    )  # fmt: skip


def _budget(row: BudgetRow, shares: tuple[float, ...]) -> Iterator[dict[str, Any]]:
    q1 = [round(s * row.income / row.p1, 4) for s in shares]
    q2 = [round((1 - s) * row.income / row.p2, 4) for s in shares]
    text = (
        f"You have {money(row.income)}. Good X costs {money(row.p1)} a unit and good Y "
        f"costs {money(row.p2)} a unit; you may buy fractions of a unit. Which bundle do "
        "you buy?"
    )
    yield _trial(
        "bundle", rung=0, income=row.income, price1=row.p1, price2=row.p2, text=text,
        options=[f"{a:g} units of X and {b:g} units of Y" for a, b in zip(q1, q2, strict=True)],
        option_q1=q1, option_q2=q2,
        agent=[{"bundle": [a, b]} for a, b in zip(q1, q2, strict=True)],
    )  # fmt: skip


def _stimulus_trials(grid: Grid, row: Any) -> Iterator[dict[str, Any]]:
    name = grid.experiment
    if name == "gambling":
        yield from _gambling(row)
    elif name == "mixed-gamble":
        yield from _mixed(row, grid.gain_ratios or PAPER_GAIN_RATIOS)
    elif name in ("waiting", "discounting"):
        yield from _delay(row)
    elif name == "ultimatum-proposer":
        yield from _proposer(row)
    elif name == "ultimatum-responder":
        yield from _responder(row)
    elif name == "dictator":
        yield from _dictator(row)
    elif name == "mm-triangle":
        assert grid.outcomes is not None, "the mm-triangle grid names its three outcomes"
        yield from _triangle(row, grid.outcomes)
    elif name == "budget":
        yield from _budget(row, grid.shares or tuple(i / 10 for i in range(11)))
    else:  # pragma: no cover - the registry lists exactly these
        raise KeyError(name)


def examples_of(intervention: str | None) -> int:
    """K of `examples:K` (worked examples before each trial), else 0."""
    kind, _, value = (intervention or "").partition(":")
    return int(value) if kind == "examples" and value in ("1", "2") else 0


def intervention_text(intervention: str | None) -> str:
    """The words an intervention adds: `persona:<who>`, `advice`, `bias:<name>`
    (`examples:K` adds worked examples instead, see `build_trials`)."""
    if not intervention or intervention == "baseline" or examples_of(intervention):
        return ""
    if intervention == "advice":
        return ADVICE
    kind, _, value = intervention.partition(":")
    if kind == "persona" and value.strip():
        return persona(value.strip())
    if kind == "bias" and value in BIAS_PROMPTS:
        return BIAS_PROMPTS[value]
    from steer._suggest import did_you_mean
    from steer.errors import InputError

    choices = ["baseline", "advice", "persona:<description>", "examples:1", "examples:2"]
    choices += [f"bias:{b}" for b in BIAS_PROMPTS]
    hint = did_you_mean(intervention, choices)
    also = f" (did you mean {', '.join(hint)}?)" if hint else ""
    raise InputError(f"unknown intervention {intervention!r}{also}; one of {', '.join(choices)}")


EXAMPLES_HEAD = (
    "Worked examples from this experiment, chosen by someone who maximises expected "
    "value, does not discount waiting and cares only about their own money:"
)


def _worked_examples(base: list[tuple[Any, dict[str, Any]]], at: int, k: int) -> str:
    """K worked examples for the trial at `at`: trials of other stimuli (spread
    through the grid, the same for every sample) answered by the textbook
    chooser, `Preferences()`."""
    from steer.econ._preferences import Preferences, choose

    own = base[at][0].id
    others = [i for i, (row, _) in enumerate(base) if row.id != own]
    if not others:
        return ""
    step = max(1, len(others) // (k + 1))
    picks = [others[(at + step * (m + 1)) % len(others)] for m in range(k)]
    lines = [EXAMPLES_HEAD]
    for m, i in enumerate(dict.fromkeys(picks)):
        t = base[i][1]
        choice = choose({"options": t["agent"]}, Preferences(), np.random.default_rng(0))
        lines.append(f"Example {m + 1}:\n{t['text']}\nChosen: {t['options'][choice]}")
    return "\n\n".join(lines)


def build_trials(
    grid: Grid, *, samples: int = 1, intervention: str | None = None
) -> tuple[pa.Table, pa.Table]:
    """(questions, trials): the question rows to answer and the trial table
    (TRIAL_SCHEMA) with the same `question_id`s, each stimulus asked `samples` times."""
    name = grid.experiment
    element = ELEMENT_PREFIX + name
    setting = SETTING[name]
    head = " ".join(
        t for t in (PREMISE[setting], intervention_text(intervention), INSTRUCTIONS[name]) if t
    )
    questions: list[dict[str, Any]] = []
    trials: list[dict[str, Any]] = []
    base = [(row, t) for row in grid.rows for t in _stimulus_trials(grid, row)]
    shots = examples_of(intervention)
    worked = [_worked_examples(base, i, shots) for i in range(len(base))] if shots else None
    for sample in range(samples):
        for position, (row, t) in enumerate(base):
            base_id = f"{row.id}.r{t['rung']}.s{sample}"
            qid = f"{element}/{base_id}/0"
            payload = {
                "experiment": name,
                "stimulus": row.id,
                "sample": sample,
                "options": t["agent"],
            }
            questions.append(
                {
                    "question_id": qid,
                    "element": element,
                    "base_id": base_id,
                    "part": 0,
                    "question_text": f"{head}\n\n"
                    + (f"{worked[position]}\n\n" if worked else "")
                    + t["text"],
                    "options": t["options"],
                    "correct_index": None,
                    "grading": "elicit",
                    "type": t["kind"],
                    "domain": setting,
                    "perspective": "second",
                    "template_id": f"experiment:{name}",
                    "source": f"steer:experiments/{name}",
                    "payload": json.dumps(payload, separators=(",", ":")),
                }
            )
            trial = {k: v for k, v in t.items() if k not in ("text", "options", "agent")}
            trials.append(
                {
                    "question_id": qid,
                    "experiment": name,
                    "stimulus": row.id,
                    "sample": sample,
                    **trial,
                }
            )
    return pa.Table.from_pylist(questions), pa.Table.from_pylist(trials, schema=TRIAL_SCHEMA)
