"""The explanation's closing sentence reads as English whatever the key's
first word (issue 20 §4: "The answer is There is no Condorcet winner.")."""

from __future__ import annotations

import re

import pytest

from steer.generate import generate_bank
from steer.generate._generate import answer_sentence, key_after_colon


@pytest.mark.parametrize(
    ("key", "sentence"),
    [
        ("There is no Condorcet winner", "So there is no Condorcet winner."),
        ("A tie between Pizza and Curry", "The answer is a tie between Pizza and Curry."),
        ("The fixed-price contract", "The answer is the fixed-price contract."),
        ("The Grand Hotel", "The answer is The Grand Hotel."),
        ("Fish lightly", "The answer is Fish lightly."),
        ("$34", "The answer is $34."),
        ("Nimbus Foods: Stay out", "The answer is Nimbus Foods: Stay out."),
    ],
)
def test_answer_sentence(key: str, sentence: str) -> None:
    assert answer_sentence(key) == sentence


def test_no_explanation_capitalises_mid_sentence() -> None:
    """Elements whose keys open with an article or "There is": no closing
    sentence keeps a sentence-start capital after "The answer is"."""
    bank = generate_bank(["steer.3.1.e", "steer.4.2", "steer.2.4.c"], per_cell=20, seed=5)
    bad = re.compile(r"The answer is (A|An|The|There|It) [a-z]")
    hits = [e for e in bank.column("explanation").to_pylist() if e and bad.search(e)]
    assert not hits, hits[:3]


def test_a_key_named_after_a_colon_takes_a_small_article() -> None:
    """A reader found "The most enjoyable: The yogurt." in several elements:
    an explanation naming the key after a colon gives its article the small
    letter, whichever template wrote it."""
    bank = generate_bank(["steer.1.2.a", "steer.1.5", "steer.2.4.b"], per_cell=20, seed=5)
    bad = re.compile(r": (A|An|The) [a-z]")
    hits = [e for e in bank.column("explanation").to_pylist() if e and bad.search(e)]
    assert not hits, hits[:3]
    assert key_after_colon("Best: The pretzel.", "The pretzel") == "Best: the pretzel."
    assert key_after_colon("Best: The Grand Hotel.", "The Grand Hotel") == "Best: The Grand Hotel."


def test_answer_values_carry_no_binary_noise() -> None:
    """A free-text key is stored as the number it stands for (0.17, not
    1 - 0.83 = 0.17000000000000004), so a reader of the bank sees the key."""
    bank = generate_bank(["steer.1.3.b", "steer.1.1"], per_cell=30, seed=5)
    values = [v for v in bank.column("answer_value").to_pylist() if v is not None]
    assert values
    assert all(v == float(f"{v:.12g}") for v in values)
    assert all(len(repr(v)) <= 14 for v in values), [v for v in values if len(repr(v)) > 14]
