"""'Did you mean …' suggestions for registries and ids."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


def did_you_mean(name: str, choices: Iterable[str], n: int = 3) -> list[str]:
    """The closest `n` choices to `name`, best first (case-insensitive)."""
    pool = list(choices)
    lowered = {c.lower(): c for c in pool}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.6)
    found = [lowered[h] for h in hits]
    if not found:
        # Fall back to substring containment, which catches "syllogism" →
        # "categorical_syllogism" where edit distance is too large.
        needle = name.lower()
        found = [c for c in pool if needle and needle in c.lower()][:n]
    return found
