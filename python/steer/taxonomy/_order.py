"""Element ids in reading order: numeric parts compared as numbers, so
steer-me.A.2 comes before steer-me.A.10 and steer.1.2.c before steer.1.10.a."""

from __future__ import annotations


def element_order(element_id: str) -> tuple[tuple[int, int | str], ...]:
    """A sort key for element (or module, setting) ids."""
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in element_id.split("."))
