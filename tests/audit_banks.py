"""Hand-built banks for the shortcut-audit tests (no generators involved)."""

from __future__ import annotations

import random
import string

import pyarrow as pa

from steer.bank import questions_to_table
from steer.schema import Question

ELEMENT = "steer.1.1.a"


def bank(rows: list[dict[str, object]]) -> pa.Table:
    """A bank from dicts with at least question_text, options, correct_index;
    ids, element and base_id are filled in when absent."""
    questions = []
    for i, r in enumerate(rows):
        element = str(r.get("element", ELEMENT))
        base = str(r.get("base_id", f"b{i:05d}"))
        part = int(r.get("part", 0))  # type: ignore[call-overload]
        fields = {k: v for k, v in r.items() if k not in ("element", "base_id", "part")}
        questions.append(
            Question(
                question_id=Question.make_id(element, base, part),
                element=element,
                base_id=base,
                part=part,
                **fields,  # type: ignore[arg-type]
            )
        )
    return questions_to_table(questions)


def word(rng: random.Random, n: int = 6) -> str:
    return "".join(rng.choice(string.ascii_lowercase) for _ in range(n))


def random_bank(n: int, seed: int, *, element: str = ELEMENT, n_options: int = 4) -> pa.Table:
    """Keys uniformly at random among options of random words and lengths:
    no blind agent should beat chance."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        options = [
            " ".join(word(rng, rng.randint(3, 8)) for _ in range(rng.randint(1, 3)))
            + f" {rng.randint(1, 999)}"
            for _ in range(n_options)
        ]
        rows.append(
            {
                "element": element,
                "question_text": f"Question {i}: {word(rng)} {word(rng)} {rng.randint(1, 99)}?",
                "options": options,
                "correct_index": rng.randrange(n_options),
            }
        )
    return bank(rows)


def longest_key_bank(n: int, seed: int, *, element: str = ELEMENT) -> pa.Table:
    """The key is always the longest option, at a random position."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        key = rng.randrange(4)
        options = [word(rng, 5) if k != key else word(rng, 12) for k in range(4)]
        rows.append(
            {
                "element": element,
                "question_text": f"Question {i}: pick one.",
                "options": options,
                "correct_index": key,
            }
        )
    return bank(rows)
