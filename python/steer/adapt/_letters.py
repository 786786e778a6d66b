"""Option letters: naming options and reading the letter a model answered."""

from __future__ import annotations

import re

from steer.schema import NO_ANSWER


def letters(n: int) -> list[str]:
    """The labels of `n` options: A, B, C, ... (at most 26)."""
    if not 1 <= n <= 26:
        raise ValueError(f"cannot label {n} options with letters")
    return [chr(ord("A") + i) for i in range(n)]


def letter_of(token: str) -> str | None:
    """The option letter a single generated token stands for, if any.

    "A", " A", "(A", "A." and "A)" all count as A; lower-case letters do not
    (an article "a" is far likelier than an answer).
    """
    core = token.strip().strip("().:*")
    return core if len(core) == 1 and "A" <= core <= "Z" else None


_ANSWER_LINE = re.compile(r"answer\s*(?:is)?\s*[:=]?\s*\**\s*\(?([A-Z])\b\)?", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\{\s*\(?([A-Z])\)?\s*\}")
_LEADING = re.compile(r"^\W*([A-Z])(?:\W|$)")


def parse_letter(text: str, n_options: int) -> int:
    """The option index a reply names, or NO_ANSWER.

    Tried in order: the last "ANSWER: X" (any case, optional "is", brackets or
    bold), the last \\boxed{X}, then a reply that starts with a letter.
    Letters beyond the options count as no answer.
    """
    valid = set(letters(n_options))
    for pattern in (_ANSWER_LINE, _BOXED):
        hits = [m.group(1).upper() for m in pattern.finditer(text)]
        hits = [h for h in hits if h in valid]
        if hits:
            return ord(hits[-1]) - ord("A")
    m = _LEADING.match(text)
    if m and m.group(1) in valid:
        return ord(m.group(1)) - ord("A")
    return NO_ANSWER
