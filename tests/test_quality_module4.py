"""Module 4's elements measure their construct and leak no key (issue 20 §2-§4):
a seeded bank of social choice and mechanism design (4.1-4.4) passes the
shortcut audit, every fixed-menu answer is the key about equally often, the
construct fixes hold on every question (4.4.b needs the bidders' attitude to
risk; 4.4.c's ranking follows from the stated correlation, number of bidders
and attitude to risk; 4.3.c states its horizons; 4.3.d asks about budget
balance), option
forms carry no hint, distractors are tagged by their error and perspectives
are balanced; explanations and stems read as plain sentences (no "1 × … + 0 ×",
no amount compared with itself, tallies and TTC rounds shown by name). References
are written here in plain Python.
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from affiliated_reference import INTERDEPENDENT, affiliated_ranking, key_is_right
from quality_audit import audit_failures
from steer.generate import generate_bank

pytest.importorskip("sklearn")

Row = dict[str, Any]
ELEMENTS = [
    f"steer.4.{m}.{e}" for m, es in ((1, "abcd"), (2, "abcde"), (3, "abcd"), (4, "abc")) for e in es
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


def as_option(name: str) -> str:
    """A candidate's name as the options show it, capitalised ("The castle")."""
    return name[:1].upper() + name[1:]


def test_no_blind_agent_beats_chance_on_module_4(bank: pa.Table) -> None:
    _, bad = audit_failures(bank, ELEMENTS, source="module 4", seed=23, strict=True)
    assert not bad, bad


TWO_ANSWERS = {"af.art": 2, "af.timber": 2}


@pytest.mark.parametrize(
    ("element", "answers"),
    [
        ("steer.4.3.a", 3),
        ("steer.4.3.b", 3),
        ("steer.4.3.c", 4),
        ("steer.4.3.d", 3),
        ("steer.4.4.b", 3),
        ("steer.4.4.c", 3),
    ],
)
def test_fixed_menus_key_each_answer_equally_often(
    rows: list[Row], element: str, answers: int
) -> None:
    """Where every question offers the same verbal answers (Yes / No: ...,
    a horizon, a format), each is the key about 1/n of the time: a blind
    'always Yes' or 'always the longest' then scores chance. (af.art's and
    af.timber's bidders are always risk neutral: two answers, not three.)"""
    mine = of(rows, element)
    keys = Counter(re.sub(r"\d", "#", key_text(q)) for q in mine)
    texts = Counter(re.sub(r"\d", "#", o) for q in mine for o in q["options"])
    n_of = {
        re.sub(r"\d", "#", o): TWO_ANSWERS.get(q["template_id"], answers)
        for q in mine
        for o in q["options"]
    }
    for text, seen in texts.items():
        share = keys[text] / seen
        assert abs(share - 1 / n_of[text]) < 0.12, (element, text, share)


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
        if "r" in env:  # the exponent as a parameter: "s^r, with r = 1", never "s^1"
            assert "s^r" in text and re.search(rf"r = {env['r']:g}(?!\.?\d)", text), text
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


def test_affiliated_auction_keys_follow_the_linkage_principle(rows: list[Row]) -> None:
    """4.4.c: the key is the ranking the stated model makes a theorem, every
    question states the numbers that decide it, and each ranking is the key in
    several templates' draws (no constant key)."""
    seen: Counter[str] = Counter()
    for q in of(rows, "steer.4.4.c"):
        env = json.loads(q["payload"])["env"]
        text = q["question_text"]
        assert re.search(rf"(?<![\d.]){env['n']:g}(?![\d.]*\d)", text), text
        assert re.search(rf"correlat\w* (?:of |at )?{env['rho']:g}(?![\d.]*\d)", text), text
        if env["n"] == 2:  # two bidders: no "any two of them", no "every pair"
            assert not re.search(r"\bany two\b|\bevery pair\b", text), text
        want = affiliated_ranking(env, q["template_id"] in INTERDEPENDENT)
        assert key_is_right(env, q["template_id"], key_text(q)), (text, key_text(q))
        wrong = [o for o in q["options"] if o != key_text(q)]
        assert not any(key_is_right(env, q["template_id"], o) for o in wrong), q["options"]
        seen[json.dumps(want, sort_keys=True)] += 1
    # English first, English and second-price level, all level: a risk-averse
    # case would test 4.4.b's result, not affiliation, so none is drawn.
    assert len(seen) == 3 and min(seen.values()) > 0.1 * sum(seen.values()), seen


def test_reference_ranking_on_hand_cases() -> None:
    """The reference itself, on cases whose ranking is textbook."""
    env = {"n": 4, "rho": 0.5, "r": 1.0}
    assert affiliated_ranking(env, True) == {"english": 2, "second": 1, "first": 0}
    assert affiliated_ranking({**env, "n": 2}, True) == {"english": 1, "second": 1, "first": 0}
    assert affiliated_ranking(env, False) == {"english": 1, "second": 1, "first": 0}
    assert affiliated_ranking({**env, "rho": 0}, True) == dict.fromkeys(
        ("english", "second", "first"), 0
    )
    averse = {"n": 4, "rho": 0, "ce": 30.0, "stake": 100.0}
    assert affiliated_ranking(averse, False) == {"english": 0, "second": 0, "first": 1}


@pytest.mark.parametrize("n", [2, 3, 5, 8])
def test_revenue_equivalence_numerically(n: int) -> None:
    """Independent private values uniform on [0, 1], risk neutral: the
    second-price auction earns the second-highest value and the first-price
    equilibrium bid is (n-1)/n of one's value; both average (n-1)/(n+1)."""
    values = np.random.default_rng(n).random((400_000, n))
    ordered = np.sort(values, axis=1)
    second_price = ordered[:, -2].mean()
    first_price = ((n - 1) / n * ordered[:, -1]).mean()
    assert second_price == pytest.approx((n - 1) / (n + 1), abs=3e-3)
    assert first_price == pytest.approx((n - 1) / (n + 1), abs=3e-3)


def _first_price_bid(a: float, k: int) -> np.ndarray:
    """b at the k grid midpoints; the half cell below each point adds 0.5/k (L = 1 at t = x)."""
    grid = (np.arange(k) + 0.5) / k
    t, xs = grid[None, :], grid[:, None]
    shade = (t / xs) * np.sqrt((1 + a * t**2 / 2) / (1 + a * xs**2 / 2))
    return grid - np.where(t < xs, shade, 0).sum(axis=1) / k - 0.5 / k


def _two_bidder_revenues(a: float, k: int = 800) -> tuple[float, float]:
    """Expected revenue of the second-price and first-price auctions for two
    risk-neutral bidders with private values of joint density proportional to
    1 + a·x·y on [0, 1]^2 (affiliated for a > 0: its log has cross-derivative
    a/(1 + a·x·y)^2 >= 0; independent uniform at a = 0). The first-price
    equilibrium (Milgrom and Weber 1982, Thm 14) is b(x) = x - ∫_0^x L(t|x) dt
    with L(t|x) = exp(-∫_t^x g(s|s)/G(s|s) ds); here g/G at s is
    (1 + a·s^2)/(s·(1 + a·s^2/2)), so L(t|x) = (t/x)·sqrt((1 + a·t^2/2)/(1 + a·x^2/2)).
    Integrals by the midpoint rule on a k×k grid."""
    grid = (np.arange(k) + 0.5) / k
    x, y = np.meshgrid(grid, grid, indexing="ij")
    density = 1 + a * x * y
    density /= density.sum()
    bid = _first_price_bid(a, k)
    high = np.maximum(x, y)
    index = np.minimum((high * k).astype(int), k - 1)
    second_price = float((np.minimum(x, y) * density).sum())
    first_price = float((bid[index] * density).sum())
    return second_price, first_price


def test_linkage_principle_numerically() -> None:
    """With affiliated private values the second-price auction out-earns the
    first-price one; with independent values (a = 0) the two agree at 1/3."""
    # the bid function is an equilibrium: a bidder with value x does best bidding b(x)
    k = 400
    grid = (np.arange(k) + 0.5) / k
    for a in (2.0, 8.0):
        bid = _first_price_bid(a, k)
        for i in (80, 200, 320):
            x = grid[i]
            # P(other's value below z | own value x), over z on the grid
            wins = np.cumsum(1 + a * x * grid) / (1 + a * x / 2) / k
            payoff = (x - bid) * wins
            assert abs(int(np.argmax(payoff)) - i) <= 2, (a, i, int(np.argmax(payoff)))
    sp0, fp0 = _two_bidder_revenues(0.0)
    assert sp0 == pytest.approx(1 / 3, abs=1e-3) and fp0 == pytest.approx(1 / 3, abs=1e-3)
    for a in (2.0, 8.0):
        sp, fp = _two_bidder_revenues(a)
        assert sp > fp + 2e-3, (a, sp, fp)


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


# --- wording: explanations and stems read as plain sentences (review round 3) ---------------

MONEY = r"\$\d[\d,]*(?:\.\d+)?"
# A weight of 0 or 1 written out as arithmetic, or a weight "of a dollar".
UNSIMPLIFIED = re.compile(r"(?<![\d.])[01] ×|× [^.;]*\+ 0 ×|\d of a dollar")
# An amount referred back to and compared with itself in one clause:
# "values it at $450 ... if that equals $450" (a threshold named twice is fine).
COMPARES = r"(?:if|when) (?:that|it) (?:equals|is less than|is more than|is below|is above)"
END = r"(?![\d]|[.,]\d)"  # the whole amount, not "$45" of "$450"
SELF_COMPARED = re.compile(rf"({MONEY}){END}[^.;]*?\b{COMPARES} \1{END}")


def test_explanations_and_stems_have_no_unsimplified_or_self_comparing_text(
    rows: list[Row],
) -> None:
    """Every module-4 question, across the drawn parameters, reads as plain
    text: a price weight of 0 or 1 is never written "1 × own + 0 × other", a
    weight is never "0.5 of a dollar", and no sentence compares an amount
    with itself (a sure equivalent of $450 "risk neutral if that equals $450")."""
    for q in rows:
        for text in (q["question_text"], q["explanation"], *q["options"]):
            assert not UNSIMPLIFIED.search(text), (q["template_id"], text)
            assert not SELF_COMPARED.search(text), (q["template_id"], text)
    # the bank holds the cases that used to go wrong: weights 0 and 1, and
    # risk-neutral bidders whose sure equivalent is half the stake
    weights = Counter(json.loads(q["payload"])["env"]["k"] for q in of(rows, "steer.4.3.a"))
    assert weights[0] and weights[1], weights
    neutral = [
        q
        for q in of(rows, "steer.4.4.b") + of(rows, "steer.4.4.c")
        if "ce" in (env := json.loads(q["payload"])["env"]) and env["ce"] == env["stake"] / 2
    ]
    assert neutral


def test_dsic_options_name_who_the_stem_names(rows: list[Row]) -> None:
    """4.3.a: "No: a collector can gain ..." needs a collector in the stem."""
    for q in of(rows, "steer.4.3.a"):
        for option in q["options"]:
            who = re.match(r"No: an? (\w+) can gain", option)
            if who:
                assert who.group(1) in q["question_text"], (option, q["question_text"])


def test_clarke_stems_define_pivotal_and_keys_follow_that_definition(rows: list[Row]) -> None:
    """4.3.d: the stem says what a report's change of decision is measured
    against (the other two reports set against the other two shares), and the
    key counts the pivotal reports under exactly that reading, from the gross
    values alone; the explanation shows no negative amounts."""
    answers = {0: "Yes: no report", 1: "No: exactly one report", 2: "No: two reports"}
    for q in of(rows, "steer.4.3.d"):
        text = q["question_text"]
        assert re.search(r"other two (?:reports|shares|levies)", text), text
        assert re.search(r"against|compared with", text), text
        env = json.loads(q["payload"])["env"]
        values, share = [env["w1"], env["w2"], env["w3"]], env["share"]
        bought = sum(values) >= 3 * share
        pivotal = sum((sum(values) - v >= 2 * share) != bought for v in values)
        assert key_text(q).startswith(answers[pivotal]), (text, key_text(q))
        assert not re.search(r"[-−]\$", q["explanation"]), q["explanation"]


def test_count_menus_on_nondictatorship_always_single_out_a_voter(rows: list[Row]) -> None:
    """4.1.d count form: every menu has a rule that singles out one voter (a
    dictatorship, a weighted majority, a reversed ballot), so "no rule names a
    voter, so all pass" never finds the key; the counts stay balanced (above)."""
    for q in of(rows, "steer.4.1.d"):
        d = json.loads(q["payload"])
        if not d["judge"]:
            continue
        assert any(
            r["kind"] in ("dictatorship", "reversed_dictatorship")
            or (r["kind"] == "weighted_majority" and len(set(r["params"])) > 1)
            for r in d["rules"]
        ), q["question_text"]


def test_a_half_weight_voter_is_outvoted_by_the_right_count(rows: list[Row]) -> None:
    """4.1.d: a weighted majority where one voter holds half the votes is no
    dictatorship; the explanation counts the others ("the other two both
    disagree"), never "they all" for two."""
    for q in of(rows, "steer.4.1.d"):
        why = q["explanation"]
        assert "they all disagree" not in why, why
        for m in re.finditer(r"when the other (\w+) (both|all) disagree", why):
            assert (m[1] == "two") == (m[2] == "both"), m[0]
            n_voters = len(json.loads(q["payload"])["voters"])
            assert m[1] == {3: "two", 4: "three"}[n_voters], (m[0], n_voters)


def test_top_trading_cycles_explanation_says_who_gets_what(rows: list[Row]) -> None:
    """4.4.a: the working names each agent's good (kept or traded for), round
    by round, instead of a bare list of round numbers."""
    for q in of(rows, "steer.4.4.a"):
        d = json.loads(q["payload"])
        good, text = d["good"], q["explanation"]
        assert "In round 1, " in text and "Cycles clear" not in text, text
        for i, part in enumerate(key_text(q).split("; ")):
            name, held = part.split(": ")
            own = f"{good} {i + 1}"
            pattern = rf"{name} keeps {own}\b" if held == own else rf"{name} (?:gets )?{held}\b"
            assert re.search(pattern, text), (pattern, text)


def _head_to_head(d: dict[str, Any]) -> list[list[int]]:
    m = len(d["names"])
    wins = [[0] * m for _ in range(m)]
    for ranking, count in zip(d["rankings"], d["counts"], strict=True):
        for i, a in enumerate(ranking):
            for b in ranking[i + 1 :]:
                wins[a][b] += count
    return wins


def test_condorcet_and_copeland_explanations_give_the_tallies(rows: list[Row]) -> None:
    """4.2.e and 4.2.c: the explanation shows the head-to-head counts behind
    the answer, and they are the profile's."""
    for q in of(rows, "steer.4.2.e") + of(rows, "steer.4.2.c"):
        d = json.loads(q["payload"])
        names, wins, text = d["names"], _head_to_head(d), q["explanation"]
        m = len(names)
        if q["element"] == "steer.4.2.c":
            for a, b in itertools.combinations(range(m), 2):
                shown = (f"{wins[a][b]}–{wins[b][a]}", f"{wins[b][a]}–{wins[a][b]}")
                assert any(f"{names[a]} {t}" in text or f"{names[b]} {t}" in text for t in shown)
            continue
        key = key_text(q)
        if key in map(as_option, names):
            w = [as_option(n) for n in names].index(key)
            for b in range(m):
                if b != w:
                    assert f"{names[b]} {wins[w][b]}–{wins[b][w]}" in text, text
        else:
            for a in range(m):
                assert re.search(rf"{names[a]} (?:loses to|ties with) ", text), (names[a], text)


def test_plurality_profiles_tell_the_rules_apart(rows: list[Row]) -> None:
    """4.2.a: the plurality winner has no majority of first places, and Borda
    or Copeland elects someone else, so the favourite of every rule is never
    the key by default."""
    for q in of(rows, "steer.4.2.a"):
        d = json.loads(q["payload"])
        names, wins = d["names"], _head_to_head(d)
        m = len(names)
        firsts, borda = [0] * m, [0] * m
        for ranking, count in zip(d["rankings"], d["counts"], strict=True):
            firsts[ranking[0]] += count
            for place, c in enumerate(ranking):
                borda[c] += (m - 1 - place) * count
        winner = [as_option(n) for n in names].index(key_text(q))
        assert 2 * firsts[winner] <= sum(d["counts"]), q["question_text"]
        copeland = [
            sum(
                (wins[a][b] > wins[b][a]) + 0.5 * (wins[a][b] == wins[b][a])
                for b in range(m)
                if b != a
            )
            for a in range(m)
        ]
        others = {borda.index(max(borda)), copeland.index(max(copeland))}
        assert others != {winner}, q["question_text"]


def test_stems_use_their_own_nouns(rows: list[Row]) -> None:
    """A trip vote's Borda rule counts destinations, not candidates; a council
    ranks "3 budget projects (…)", not "the budget projects the park"."""
    for q in rows:
        text = q["question_text"]
        assert "ranks the budget projects the" not in text, text
        if q["element"].startswith("steer.4.2.") and not q["template_id"].endswith(".vote"):
            assert "candidates" not in text, (q["template_id"], text)


def test_no_power_of_one_in_module_4(rows: list[Row]) -> None:
    """A utility of the surplus is never written "s^1", and an explanation
    states the general rule with r, not with this item's own exponent ("whose
    utility is s^1 is risk averse if the exponent is below 1")."""
    for q in rows:
        for text in (q["question_text"], q["explanation"]):
            assert not re.search(r"\^1(?![\d.])", text), (q["template_id"], text)


# Phrases that make the agent one of the voters the stem has already counted.
AGENT_ON_PANEL = re.compile(
    r"\b(?:am|are|is) (?:on|one of|a member of) (?:a|the) [\w -]*"
    r"(?:panel|council|club|committee|jury)\b"
)


def test_social_choice_agent_is_not_an_extra_voter(rows: list[Row]) -> None:
    """4.1: "You are on a hiring panel of 4 (Farah, Goran, Hana and Imre)"
    makes the reader a fifth member; the agent advises or reviews instead."""
    for q in rows:
        if q["element"].startswith("steer.4.1."):
            assert not AGENT_ON_PANEL.search(q["question_text"]), q["question_text"]


def test_social_choice_menus_list_no_rule_twice_and_explain_in_sentences(
    rows: list[Row],
) -> None:
    """4.1: a menu holds at most one rule of a family whose second rule would
    only rename the first (another voter's ballot, reversed or not, another
    fixed order, a second unanimity or head-to-head rule), and the working
    opens with a sentence, not "Checking all 216 possible sets of ballots." """
    renamed = {"dictator", "reversed", "imposed", "unanimity", "copeland"}
    for q in rows:
        if not q["element"].startswith("steer.4.1."):
            continue
        families = [r["family"] for r in json.loads(q["payload"])["rules"]]
        repeated = [f for f, k in Counter(families).items() if k > 1 and f in renamed]
        assert not repeated, (repeated, q["question_text"])
        assert re.match(r"Each rule was checked on all \d+ possible sets", q["explanation"]), q[
            "explanation"
        ]


def test_divide_and_choose_asks_for_a_guarantee_whichever_piece(rows: list[Row]) -> None:
    """4.2.d gives the chooser's values, under which a rational chooser may
    leave the divider enough at other cuts too; the question asks for the cut
    that is safe whichever piece the chooser takes, which only the key is."""
    for q in of(rows, "steer.4.2.d"):
        assert re.search(r"whichever (?:piece|part) \w+ takes\?$", q["question_text"]), q[
            "question_text"
        ]


def test_voting_options_are_capitalised_and_stems_name_their_alternatives(
    rows: list[Row],
) -> None:
    """4.2: "The castle" beside "A tie between the zoo and the castle", not
    "the castle"; a vote on candidates, projects or destinations asks which
    candidate, project or destination wins, not which "option"."""
    for q in rows:
        if q["element"] not in ("steer.4.2.a", "steer.4.2.b", "steer.4.2.c", "steer.4.2.e"):
            continue
        assert all(o[:1].isupper() for o in q["options"]), q["options"]
        if not q["template_id"].endswith(".lunch"):
            assert not re.search(r"\boptions?\b", q["question_text"]), q["question_text"]


def test_clarke_explanations_hold_whether_or_not_the_project_is_bought(
    rows: list[Row],
) -> None:
    """4.3.d: with the project not bought no shares are paid, so the taxes do
    not "come on top of the cost shares" nor are left "beyond the cost", and
    the explanation says whether it is bought; two equal reports are not told apart
    by amount ("without the $1,950 report ..., without the $1,950 report"); no
    stem runs on past 70 words in one sentence."""
    for q in of(rows, "steer.4.3.d"):
        text, why = q["question_text"], q["explanation"]
        assert "on top of the cost shares" not in why, why
        # The explanation says whether the project goes ahead, and no text
        # puts a surplus "beyond the cost" of a project not bought.
        assert re.search(r", so it is (?:not )?(?:bought|installed|built)\. ", why), why
        assert "beyond the cost" not in why + " ".join(q["options"]), why
        assert not re.search(r"without the [$\d,.]+ report", why), why
        longest = max(len(s.split()) for s in re.split(r"(?<=[.?!])\s+", text))
        assert longest <= 70, (longest, text)


def test_refunds_and_sure_equivalents_read_as_stated(rows: list[Row]) -> None:
    """4.3.c: a refund is an amount ("losers get back $70 of it"), not "100%
    of which is returned", "0% of it refunded" or "a refund rate of 0%", nor a
    share in words ("all of it"), which the masked-text learner reads where it
    cannot read a number: ex post rationality needs a full refund, so "all"
    gave the key away (learner +0.12 on 4.3.c); 4.4: a sure equivalent named for one
    stake is not also claimed "at any stake" (impossible below it): the
    scale-free attitude is a share of the prize."""
    for q in rows:
        text = q["question_text"]
        if q["element"] == "steer.4.3.c":
            assert not re.search(r"\b(?:0|100)% (?:of (?:it|which|the fee)|refunded|back)", text)
            assert "refund rate" not in text, text
            assert re.search(
                r"\$[\d,.]+ of it (?:is refunded|on losing\b)|gets? back \$[\d,.]+ of it", text
            ), text
            assert not re.search(r"\b(?:none|half|all) of it\b", text), text
        if q["element"].startswith("steer.4.4."):
            assert not re.search(r", (?:at any|whatever the) stake\.", text), text
            # One lot is auctioned among the bidders, not sold to all of them.
            assert not re.search(r"\bsell(?:s|ing)? [^.;]*? to \d+ ", text), text
            assert "treats every gamble" not in text, text


@pytest.mark.parametrize("element", ["steer.4.2.b", "steer.4.2.c"])
def test_borda_and_copeland_keys_lack_a_first_place_majority(rows: list[Row], element: str) -> None:
    """4.2.b/c (a fifth reading: 'Sushi is first on 341 of 546 ballots'): a
    candidate first on most ballots wins under every rule, so counting first
    places would find the key; no key's candidate is first on more than half."""
    checked = 0
    for q in of(rows, element):
        d = json.loads(q["payload"])
        options = [as_option(n) for n in d["names"]]
        if key_text(q) not in options:
            continue  # a tie or "no winner" key
        winner = options.index(key_text(q))
        firsts = sum(c for r, c in zip(d["rankings"], d["counts"], strict=True) if r[0] == winner)
        assert 2 * firsts <= sum(d["counts"]), q["question_text"]
        checked += 1
    assert checked


def _most_shared_hits(q: Row) -> float:
    """Whether an agent that picks the option whose assignments the other
    options repeat most finds the key (ties split)."""
    parts = [set(o.split("; ")) for o in q["options"]]
    shared = [sum(len(p & r) for j, r in enumerate(parts) if j != i) for i, p in enumerate(parts)]
    top = [i for i, s in enumerate(shared) if s == max(shared)]
    return (q["correct_index"] in top) / len(top)


def test_trading_cycle_keys_are_no_hub_of_shared_assignments(rows: list[Row]) -> None:
    """4.4.a: every distractor is a slip of the whole assignment (first round
    only, no trade, serial picks), which keeps most of the key's pairs, so a
    menu of the first-listed slips made the key the option the others repeat
    most: an agent picking it scored 0.64 against chance 0.25. Menus now put
    the key at a uniformly drawn rank by shared pairs."""
    mine = of(rows, "steer.4.4.a")
    assert len(mine) >= 400
    hits = sum(_most_shared_hits(q) for q in mine) / len(mine)
    chance = sum(1 / len(q["options"]) for q in mine) / len(mine)
    assert hits < chance + 0.05, (hits, chance)
    # The tags stay true: every wrong option is a named slip.
    assert all(t != "other" for q in mine for t in q["option_tags"])
