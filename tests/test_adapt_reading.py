"""Reading replies: answer letters, free-text numbers and option probabilities."""

from __future__ import annotations

import math

import pytest

from steer.adapt import (
    extract_number,
    first_letter_position,
    letter_mass,
    letter_of,
    match_option,
    numbers_match,
    option_probs,
    parse_letter,
)
from steer.schema import NO_ANSWER


@pytest.mark.parametrize(
    ("text", "index"),
    [
        ("B", 1),
        (" C", 2),
        ("(D)", 3),
        ("A. because it is cheaper", 0),
        ("I think so.\nANSWER: C", 2),
        ("Answer: (b)", 1),
        ("The answer is **D**", 3),
        ("first ANSWER: A, on reflection ANSWER: B", 1),
        ("\\boxed{C}", 2),
        ("E", NO_ANSWER),  # beyond the four options
        ("a reasonable guess", NO_ANSWER),
        ("", NO_ANSWER),
    ],
)
def test_parse_letter(text: str, index: int) -> None:
    assert parse_letter(text, 4) == index


def test_letter_tokens() -> None:
    assert [letter_of(t) for t in ("A", " A", "(B", "C.", "a", "AB", " ")] == [
        "A", "A", "B", "C", None, None, None,
    ]  # fmt: skip
    assert first_letter_position(["The", " answer", " B", "A"], 4) == 2
    assert first_letter_position(["The", " answer", " B"], 4, start=3) is None
    assert first_letter_position(["Z"], 4) is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("so the price is \\boxed{12.5} dollars, not 13", 12.5),
        ("\\boxed{1,250} and later \\boxed{3/4}", 0.75),
        ("ANSWER: 42\nthen some 7", 42.0),
        ("we get 3 then 4.5", 4.5),
        ("negative: −2.5", -2.5),
        ("1.5e3 units", 1500.0),
        ("no numbers here", None),
    ],
)
def test_extract_number(text: str, value: float | None) -> None:
    assert extract_number(text) == value


def test_numbers_match_at_three_significant_figures_or_one_percent() -> None:
    assert numbers_match(3.14159, 3.14)
    assert numbers_match(101.0, 100.0)  # within 1%
    assert not numbers_match(102.0, 100.0)
    assert numbers_match(0.0, 0.0) and not numbers_match(0.01, 0.0)
    assert numbers_match(12346.0, 12300.0)  # same at 3 s.f.


def test_a_value_matching_two_options_is_not_credited() -> None:
    assert match_option(100.0, ["$100", "$200", "$300"]) == 0
    assert match_option(100.5, ["100", "100.9", "300"]) == NO_ANSWER
    assert match_option(55.0, ["100", "200"]) == NO_ANSWER
    assert match_option(None, ["1"]) == NO_ANSWER


def test_letter_mass_merges_spellings_and_ignores_other_tokens() -> None:
    top = {"A": math.log(0.5), " A": math.log(0.1), "B": math.log(0.2), "E": math.log(0.1)}
    assert letter_mass(top, 4) == pytest.approx([0.6, 0.2, 0.0, 0.0])


def test_conditioning_and_mixing() -> None:
    mass = [0.6, 0.2, 0.0, 0.0]  # α = 0.8
    assert option_probs(mass, "conditioning") == pytest.approx([0.75, 0.25, 0, 0])
    # α·p + (1−α)/n, then normalised
    raw = [0.8 * 0.6 + 0.05, 0.8 * 0.2 + 0.05, 0.05, 0.05]
    assert option_probs(mass, "mixing") == pytest.approx([r / sum(raw) for r in raw])
    assert option_probs([0.0, 0.0], "conditioning") is None
    assert option_probs([0.0, 0.0], "mixing") == pytest.approx([0.5, 0.5])
    full = [0.7, 0.3]  # α = 1: mixing changes nothing
    assert option_probs(full, "mixing") == pytest.approx(full)
