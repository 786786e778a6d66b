"""Click parameter types whose ranges come from `steer._limits`."""

from __future__ import annotations

import math
from typing import Any

import click

from steer._limits import MAX_SEED

SEED = click.IntRange(0, MAX_SEED)


class FiniteFloatRange(click.FloatRange):
    """A float range that also refuses `nan` and `inf` (click's range checks
    compare, and every comparison with NaN is false, so NaN would pass)."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = click.FLOAT.convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return super().convert(number, param, ctx)
