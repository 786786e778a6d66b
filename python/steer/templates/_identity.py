"""Caching by object identity, for values derived from template specs.

Template and grade specs are pydantic models, which are not hashable, yet
generation asks the same questions of the same spec objects hundreds of
thousands of times (which requires can run after which derive, which
variables a wording shows).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

R = TypeVar("R")

MAX_ENTRIES = 4096


def by_identity(fn: Callable[..., R]) -> Callable[..., R]:
    """Cache `fn(*args)` per identity of its arguments. Each entry keeps its
    arguments alive, so an id cannot be reused by another object while the
    entry exists; the cache is emptied when it grows past MAX_ENTRIES (tests
    build many short-lived specs)."""
    cache: dict[tuple[int, ...], tuple[tuple[Any, ...], R]] = {}

    @functools.wraps(fn)
    def cached(*args: Any) -> R:
        key = tuple(map(id, args))
        hit = cache.get(key)
        # The ids match, so (the entry keeping its arguments alive) these are
        # the same objects; tuple equality checks identity first, element by
        # element, without calling the models' __eq__.
        if hit is not None and hit[0] == args:
            return hit[1]
        if len(cache) >= MAX_ENTRIES:
            cache.clear()
        value = fn(*args)
        cache[key] = (args, value)
        return value

    return cached
