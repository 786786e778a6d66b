"""Module 2's answer-graded elements measure their construct and leak no key
(issue 20 §2, §3): a seeded bank of 2.1.a, 2.1.b, 2.2.a, 2.3.a, 2.3.b, 2.4.a-e
and 2.5.a passes the shortcut audit, and each construct fix holds on every
question (checked against plain references written here).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pytest

from quality_audit import audit_failures
from steer.generate import generate_bank
from steer.templates._perspective import MEN, WOMEN

pytest.importorskip("sklearn")

Row = dict[str, Any]
ELEMENTS = [
    "steer.2.1.a",
    "steer.2.1.b",
    "steer.2.2.a",
    "steer.2.3.a",
    "steer.2.3.b",
    "steer.2.4.a",
    "steer.2.4.b",
    "steer.2.4.c",
    "steer.2.4.d",
    "steer.2.4.e",
    "steer.2.5.a",
]


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=120, seed=13)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def test_no_blind_agent_beats_chance_on_module_2(bank: pa.Table) -> None:
    report, bad = audit_failures(bank, ELEMENTS, source="module 2", seed=13)
    assert not bad, bad
    # Section 4 on the same bank: tags name real computations, persons balanced.
    tags = [
        f"{e.element}: {e.other_share:.2f}" for e in report.elements if (e.other_share or 0) >= 0.1
    ]
    assert not tags, tags
    spread = [
        f"{e.element}: {e.perspective_spread:.2f}"
        for e in report.elements
        if (e.perspective_spread or 0) > 0.2
    ]
    assert not spread, spread


def test_every_sunk_cost_question_separates_the_biased_answer(rows: list[Row]) -> None:
    """2.2.a: the revenue lies within the sunk amount of the future cost, so
    one of the two sunk-cost rules (count the spent money; do not 'waste' it)
    picks the wrong option, and each option is the key about half the time."""
    keys: Counter[bool] = Counter()
    for q in (r for r in rows if r["element"] == "steer.2.2.a"):
        env = json.loads(q["payload"])["env"]
        revenue, future, sunk = env["revenue"], env["future_cost"], env["sunk"]
        go_on = revenue > future  # the forward-looking rule
        counting_sunk = revenue > sunk + future  # continue only if it all comes back
        not_wasting = revenue + sunk > future  # abandoning 'loses' the sunk money
        assert go_on != counting_sunk or go_on != not_wasting, env
        key_tag = q["option_tags"][q["correct_index"]]
        assert key_tag == "key"
        wrong = q["option_tags"][1 - q["correct_index"]]
        assert wrong == ("sunk_cost_included" if go_on else "sunk_cost_escalation")
        keys[go_on] += 1
    assert 0.4 < keys[True] / sum(keys.values()) < 0.6, keys


def without(values: np.ndarray, probs: np.ndarray, k: int) -> float:
    """The expected value over the other outcomes, their probabilities rescaled."""
    rest = [i for i in range(len(values)) if i != k]
    return float(sum(values[i] * probs[i] for i in rest) / sum(probs[i] for i in rest))


def test_expected_utility_distractors_are_the_computations_they_name(rows: list[Row]) -> None:
    """2.4.a: the key is the weighted sum; every tagged distractor is the value
    its wrong computation gives (references written out here)."""
    for q in (r for r in rows if r["element"] == "steer.2.4.a"):
        d = json.loads(q["payload"])
        values, probs = np.asarray(d["values"]), np.asarray(d["probs"])
        terms = values * probs
        references = {
            "key": [terms.sum()],
            "unweighted_mean": [values.mean()],
            "forgot_probability": [values.sum()],
            "probabilities_reversed": [values @ probs[::-1]],
            "misaligned_probabilities": [values @ np.roll(probs, -1)],
            "dropped_outcome": [
                terms.sum() - terms[i] for i in np.flatnonzero(probs == probs.min())
            ],
            "dropped_likeliest_outcome": [
                terms.sum() - terms[i] for i in np.flatnonzero(probs == probs.max())
            ],
            "ignored_losses": [np.maximum(values, 0) @ probs],
            "ignored_worst_outcome": [without(values, probs, int(np.argmin(values)))],
            "ignored_best_outcome": [without(values, probs, int(np.argmax(values)))],
            "most_likely_outcome": list(values[probs == probs.max()]),
            "best_outcome": [values.max()],
            "worst_outcome": [values.min()],
        }
        for option, tag in zip(q["options"], q["option_tags"], strict=True):
            if tag == "other":
                continue
            if re.fullmatch(r"(.+\+)?(wrong|swapped)_[a-z_]+_digits?", tag):
                # A slip of a written digit of the key or of the named error
                # before the '+': recomputed in tests/test_distractor_tags.py.
                assert tag.rpartition("+")[0] in ("", *q["option_tags"]), tag
                continue
            shown = float(option.replace(",", ""))
            # within a cent: a value on a half cent may round either way
            assert any(abs(shown - r) <= 0.005 + 1e-9 for r in references[tag]), (tag, option)


def test_lottery_menus_deal_the_best_value_at_random(rows: list[Row]) -> None:
    """2.4.b: the sure amount is the key about 1/n of the time, and so is the
    gamble with the largest prize."""
    sure = prize = total = 0.0
    for q in (r for r in rows if r["element"] == "steer.2.4.b"):
        lots = json.loads(q["payload"])["lotteries"]
        evs = [float(np.dot(lot["values"], lot["probs"])) for lot in lots]
        best = int(np.argmax(evs))
        n = len(lots)
        sure += (len(lots[best]["values"]) == 1) * n
        prize += (max(lots[best]["values"]) == max(max(lot["values"]) for lot in lots)) * n
        total += 1
    assert 0.75 < sure / total < 1.25 and 0.75 < prize / total < 1.25, (sure / total, prize / total)


# --- wording and construct checks on every module 2 element (review round 3) ---


@pytest.fixture(scope="module")
def all_rows() -> list[Row]:
    return generate_bank(["steer.2"], per_cell=15, seed=29).to_pylist()


def _slip(tag: str) -> bool:
    return tag in ("key", "other") or bool(re.search(r"(wrong|swapped|counted)_", tag))


def test_expected_utility_errors_lie_within_the_outcomes(rows: list[Row]) -> None:
    """2.4.a: every named wrong computation lies between the worst and the best
    outcome, like the key; one outside (a term dropped without re-weighting)
    is struck by anyone who knows an average cannot leave that range."""
    for q in (r for r in rows if r["element"] == "steer.2.4.a"):
        values = json.loads(q["payload"])["values"]
        for option, tag in zip(q["options"], q["option_tags"], strict=True):
            if not _slip(tag):
                shown = float(option.replace(",", ""))
                assert min(values) <= shown <= max(values), (tag, option, values)


def test_gamblers_fallacy_key_is_not_copied_from_the_stem(rows: list[Row]) -> None:
    """2.5.a: the chance is stated as a long-run rate and asked as a decimal,
    so picking the option that repeats a number of the stem finds nothing."""
    for q in (r for r in rows if r["element"] == "steer.2.5.a"):
        key = q["options"][q["correct_index"]]
        assert not re.search(rf"(?<![\d.]){re.escape(key)}(?![\d])", q["question_text"]), q[
            "question_text"
        ]


def test_module_2_wording(all_rows: list[Row]) -> None:
    """Slips a reviewer found, as classes: odds for a probability, 'According to
    you', a transitivity question answered by a name but asking what follows,
    a utility that 'is a chance', and explanations with a trailing space or
    expected values without their unit."""
    bad = []
    for q in all_rows:
        stem, why = q["question_text"], q["explanation"] or ""
        checks = {
            "odds as a probability": re.search(r"\bodds\b[^.;]{0,30}\d+(\.\d+)?%", stem),
            "according to the agent": re.search(r"\bAccording to (me|you|him|her|them)\b", stem),
            "utility that is a chance": re.search(r"\butility is an? \d+% chance", stem),
            "statement asked, name offered": q["template_id"].startswith(("tr.", "trr."))
            and re.search(r"(Which follows|what can be said|what follows|imply)[^.]*\?$", stem),
            "explanation spacing": why != why.strip() or "  " in why,
            "expected value without unit": q["element"] == "steer.2.4.c"
            and re.search(r"expected \d", why),
        }
        bad += [f"{q['template_id']}: {name}: {stem[:80]!r}" for name, hit in checks.items() if hit]
    assert not bad, "\n".join(sorted(set(bad)))


# --- review round 4: stems that set the scene, explanations with their units ---


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.?!])\s+", text.strip())


def test_module_2_stems_set_the_scene(all_rows: list[Row]) -> None:
    """An answer-graded stem neither opens with a bare question ("Walk away
    with $8,500, or risk it all ...?") before any setting nor ends with a
    yes/no question ("should you go ahead with the purchase?") that its
    action options do not answer."""
    bad = []
    for q in all_rows:
        if q["grading"] != "answer":
            continue
        sentences = _sentences(q["question_text"])
        if len(sentences) > 1 and sentences[0].endswith("?"):
            bad.append(f"{q['template_id']}: opens with a question: {sentences[0]!r}")
        # The question itself, past a lead-in such as "Valuing money linearly, ".
        asked = re.sub(r"^(?!(Should|Is|Does|Do|Can|Would)\b)[^,?]*,\s*", "", sentences[-1])
        yes_no = re.match(r"(should|is|are|does|do|can|would)\b", asked, re.I)
        if yes_no and " or " not in asked and not {"Yes", "No"} & set(q["options"]):
            bad.append(f"{q['template_id']}: yes/no question: {sentences[-1]!r}")
    assert not bad, "\n".join(sorted(set(bad)))


def test_module_2_explanations(all_rows: list[Row]) -> None:
    """Explanations write sums of money with their unit and no hyphen-minus
    ("expected 6,000", "-50,000"), keep the comma in "With utility linear in
    money, only ...", and end the ambiguity rule in plain words."""
    money = {"steer.2.2.a", "steer.2.4.b", "steer.2.4.c", "steer.2.4.d", "steer.2.4.e"}
    bad = []
    for q in all_rows:
        why = q["explanation"] or ""
        checks = {
            "amount without unit": q["element"] in money
            and re.search(r"(?<![$\d.,])\d{1,3}(,\d{3})+(?![\d%])|-\$?\d", why),
            "missing comma": "linear in money only" in why,
            "garbled ending": "equally good together" in why,
        }
        bad += [f"{q['template_id']}: {name}: {why[:90]!r}" for name, hit in checks.items() if hit]
    assert not bad, "\n".join(sorted(set(bad)))


def test_lottery_menus_count_in_words(all_rows: list[Row]) -> None:
    """2.4.b: "one of three investment offers", not "one of 3 fund offers"."""
    for q in (r for r in all_rows if r["element"] == "steer.2.4.b"):
        assert not re.search(r"(?<![\d$.,])\d(?![\d.,%])", q["question_text"]), q["question_text"]


def test_preference_pair_stems_introduce_the_chooser() -> None:
    """2.1.a, 2.3.a: the first sentence says who is choosing; a stem that lists
    the plans and then names "Olga" has never said who she is. Checked in the
    first and second person, where the chooser is always "I" or "you"."""
    rows = generate_bank(["steer.2.1.a", "steer.2.3.a"], per_cell=80, seed=5).to_pylist()
    bad = [
        f"{q['template_id']}: {q['question_text'][:100]!r}"
        for q in rows
        if q["perspective"] in ("first", "second")
        and not re.search(r"\b(I|me|my|you|your)\b", _sentences(q["question_text"])[0], re.I)
    ]
    assert not bad, "\n".join(sorted(set(bad)))


def _groups(rows: list[Row], element: str) -> list[list[Row]]:
    groups: dict[str, list[Row]] = {}
    for q in rows:
        if q["element"] == element:
            groups.setdefault(q["consistency_group"], []).append(q)
    return list(groups.values())


def test_consistency_explanations_rest_on_the_stem(all_rows: list[Row]) -> None:
    """2.5.b: an event the explanation makes the second choice depend on ("paid
    only if the sponsor renews") is stated in the question. 2.2.b: trading
    costs the explanation rules out ("no fees") are ruled out in the stem."""
    bad = []
    for group in _groups(all_rows, "steer.2.5.b"):
        stem = " ".join(q["question_text"] for q in group)
        event = re.search(r"only if (?:the )?(.+?)(?:,| with probability)", group[0]["explanation"])
        if event and event.group(1) not in stem:
            bad.append(f"{group[0]['template_id']}: {event.group(1)!r} not in the stem")
    for group in _groups(all_rows, "steer.2.2.b"):
        stem = " ".join(q["question_text"] for q in group)
        claims = re.search(r"no (fees|costs of trading|trading costs)", group[0]["explanation"])
        states = re.search(r"no (fees?|commission|cost)|without fees|for free|costs nothing", stem)
        if claims and not states:
            bad.append(f"{group[0]['template_id']}: no trading costs in {stem[:80]!r}")
    assert not bad, "\n".join(sorted(set(bad)))


# --- review round 5: stems that match their story, choices that cannot be hedged ---

NAMES = "(?:" + "|".join(WOMEN + MEN) + ")"
PAIRED = ("steer.2.2.c", "steer.2.3.c", "steer.2.5.b", "steer.2.5.c", "steer.2.5.d")
ONLY_ONE_COUNTS = re.compile(
    r"\b(only one|just one|one of two|decides which|one of the (two )?answers|"
    r"the one that counts|not both)\b",
    re.I,
)


def _module_2_templates() -> list[Any]:
    from steer.templates import load_templates

    return [t for t in load_templates("steer") if t.element.startswith("steer.2.")]


def test_paired_choices_say_only_one_counts() -> None:
    """2.2.c, 2.3.c, 2.5.b-d: an agent who held both chosen options could
    hedge one with the other (a wet and a dry-or-hot contract pay for sure;
    two bonuses share one event), which would make the consistency rule
    debatable. Every wording says that only one of the two choices is carried
    out."""
    bad = [
        f"{t.spec.id}: {p[:80]!r}"
        for t in _module_2_templates()
        if t.element in PAIRED and t.spec.structure == "consistency"
        for p in t.spec.phrasings
        if not ONLY_ONE_COUNTS.search(p)
    ]
    assert not bad, "\n".join(bad)


def test_stems_match_their_story(all_rows: list[Row]) -> None:
    """Slips a reader found, as classes: a 'trick' (or bent, weighted) coin
    whose long-run rate may be one half; 'never tasted' without its auxiliary;
    a chooser who first appears as 'a trader like Priya'; payment on success
    offered where the stem never says what succeeds; and, where a template
    names its anonymous chooser ('the trader'), a stem that still calls them
    'the decision maker'."""
    bad = []
    for q in all_rows:
        stem, tid = q["question_text"], q["template_id"]
        checks = {
            "biased coin": tid == "gf.coin"
            and re.search(r"\b(trick|bent|weighted|biased|loaded)\b", stem),
            "tense": re.search(r"\b(I|you|he|she|[A-Z][a-z]+) never tasted\b", stem),
            "chooser introduced by 'like'": q["perspective"] in ("woman", "man")
            and re.search(rf"^(?:(?!\b{NAMES}\b).)*\blike {NAMES}\b", stem),
            "success never stated": tid == "ra.freelance"
            and not (re.search(r"succe", stem) and re.search(r"flat fee", stem)),
            "two anonymous names": tid in ("la.stock-trade", "rs.quiz-show")
            and q["perspective"] == "anonymous"
            and "decision maker" in stem,
        }
        bad += [f"{tid}: {name}: {stem[:90]!r}" for name, hit in checks.items() if hit]
    assert not bad, "\n".join(sorted(set(bad)))


def test_transitivity_explanations_read_along_the_chain(all_rows: list[Row]) -> None:
    """2.1.b, 2.3.b: the reason names the chain in order ("along the chain
    from A through B to C, each is at least as good as the next") rather than
    'every step from A to C (through B) is at least as good'."""
    bad = [
        f"{q['template_id']}: {q['explanation'][:120]!r}"
        for q in all_rows
        if q["template_id"].startswith(("tr.", "trr."))
        and ("every step" in q["explanation"] or "along the chain from " not in q["explanation"])
    ]
    assert not bad, "\n".join(sorted(set(bad)))


def test_independence_items_depend_on_the_first_answer(all_rows: list[Row]) -> None:
    """2.1.c: a newcomer that beats every option makes the item a dominance
    check (one right answer whatever came first), not a test of independence
    of irrelevant alternatives, as a reader judged ind.holiday and ind.gym.
    Every 2.1.c rule lets the first answer matter: some first answer keeps a
    right answer that another first answer does not."""
    bad = []
    for q in all_rows:
        if q["element"] != "steer.2.1.c" or q["part"] != 0:
            continue
        rule = q["consistency_rule"]
        if rule.startswith("map:"):
            allowed = [frozenset(x.split("+")) for x in rule.split("=", 1)[1].split("|")]
            if len(set(allowed)) == 1:
                bad.append(f"{q['template_id']}: {rule}")
    assert not bad, sorted(set(bad))


# --- review round 8: options named as the stem names them, no accidental dominance ---


def test_module_2_stems_name_things_as_they_are(all_rows: list[Row]) -> None:
    """Slips a reader found, as classes: an echo question ("A risk-neutral owner
    like me should pick which?"), a "Bet 1" that is a choice between two bets,
    a two-word label capitalised mid-sentence ("Between Refund plan Pine and
    Refund plan Oak"), a ticket holder who "would not resell" asked for a
    selling price, and a certainty-effect reason naming options the stem never
    names ("the steady bonus in both")."""
    bad = []
    for q in all_rows:
        stem, why, tid = q["question_text"], q["explanation"] or "", q["template_id"]
        checks = {
            "echo question": re.search(r"\b(?:pick|choose|take|buy) which\?", stem),
            "bet inside a bet": re.search(r"\bBet \d:", stem),
            "two-word label": re.search(
                r"\b[A-Z][a-z]+ [a-z]+ (?:Oak|Elm|Pine|Birch|Ash|Maple)\b", stem + " " + why
            ),
            "resell beside a selling price": q["element"] == "steer.2.2.b"
            and re.search(r"\bresell\b", stem),
            "option the stem never names": q["element"] == "steer.2.5.b"
            and re.search(r"\b(?:steady|stretch|safer|riskier|side)\b", why),
        }
        bad += [f"{tid}: {name}: {stem[:80]!r}" for name, hit in checks.items() if hit]
    assert not bad, "\n".join(sorted(set(bad)))


def test_phone_plans_trade_data_for_calls(all_rows: list[Row]) -> None:
    """2.1.c ind.phone: the data plan has more data and the calls plan unlimited
    calls, so neither beats the other on every count ("the data plan gives 5 GB
    for $44, the calls plan unlimited calls and 40 GB for $20")."""
    for q in (r for r in all_rows if r["template_id"] == "ind.phone"):
        env = json.loads(q["payload"])["env"]
        assert env["ga"] >= 2 * env["gb"], env
