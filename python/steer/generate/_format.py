"""How numbers appear in question text: amounts, probabilities, lists."""

from __future__ import annotations

from steer.templates._inflect import article

# Formatted amounts by (value, unit, decimals): a bank formats the same few
# thousand amounts hundreds of thousands of times (sampled prices, payoffs,
# nearby distractors). Keys compare by value, so 5, 5.0 and numpy's 5.0 share
# an entry, as they share their text; emptied when it grows past MAX_CACHED.
_AMOUNTS: dict[tuple[float, str, int], str] = {}
MAX_CACHED = 1 << 16


def amount(x: float, unit: str = "", decimals: int = 2) -> str:
    """'$1,250' for whole amounts, '$30.20' otherwise; a leading minus before the unit."""
    key = (x, unit, decimals)
    try:
        text = _AMOUNTS.get(key)
    except TypeError:  # an unhashable number (a 0-d array)
        return _amount(x, unit, decimals)
    if text is None:
        if len(_AMOUNTS) >= MAX_CACHED:
            _AMOUNTS.clear()
        text = _AMOUNTS[key] = _amount(x, unit, decimals)
    return text


def _amount(x: float, unit: str, decimals: int) -> str:
    # float() first: round() on a numpy scalar is several times slower.
    x = float(x)
    # Whole amounts, the common case, skip the rounding.
    rounded = x if x.is_integer() else round(x, decimals)
    if rounded.is_integer():
        whole = int(rounded)
        return f"-{unit}{-whole:,}" if whole < 0 else f"{unit}{whole:,}"
    body = f"{abs(rounded):,.{decimals}f}"
    return f"{'-' if rounded < 0 else ''}{unit}{body}"


def short_decimal(x: float, places: int = 3) -> str:
    """A probability or discount factor as it is written: at most `places`
    decimals, no trailing zeros ("0.75", not "0.7500"); never "-0"."""
    return f"{round(x, places) + 0.0:g}"


def percent(p: float) -> str:
    """0.35 → '35%', 0.125 → '12.5%'."""
    text = f"{p * 100:.2f}".rstrip("0").rstrip(".")
    return f"{text}%"


def a_or_an(spoken: str) -> str:
    """'a' or 'an' before a number or word as read aloud ('an 8%', 'an 18%',
    'a 25%'); inflect decides."""
    return article(spoken)


def join_and(parts: list[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]
