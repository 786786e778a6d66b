"""`steer generate --llm` on consistency-graded templates (multi-part questions
with no key), and the check that a question's text states its payload's
numbers. Replies come from a real loopback HTTP server speaking the OpenAI
chat-completions protocol, reached through the real `openai` client."""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Callable
from typing import Any

import pyarrow as pa
import pytest

from llm_fixtures import Reply
from openai_server import FakeOpenAI
from steer.generate.llm import generate_llm_bank
from steer.generate.llm._numbers import numbers_in, stated_in
from steer.schema import RESPONSE_SCHEMA
from steer.score import score

_counter = itertools.count()


def run(url: str, reply: Reply, state: FakeOpenAI, element: str, domain: str, **kw: Any) -> Any:
    state.reply = reply
    options = {"base_url": url, "attempts": 1, "max_retries": 0, **kw.pop("options", {})}
    return generate_llm_bank(
        "openai:test-model", [element], domains=[domain], options=options, **kw
    )


def prompt_of(state: FakeOpenAI) -> str:
    return str(next(e["last_user"] for e in state.log if e["path"] == "/v1/chat/completions"))


# --- a certainty-effect question written by the "model" -----------------------------
# x = $2,000 for sure vs. y = round(x / p * 1.05, -2) = $2,600 with p = 80%; the second
# pair scales both chances by q = 25%, so pq = 20% (the template's derive rules).

ENV = {"x": 2000.0, "p": 0.8, "q": 0.25, "y": 2600.0, "pq": 0.2}


def certainty(**change: Any) -> dict[str, Any]:
    q: dict[str, Any] = {
        "question_text": f"A shopper (#{next(_counter)}) is offered two pairs of prize draws.",
        "parts": [
            {
                "question_text": "First pair: (A) $2,000 for sure, or (B) $2,600 with "
                "probability 80%, nothing otherwise. Which does the shopper choose?",
                "options": ["A: $2,000 for sure", "B: 80% chance of $2,600"],
            },
            {
                "question_text": "Second pair: (C) $2,000 with probability 25%, or (D) $2,600 "
                "with probability 20%, nothing otherwise. Which does the shopper choose?",
                "options": ["C: 25% chance of $2,000", "D: 20% chance of $2,600"],
            },
        ],
        "explanation": "The second pair scales both chances by 25%, so the ranking is kept.",
        "payload": {
            "env": dict(ENV),
            "lotteries": [
                {"values": [2000.0], "probs": [1.0]},
                {"values": [2600.0, 0.0], "probs": [0.8, 0.2]},
            ],
            "order": [0, 1],
        },
    }
    q.update(change)
    return q


def replying(q: dict[str, Any] | Callable[[], dict[str, Any]]) -> Reply:
    return lambda _messages: json.dumps(q() if callable(q) else q)


def certainty_run(fake: Any, q: Any, **kw: Any) -> Any:
    state, url = fake
    return run(url, replying(q), state, "2.5.b", "games of chance", **kw)


# --- a good multi-part reply ----------------------------------------------------------


def responses(rows: list[dict[str, Any]], chosen: list[int]) -> pa.Table:
    """What a model answering the parts with `chosen` would have written."""
    adaptation = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
    out = [
        {"run_id": "r", "model": "m", "backend": "agent", "adaptation": adaptation,
         "question_id": r["question_id"], "base_id": r["base_id"], "part": r["part"],
         "element": r["element"], "n_options": len(r["options"]), "chosen_index": c,
         "correct_index": r["correct_index"], "consistency_rule": r["consistency_rule"]}
        for r, c in zip(rows, chosen, strict=True)
    ]  # fmt: skip
    arrays = [pa.array([r.get(f.name) for r in out], type=f.type) for f in RESPONSE_SCHEMA]
    return pa.Table.from_arrays(arrays, schema=RESPONSE_SCHEMA)


def test_a_good_multipart_reply_becomes_consistency_rows_that_score(fake: Any) -> None:
    table, summary = certainty_run(fake, certainty)
    assert (summary.accepted, summary.verified, summary.requested) == (1, 1, 1), summary.lines()
    rows = table.to_pylist()
    assert [r["part"] for r in rows] == [0, 1]
    for r in rows:
        assert r["grading"] == "consistency" and r["correct_index"] is None
        assert r["consistency_rule"] == "same:01" and r["consistency_group"] == r["base_id"]
        assert r["template_id"] == "ce.cash-prizes" and r["source"] == "llm:openai:test-model"
        assert json.loads(r["payload"])["env"] == ENV and "verified" in r["tags"]
        (prov,) = [t for t in r["tags"] if t.startswith("provenance:")]
        assert json.loads(prov.removeprefix("provenance:"))["verified"] is True
    # As in the template path: the introduction opens part 0.
    assert rows[0]["question_text"].startswith("A shopper")
    assert rows[0]["question_text"].endswith("Which does the shopper choose?")
    assert rows[0]["question_id"].endswith("/0") and rows[1]["question_id"].endswith("/1")
    # `steer score` grades the pair by its rule: same position in both parts or not.
    for chosen, consistent in (([0, 0], 1.0), ([1, 1], 1.0), ([0, 1], 0.0)):
        (m,) = score(responses(rows, chosen), by=["model"], metrics=["consistency"]).to_pylist()
        assert (m["n_consistency"], m["consistency"]) == (1, consistent)


def test_the_prompt_asks_for_parts_and_says_how_the_payload_follows(fake: Any) -> None:
    state, _ = fake
    certainty_run(fake, certainty)
    prompt = prompt_of(state)
    assert '"parts": a list of exactly 2 objects' in prompt and "part 1: 2, part 2: 2" in prompt
    assert "do not include correct_index" in prompt and "rule same:01" in prompt
    assert "  pq = p * q" in prompt and "  y = round(x / p * 1.05, -2)" in prompt
    assert "Every number of the payload that the question relies on" in prompt


def test_every_consistency_template_round_trips(fake: Any) -> None:
    """Each template's own example, re-asked as a model reply, is accepted."""
    state, url = fake

    def echo(messages: list[dict[str, str]]) -> str:
        user = messages[1]["content"]
        start = user.index("{", user.index("Here is "))
        q = json.loads(user[start : user.index("\n\nWrite ONE new question")])
        q["question_text"] = f"[variant {next(_counter)}] {q['question_text']}"
        return json.dumps(q)

    state.reply = echo
    table, summary = generate_llm_bank(
        "openai:test-model", ["2.1.c", "2.2.b", "2.2.c", "2.3.c", "2.5.b", "2.5.c", "2.5.d"],
        options={"base_url": url, "attempts": 1, "max_retries": 0},
    )  # fmt: skip
    assert summary.accepted == summary.verified == summary.requested >= 15, summary.lines()
    assert set(table.column("grading").to_pylist()) == {"consistency"}


# --- malformed multi-part replies -------------------------------------------------------


def _drop_part(q: dict[str, Any]) -> None:
    del q["parts"][1]


def _extra_option(q: dict[str, Any]) -> None:
    q["parts"][1]["options"].append("E: nothing at all")


def _swap_second_pair(q: dict[str, Any]) -> None:
    q["parts"][1]["options"].reverse()  # riskier first: position 0 no longer means "safer"


def _wrong_pq(q: dict[str, Any]) -> None:
    q["payload"]["env"]["pq"] = 0.3


def _wrong_lottery(q: dict[str, Any]) -> None:
    q["payload"]["lotteries"][1]["values"][0] = 3000.0


def _with_key(q: dict[str, Any]) -> None:
    q["correct_index"] = 0


def _part_without_options(q: dict[str, Any]) -> None:
    del q["parts"][0]["options"]


@pytest.mark.parametrize(
    ("mutate", "reason", "detail"),
    [
        (_drop_part, "wrong_part_count", "1 part(s), the question needs 2"),
        (_extra_option, "wrong_option_count", "part 2: 3 options"),
        (_swap_second_pair, "options_do_not_correspond", "option 1 of part 2"),
        (_wrong_pq, "payload_contradiction", "payload.env.pq is 0.3, but p * q gives 0.2"),
        (_wrong_lottery, "payload_contradiction", "payload.lotteries[1]"),
        (_with_key, "bad_fields", "correct_index"),
        (_part_without_options, "missing_fields", "parts.0.options"),
    ],
)
def test_malformed_multipart_replies_are_rejected(
    fake: Any, mutate: Callable[[dict[str, Any]], None], reason: str, detail: str
) -> None:
    def reply() -> dict[str, Any]:
        q = certainty()
        mutate(q)
        return q

    table, summary = certainty_run(fake, reply)
    assert table.num_rows == 0 and summary.failed == 1
    assert summary.rejected == {reason: 1}, summary.lines()
    assert detail in summary.details[reason]


def test_parts_the_rule_compares_must_offer_the_same_choices(fake: Any) -> None:
    """Independence of irrelevant alternatives: part 2 adds a worse portion of one
    dish, and its first three options must be part 1's dishes in part 1's order."""
    state, url = fake
    menu = {
        "question_text": "At a bistro, Ana is choosing a main course.",
        "parts": [
            {"question_text": "The menu offers the duck at $24, the tofu bowl at $15 and "
             "the fish pie at $19. Which does Ana order?",
             "options": ["the duck", "the tofu bowl", "the fish pie"]},
            {"question_text": "The waiter adds a smaller portion of the duck at $26, more "
             "than the full plate. Now which does Ana order?",
             "options": ["the duck", "the tofu bowl", "the fish pie", "the smaller duck portion"]},
            {"question_text": "Suppose instead that the waiter offers a lunch special: any "
             "one of the three dishes, with a free dessert, for $2 less than its menu price. "
             "Which does Ana order then?",
             "options": ["the duck", "the tofu bowl", "the fish pie", "the lunch special"]},
        ],
        "explanation": "A worse version of one dish should not change the choice; a "
        "cheaper version of every dish should be taken.",
        "payload": {"env": {"pa": 24.0, "pb": 15.0, "pc": 19.0, "extra": 2.0, "pd": 26.0,
                            "disc": 2.0}},
    }  # fmt: skip
    table, summary = run(url, replying(menu), state, "2.1.c", "food")
    assert summary.accepted == 1 and table.num_rows == 3, summary.lines()
    swapped = copy.deepcopy(menu)
    swapped["parts"][1]["options"] = [
        "the tofu bowl",
        "the duck",
        "the fish pie",
        "the smaller duck portion",
    ]
    _, bad = run(url, replying(swapped), state, "2.1.c", "food")
    assert bad.rejected == {"options_do_not_correspond": 1}, bad.lines()
    assert "option 1 of part 1 ('the duck')" in bad.details["options_do_not_correspond"]


# --- the text must state the payload's numbers ----------------------------------------------


def test_a_text_that_changes_a_payload_number_is_rejected(fake: Any) -> None:
    q = certainty()
    for part in q["parts"]:  # the text speaks of $2,100, the payload of 2000
        part["question_text"] = part["question_text"].replace("$2,000", "$2,100")
        part["options"] = [o.replace("$2,000", "$2,100") for o in part["options"]]
    _, summary = certainty_run(fake, q)
    assert summary.rejected == {"number_not_stated": 1}, summary.lines()
    assert "payload.env.x = 2000" in summary.details["number_not_stated"]


def test_formatting_variants_of_the_payload_numbers_are_accepted(fake: Any) -> None:
    q = certainty()
    q["parts"][0]["question_text"] = (
        "First pair: (A) 2000 dollars for sure, or (B) $2600.00 with probability 0.8, "
        "nothing otherwise. Which does the shopper choose?"
    )
    q["parts"][0]["options"] = ["A: $2000 for sure", "B: 0.80 chance of $2,600.00"]
    q["parts"][1]["question_text"] = (
        "Second pair: (C) $2,000 with probability 1/4, or (D) $2,600 with probability "
        "20.0 %, nothing otherwise. Which does the shopper choose?"
    )
    q["parts"][1]["options"] = ["C: 0.25 chance of $2,000", "D: 20% chance of $2,600"]
    _, summary = certainty_run(fake, q)
    assert summary.accepted == summary.verified == 1, summary.lines()


def lottery(text: str, values: list[float], probs: list[float]) -> Reply:
    """An expected-value question (1.1.c) with the given wording and payload."""
    ev = sum(v * p for v, p in zip(values, probs, strict=True))
    options = [f"${ev:,.2f}", f"${sum(values):,.2f}", f"${max(values):,.2f}", f"${ev / 2:,.2f}"]

    def reply() -> dict[str, Any]:
        return {
            "question_text": f"(#{next(_counter)}) {text}",
            "options": options,
            "correct_index": 0,
            "explanation": f"The expected value is {ev:g}.",
            "payload": {"values": values, "probs": probs},
        }

    return replying(reply)


def test_single_answer_questions_must_state_their_payload_too(fake: Any) -> None:
    state, url = fake
    values, probs = [1250.0, 2000.0], [0.25, 0.75]
    ok = lottery(
        "A ticket pays $1,250 with probability 0.25 and $2,000 with probability 75%. "
        "What is its expected value?",
        values,
        probs,
    )
    _, summary = run(url, ok, state, "1.1.c", "games of chance", grades=(3, 3))
    assert summary.accepted == summary.verified == 1, summary.lines()
    # The payload's first prize is $1,250 but the text offers $1,350.
    bad = lottery(
        "A ticket pays $1,350 with probability 25% and $2,000 with probability 75%. "
        "What is its expected value?",
        values,
        probs,
    )
    _, summary = run(url, bad, state, "1.1.c", "games of chance", grades=(3, 3))
    assert summary.rejected == {"number_not_stated": 1}, summary.lines()
    assert "payload.values[0] = 1250" in summary.details["number_not_stated"]


# --- the number extractor -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("1,250", [1250.0]),
        ("costs $3.50.", [3.5]),
        ("a 45% chance", [45.0, 0.45]),
        ("probability 0.45", [0.45]),
        ("a payoff of -2", [-2.0]),
        ("a payoff of \u22122", [-2.0]),
        ("a loss of -$1,250", [-1250.0]),
        ("3-4 players", [3.0, 4.0]),
        ("- 126 voters", [126.0]),
        ("(8, -7)", [8.0, -7.0]),
        ("H2O", []),
    ],
)
def test_numbers_in_text(text: str, values: list[float]) -> None:
    found = [w.value for w in numbers_in(text)]
    assert all(v in found for v in values) and (values or not found), found
    if values and values[0] < 0:
        assert -values[0] not in found  # a minus is a sign, not lost


@pytest.mark.parametrize(
    ("text", "value", "stated"),
    [
        ("$3,333", 3333.333, True),  # rounded at its written precision
        ("$12.50", 12.5, True),
        ("35%", 0.35, True),
        ("3/4", 0.75, True),
        ("$3", 3.4, False),  # too coarse to state 3.4
        ("0", 0.45, False),
        ("45", 0.45, False),  # a percent needs its sign
        ("2", -2.0, False),
    ],
)
def test_what_states_a_value(text: str, value: float, stated: bool) -> None:
    assert stated_in(numbers_in(text), value) is stated
