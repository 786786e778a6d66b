"""Probability questions offer no named error that cannot be a probability
(issue 20 §2: 1.3.a offered "7.33" and "1.33", odds and digit slips of odds,
which a reader strikes without computing anything)."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer.generate import generate_questions
from steer.templates import load_template_file

TEMPLATES = Path(__file__).parents[1] / "templates" / "steer"
# Templates whose every answer is a probability, shown as a decimal.
PROBABILITY = (
    "1.3/prob_basic.toml",
    "1.3/complement_rule.toml",
    "1.3/bayes_rule.toml",
    "3.1/mixed_nash.toml",
)


@pytest.mark.parametrize("name", PROBABILITY)
def test_named_errors_of_a_probability_lie_in_0_1(name: str) -> None:
    table = generate_questions(load_template_file(TEMPLATES / name), per_cell=60, seed=3)
    named = 0
    for options, tags, answer in zip(
        table.column("options").to_pylist(),
        table.column("option_tags").to_pylist(),
        table.column("answer_value").to_pylist(),
        strict=True,
    ):
        assert 0 <= answer <= 1
        for text, tag in zip(options, tags, strict=True):
            named += tag != "other"  # nearby numbers are checked too
            assert 0 <= float(text) <= 1, (name, options, tags)
    assert named > table.num_rows  # the named errors are exercised
