"""Small question banks built by hand for the run and backend tests (no
dependence on the generators)."""

from __future__ import annotations

from pathlib import Path

from steer.bank import questions_to_table, write_bank
from steer.schema import Question

ELEMENTS = ("steer.1.1.a", "steer.1.1.c", "steer.2.2.a")


def make_questions(n: int, *, multipart_every: int = 0) -> list[Question]:
    """`n` four-option questions with numeric options; every `multipart_every`-th
    base question gets a second part (one conversation)."""
    out = []
    for i in range(n):
        element = ELEMENTS[i % len(ELEMENTS)]
        base = f"q{i:05d}"
        key = i % 4
        values = [10 * (i + 1) + 3 * k for k in range(4)]
        parts = 2 if multipart_every and i % multipart_every == 0 else 1
        for part in range(parts):
            out.append(
                Question(
                    question_id=Question.make_id(element, base, part),
                    element=element,
                    base_id=base,
                    part=part,
                    question_text=f"Question {i} part {part}: which value is best? ({base})",
                    options=[str(v) for v in values],
                    correct_index=key,
                    type=("choice", "value")[i % 2],
                    domain=("food", "travel", "work")[i % 3],
                    explanation=f"Worked answer for {base}: the best value is {values[key]}.",
                    option_tags=["key" if k == key else "certainty_bias" for k in range(4)],
                    answer_value=float(values[key]),
                )
            )
    return out


def write_test_bank(path: Path, n: int, *, multipart_every: int = 0) -> Path:
    write_bank(questions_to_table(make_questions(n, multipart_every=multipart_every)), path)
    return path
