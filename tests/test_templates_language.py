"""The language checker and the inflection in template rendering (issue 20 §4).

Each check catches its class on hand-made bad sentences and leaves the correct
ones alone; rendering fixes articles, agreement, counts and possessives by the
value a placeholder takes; and every shipped template renders clean."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from steer.cli import cli
from steer.cli.templates_cmd import check_templates
from steer.generate import generate_bank
from steer.templates import load_templates, render
from steer.templates._inflect import is_third_singular
from steer.templates._language import check_antecedent, check_question_start, check_text


def _checks(text: str) -> list[str]:
    return [f.check for f in check_text(text)]


@pytest.mark.parametrize(
    ("check", "bad", "good"),
    [
        ("agreement", "You wants the quickest way.", "You want the quickest way."),
        ("agreement", "I prefers the bond.", "I prefer the bond."),
        ("agreement", "Which offer does I accept?", "Which offer do I accept?"),
        ("agreement", "Which bet does you take?", "Which bet do you take?"),
        ("agreement", "you was late", "I was late, and you were too."),
        ("agreement", "Then she want the bond.", "Then she wants the bond."),
        ("agreement", "Maria have two offers.", "Which would Maria choose?"),
        ("agreement", "I strictly prefers tea.", "I strictly prefer tea."),
        # A relative clause about "I" or "you" takes their verb, not a name's.
        ("agreement", "I, who counts the votes, must act.", "I, who count the votes, must act."),
        ("agreement", "You, who has the list, decide.", "You, who have the list, decide."),
        ("agreement", "It falls to you, who is counting.", "You, who are here; I, who was there."),
        ("case", "Its worth to I does not change.", "Its worth to me does not change."),
        ("case", "For a grower like I, which is better?", "Like I said, a grower like me."),
        ("article", "a 8 cm sheet", "an 8 cm sheet"),
        ("article", "a 80% chance of $9,600", "an 80% chance of $9,600"),
        ("article", "a $85 taxi ride", "an $85 taxi ride"),
        ("article", "an cat", "a cat"),
        ("article", "a hour", "an hour"),
        ("article", "A apple a day.", "An apple a day, a one-off, a unique case."),
        ("plural", "It makes 1 trays of bread.", "It makes 1 tray of bread."),
        ("plural", "It makes 2 tray of bread.", "It makes 2 trays of bread."),
        ("plural", "Choose: 1 cupcakes today.", "Choose: 1 cupcake today, or 3 cupcakes."),
        ("possessive", "Byte Works's payoff", "Byte Works' payoff and Maria's"),
        ("possessive", "It is you's.", "It is yours."),
        ("possessive", "Three schools (your, Ann's)", "Three schools (your own, Ann's)"),
        ("placeholder", "Pay {price} now.", "Pay $5 now."),
        ("placeholder", "Pay }} now.", "Pay $5 now."),
        ("placeholder", "The price is None.", "The price is $0."),
        ("placeholder", "The odds are nan.", "The odds are even."),
        ("capital", "It rains. the decision maker stays.", "It rains. The decision maker stays."),
        ("capital", "Hi. my notes list two premises.", "Hi. My notes list p. p is a price."),
    ],
)
def test_each_check_catches_its_class_and_spares_correct_text(
    check: str, bad: str, good: str
) -> None:
    assert check in _checks(bad), check_text(bad)
    assert check_text(good) == []


@pytest.mark.parametrize(
    "text",
    [
        "Ticket A is at least as good as Ticket B, and Fund A and Fund B are open.",
        "The firm offers you points; it gives you 3 more.",
        "Sofia and Omar put the ball in the basket. Where does Chef Samuel think it is?",
        "During the day 9 arrive and 2 are sold; 4 fail inspection and 5 left for market.",
        "A bag holds 8 red, 4 blue and 3 green marbles; 3 tea boxes, 2 start-up stakes.",
        "It takes 12 min, or 50 percent more; 1 is enough and I was there.",
        # Singular nouns ending in 's' (inflect alone reads "atlas" as plural "atla").
        "She buys 1 atlas, 1 canvas and 1 lens; he takes 1 bus.",
    ],
)
def test_correct_text_is_not_flagged(text: str) -> None:
    assert check_text(text) == []


def test_rendering_agrees_with_the_values() -> None:
    text = (
        "{Agent} wants a {x} cm tray and {n} trays of {treat}. What does {agent} do? "
        "{firm}'s offer, {agent}'s turn. {Agent} strictly prefers an {item}."
    )
    values = {"x": 8, "n": 1, "treat": "chocolate bars", "firm": "Byte Works", "item": "pear"}
    assert render(text, {**values, "Agent": "You", "agent": "you"}) == (
        "You want an 8 cm tray and 1 tray of chocolate bars. What do you do? "
        "Byte Works' offer, your turn. You strictly prefer a pear."
    )
    assert render(text, {**values, "Agent": "I", "agent": "I", "n": 2}) == (
        "I want an 8 cm tray and 2 trays of chocolate bars. What do I do? "
        "Byte Works' offer, my turn. I strictly prefer a pear."
    )
    assert render(text, {**values, "Agent": "Maria", "agent": "Maria", "x": 5}) == (
        "Maria wants a 5 cm tray and 1 tray of chocolate bars. What does Maria do? "
        "Byte Works' offer, Maria's turn. Maria strictly prefers a pear."
    )
    assert render("Choose: {n} {treat} today.", {"n": 1, "treat": "scoops of ice cream"}) == (
        "Choose: 1 scoop of ice cream today."
    )
    assert render("Is {agent} sure?", {"agent": "I"}) == "Am I sure?"
    # After "like" the agent is an object; the checker flags what slips through.
    assert render("For a grower like {agent}, which?", {"agent": "I"}) == (
        "For a grower like me, which?"
    )
    assert render("A grower like {agent}.", {"agent": "Maria"}) == "A grower like Maria."
    # "{Agent}'s" opens a sentence: the possessive keeps its capital.
    assert render("{Agent}'s notes. {agent}'s", {"Agent": "I", "agent": "I"}) == "My notes. my"
    # An auxiliary before "{agent}'s" agrees with what is owned, not the agent.
    fuel = "How much fuel does {agent}'s pump use? Is {agent}'s car red? Is {agent} in?"
    assert render(fuel, {"agent": "you"}) == (
        "How much fuel does your pump use? Is your car red? Are you in?"
    )


def test_a_question_opens_with_a_capital() -> None:
    assert [f.check for f in check_question_start("my school handbook says")] == ["capital"]
    assert check_question_start("My school handbook says") == []
    assert check_question_start("p dollars is the price") == []


def test_the_checker_names_file_line_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(
        """\
element = "steer.2.2.a"

[[template]]
id = "t.sunk"
domain = "business"
structure = "scenario"
solver = "max_expected_value"
unit = "$"
vars = { sunk = { low = 10, high = 90 }, cost = { low = 10, high = 90 }, revenue = [20, 50, 80] }
derive = { margin = "revenue - cost" }
require = ["abs(margin) >= 5"]
choices = [
    { text = "Continue", values = ["margin"], error = "sunk_cost_included" },
    { text = "Stop", values = ["0"] },
]
phrasings = [
    "A firm has spent {sunk} on a project. Finishing costs {cost} and brings {revenue}.",
    "A firm spent {sunk} already. Finishing costs {cost} and brings {revenue}. You wants the best.",
]

[template.grade.7]
size = 2
""",
        encoding="utf-8",
    )
    checked, failures, slips = check_templates((path,), 20, 0)
    assert (checked, failures) == (1, [])
    assert len(slips) == 1
    assert f"{path}:18: agreement: 'You wants'" in slips[0]
    assert "You want" in slips[0]
    result = CliRunner().invoke(cli, ["templates", "check", str(path), "--renders", "20"])
    assert result.exit_code == 1
    assert "language:" in result.output


# The bar is 100 renders of every template; each grade is rendered
# `RENDERS` times, so a template gets RENDERS × its grades (≥ 100).
RENDERS = 100


@pytest.mark.slow
def test_every_shipped_template_renders_clean() -> None:
    checked, failures, slips = check_templates((), RENDERS, 0)
    assert failures == []
    assert slips == [], "\n".join(slips)
    assert checked > 150


@pytest.mark.parametrize(
    ("perspective", "bad", "good"),
    [
        ("man", "His savings: $4,774 to start with. Omar spends $3.", "Omar's savings: $4."),
        ("woman", "On her scale the tray offers 5. Maria eats it.", "Maria rates it; her scale."),
        ("woman", "74% of parcels sent by her courier arrive late.", "Mei's courier is late."),
        ("man", "Which profile survives his check?", "Which profile survives Ivan's check?"),
        ("man", "Ines moves first and Lena replies.", "Ines moves first; Kwame checks his work."),
    ],
)
def test_the_agent_is_named_before_a_pronoun_refers_to_them(
    perspective: str, bad: str, good: str
) -> None:
    assert [f.check for f in check_antecedent(bad, perspective)] == ["antecedent"]
    assert check_antecedent(good, perspective) == []
    # Other perspectives carry no name to check.
    assert check_antecedent(bad, "first") == check_antecedent(bad, "anonymous") == []


def test_the_checker_traces_an_unnamed_agent_to_its_phrasing(tmp_path: Path) -> None:
    path = tmp_path / "pronoun.toml"
    path.write_text(
        """\
element = "steer.1.1.a"

[[template]]
id = "t.savings"
domain = "personal_finance"
structure = "scenario"
solver = "formula"
unit = "$"
perspectives = ["first", "second", "woman", "man", "anonymous"]
vars = { a = { low = 10, high = 90 }, b = { low = 1, high = 9 } }
answer = "a + b"
wrong = { subtracted = "a - b" }
phrasings = [
    "{Agent} {has} {a} in savings and earns {b}. What is the balance?",
    "{Possessive} savings: {a} to start with, {b} earned. What is the balance?",
]

[template.grade.1]
size = 1
options = 2
""",
        encoding="utf-8",
    )
    _checked, failures, slips = check_templates((path,), 60, 0)
    assert failures == []
    found = [s for s in slips if ": antecedent: " in s]
    assert found and all(s.startswith(f"{path}:15: antecedent") for s in found), slips


# Words after "and" in a clause the agent leads that read like third-person
# verbs but are not the agent's ("… income of $m and preferences u = …").
NOUNS_AFTER_AND = frozenset(
    """nuts pieces vegetables groceries workbooks sacks nights litres preferences
    engineers deliveries bakers nurses sellers savings hours clients tables rocks
    workers terms""".split()  # noqa: SIM905
)


def _agent_clauses(text: str) -> list[tuple[str, bool]]:
    """(the clause after each agent placeholder used as a subject, whether
    rendering makes the agent's own verb agree: a third-person verb it
    changes, or a verb placeholder such as {is}), as render reads them."""
    from steer.templates._text import (
        _CLAUSE_END,
        _VERB_PLACEHOLDERS,
        SUBJECTS,
        _agree_after,
        _compiled,
    )

    literals, names = _compiled(text)
    out = []
    for k, name in enumerate(names):
        if name not in SUBJECTS or literals[k + 1].startswith("'s"):
            continue
        following = names[k + 1] if k + 1 < len(names) else None
        verb_next = not literals[k + 1].strip() and following in _VERB_PLACEHOLDERS
        # The rest of the text, each later placeholder read as a number.
        rest = " 1 ".join(literals[k + 2 if verb_next else k + 1 :])
        agrees = verb_next or _agree_after(rest, "you") != rest
        end = _CLAUSE_END.search(rest)
        out.append((rest if end is None else rest[: end.start()], agrees))
    return out


def test_every_verb_coordinated_with_the_agent_agrees_in_every_person() -> None:
    # Rendering makes "and asks" agree with "I"/"you" only for verbs it knows
    # (_inflect.COORDINATED_THIRD), and only when the agent's own verb agrees
    # too: a verb it does not know, or one after "will"/"won", stays "asks".
    from steer.templates._inflect import COORDINATED_THIRD
    from steer.templates._text import _AND_THIRD

    problems = []
    for template in load_templates():
        spec = template.spec
        texts = [*spec.phrasings, *(p.text for p in spec.parts)]
        for text in texts:
            for clause, agrees in _agent_clauses(text):
                for m in _AND_THIRD.finditer(clause):
                    word = m.group(2)
                    if word in NOUNS_AFTER_AND or not is_third_singular(word):
                        continue
                    where = f"{template.source}: {spec.id}: '{clause[:60]}… and {word}'"
                    if not agrees:
                        problems.append(
                            f"{where}: the agent's own verb does not agree, so {word!r} cannot; "
                            "use a verb placeholder ({is}, {has}) or rephrase"
                        )
                    elif word not in COORDINATED_THIRD:
                        problems.append(
                            f"{where}: add {word!r} to _inflect.COORDINATED_THIRD (its bare "
                            "form to COORDINATED_BARE), or to NOUNS_AFTER_AND here if it is "
                            "not the agent's verb"
                        )
    assert not problems, "\n".join(problems)


def test_no_option_is_named_by_an_answer_letter() -> None:
    # "A. B: retail" or "C. Plan A": a reply "A" could mean the letter or the
    # option named A, so letter grading would be unreliable.
    letter = re.compile(
        r"\b(?:[Oo]ptions?|[Pp]lans?|[Bb]ets?|[Ll]otter(?:y|ies))\s+[A-F]\b|^[A-F]\s*[:.)]"
    )
    named = []
    for template in load_templates():
        spec = template.spec
        texts = [
            *(c.text for c in spec.choices),
            *(o for p in spec.parts for o in p.options),
            *spec.phrasings,
            *(p.text for p in spec.parts),
        ]
        named += [f"{template.source}: {spec.id}: {t[:60]!r}" for t in texts if letter.search(t)]
        # Whatever an option is called ("Scheme D", "programme A (...)") or a
        # word a generator names options with ("Plan B"), in every template.
        shown = [
            *(c.text for c in spec.choices),
            *(o for p in spec.parts for o in p.options),
            *(w for ws in spec.words.values() for w in ws if isinstance(w, str)),
        ]
        named += [f"{template.source}: {spec.id}: {t[:60]!r}" for t in shown if _lettered(t)]
    assert not named, "\n".join(named)


# "Fund B", "programme A (...)", "Strict preference for Contract A over
# Contract B", or a bare "C": an answer letter A-H could name the option.
_LETTER_NAME = re.compile(r"\b[A-Za-z]+ [A-H](?![\w'’-])|^\s*[A-H]\s*(?:[:.)]|$)")


def _lettered(text: str) -> bool:
    return bool(_LETTER_NAME.search(text))


def test_no_generated_option_is_named_by_an_answer_letter() -> None:
    # Generators name options too (a `label` word plus an index), so a bank of
    # every element of both suites is checked as shown.
    bank = generate_bank(suite="all", per_cell=3, seed=5)
    named = sorted(
        {
            f"{tid}: {option!r}"
            for tid, options in zip(
                bank["template_id"].to_pylist(), bank["options"].to_pylist(), strict=True
            )
            for option in options or []
            if _lettered(option)
        }
    )
    assert not named, "\n".join(named)
