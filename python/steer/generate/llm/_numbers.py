"""Numbers as a question writes them, and whether one of them states a value.

A value counts as stated by a written number when the number is the value
at the precision it is written with ("$3,333" for 3333.33, "12.50" for 12.5),
with a sign, thousands separators, a currency sign or a percent ("45%" or
"0.45" for 0.45). Data only: the text is scanned, never evaluated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A sign only where it cannot be a hyphen ("3-4", "Player-2") or a bullet
# ("- 126 voters"); U+2212 is the typographic minus. Thousands groups need
# exactly three digits ("1,250", not the list "1,2").
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-\u2212](?=[$€£]?\.?\d))?(?:[$€£]\s?)?"
    r"(?P<int>\d{1,3}(?:,\d{3})+(?!\d)|\d+)?(?P<frac>\.\d+)?(?!\w)"
    r"(?P<pct>\s?%)?(?:/(?P<den>\d+)(?![\d.]))?"
)
# A relative slack for rounding: "$3,333" states 3333.33 but "$3" does not state 3.4.
_REL = 0.01


@dataclass(frozen=True)
class Written:
    """One number of a text: its value and how many decimals it was written with."""

    value: float
    decimals: int


def numbers_in(text: str) -> list[Written]:
    """Every number in `text`; "45%" also reads as 0.45 and "3/4" as 0.75.

    "1,250" reads as 1250 and, in case it was a list, as 1 and 250 as well.
    """
    out: list[Written] = []
    for m in _NUMBER.finditer(text):
        whole, frac = m.group("int"), m.group("frac")
        if not whole and not frac:
            continue
        digits = (whole or "0").replace(",", "") + (frac or "")
        decimals = len(frac) - 1 if frac else 0
        sign = -1.0 if m.group("sign") else 1.0
        value = sign * float(digits)
        out.append(Written(value, decimals))
        if m.group("pct"):
            out.append(Written(value / 100, decimals + 2))
        den = m.group("den")
        if den and int(den) and not frac:
            out.append(Written(float(den), 0))
            out.append(Written(value / int(den), 12))  # a fraction is exact
        if whole and "," in whole and not frac:
            out.extend(Written(sign * float(p), 0) for p in whole.split(","))
    return out


def states(written: Written, value: float) -> bool:
    """Whether `written` is `value`, exactly or rounded at its written precision."""
    diff = abs(written.value - value)
    if diff <= 1e-9 * max(1.0, abs(value)):
        return True
    return diff <= 0.5 * 10.0**-written.decimals + 1e-9 and diff <= _REL * abs(value)


def stated_in(numbers: list[Written], value: float) -> bool:
    return any(states(w, value) for w in numbers)
