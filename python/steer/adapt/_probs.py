"""Option probabilities from the top log-probabilities of a generated token.

The probability mass a model puts on option letters rarely sums to one (some
goes to other tokens); `conditioning` renormalises over the valid letters,
`mixing` blends towards uniform in proportion to the missing mass.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from steer.adapt._letters import letter_of, letters
from steer.schema.response import ProbMode


def letter_mass(top: Mapping[str, float], n_options: int) -> list[float]:
    """Probability per option letter from one position's top log-probs.

    Tokens naming the same letter ("A", " A", "(A") are merged by summing.
    """
    index = {letter: i for i, letter in enumerate(letters(n_options))}
    mass = [0.0] * n_options
    for token, logprob in top.items():
        letter = letter_of(token)
        if letter is not None and letter in index:
            mass[index[letter]] += math.exp(logprob)
    return mass


def first_letter_position(tokens: Sequence[str], n_options: int, start: int = 0) -> int | None:
    """Index of the first generated token (from `start`) that is a valid letter."""
    valid = set(letters(n_options))
    for i in range(start, len(tokens)):
        if letter_of(tokens[i]) in valid:
            return i
    return None


def option_probs(mass: Sequence[float], mode: ProbMode) -> list[float] | None:
    """Normalised option probabilities; None when no letter had any mass.

    conditioning: p(o) / α.  mixing: α·p(o) + (1 − α)/|O|, then normalised,
    where α = Σ_o p(o) is the mass on valid letters.
    """
    n = len(mass)
    alpha = math.fsum(mass)
    if mode == "conditioning":
        if alpha <= 0.0:
            return None
        return [m / alpha for m in mass]
    mixed = [alpha * m + (1.0 - alpha) / n for m in mass]
    total = math.fsum(mixed)
    return [m / total for m in mixed]
