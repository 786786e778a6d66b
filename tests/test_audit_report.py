"""The audit as a whole: a planted leak fails, a random bank passes, the
learner is held out, balance statistics, and the blind answers score."""

from __future__ import annotations

import random

import numpy as np
import pytest

from audit_banks import ELEMENT, bank, longest_key_bank, random_bank, word
from steer.audit import audit_bank, audit_frame, blind_responses, build_frame
from steer.audit._outcome import row_outcome
from steer.audit.agents._learner import dense_features, fit_predict
from steer.score import score

pytest.importorskip("sklearn")


def by_agent(report, element: str = ELEMENT) -> dict:
    (el,) = [e for e in report.elements if e.element == element]
    return {a.agent: a for a in el.agents}


def test_a_planted_longest_key_leak_fails() -> None:
    report = audit_bank(longest_key_bank(500, seed=1), min_n=400)
    (el,) = report.elements
    assert el.status == "fail"
    agents = by_agent(report)
    assert agents["longest"].accuracy == 1.0
    assert agents["longest"].flagged
    assert agents["learner"].accuracy > 0.9  # the learner finds it too, held out
    assert report.failing == [el]


def test_a_random_bank_passes_every_agent() -> None:
    report = audit_bank(random_bank(600, seed=2), min_n=400)
    (el,) = report.elements
    assert el.status == "pass", [(a.agent, a.accuracy, a.chance) for a in el.agents]
    assert all(abs(a.gap) < 0.08 for a in el.agents if a.n >= 100)
    assert el.n == 600


def test_a_small_bank_is_too_small_to_judge_unless_the_leak_is_decisive() -> None:
    small = audit_bank(random_bank(60, seed=3), min_n=400)
    assert small.elements[0].status == "too small"
    assert any("too small" in n for n in small.notes)
    # 60 questions whose key is always the longest: the lower end of the gap's
    # interval clears the threshold, so it fails however small.
    leak = audit_bank(longest_key_bank(60, seed=3), min_n=400)
    assert leak.elements[0].status == "fail"


def unique_token_bank(n: int, seed: int) -> list[dict]:
    """Every option carries a word used nowhere else: only memorising the very
    question could beat chance."""
    rng = random.Random(seed)
    return [
        {
            "question_text": "Pick one.",
            "options": [f"{word(rng, 8)} {word(rng, 8)}" for _ in range(4)],
            "correct_index": rng.randrange(4),
        }
        for _ in range(n)
    ]


def test_the_learner_never_answers_the_half_it_was_fitted_on() -> None:
    rows = unique_token_bank(400, seed=4)
    frame = build_frame(bank(rows))
    # Fitted on the very questions it answers, the model memorises them…
    texts = np.asarray(frame.o_masked.to_numpy(zero_copy_only=False), dtype=object)
    everything = np.arange(len(frame.o_row))
    texts_dup = np.concatenate([texts, texts])  # min_df=2: every token occurs twice
    dense = dense_features(frame)
    memorised = fit_predict(
        texts_dup,
        np.concatenate([dense, dense]),
        np.concatenate([frame.o_is_key] * 2),
        np.arange(2 * len(everything)),
        everything,
    )
    assert memorised is not None
    hit = row_outcome(frame, memorised).p_correct.mean()
    assert hit > 0.9
    # …while the audit's cross-fitted learner stays at chance.
    report, _ = audit_frame(frame, min_n=100)
    learner = by_agent(report)["learner"]
    assert learner.n == 400
    assert abs(learner.gap) < 0.08


def test_balance_statistics() -> None:
    rows = [
        {"question_text": f"q{i}", "options": ["Yes", "No"], "correct_index": 1} for i in range(30)
    ] + [
        {"question_text": f"r{i}", "options": ["a", "b", "c"], "correct_index": i % 3}
        for i in range(30)
    ]
    (el,) = audit_bank(bank(rows), min_n=10).elements
    assert el.key_positions == [10, 40, 10]
    assert el.option_counts == {2: 30, 3: 30}
    assert el.yes_no_questions == 30
    assert el.yes_share == 0
    assert el.key_text_diversity == pytest.approx(4 / 60)
    from scipy.stats import chisquare

    ref = chisquare([10, 40, 10], [15 + 10, 15 + 10, 10])
    assert el.key_position_chi2 == pytest.approx(ref.statistic)
    assert el.key_position_p == pytest.approx(ref.pvalue)
    assert by_agent(audit_bank(bank(rows), min_n=10))["no"].accuracy == 1


def test_blind_responses_score_like_the_report() -> None:
    rows = [
        dict(r, element=e) for e in ("steer.1.1.a", "steer.2.4.c") for r in unique_token_bank(50, 5)
    ]
    for r, k in zip(rows, range(100), strict=True):  # plant a leak: key always first
        r["base_id"] = f"b{k}"
        r["correct_index"] = 0
    table = bank(rows)
    frame = build_frame(table)
    report, choices = audit_frame(frame, min_n=10)
    answers = blind_responses(frame, choices, bank_sha256="ab" * 32)
    assert answers.num_rows == table.num_rows
    assert set(answers["model"].to_pylist()) == {"agent:blind-learner"}
    cells = score(answers, by=("model", "element"), metrics=["exact_match"], bank=table)
    got = dict(zip(cells["element"].to_pylist(), cells["exact_match"].to_pylist(), strict=True))
    for el in report.elements:
        learner = next(a for a in el.agents if a.agent == "learner")
        # The report's expectation splits ties; the table answers the first of them.
        assert got[el.element] == pytest.approx(learner.accuracy, abs=0.05)
        assert got[el.element] > 0.9


def test_a_multi_part_question_counts_once_right_only_if_every_part_is() -> None:
    rows = [
        # Part 0: the first option is the key; part 1: two options tie for longest.
        {
            "base_id": "m",
            "part": 0,
            "question_text": "m0",
            "options": ["abcdef", "a", "b"],
            "correct_index": 0,
        },
        {
            "base_id": "m",
            "part": 1,
            "question_text": "m1",
            "options": ["abc", "xyz"],
            "correct_index": 1,
        },
    ]
    report = audit_bank(bank(rows), min_n=1, learner=False)
    (el,) = report.elements
    assert el.n == 1
    longest = by_agent(report)["longest"]
    assert longest.accuracy == pytest.approx(1 * 0.5)
    assert longest.chance == pytest.approx(1 / 3 * 1 / 2)


# Long lines are split in two literals (the table is wider than the source).
SNAPSHOT = (
    "<bank>: shortcut audit\n"
    "\n"
    "element       n  status  worst agent   acc  chance  gap [95% CI]          key po"
    "s p  key texts  options  yes  other  persp ±  2-opt\n"
    "-----------  --  ------  -----------  ----  ------  --------------------  ------"
    "---  ---------  -------  ---  -----  -------  -----\n"
    "steer.1.1.a  40  FAIL    longest      1.00    0.25  +0.75 [+0.66, +0.75]      0."
    "572       1.00  4:40       —      —     1.00   0.00\n"
    "\n"
    "1 element: 1 fail, 0 pass, 0 too small to judge (fail: a blind agent beats chanc"
    "e by more than 10 points; judged from 400 held-out questions)\n"
    "worst agent: the flagged agent with the largest gap, else the most credible gap;"
    " (k) = held-out questions where it had a preference\n"
    "other: distractors tagged `other`; persp ±: largest deviation from an even fifth"
    " per perspective; 2-opt: two-option share where the template offers more\n"
    "BAL002 perspective-imbalance (persp ± at most 0.20): 1 element(s): steer.1.1.a 1.00\n"
)


def test_text_report_snapshot() -> None:
    from steer.audit import render

    report = audit_bank(longest_key_bank(40, seed=9), learner=False)
    assert render(report, "text") == SNAPSHOT


def test_the_audit_is_deterministic_per_seed_and_round_trips_as_json() -> None:
    from steer.audit import AuditReport

    table = random_bank(120, seed=11)
    first = audit_bank(table, seed=5, min_n=50)
    assert audit_bank(table, seed=5, min_n=50) == first
    halves = [build_frame(table, s).q_half for s in (5, 6)]
    assert (halves[0] != halves[1]).any()
    assert AuditReport.model_validate_json(first.model_dump_json()) == first
