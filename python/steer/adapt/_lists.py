"""Free-text replies that give a list of whole numbers with a fixed count and
total (a pirate game's proposal: one coin count per living pirate, adding up
to the gold), read the same way by the conversation that asks again and by
the game engine that plays the move.

Where the list is read: the reply's last ``\\boxed{…}``, else what follows
its last "ANSWER:", else its last line that holds a number. Within that
part, when it names its numbers (``player 3: 40``, ``"p3": 40``, ``3 = 40``)
the numbers after each ``:`` or ``=`` are the list, so the names' own digits
are not counted; otherwise every number is, in order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from steer.adapt._free import answer_segment

_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_NAMED = re.compile(r"[:=]\s*(-?\d+(?:\.\d+)?)(?![\w.])")
_BOXED_OR_MARK = re.compile(r"\\boxed\{|answer\s*:", re.IGNORECASE)


def _segment(text: str) -> str:
    if _BOXED_OR_MARK.search(text):
        return answer_segment(text)
    lines = [line for line in text.splitlines() if _NUMBER.search(line)]
    return lines[-1] if lines else ""


def _numbers(segment: str) -> list[str]:
    named = _NAMED.findall(segment)
    if len(named) >= 2:
        return named
    return _NUMBER.findall(segment)


def read_number_list(text: str, count: int, total: int) -> tuple[list[int] | None, str | None]:
    """(the list, None) when `text` gives `count` non-negative whole numbers
    adding up to `total`; else (None, why not), in words for a forfeit's
    reason and the question asked again."""
    found = _numbers(_segment(text))
    if not found:
        return None, "no list of numbers in the reply"
    if len(found) != count:
        return None, f"the list has {len(found)} numbers, not {count}"
    values = [float(raw) for raw in found]  # any length of digits: inf, never an error
    negative = next((x for x in values if x < 0), None)
    if negative is not None:
        return None, f"{negative:g} is negative"
    # Before int(): a reply's number can be too large for one (inf).
    large = next((x for x in values if x > total), None)
    if large is not None:
        return None, f"{large:g} is more than the {total} to share"
    fraction = next((x for x in values if x != int(x)), None)
    if fraction is not None:
        return None, f"{fraction:g} is not a whole number"
    whole = [int(x) for x in values]
    if sum(whole) != total:
        return None, f"the numbers add up to {sum(whole)}, not {total}"
    return whole, None


def number_list(q: Mapping[str, Any]) -> tuple[int, int] | None:
    """(count, total) of a game move answered with a list of numbers (an
    elicitation row whose payload has ``number_list``); None for every other row."""
    if q.get("grading") != "elicit" or not q.get("payload"):
        return None
    shape = json.loads(q["payload"]).get("number_list")
    return None if shape is None else (int(shape["count"]), int(shape["total"]))
