"""Conversations per format, few-shot selection and the `none` rewrite."""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Any

import pytest

from bank_factory import make_questions
from steer.adapt import (
    NONE_OPTION,
    CallKind,
    Completion,
    Message,
    ShotPool,
    apply_none,
    converse,
    plan_none,
)
from steer.schema import NO_ANSWER, OFF_OPTIONS, Adaptation


class Recorder:
    """A stand-in model: records every call and replies from a script."""

    def __init__(self, replies: dict[str, Completion] | None = None) -> None:
        self.calls: list[tuple[list[Message], CallKind]] = []
        self.replies = replies or {}

    async def __call__(self, messages: list[Message], kind: CallKind) -> Completion:
        self.calls.append(([dict(m) for m in messages], kind))
        return self.replies.get(kind, Completion("ANSWER: C" if kind == "reason" else "C"))


def rows(n: int, **kw: Any) -> list[dict[str, Any]]:
    return [q.model_dump() for q in make_questions(n, **kw)]


def run(fmt: str, parts: list[dict[str, Any]], rec: Recorder, examples: Any = ()) -> Any:
    return asyncio.run(converse(rec, parts, Adaptation(format=fmt), examples))  # type: ignore[arg-type]


def test_mc_is_one_turn_with_the_options() -> None:
    rec = Recorder()
    (answer,) = run("mc", rows(1), rec)
    ((messages, kind),) = rec.calls
    assert kind == "answer" and [m["role"] for m in messages] == ["system", "user"]
    assert "A. 10" in messages[1]["content"] and "D. 19" in messages[1]["content"]
    assert answer.chosen_index == 2 and answer.response_text == "C"


def test_shown_and_hidden_take_two_turns() -> None:
    for fmt in ("shown", "hidden"):
        rec = Recorder()
        (answer,) = run(fmt, rows(1), rec)
        (first, k1), (second, k2) = rec.calls
        assert (k1, k2) == ("reason", "answer")
        assert ("A. 10" in first[-1]["content"]) == (fmt == "shown")
        assert second[-2] == {"role": "assistant", "content": "ANSWER: C"}
        assert "A. 10" in second[-1]["content"] or fmt == "shown"
        assert answer.explanation == "ANSWER: C" and answer.chosen_index == 2


def test_together_reads_probabilities_after_the_answer_mark() -> None:
    reply = Completion(
        "A firm wants ANSWER: B",
        tokens=["A", " firm", " wants", " ANSWER", ":", " B"],
        top_logprobs=[{"A": -0.1}, {}, {}, {}, {}, {" B": -0.2, " A": -1.8}],
    )
    rec = Recorder({"reason": reply})
    (answer,) = run("together", rows(1), rec)
    assert len(rec.calls) == 1 and answer.chosen_index == 1
    assert answer.option_probs is not None and answer.option_probs[1] > 0.8
    assert answer.option_probs[0] > 0  # the " A" alternative at the answer position


def test_separate_answers_in_a_fresh_call_without_the_question() -> None:
    rec = Recorder({"reason": Completion("Option C has the best value.")})
    (answer,) = run("separate", rows(1), rec)
    (_, _), (side, kind) = rec.calls
    assert kind == "answer" and "Question 0" not in side[-1]["content"]
    assert "Option C has the best value." in side[-1]["content"] and "C. 16" in side[-1]["content"]
    assert answer.explanation == "Option C has the best value."


def test_free_hides_the_options_and_matches_the_number() -> None:
    q = rows(1)[0]
    rec = Recorder({"reason": Completion("so \\boxed{16}")})
    (answer,) = run("free", [q], rec)
    assert "A. 10" not in rec.calls[0][0][-1]["content"] and answer.chosen_index == 2
    rec = Recorder({"reason": Completion("so \\boxed{17}")})
    assert run("free", [q], rec)[0].chosen_index == OFF_OPTIONS  # a number: answered, wrong
    rec = Recorder({"reason": Completion("I cannot say.")})
    assert run("free", [q], rec)[0].chosen_index == NO_ANSWER


def test_multipart_questions_share_one_conversation() -> None:
    parts = [r for r in rows(1, multipart_every=1)]
    assert len(parts) == 2
    rec = Recorder()
    answers = run("mc", parts, rec)
    assert len(answers) == 2
    second = rec.calls[1][0]
    assert [m["role"] for m in second] == ["system", "user", "assistant", "user"]
    assert "part 0" in second[1]["content"] and "part 1" in second[3]["content"]


def test_few_shot_examples_open_the_conversation() -> None:
    bank = rows(12)
    rec = Recorder()
    examples = ShotPool(bank).select(bank[0], 2)
    run("mc", [bank[0]], rec, examples)
    messages = rec.calls[0][0]
    assert [m["role"] for m in messages] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert messages[2]["content"] in "ABCD"


def test_shot_selection_prefers_cell_then_type_then_element() -> None:
    bank = rows(30)
    pool = ShotPool(bank, seed=1)
    q = bank[0]  # element steer.1.1.a, type choice, domain food
    chosen = pool.select(q, 5)
    assert len(chosen) == 5 and all(c["base_id"] != q["base_id"] for c in chosen)
    tiers = []
    for c in chosen:
        if (c["element"], c["type"], c["domain"]) == (q["element"], q["type"], q["domain"]):
            tiers.append(0)
        elif c["type"] == q["type"]:
            tiers.append(1)
        else:
            tiers.append(2)
    assert tiers == sorted(tiers) and tiers[0] == 0
    assert pool.select(q, 5) == chosen  # deterministic
    assert pool.select(q, 0) == []
    with pytest.raises(ValueError):
        pool.select(q, 6)


def test_shots_never_include_the_question_or_its_other_parts() -> None:
    bank = rows(3, multipart_every=1)
    pool = ShotPool(bank)
    for q in bank:
        assert all(c["base_id"] != q["base_id"] for c in pool.select(q, 5))


@pytest.mark.parametrize("n", [7, 40, 401])
def test_none_replaces_the_key_in_exactly_one_of_n(n: int) -> None:
    bank = rows(n)
    plan = plan_none(bank, seed=3)
    hits = sum(plan[q["question_id"]] == q["correct_index"] for q in bank)
    assert hits == -(-n // 4)  # ⌈n/4⌉ with four options
    assert plan == plan_none(list(reversed(bank)), seed=3)  # order-independent
    q = bank[0]
    changed = apply_none(q, plan[q["question_id"]])
    assert changed["options"].count(NONE_OPTION) == 1 and q["options"].count(NONE_OPTION) == 0
    assert changed["correct_index"] == q["correct_index"]


def test_none_plan_varies_with_the_seed() -> None:
    bank = rows(40)
    counts = Counter(plan_none(bank, s) == plan_none(bank, 0) for s in range(1, 4))
    assert counts[False] == 3
