"""Free-text numeric answers: extraction and matching to the options."""

from __future__ import annotations

import math
import re

from steer.schema import NO_ANSWER

_NUMBER = r"[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?|[-+−]?\.\d+"
_BOXED = re.compile(r"\\boxed\{([^{}]*)\}")
_AFTER_ANSWER = re.compile(r"ANSWER\s*:\s*([^\n]*)", re.IGNORECASE)
_NUM = re.compile(_NUMBER)
_FRACTION = re.compile(rf"({_NUMBER})\s*/\s*({_NUMBER})")


def _to_float(text: str) -> float:
    return float(text.replace(",", "").replace("−", "-"))


def _last_number(text: str) -> float | None:
    fractions = list(_FRACTION.finditer(text))
    numbers = list(_NUM.finditer(text))
    if not numbers:
        return None
    last = numbers[-1]
    if fractions and fractions[-1].end() == last.end():
        den = _to_float(fractions[-1].group(2))
        if den != 0:
            return _to_float(fractions[-1].group(1)) / den
    return _to_float(last.group(0))


def extract_number(text: str) -> float | None:
    """The numeric answer in a reply: the last \\boxed{} value, else what follows
    the last "ANSWER:", else the last number in the text (fractions a/b read
    as a number)."""
    boxed = [m.group(1) for m in _BOXED.finditer(text)]
    for candidate in reversed(boxed):
        value = _last_number(candidate)
        if value is not None:
            return value
    after = [m.group(1) for m in _AFTER_ANSWER.finditer(text)]
    for candidate in reversed(after):
        value = _last_number(candidate)
        if value is not None:
            return value
    return _last_number(text)


def _sig3(x: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, 2 - math.floor(math.log10(abs(x))))


def numbers_match(value: float, target: float) -> bool:
    """Equal at 3 significant figures, or within 1% of the target."""
    if _sig3(value) == _sig3(target):
        return True
    if target == 0:
        return abs(value) < 1e-9
    return abs(value - target) <= 0.01 * abs(target)


def match_option(value: float | None, options: list[str]) -> int:
    """The single option whose number matches `value`; NO_ANSWER when none or
    several match (an answer matching two options is not credited)."""
    if value is None:
        return NO_ANSWER
    hits = []
    for i, option in enumerate(options):
        target = _last_number(option)
        if target is not None and numbers_match(value, target):
            hits.append(i)
    return hits[0] if len(hits) == 1 else NO_ANSWER
