"""Coverage checks of templates (issue 20 §4): who a question is about, how
many ways it is worded, how many domains an element spans.

Each finding is one line like a linter's: `file:line: CODE name: what, the
value and the threshold; help: the fix`. The codes are stable:

| code   | name                   | flags                                            |
|--------|------------------------|--------------------------------------------------|
| TPL001 | perspective-undeclared | a template lists fewer than the five perspectives |
| TPL002 | perspective-unrealised | a rendered perspective does not show its person  |
| TPL003 | few-phrasings          | a template has fewer than 4 phrasings            |
| TPL004 | few-domains            | an element's templates span fewer than 4 domains |
| TPL005 | few-questions          | an element yields < 1,000 distinct questions      |
| TPL006 | percent-form           | asks for a percentage, answer form not `percent`  |
"""

from __future__ import annotations

from collections.abc import Sequence

from steer.templates._load import Template
from steer.templates._model import PERSPECTIVES

MIN_PHRASINGS = 4
MIN_DOMAINS = 4
MIN_QUESTIONS = 1000

CODES = {
    "TPL001": "perspective-undeclared",
    "TPL002": "perspective-unrealised",
    "TPL003": "few-phrasings",
    "TPL004": "few-domains",
    "TPL005": "few-questions",
    "TPL006": "percent-form",
}


def finding(source: str, line: int | None, code: str, message: str, hint: str) -> str:
    """One finding line: `source:line: CODE name: message; help: hint`."""
    where = f"{source}:{line}" if line else source
    return f"{where}: {code} {CODES[code]}: {message}; help: {hint}"


def line_of(file_text: str, needle: str, start: int | None = None) -> int | None:
    """The first line at or after `start` (1-based) holding `needle`."""
    lines = file_text.splitlines()
    for number in range(max((start or 1) - 1, 0), len(lines)):
        if needle in lines[number]:
            return number + 1
    return None


def declared_findings(template: Template, file_text: str) -> list[str]:
    """TPL001 and TPL003 for one template: all five perspectives listed, at
    least `MIN_PHRASINGS` phrasings."""
    t = template.spec
    out = []
    missing = [p for p in PERSPECTIVES if p not in t.perspectives]
    if missing:
        line = line_of(file_text, "perspectives", template.line) if t.perspectives else None
        out.append(
            finding(
                template.source,
                line or template.line,
                "TPL001",
                f"template {t.id!r} does not declare perspective(s) "
                f"{', '.join(repr(p) for p in missing)} (need all {len(PERSPECTIVES)})",
                f"list perspectives = {list(PERSPECTIVES)!r} and word the phrasings with "
                "{Agent}, {subject}, {possessive}, {has} …",
            )
        )
    if len(t.phrasings) < MIN_PHRASINGS:
        out.append(
            finding(
                template.source,
                line_of(file_text, "phrasings", template.line) or template.line,
                "TPL003",
                f"template {t.id!r} has {len(t.phrasings)} phrasing(s) "
                f"(need at least {MIN_PHRASINGS})",
                "add genuinely different wordings (another order of facts, another question "
                "form), not synonyms swapped",
            )
        )
    return out


def domain_findings(templates: Sequence[Template], file_texts: dict[str, str]) -> list[str]:
    """TPL004: elements whose templates span fewer than `MIN_DOMAINS` domains,
    reported at the `element` line of the element's first file."""
    by_element: dict[str, list[Template]] = {}
    for t in templates:
        by_element.setdefault(t.element, []).append(t)
    out = []
    for element, group in sorted(by_element.items()):
        domains = sorted({t.spec.domain for t in group})
        if len(domains) >= MIN_DOMAINS:
            continue
        first = group[0]
        line = line_of(file_texts.get(first.source, ""), "element")
        out.append(
            finding(
                first.source,
                line,
                "TPL004",
                f"element {element} spans {len(domains)} domain(s) "
                f"({', '.join(domains)}; need at least {MIN_DOMAINS})",
                "add templates set in other domains",
            )
        )
    return out
