"""Perspective variants: who the question is about, and the words that follow.

A template that lists `perspectives` may use these placeholders; the generator
rotates through the listed perspectives and fills them in. Verb placeholders
({is}, {has}, {does}, {was}) agree with both {agent} and {subject}; capitalised
forms start a sentence.
"""

from __future__ import annotations

import numpy as np

from steer._draws import integer

WOMEN = ("Maria", "Aisha", "Sofia", "Mei", "Hannah", "Priya", "Olga", "Fatima")
MEN = ("David", "Kwame", "Luca", "Hiroshi", "Omar", "Mateo", "Ivan", "Samuel")

_FIXED: dict[str, dict[str, str]] = {
    "first": {
        "agent": "I",
        "subject": "I",
        "object": "me",
        "possessive": "my",
        "is": "am",
        "has": "have",
        "does": "do",
        "was": "was",
    },
    "second": {
        "agent": "you",
        "subject": "you",
        "object": "you",
        "possessive": "your",
        "is": "are",
        "has": "have",
        "does": "do",
        "was": "were",
    },
    "woman": {
        "subject": "she",
        "object": "her",
        "possessive": "her",
        "is": "is",
        "has": "has",
        "does": "does",
        "was": "was",
    },
    "man": {
        "subject": "he",
        "object": "him",
        "possessive": "his",
        "is": "is",
        "has": "has",
        "does": "does",
        "was": "was",
    },
    # Singular agreement: templates mostly write "{Agent} {has}", and "the
    # decision maker have" would be wrong; the pronouns stay neutral.
    "anonymous": {
        "agent": "the decision maker",
        "subject": "the decision maker",
        "object": "them",
        "possessive": "their",
        "is": "is",
        "has": "has",
        "does": "does",
        "was": "was",
    },
}

PERSPECTIVE_WORDS = (
    "agent",
    "subject",
    "object",
    "possessive",
    "is",
    "has",
    "does",
    "was",
    "Agent",
    "Subject",
    "Possessive",
)


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _with_capitals(words: dict[str, str]) -> dict[str, str]:
    return {**words, **{_cap(key): _cap(words[key]) for key in ("agent", "subject", "possessive")}}


# Every perspective's words, capitals included, made once: one per fixed
# perspective and one per name for woman/man (a question copies its own).
_READY: dict[str, dict[str, str]] = {
    p: _with_capitals(words) for p, words in _FIXED.items() if "agent" in words
}
_NAMED: dict[str, tuple[dict[str, str], ...]] = {
    p: tuple(_with_capitals({**_FIXED[p], "agent": name}) for name in names)
    for p, names in (("woman", WOMEN), ("man", MEN))
}


def perspective_words(perspective: str, rng: np.random.Generator) -> dict[str, str]:
    """The placeholder values for one perspective (a name is drawn for woman/man)."""
    named = _NAMED.get(perspective)
    if named is not None:
        return dict(named[integer(rng, 0, len(named))])
    return dict(_READY[perspective])
