"""Which templates and grades a `--llm` run asks about (same selectors as
`steer generate`)."""

from __future__ import annotations

from collections.abc import Sequence

from steer.errors import InputError
from steer.taxonomy import load_taxonomy
from steer.templates import Template, load_templates


def select_templates(
    elements: Sequence[str] | None,
    *,
    suite: str | None = None,
    templates: Sequence[Template] | None = None,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
) -> list[tuple[Template, list[int]]]:
    """(template, its grades in range) for the selected elements and domains."""
    taxonomy = load_taxonomy()
    pool = tuple(templates) if templates is not None else load_templates()
    if suite is not None:
        pool = tuple(t for t in pool if t.element.startswith(f"{suite}."))
    if elements:
        wanted: set[str] = set()
        for selector in elements:
            matched = taxonomy.select(selector)
            if not matched:
                taxonomy.element(selector)  # raises with 'did you mean'
            wanted.update(e.id for e in matched)
        pool = tuple(t for t in pool if t.element in wanted)
    out = []
    for template in pool:
        if domains and template.spec.domain not in domains:
            continue
        chosen = [
            g for g in sorted(template.spec.grade) if not grades or grades[0] <= g <= grades[1]
        ]
        if chosen:
            out.append((template, chosen))
    if not out:
        raise InputError("no templates match the requested elements, grades and domains")
    return out
