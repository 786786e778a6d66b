"""Perspective variants: who the question is about, and the words that follow.

A template that lists `perspectives` may use these placeholders; the generator
rotates through the listed perspectives and fills them in. Verb placeholders
({is}, {has}, {does}, {was}) agree with both {agent} and {subject}; capitalised
forms start a sentence.
"""

from __future__ import annotations

import numpy as np

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


def perspective_words(perspective: str, rng: np.random.Generator) -> dict[str, str]:
    """The placeholder values for one perspective (a name is drawn for woman/man)."""
    words = dict(_FIXED[perspective])
    if perspective == "woman":
        words["agent"] = WOMEN[int(rng.integers(len(WOMEN)))]
    elif perspective == "man":
        words["agent"] = MEN[int(rng.integers(len(MEN)))]
    for key in ("agent", "subject", "possessive"):
        words[_cap(key)] = _cap(words[key])
    return words
