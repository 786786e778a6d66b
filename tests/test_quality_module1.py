"""Module 1's elements leak no key (issue 20 §2, §3, §4): a seeded bank of
1.1.a-1.5.b passes the shortcut audit, numeric options give the key away by
neither rank, length nor precision, named distractors are the computations
they name (checked against plain references written here), and Bayes
questions need the update.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from typing import Any

import pyarrow as pa
import pytest

from quality_audit import audit_failures
from steer.generate import generate_bank
from steer.templates import load_templates

pytest.importorskip("sklearn")

Row = dict[str, Any]
ELEMENTS = [
    f"steer.{e}"
    for e in [
        "1.1.a",
        "1.1.b",
        "1.1.c",
        "1.2.a",
        "1.2.b",
        "1.2.c",
        "1.3.a",
        "1.3.b",
        "1.3.c",
        "1.4.a",
        "1.4.b",
        "1.4.c",
        "1.5.a",
        "1.5.b",
    ]
]
NUMERIC = {"steer.1.1.a", "steer.1.1.b", "steer.1.1.c", "steer.1.2.b", "steer.1.2.c"}
NUMERIC |= {"steer.1.3.a", "steer.1.3.b", "steer.1.3.c"}


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=100, seed=17)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def value(option: str) -> float:
    return float(option.replace("$", "").replace(",", "").replace("%", ""))


def test_no_blind_agent_beats_chance_on_module_1(bank: pa.Table) -> None:
    _, bad = audit_failures(bank, ELEMENTS, source="module 1", seed=17)
    assert not bad, bad


def test_numeric_keys_are_not_told_by_rank_length_or_precision(rows: list[Row]) -> None:
    """The key is the largest option about one time in n and the smallest about
    one time in n; every option has the key's number of digits (a small count
    miscounted across ten aside); cents are on
    every option or on none (1.1.b: only the key had cents)."""
    largest: Counter[str] = Counter()
    smallest: Counter[str] = Counter()
    expected: Counter[str] = Counter()
    for q in (r for r in rows if r["element"] in NUMERIC):
        values = [value(o) for o in q["options"]]
        key = values[q["correct_index"]]
        largest[q["element"]] += key == max(values)
        smallest[q["element"]] += key == min(values)
        expected[q["element"]] += 1 / len(values)
        digits = {len(str(int(abs(v)))) for v in values}  # the printed whole part
        # Only a small count miscounted across ten (9 counted one over is 10)
        # or a nearby number that no named error gives may change the digits.
        assert len(digits) == 1 or any(t == "other" or "counted_" in t for t in q["option_tags"]), (
            q["options"]
        )
        decimals = {len(o.split(".")[1]) if "." in o else 0 for o in q["options"]}
        assert len(decimals) == 1, q["options"]
    for element, n in expected.items():
        assert abs(largest[element] - n) < 0.35 * n + 10, (element, largest[element], n)
        assert abs(smallest[element] - n) < 0.35 * n + 10, (element, smallest[element], n)


def test_nearby_numbers_are_tagged_other_not_a_slip(rows: list[Row]) -> None:
    """A number drawn near the key is no arithmetic slip: its tag says so."""
    tags = Counter(t for q in rows for t in q["option_tags"])
    assert tags["arithmetic_slip"] == 0
    assert tags["other"] > 0


# Plain references for 1.1.a's named slips: (start, added, taken away) -> value.
ADD_SUB: dict[str, Any] = {
    "added_instead_of_subtracted": lambda s, a, t: s + a + t,
    "subtracted_instead_of_added": lambda s, a, t: s - a + t,
    "subtracted_everything": lambda s, a, t: s - a - t,
    "forgot_the_delivery": lambda s, a, t: s - t,
    "forgot_the_income": lambda s, a, t: s - t,
    "forgot_the_births": lambda s, a, t: s - t,
    "forgot_the_returns": lambda s, a, t: s - t,
    "forgot_the_sales": lambda s, a, t: s + a,
    "forgot_the_spending": lambda s, a, t: s + a,
    "forgot_the_loans": lambda s, a, t: s + a,
}
DIGIT_SLIP = re.compile(
    r"wrong_[a-z_]+_digit|swapped_[a-z_]+_and_[a-z_]+_digits|counted_(one|two|three)_(over|under)"
)
ADD_SUB_VARS = {
    "as.shop-stock": ("start", "delivered", "sold"),
    "as.savings": ("balance", "income", "spent"),
    "as.farm-herd": ("herd", "born", "moved"),
    "as.library": ("shelved", "returned", "lent"),
}


def test_add_sub_distractors_are_the_slips_they_name(rows: list[Row]) -> None:
    seen: Counter[str] = Counter()
    for q in (r for r in rows if r["element"] == "steer.1.1.a"):
        env = json.loads(q["payload"])["env"]
        s, a, t = (env[k] for k in ADD_SUB_VARS[q["template_id"]])
        key = s + a - t
        assert value(q["options"][q["correct_index"]]) == key
        for option, tag in zip(q["options"], q["option_tags"], strict=True):
            seen[tag] += 1
            if "+" in tag:  # a digit slip of the named error before the '+', on the menu
                base, _, slip = tag.rpartition("+")
                assert base in q["option_tags"] and DIGIT_SLIP.fullmatch(slip), tag
            elif tag in ADD_SUB:
                assert value(option) == ADD_SUB[tag](s, a, t), (tag, option)
            elif tag == "missed_carry":  # only when the units digits carry
                assert value(option) == key - 10 and s % 10 + a % 10 >= 10
            elif tag == "missed_borrow":  # only when the units digits borrow
                assert value(option) == key + 10 and t % 10 > (s + a) % 10
            elif tag == "missed_carry_into_hundreds":
                assert value(option) == key - 100 and s % 100 + a % 100 >= 100
            elif tag == "missed_borrow_from_hundreds":
                assert value(option) == key + 100 and t % 100 > (s + a) % 100
            elif tag.startswith(("tens_digit_misread", "hundreds_digit_misread")):
                step = 10 if tag.startswith("tens") else 100
                assert value(option) == key + (step if tag.endswith("_up") else -step)
            elif tag.startswith("counted_one_"):  # small counts only (the gap is one unit)
                assert abs(value(option) - key) == 1 and key <= 20
            else:  # slips of written digits: recomputed in tests/test_distractor_tags.py
                assert tag in ("key", "other") or DIGIT_SLIP.fullmatch(tag), tag
    # Named slips fill the menu (nearby numbers only what the key's rank and
    # digits leave open: issue 20 §4, `other` under 10%).
    assert seen["other"] < 0.1 * sum(n for tag, n in seen.items() if tag != "key")


def test_bayes_questions_need_the_update(rows: list[Row]) -> None:
    """1.3.c: the posterior is at least 0.1 from the prior, so 'no update' is
    visibly wrong (the issue found draws where the key equalled the prior)."""
    for q in (r for r in rows if r["element"] == "steer.1.3.c"):
        env = json.loads(q["payload"])["env"]
        prior, likelihood = env["prior"], env["likelihood"]
        evidence = env.get("evidence")
        if evidence is None:
            evidence = prior * likelihood + (1 - prior) * env["false_alarm"]
        posterior = prior * likelihood / evidence
        assert abs(posterior - prior) >= 0.1 - 1e-9, env
        assert math.isclose(value(q["options"][q["correct_index"]]), round(posterior, 3))


# --- review 3: the classes of problem found in setting 1 ------------------------------

MODULE_1 = [t for t in load_templates("steer") if t.element in ELEMENTS]
AUX_BEFORE_POSSESSIVE = re.compile(r"\b(?:does|has|is|was)\s+\{(?:agent|Agent|subject|Subject)\}'s")


def texts_of(spec: Any) -> list[str]:
    return [
        *spec.phrasings,
        *([spec.explanation] if spec.explanation else []),
        *(c.text for c in spec.choices),
    ]


def test_no_auxiliary_agrees_with_a_possessive_agent() -> None:
    """An auxiliary right before "{agent}'s" agrees with the agent, not with
    what the agent owns: "how much fuel do your water pump use"."""
    bad = [
        f"{t.spec.id}: {text[:70]!r}"
        for t in MODULE_1
        for text in texts_of(t.spec)
        if AUX_BEFORE_POSSESSIVE.search(text)
    ]
    assert not bad, bad


def truth_table(c: dict[str, str]) -> tuple[bool, ...]:
    def lit(name: str, p: bool, q: bool) -> bool:
        value = p if name.removeprefix("not ") == "p" else q
        return value != name.startswith("not ")

    rows = [(p, q) for p in (True, False) for q in (True, False)]
    return tuple((not lit(c["if"], *r)) or lit(c["then"], *r) for r in rows)


def test_no_two_logic_options_say_the_same_thing(rows: list[Row]) -> None:
    """1.4.c: the options have four different truth tables, one of them the
    rule's (the converse and the inverse were both offered: a pair to rule out
    without finding the key), and no option or stem is a disjunction."""
    rule = truth_table({"if": "p", "then": "q"})
    for q in (r for r in rows if r["element"] == "steer.1.4.c"):
        d = json.loads(q["payload"])
        tables = [truth_table(c) for c in d["conditionals"]]
        assert len(set(tables)) == len(tables), q["options"]
        assert tables.count(rule) == 1
        assert not any(o.startswith("Either") for o in q["options"])
        assert "either" not in q["question_text"].lower()
    for q in (r for r in rows if r["element"] == "steer.1.4.b"):
        conclusions = json.loads(q["payload"])["conclusions"]
        assert len(set(conclusions)) == len(conclusions)


def test_one_case_rules_use_the_definite_article() -> None:
    """1.4.b asks about one case: "the thesis", never "a thesis" (the case is
    what the rule's first part is about)."""
    bad = [
        f"{t.spec.id}: {clause!r}"
        for t in MODULE_1
        if t.element == "steer.1.4.b"
        for rule in t.spec.words["rule"]
        for clause in rule.split("|")[:2]
        if re.match(r"\s*an? ", clause)
    ]
    assert not bad, bad


def test_box_errors_are_boxes(rows: list[Row]) -> None:
    """oc.box: every named error is a cut that leaves a box, 0 < x < W/2 (the
    other root of V' never does). Digit slips come from the shared menu
    builder, which knows no feasible range."""
    for q in (r for r in rows if r["template_id"] == "oc.box"):
        width = json.loads(q["payload"])["env"]["W"]
        for option, tag in zip(q["options"], q["option_tags"], strict=True):
            if tag != "other" and "digit" not in tag:
                assert 0 < value(option) < width / 2, (width, q["options"], q["option_tags"])


def test_discrete_choices_are_explained_in_the_stated_amounts(rows: list[Row]) -> None:
    """1.2.a: the explanation repeats what the stem states, never an internal
    score ("The highway: -32"), and options start with a capital."""
    for q in (r for r in rows if r["element"] == "steer.1.2.a"):
        assert not re.search(r"[-−]\d", q["explanation"]), q["explanation"]
        assert all(o[:1].isupper() for o in q["options"]), q["options"]


def test_belief_explanations_name_the_person_once(rows: list[Row]) -> None:
    """1.5.a: pronouns after the first mention, not the full name four times."""
    for q in (r for r in rows if r["element"] == "steer.1.5.a"):
        words = q["explanation"].split()
        name = " ".join(words[:2]) if words[0] in ("Ms", "Mr", "Chef") else words[0]
        assert q["explanation"].count(name) == 1, q["explanation"]


def test_counts_taken_in_and_out_are_plausible(rows: list[Row]) -> None:
    """1.1.a: no more books come back (or go out) than the library holds, no
    more births than the herd has animals."""
    for q in rows:
        env = json.loads(q["payload"]).get("env", {})
        if q["template_id"] == "as.library":
            assert env["returned"] <= env["shelved"] and env["lent"] <= env["shelved"]
        elif q["template_id"] == "as.farm-herd":
            assert env["born"] <= env["herd"]


def test_new_named_errors_are_what_they_name(rows: list[Row]) -> None:
    """1.2.c hours_counted_twice: the better-per-hour good up to its cap, then
    the other good as if every hour were still free; 1.2.b's new box errors."""
    for q in rows:
        env = json.loads(q["payload"]).get("env", {})
        for option, tag in zip(q["options"], q["option_tags"], strict=True):
            if tag == "hours_counted_twice":
                more = min(env["cap2"], env["H"] // env["h2"])
                assert value(option) == env["p1"] * env["x1"] + env["p2"] * more
            elif tag in BOX_ERRORS:
                assert math.isclose(value(option), round(BOX_ERRORS[tag](env), 2), abs_tol=0.01)


BOX_ERRORS = {
    "treated_length_as_square": lambda e: e["L"] / 6,
    "height_equals_width": lambda e: e["W"] / 3,
    "denominator_doubled": lambda e: e["xs"] / 2,
    "denominator_halved": lambda e: 2 * e["xs"],
}


# --- review 4: the classes of problem found in setting 1 ------------------------------

MID_SENTENCE_STOP = re.compile(r"\([^()]*\.\s[^()]*\)")


def test_belief_explanations_tell_this_story(rows: list[Row]) -> None:
    """1.5.a: the explanation names where the watcher last saw the object (the
    key) and says whether later moves were missed, not a rule garbled to fit
    every story ("last saw it when it was put or moved while she was there").
    True-belief controls, where the watcher sees the last move, stay about one
    in three: then neither "where it is now" nor "anywhere but there" beats
    chance."""
    true_beliefs, questions = 0, 0
    for q in (r for r in rows if r["element"] == "steer.1.5.a"):
        note = q["explanation"].split(" So ")[0]
        key = q["options"][q["correct_index"]]
        assert key[:1].lower() + key[1:] in note, q["explanation"]
        saw_last = json.loads(q["payload"])["events"][-1]["watcher"] == 1
        assert ("belief is true" in note) == saw_last, q["explanation"]
        assert (q["tags"] == ["true_belief_control"]) == saw_last, q["tags"]
        assert ("missed the" in note) != saw_last, q["explanation"]
        true_beliefs += "reality_bias" not in q["option_tags"]  # the key is where it is
        questions += 1
    assert abs(true_beliefs / questions - 1 / 3) < 0.07, true_beliefs / questions


def test_explanations_quote_no_sentences_in_brackets(rows: list[Row]) -> None:
    """An explanation never pastes whole sentences, full stops and all, inside
    a bracket ("the premises (No x are y. All z are x.) leave one answer")."""
    for q in rows:
        assert not MID_SENTENCE_STOP.search(q["explanation"] or ""), q["explanation"]


def test_bayes_stems_ask_the_posterior_of_an_introduced_case() -> None:
    """1.3.c: a P(...) in the question is conditional ("what is P(blue)" read
    literally is the prior), and the witness and the taxi are introduced ("a
    witness") before "the witness" refers back to them."""
    bad = []
    for t in (t for t in MODULE_1 if t.element == "steer.1.3.c"):
        for text in t.spec.phrasings:
            question = text.split(". ")[-1]
            asked = re.findall(r"P\([^)]*\)", question)
            bad += [f"{t.spec.id}: {p}" for p in asked if "|" not in p]
            for noun in ("witness", "taxi"):
                first = re.search(rf"\b(\w+) {noun}\b", text)
                if first and first.group(1).lower() != "a":
                    bad.append(f"{t.spec.id}: {first.group(0)!r} before any 'a {noun}'")
    assert not bad, bad


def test_conditional_facts_are_about_one_case() -> None:
    """1.4.b: the rule is general, so the fact is said to be about one case
    before it turns "the patient" into one patient ("One morning the
    appointment is not in the morning" read as a contradiction)."""
    markers = ("one particular case", "about one case", "today")
    bad = [
        f"{t.spec.id}: {text[:60]!r}"
        for t in MODULE_1
        if t.element == "steer.1.4.b"
        for text in t.spec.phrasings
        if not any(m in text.split("{fact}")[0].lower() for m in markers)
    ]
    assert not bad, bad


def test_stems_ask_what_their_numbers_measure() -> None:
    """Books lent out are still in a library's collection, so the count asked
    is of the shelves; route times make a trip quick, not short; fees for
    services are not explained as profit on goods "sold"."""
    bad = []
    for t in MODULE_1:
        for text in t.spec.phrasings:
            question = text.split(". ")[-1]
            if t.spec.id == "as.library" and not re.search(r"shelves|in the library", question):
                bad.append(f"{t.spec.id}: {question!r}")
            if "minutes" in text and re.search(r"shortest|minimizes the trip", text):
                bad.append(f"{t.spec.id}: {text[:60]!r}")
        if (
            t.element == "steer.1.2.c"
            and not any("profit" in p for p in t.spec.phrasings)
            and re.search(r"profit|sold", (t.spec.explanation or "").lower())
        ):
            bad.append(f"{t.spec.id}: {t.spec.explanation[:60]!r}")
    assert not bad, bad


def test_fuel_rate_and_time_differ(rows: list[Row]) -> None:
    """md.fuel-use: "4 litres an hour for 4 hours" hides which number is which."""
    for q in (r for r in rows if r["template_id"] == "md.fuel-use"):
        env = json.loads(q["payload"])["env"]
        assert env["rate"] != env["hours"], env


# --- review 8: the classes of problem found in the eighth reading ----------------------

# A lottery's outcomes ("a 20% chance of $3 and an 80% chance of $7") are what
# something offers or gives, never what a sum is or comes to ("the tips come to
# an 80% chance of $325").
OUTCOMES_AS_A_SUM = re.compile(
    r"(?<!there )\b(?:is|are|come to|pays|as|brings|yield|has) \{outcomes\}"
)
# Two clauses joined by a bare comma: "bread earns $69 ... hours, pastries earn".
COMMA_SPLICE = re.compile(
    r", (?!and\b|or\b)(?:at most )?(?:[a-z]+|\{\w+\}) (?:earns?|takes?|needs?|can)\b"
)


def test_module_1_stems_read_as_sentences() -> None:
    """Slips a reader found, as classes: a dimension without its article ("the
    four corners of 60 × 28 cm card"), outcomes equated with a sum, comma
    splices in production plans, an opening phrase that attaches to the wrong
    noun ("On Sofia's enjoyment scale, the snack tray offers"), and a
    production line named by a letter an option could carry ("Line A")."""
    bad = []
    for t in MODULE_1:
        for text in t.spec.phrasings:
            checks = {
                "dimension without article": re.search(r"\b(?:of|from) \{L\}", text),
                "outcomes as a sum": OUTCOMES_AS_A_SUM.search(text),
                "comma splice": t.element == "steer.1.2.c" and COMMA_SPLICE.search(text),
                "dangling opener": re.match(r"On \{agent\}'s [a-z ]+, the ", text),
                "lettered name": re.search(r"\b[A-Z][a-z]+ [A-D]\b", text),
            }
            bad += [f"{t.spec.id}: {name}: {text[:70]!r}" for name, hit in checks.items() if hit]
    assert not bad, "\n".join(bad)


def test_second_order_stories_name_the_watcher(rows: list[Row]) -> None:
    """1.5.b: "so she thinks Ms Lindqvist believes the marker set is where she
    last openly saw it" leaves the second "she" open; and "leaves the room,
    but from outside, secretly watches" misplaces its commas."""
    for q in (r for r in rows if r["element"] == "steer.1.5.b"):
        assert not re.search(r"where (?:she|he) last openly saw", q["explanation"])
        assert "room, but from outside" not in q["question_text"], q["question_text"]


def test_false_belief_places_have_distinct_head_nouns() -> None:
    """1.5: a reader met "the shoe cupboard, the cupboard and the drawer" in
    one room, which blurs the very places a false-belief story must keep
    apart: no two places of one template share their last word."""
    from steer.templates import load_templates

    for template in load_templates("steer"):
        if not template.element.startswith("steer.1.5."):
            continue
        places = template.spec.words.get("place", [])
        heads = [str(p).split()[-1] for p in places]
        assert len(heads) == len(set(heads)), (template.spec.id, places)
