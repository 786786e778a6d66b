"""numpy Generator draws, the same numbers without numpy's per-call cost.

`rng.integers(low, high, size=k)` and `rng.choice(n, k, replace=False)` spend
3–5 µs a call on argument handling, more than the draws, and the generators
make a few such calls per question. These run numpy's own algorithms in
steer-core on the Generator's bit generator (`steer_core::draws`), so they
return what the method returns and leave the stream where it would: a bank
is the same whichever is called (tests/test_draws.py holds them to numpy).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from steer import _native

T = TypeVar("T")


def integer(rng: np.random.Generator, low: int, high: int) -> int:
    """`int(rng.integers(low, high))`."""
    return _native.integer(rng, low, high)


def integers(
    rng: np.random.Generator, low: int, high: int, size: int | tuple[int, ...]
) -> np.ndarray:
    """`rng.integers(low, high, size=size)`: int64, `high` excluded."""
    if isinstance(size, tuple):
        return _native.integers(rng, low, high, math.prod(size)).reshape(size)
    return _native.integers(rng, low, high, size)


def sample(rng: np.random.Generator, population: int, size: int) -> list[int]:
    """`rng.choice(population, size, replace=False).tolist()`."""
    return _native.sample(rng, population, size)


def sample_of(rng: np.random.Generator, items: Sequence[T], size: int) -> list[T]:
    """`size` distinct items in random order: the items at the indices of
    `rng.choice(len(items), size, replace=False)`."""
    return [items[i] for i in _native.sample(rng, len(items), size)]
