"""The regex reader of free-text numbers that steer used before the Rust
scanner (rust/steer-core/src/parse/free_text.rs), kept as the reference the
tests and benches compare it with: the last \\boxed{} value, else what
follows the last "ANSWER:", else the last number (a/b read as a fraction).
It knows no currency signs, powers of ten, \\frac, mixed numbers or percent
marks, so it is compared only on replies both should read alike."""

from __future__ import annotations

import re

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


def extract_number_reference(text: str) -> float | None:
    """The numeric answer in a reply, as the regex reader found it."""
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
