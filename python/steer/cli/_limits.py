"""Click parameter types whose ranges come from `steer._limits`."""

from __future__ import annotations

import click

from steer._limits import MAX_SEED

SEED = click.IntRange(0, MAX_SEED)
