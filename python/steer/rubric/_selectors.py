"""Resolve a section's or check's selectors to taxonomy element ids."""

from __future__ import annotations

from steer._suggest import did_you_mean
from steer.taxonomy import Taxonomy


def select_elements(taxonomy: Taxonomy, select: list[str], exclude: list[str]) -> list[str]:
    """Element ids matched by any `select` selector and no `exclude` one, in
    taxonomy order (`*` matches every element)."""
    chosen: set[str] = set()
    for selector in select:
        chosen.update(e.id for e in _match(taxonomy, selector))
    for selector in exclude:
        chosen.difference_update(e.id for e in _match(taxonomy, selector))
    return [e for e in taxonomy.elements if e in chosen]


def _match(taxonomy: Taxonomy, selector: str) -> list:  # type: ignore[type-arg]
    if selector == "*":
        return list(taxonomy)
    return taxonomy.select(selector)


def selector_hint(taxonomy: Taxonomy, selector: str) -> str | None:
    """'did you mean …' for a selector that matches nothing."""
    stem = selector.rstrip("*?.")
    pool = [*taxonomy.elements, *taxonomy.modules, *taxonomy.settings]
    found = did_you_mean(stem, pool)
    if not found:
        return None
    return "did you mean " + ", ".join(f"`{f}`" for f in found) + "?"
