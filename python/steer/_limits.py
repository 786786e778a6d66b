"""Upper bounds on sizes that come from the user.

Each bound is far above any real use and far below what exhausts memory: a
request past it is bad input (exit 2) instead of an allocation abort inside
the Rust core. The CLI options, the rubric model and the Python API functions
all check against these same numbers.
"""

from __future__ import annotations

import math

from steer.errors import InputError

# Bootstrap resamples: intervals stop changing long before this.
MAX_BOOTSTRAP = 100_000
# ECE bins: a few tens are usual; every group holds a row of this many bins.
MAX_BINS = 1_000
# Groups × ECE bins held at once by the scoring engine (8 bytes each, a few
# arrays): about a gigabyte at most.
MAX_CELLS = 50_000_000
# Questions per template × grade in `steer generate`.
MAX_PER_CELL = 100_000
# Seeds feed 64-bit generators; keep them non-negative and inside i64.
MAX_SEED = 2**63 - 1


def check_count(name: str, value: object, low: int, high: int) -> int:
    """`value` as an int in [low, high], else `InputError` naming `name`."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(f"{name} must be a whole number, got {value!r}")
    if isinstance(value, float) and not (math.isfinite(value) and value.is_integer()):
        raise InputError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise InputError(f"{name} must be between {low} and {high}, got {value}")
    return int(value)
