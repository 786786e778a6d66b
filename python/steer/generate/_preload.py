"""What the fork server of `_parallel` loads once, before it forks each
worker: the generator with everything it registers, pandas (which pyarrow
imports on its first conversion of a Python list, a fifth of a second), and
inflect's engine (which the wordings use and which loads lazily, a quarter of
a second). Without this each worker would pay them again."""

from __future__ import annotations

import pandas  # noqa: F401

import steer.generate._generate  # noqa: F401
from steer.templates._inflect import warm

warm()
