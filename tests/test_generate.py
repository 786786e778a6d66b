"""Generated banks: determinism, well-formed options, and keys re-derived from payloads.

Every key is recomputed here from the question's JSON `payload` with plain
numpy, and the payload is checked against the text the model actually reads.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.bank._order import in_payload_order
from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.generate import generate_bank, generate_questions
from steer.templates import TemplateSpec, load_template_file, load_templates
from steer.templates._inflect import possessive

ELEMENTS = ["1.1.c", "2.4.b", "3.1.b"]
SPECS: dict[str, TemplateSpec] = {t.spec.id: t.spec for t in load_templates()}
SHIPPED = [t for t in load_templates() if t.element in {f"steer.{e}" for e in ELEMENTS}]

# --- plain references -------------------------------------------------------------------


_NUMBER = r"\d{1,3}(?:,\d{3})*(?:\.\d+)?"


def money(x: float, unit: str, decimals: int) -> str:
    """How the bank writes amounts: rounded, thousands separators, no '.00'."""
    r = round(x, decimals)
    body = f"{abs(r):,.{decimals}f}"
    if r == int(r):
        body = body.split(".")[0]
    return f"{'-' if r < 0 else ''}{unit}{body}"


def parse_money(text: str, unit: str) -> float:
    match = re.fullmatch(rf"(-?){re.escape(unit)}({_NUMBER})", text)
    assert match, f"{text!r} is not an amount in {unit!r}"
    return float(match.group(1) + match.group(2).replace(",", ""))


def argmax_set(xs: list[float] | np.ndarray) -> set[int]:
    best = max(xs)
    return {i for i, x in enumerate(xs) if x == best}


def ev(values: list[float], probs: list[float]) -> float:
    return math.fsum(v * p for v, p in zip(values, probs, strict=True))


_CHANCE = re.compile(rf"(\d+(?:\.\d+)?)% chance of (-?\$?{_NUMBER})")


def _lottery_checks(q: dict[str, Any], spec: TemplateSpec, data: dict[str, Any]) -> None:
    """1.1.c: the key is Σ p·x rounded like the options."""
    values, probs = data["values"], data["probs"]
    assert math.isclose(sum(probs), 1.0, abs_tol=1e-9)
    # The text describes exactly the payload's lottery, in order.
    stated = [
        (float(p) / 100, parse_money(v, spec.unit)) for p, v in _CHANCE.findall(q["question_text"])
    ]
    assert len(stated) == len(values), q["question_text"]
    for (p, v), (pv, vv) in zip(stated, zip(probs, values, strict=True), strict=True):
        assert p == pytest.approx(pv) and v == vv
    expected = ev(values, probs)
    key_text = money(expected, spec.unit, spec.decimals)
    # Options share one precision: when any shows cents, whole amounts do too.
    fixed = any("." in o for o in q["options"])
    if fixed:
        key_text = f"{'-' if expected < 0 else ''}{spec.unit}{abs(expected):,.{spec.decimals}f}"
    assert q["options"][q["correct_index"]] == key_text
    assert all(("." in o) == fixed for o in q["options"]), q["options"]
    assert q["answer_value"] == pytest.approx(expected, rel=1e-12)
    numbers = [parse_money(o, spec.unit) for o in q["options"]]
    key = numbers[q["correct_index"]]
    # The key is the option nearest the true value, and no other option is close.
    unit = 10.0**-spec.decimals
    for i, x in enumerate(numbers):
        if i != q["correct_index"]:
            assert abs(x - expected) > abs(key - expected)
            assert abs(x - key) >= unit - 1e-9
    references: dict[str, Callable[[], set[float]]] = {
        "unweighted_mean": lambda: {float(np.mean(values))},
        "forgot_probability": lambda: {float(np.sum(values))},
        "most_likely_outcome": lambda: {values[i] for i in argmax_set(probs)},
        "best_outcome": lambda: {max(values)},
        "probabilities_reversed": lambda: {float(np.dot(values, probs[::-1]))},
        "worst_outcome": lambda: {min(values)},
        "dropped_an_outcome": lambda: {
            float(np.dot(values, probs)) - values[i] * probs[i]
            for i, pr in enumerate(probs)
            if pr == min(probs)
        },
    }
    for x, tag in zip(numbers, q["option_tags"], strict=True):
        if tag in references:
            assert tag in spec.distractors
            allowed = {round(r, spec.decimals) for r in references[tag]()}
            assert x in allowed, (tag, x, allowed)
        elif "+" in tag:  # a digit slip of the named error before the '+', on the menu
            base, _, slip = tag.rpartition("+")
            assert base in q["option_tags"] and _DIGIT_SLIP.fullmatch(slip), tag
        else:  # digit slips are recomputed in tests/test_distractor_tags.py
            assert tag in ("key", "other") or _DIGIT_SLIP.fullmatch(tag), tag


_DIGIT_SLIP = re.compile(
    r"wrong_[a-z_]+_digit|swapped_[a-z_]+_and_[a-z_]+_digits|counted_(one|two|three)_(over|under)"
)
_SURE = re.compile(r"(.+) for sure")
_RISKY = re.compile(r"an? (\d+(?:\.\d+)?)% chance of (.+), otherwise (.+)")


def _lottery_choice_checks(q: dict[str, Any], spec: TemplateSpec, data: dict[str, Any]) -> None:
    """2.4.b: the key is the lottery with the highest expected value."""
    lotteries = data["lotteries"]
    assert len(q["options"]) == len(lotteries)
    # Each option's text is its payload lottery.
    for option, lot in zip(q["options"], lotteries, strict=True):
        assert math.isclose(sum(lot["probs"]), 1.0, abs_tol=1e-9)
        if sure := _SURE.fullmatch(option):
            assert lot["probs"] == [1.0]
            assert lot["values"] == [parse_money(sure.group(1), spec.unit)]
        else:
            risky = _RISKY.fullmatch(option)
            assert risky, option
            p, prize, other = risky.groups()
            assert lot["probs"][0] == pytest.approx(float(p) / 100)
            assert lot["values"] == [
                parse_money(prize, spec.unit),
                parse_money(other, spec.unit),
            ]
    evs = [ev(lot["values"], lot["probs"]) for lot in lotteries]
    ranked = sorted(evs, reverse=True)
    assert ranked[0] > ranked[1], "the key must be the unique best"
    (best,) = argmax_set(evs)
    assert q["correct_index"] == best
    references: dict[str, Callable[[], set[int]]] = {
        "certainty_bias": lambda: {i for i, lot in enumerate(lotteries) if len(lot["values"]) == 1},
        "largest_prize": lambda: argmax_set([max(lot["values"]) for lot in lotteries]),
        # Only risky options count: a sure amount "wins" with certainty.
        "likeliest_win": lambda: argmax_set(
            [lot["probs"][0] if len(lot["values"]) > 1 else -1.0 for lot in lotteries]
        ),
        "ignored_consolation": lambda: argmax_set(
            [lot["values"][0] * lot["probs"][0] for lot in lotteries]
        ),
        "unweighted_outcomes": lambda: argmax_set(
            [sum(lot["values"]) / len(lot["values"]) for lot in lotteries]
        ),
        "swapped_probabilities": lambda: argmax_set(
            [ev(lot["values"], lot["probs"][::-1]) for lot in lotteries]
        ),
        "best_worst_case": lambda: argmax_set([min(lot["values"]) for lot in lotteries]),
        # Among the gambles only: the fallback, the spread, the odds.
        "best_consolation": lambda: argmax_set(
            [lot["values"][-1] if len(lot["values"]) > 1 else -math.inf for lot in lotteries]
        ),
        "least_spread": lambda: argmax_set(
            [
                lot["values"][-1] - lot["values"][0] if len(lot["values"]) > 1 else -math.inf
                for lot in lotteries
            ]
        ),
        "longshot": lambda: argmax_set(
            [-lot["probs"][0] if len(lot["values"]) > 1 else -math.inf for lot in lotteries]
        ),
    }
    _check_choice_tags(q, spec, references)


def _matrix_from_text(text: str) -> tuple[np.ndarray, str, str, str]:
    """Payoffs, row player, column player and the text after the matrix."""
    lines = text.splitlines()
    rows = [i for i, line in enumerate(lines) if re.search(r"\(-?\d", line)]
    assert rows == list(range(rows[0], rows[0] + len(rows))), text
    cells = [
        [
            (float(a.replace(",", "")), float(b.replace(",", "")))
            for a, b in re.findall(r"\((-?[\d,.]+), (-?[\d,.]+)\)", lines[i])
        ]
        for i in rows
    ]
    row_player = lines[rows[0]].split(":")[0].strip()
    col_player = lines[rows[0] - 1].strip().split(":")[0]
    note = lines[rows[-1] + 1]
    assert note == (
        f"(In each cell the first number is {possessive(row_player)} payoff and the second is "
        f"{possessive(col_player)}.)"
    ), note
    return np.array(cells), row_player, col_player, "\n".join(lines[rows[-1] + 2 :])


def _bimatrix_checks(q: dict[str, Any], spec: TemplateSpec, data: dict[str, Any]) -> None:
    """3.1.b: the key is the asked player's best response to the named action."""
    payoffs = np.array(data["payoffs"], dtype=np.float64)
    player, against = data["player"], data["against"]
    n_rows, n_cols, two = payoffs.shape
    assert two == 2 and n_rows == n_cols
    shown, row_player, col_player, tail = _matrix_from_text(q["question_text"])
    np.testing.assert_array_equal(shown, payoffs)
    # The question asks about the player named last after the matrix.
    asked = max((row_player, col_player), key=tail.rfind)
    assert tail.rfind(row_player) != tail.rfind(col_player)
    assert player == (0 if asked == row_player else 1), tail
    mine = data["row_actions"] if player == 0 else data["col_actions"]
    theirs = data["col_actions"] if player == 0 else data["row_actions"]
    assert q["options"] == list(mine)
    assert f'"{theirs[against]}"' in tail
    own = payoffs[:, against, 0] if player == 0 else payoffs[against, :, 1]
    (best,) = argmax_set(own)
    assert q["correct_index"] == best

    def other_side() -> np.ndarray:
        return payoffs[:, against, 1] if player == 0 else payoffs[against, :, 0]

    def wrong_action() -> set[int]:
        out: set[int] = set()
        for a in range(len(theirs)):
            if a != against:
                out |= argmax_set(payoffs[:, a, 0] if player == 0 else payoffs[a, :, 1])
        return out

    total = payoffs.sum(axis=2)
    own_all = payoffs[:, :, 0] if player == 0 else payoffs[:, :, 1].T
    references: dict[str, Callable[[], set[int]]] = {
        "max_average_payoff": lambda: argmax_set(own_all.sum(axis=1)),
        "max_worst_case": lambda: argmax_set(own_all.min(axis=1)),
        "row_col_swapped": lambda: argmax_set(other_side()),
        "wrong_opponent_action": wrong_action,
        "max_total_payoff": lambda: argmax_set(
            total[:, against] if player == 0 else total[against, :]
        ),
    }
    _check_choice_tags(q, spec, references)


def _check_choice_tags(
    q: dict[str, Any], spec: TemplateSpec, references: dict[str, Callable[[], set[int]]]
) -> None:
    for i, tag in enumerate(q["option_tags"]):
        if tag in references:
            assert tag in spec.distractors
            assert i in references[tag](), (tag, i)
        else:
            assert tag in ("key", "other"), tag


CHECKS = {
    "steer.1.1.c": _lottery_checks,
    "steer.2.4.b": _lottery_choice_checks,
    "steer.3.1.b": _bimatrix_checks,
}


def check_bank(bank: pa.Table) -> None:
    # Options as the payload orders them (the bank shows them permuted).
    rows = [in_payload_order(q) for q in bank.to_pylist()]
    assert rows
    fingerprints = [(q["question_text"], tuple(q["options"])) for q in rows]
    assert len(set(fingerprints)) == len(rows), "two questions share text and options"
    assert len({q["question_id"] for q in rows}) == len(rows)
    for q in rows:
        options, tags, correct = q["options"], q["option_tags"], q["correct_index"]
        assert q["grading"] == "answer"
        assert len(options) >= 2 and len(set(options)) == len(options)
        assert len(tags) == len(options)
        assert tags.count("key") == 1 and tags[correct] == "key"
        spec = SPECS[q["template_id"]]
        assert q["domain"] == spec.domain and q["grade"] in spec.grade
        assert q["question_id"] == f"{q['element']}/{q['base_id']}/0"
        grade = spec.grade[q["grade"]]
        assert len(options) == (grade.options or grade.size)
        assert q["question_text"].strip() and "{" not in q["question_text"]
        assert options[correct] in q["explanation"]
        CHECKS[q["element"]](q, spec, json.loads(q["payload"]))


# --- the bank ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=4, seed=11)


def test_bank_covers_every_template_and_grade(bank: pa.Table) -> None:
    cells = {(t.spec.id, g) for t in SHIPPED for g in t.spec.grade}
    counts: dict[tuple[str, int], int] = {}
    for q in bank.select(["template_id", "grade"]).to_pylist():
        key = (q["template_id"], q["grade"])
        counts[key] = counts.get(key, 0) + 1
    assert counts == dict.fromkeys(cells, 4)
    assert set(bank["element"].to_pylist()) == {"steer.1.1.c", "steer.2.4.b", "steer.3.1.b"}
    assert set(bank["seed"].to_pylist()) == {11}


def test_bank_keys_rederived_from_payload(bank: pa.Table) -> None:
    check_bank(bank)


def test_generation_is_deterministic_for_a_seed(bank: pa.Table) -> None:
    again = generate_bank(ELEMENTS, per_cell=4, seed=11)
    assert again.equals(bank)
    other = generate_bank(ELEMENTS, per_cell=4, seed=12)
    assert other.num_rows == bank.num_rows
    texts, other_texts = bank["question_text"].to_pylist(), other["question_text"].to_pylist()
    assert sum(a != b for a, b in zip(texts, other_texts, strict=True)) > 0.8 * len(texts)
    assert bank["payload"].to_pylist() != other["payload"].to_pylist()


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**63 - 1))
def test_keys_are_right_for_any_seed(seed: int) -> None:
    check_bank(generate_bank(ELEMENTS, per_cell=2, seed=seed))


def test_grade_filter() -> None:
    only4 = generate_bank(ELEMENTS, per_cell=1, seed=3, grades=(4, 4))
    assert set(only4["grade"].to_pylist()) == {4}
    assert set(only4["template_id"].to_pylist()) == {
        t.spec.id for t in SHIPPED if 4 in t.spec.grade
    }
    high = generate_bank(ELEMENTS, per_cell=1, seed=3, grades=(5, 14))
    assert set(high["element"].to_pylist()) == {"steer.2.4.b"}
    assert set(high["grade"].to_pylist()) == {5}
    with pytest.raises(InputError, match="no templates match"):
        generate_bank(ELEMENTS, per_cell=1, grades=(0, 2))


def test_domain_filter() -> None:
    business = generate_bank(ELEMENTS, per_cell=1, seed=5, domains=["business"])
    assert set(business["domain"].to_pylist()) == {"business"}
    expected = {t.spec.id for t in SHIPPED if t.spec.domain == "business"}
    assert len(expected) == 3
    assert set(business["template_id"].to_pylist()) == expected
    two = generate_bank(ELEMENTS, per_cell=1, seed=5, domains=["sports", "finance"])
    assert set(two["template_id"].to_pylist()) == {"br.penalty", "meu.investment"}
    with pytest.raises(InputError, match="no templates match"):
        generate_bank(ELEMENTS, per_cell=1, domains=["astrology"])


def test_selectors_by_module_glob_and_slug() -> None:
    by_module = generate_bank(["steer.3.1"], per_cell=1, seed=2)
    with_templates = {t.element for t in load_templates()}
    assert set(by_module["element"].to_pylist()) == {
        e for e in with_templates if e.startswith("steer.3.1.")
    }
    by_glob = generate_bank(["steer.2.*.b"], per_cell=1, seed=2)
    assert set(by_glob["element"].to_pylist()) == {
        e for e in with_templates if e.startswith("steer.2.") and e.endswith(".b")
    }
    by_slug = generate_bank(["best_response"], per_cell=1, seed=2)
    assert by_slug.equals(generate_bank(["steer.3.1.b"], per_cell=1, seed=2))


@pytest.mark.parametrize(
    ("selector", "suggestion"),
    [
        ("steer.3.1.bb", "steer.3.1.b"),
        ("1.1.cc", "1.1.c"),
        ("best_respons", "best_response"),
        ("compute_expectation", "compute_expectations"),
    ],
)
def test_unknown_selector_suggests(selector: str, suggestion: str) -> None:
    with pytest.raises(UnknownNameError) as info:
        generate_bank(["1.1.c", selector], per_cell=1)
    error = info.value
    assert isinstance(error, InputError)
    assert error.kind == "element" and error.name == selector
    assert suggestion in error.suggestions
    assert "did you mean" in str(error) and repr(suggestion) in str(error)


def test_element_without_templates() -> None:
    # Every shipped element has templates now; an element the given templates do
    # not cover (here 4.4.c's left out) is still an input error.
    others = [t for t in load_templates() if t.element != "steer.4.4.c"]
    with pytest.raises(InputError, match=r"no templates yet for steer\.4\.4\.c"):
        generate_bank(["4.4.c"], templates=others, per_cell=1)


def test_per_cell_must_be_positive() -> None:
    with pytest.raises(InputError, match="per_cell"):
        generate_bank(ELEMENTS, per_cell=0)


UNMEETABLE = """\
element = "steer.1.1.c"

[[template]]
id = "t.cramped"
domain = "games of chance"
structure = "lottery"
solver = "expected_value"
decimals = 0
nonnegative = true
distractors = ["unweighted_mean", "best_outcome"]
phrasings = ["A wheel pays {outcomes}. What is a spin worth?"]

# Losses of 1 and 2 shown without decimals: the key is -1 or -2, a negative
# number's slips stay negative, options must not be negative, and a nearby
# number lies within three units of the key (0 to 2 at most), so ten
# distinct options can never be found.
[template.grade.3]
size = 2
options = 10
low = -2
high = -1
"""


def test_constraint_that_can_never_be_met(tmp_path: Path) -> None:
    path = tmp_path / "cramped.toml"
    path.write_text(UNMEETABLE, encoding="utf-8")
    templates = load_template_file(path)  # statically fine ...
    with pytest.raises(FileFormatError) as info:  # ... but no draw ever works
        generate_questions(templates, per_cell=1, seed=0)
    message = str(info.value)
    assert message.startswith(f"{path}:4: "), message
    assert "'t.cramped'" in message and "grade 3" in message
    assert "no valid question" in message
