"""Module 4's elements measure their construct and leak no key (issue 20 §2-§4):
a seeded bank of social choice and mechanism design (4.1-4.4) passes the
shortcut audit, every fixed-menu answer is the key about equally often, the
construct fixes hold on every question (4.4.b needs the bidders' attitude to
risk; 4.3.c states its horizons; 4.3.d asks about budget balance), option
forms carry no hint, distractors are tagged by their error and perspectives
are balanced. References are written here in plain Python.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pyarrow as pa
import pytest

from steer.audit import audit_bank
from steer.generate import generate_bank

pytest.importorskip("sklearn")

Row = dict[str, Any]
ELEMENTS = [
    f"steer.4.{m}.{e}" for m, es in ((1, "abcd"), (2, "abcde"), (3, "abcd"), (4, "ab")) for e in es
]


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(["steer.4"], per_cell=110, seed=23)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def of(rows: list[Row], element: str) -> list[Row]:
    return [r for r in rows if r["element"] == element]


def key_text(q: Row) -> str:
    return str(q["options"][q["correct_index"]])


def test_no_blind_agent_beats_chance_on_module_4(bank: pa.Table) -> None:
    report = audit_bank(bank, source="module 4", seed=23, rubric=None)
    judged = {e.element: e for e in report.elements}
    assert set(ELEMENTS) <= set(judged)
    bad = [
        f"{e.element}: {e.status} {e.worst.agent if e.worst else ''}"
        for e in report.elements
        if e.status != "pass"
    ]
    assert not bad, bad


@pytest.mark.parametrize(
    ("element", "answers"),
    [
        ("steer.4.3.a", 3),
        ("steer.4.3.b", 3),
        ("steer.4.3.c", 4),
        ("steer.4.3.d", 3),
        ("steer.4.4.b", 3),
    ],
)
def test_fixed_menus_key_each_answer_equally_often(
    rows: list[Row], element: str, answers: int
) -> None:
    """Where every question offers the same verbal answers (Yes / No: ...,
    a horizon, a format), each is the key about 1/n of the time: a blind
    'always Yes' or 'always the longest' then scores chance."""
    mine = of(rows, element)
    keys = Counter(re.sub(r"\d", "#", key_text(q)) for q in mine)
    texts = Counter(re.sub(r"\d", "#", o) for q in mine for o in q["options"])
    for text, seen in texts.items():
        share = keys[text] / seen
        assert abs(share - 1 / answers) < 0.12, (element, text, share)


def test_counts_and_menu_directions_are_balanced(rows: list[Row]) -> None:
    """4.1: a menu asks 'meets' or 'breaks' half and half; counts 0-3 each a quarter."""
    for element in ELEMENTS[:4]:
        payloads = [json.loads(q["payload"]) for q in of(rows, element)]
        menus = [d for d in payloads if not d["judge"]]
        satisfies = sum(d["ask"] == "satisfies" for d in menus) / len(menus)
        assert 0.4 < satisfies < 0.6, (element, satisfies)
        counts = Counter(
            key_text(q) for q in of(rows, element) if json.loads(q["payload"])["judge"]
        )
        assert len(counts) == 4 and min(counts.values()) >= 0.12 * sum(counts.values()), counts


def revenue_answer(env: dict[str, float]) -> str:
    """Which format raises more with independent private values: risk-averse
    bidders bid up in first-price (and Dutch) auctions, risk-seeking bidders
    bid down, and risk-neutral bidders give revenue equivalence."""
    if "r" in env:  # utility s^r of the winner's surplus
        attitude = (env["r"] > 1) - (env["r"] < 1)
    else:  # certainty equivalent of a 50-50 gamble on `stake` or nothing
        attitude = (env["ce"] > env["stake"] / 2) - (env["ce"] < env["stake"] / 2)
    return {-1: "first", 0: "same", 1: "second"}[attitude]


def test_auction_questions_need_the_risk_attitude(rows: list[Row]) -> None:
    """4.4.b (issue 20 §3): the question gives an attitude to risk, and the key
    follows it; reading the highest bid answers nothing."""
    seen = Counter()
    for q in of(rows, "steer.4.4.b"):
        env = json.loads(q["payload"])["env"]
        text = q["question_text"]
        if "r" in env:
            assert f"s^{env['r']:g}" in text, text
        else:
            assert f"${env['ce']:,.0f}" in text and f"${env['stake']:,.0f}" in text, text
        want = revenue_answer(env)
        seen[want] += 1
        key = key_text(q)
        if want == "same":
            assert key == "Both raise the same expected revenue"
        elif want == "first":
            assert key.startswith(("The first-price", "The Dutch")), (key, env)
        else:
            assert key.startswith(("The second-price", "The English")), (key, env)
    assert min(seen.values()) > 0.25 * sum(seen.values()), seen


def test_option_forms_do_not_mark_the_key(rows: list[Row]) -> None:
    """4.2.c: two single winners and two ties, each single in one tie, the ties
    disjoint; 4.4.a: every assignment in one form; 4.2.d: every cut a whole number."""
    for q in of(rows, "steer.4.2.c"):
        d = json.loads(q["payload"])
        sets = [frozenset(o) for o in d["options"]]
        singles = [s for s in sets if len(s) == 1]
        pairs = [s for s in sets if len(s) == 2]
        assert len(singles) == len(pairs) == 2 and not (pairs[0] & pairs[1])
        assert all(sum(s <= p for p in pairs) == 1 for s in singles)
    ties = sum(key_text(q).startswith("A tie") for q in of(rows, "steer.4.2.c"))
    assert 0.35 < ties / len(of(rows, "steer.4.2.c")) < 0.65
    for q in of(rows, "steer.4.4.a"):
        assert not any(w in o for o in q["options"] for w in ("keeps", "gets"))
    for q in of(rows, "steer.4.2.d"):
        assert all(re.search(r"\d+\.\d", o) is None for o in q["options"]), q["options"]


def test_distractors_are_tagged_and_perspectives_balanced(rows: list[Row]) -> None:
    for element in ELEMENTS:
        mine = of(rows, element)
        tags = [t for q in mine for t in q["option_tags"] if t != "key"]
        assert tags.count("other") < 0.1 * len(tags), (element, Counter(tags).most_common(3))
        people = Counter(q["perspective"] for q in mine)
        assert set(people) == {"first", "second", "woman", "man", "anonymous"}, element
        mean = len(mine) / 5
        assert all(abs(n - mean) <= 0.2 * mean for n in people.values()), (element, people)
