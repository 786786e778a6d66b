"""3.1.a payoff tables and their options share one number format per question
(issue 20 §4: a table of whole payoffs once showed "-46.500", and its options
"-64.500", beside "12")."""

from __future__ import annotations

import re
from pathlib import Path

from steer.generate import generate_questions
from steer.templates import load_template_file

TEMPLATES = Path(__file__).parents[1] / "templates" / "steer" / "3.1" / "interpret_games.toml"
_CELL = re.compile(r"\((-?[\d,]+(?:\.\d+)?), (-?[\d,]+(?:\.\d+)?)\)")


def _places(number: str) -> int:
    return len(number.split(".")[1]) if "." in number else 0


def test_table_payoffs_and_options_share_one_number_format() -> None:
    templates = load_template_file(TEMPLATES)
    table = generate_questions(templates, per_cell=40, seed=11)
    seen = set()
    for text, options, grade in zip(
        table.column("question_text").to_pylist(),
        table.column("options").to_pylist(),
        table.column("grade").to_pylist(),
        strict=True,
    ):
        cells = [x for pair in _CELL.findall(text) for x in pair]
        assert cells, text
        formats = {_places(x) for x in [*cells, *options]}
        assert len(formats) == 1, (grade, cells, options)
        seen.add(formats.pop())
    # Whole tables and fractional ones (3 decimals) are both exercised.
    assert seen == {0, 3}
