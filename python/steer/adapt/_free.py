"""Free-text numeric answers: reading them (in the Rust core) and judging them.

Reading: `steer._native.extract_answers` (rust/steer-core/src/parse/free_text.rs
documents what counts as a number and which number is the answer: the last
`\\boxed{}` value, else the line after the last "ANSWER:", else the last
number). A reply with no number has no answer.

Answer forms: a question wants its answer as a `number`, an amount of `money`
or a `percent`. For `number` and `money` a reply's percent mark divides by 100
("25%" is 0.25); for `percent` replies are read in percent units ("25%" and
"25" are 25), and the key and the options, stored as fractions unless they
carry a percent mark, are compared as percentages (0.25 as 25).

Judging (`judge_reply`): the published match rule (`numbers_match`: equal at
3 significant figures or within 1%; a zero key within the template's absolute
tolerance) decides whether a value matches. A reply is credited only if it
matches the key and is closer to the key than to every distractor; a wrong
reply that matches a distractor is read as that option, so the option's tag
names the error it made.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import numpy.typing as npt

from steer import _native
from steer.schema import NO_ANSWER

AnswerForm = Literal["number", "money", "percent"]
ANSWER_FORMS: tuple[str, ...] = ("number", "money", "percent")
# The absolute tolerance of a zero key whose template sets none.
ZERO_TOLERANCE = 1e-9


def extract_answers(
    replies: list[str], forms: str | list[str] = "number"
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """The answers of many replies in their forms (one for all, or one per
    reply): values (NaN: no answer) and whether each carried a percent mark."""
    return _native.extract_answers(replies, forms)


def extract_number(text: str, form: str = "number") -> float | None:
    """The numeric answer in one reply, in `form`; None when it has none."""
    values, _ = _native.extract_answers([text], form)
    value = float(values[0])
    return None if math.isnan(value) else value


def key_in_form(key: float, form: str = "number") -> float:
    """A key stored as a fraction, in the units replies are compared in."""
    return key * 100.0 if form == "percent" else key


def option_values(options: Sequence[str], form: str = "number") -> list[float | None]:
    """Each option's number in the units of `form` (None: no number)."""
    if not options:
        return []
    values, _ = _native.extract_answers(list(options), "number")
    return [None if math.isnan(v) else key_in_form(float(v), form) for v in values.tolist()]


def _sig3(x: float) -> float:
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, 2 - math.floor(math.log10(abs(x))))


def numbers_match(value: float, target: float, tolerance: float | None = None) -> bool:
    """The published match rule: equal at 3 significant figures, or within 1%
    of the target; a zero target takes the absolute `tolerance` (its
    template's), 1e-9 when none is set."""
    if _sig3(value) == _sig3(target):
        return True
    if target == 0:
        return abs(value) <= (ZERO_TOLERANCE if tolerance is None else tolerance)
    return abs(value - target) <= 0.01 * abs(target)


def match_option(value: float | None, options: Sequence[str], form: str = "number") -> int:
    """The single option whose number matches `value`; NO_ANSWER when none or
    several match (an answer matching two options is not credited)."""
    if value is None:
        return NO_ANSWER
    hits = [
        i
        for i, target in enumerate(option_values(options, form))
        if target is not None and numbers_match(value, target)
    ]
    return hits[0] if len(hits) == 1 else NO_ANSWER


def judge_reply(
    value: float | None,
    options: Sequence[str],
    correct_index: int | None,
    answer_value: float | None = None,
    form: str = "number",
    tolerance: float | None = None,
) -> int:
    """The option a free-text value stands for.

    The key's index when the value matches the key (`answer_value` in `form`,
    else the key option's number) and is closer to it than to every other
    option's number; else the nearest other option whose number it matches
    (so that option's error tag classifies the reply); else NO_ANSWER. With
    no key (consistency parts), the single option it matches."""
    if value is None or not math.isfinite(value):
        return NO_ANSWER
    numbers = option_values(options, form)
    key: float | None = None
    if answer_value is not None and math.isfinite(answer_value):
        key = key_in_form(answer_value, form)
    elif correct_index is not None:
        key = numbers[correct_index]
    if key is None or correct_index is None:
        return match_option(value, options, form)
    others = [(i, v) for i, v in enumerate(numbers) if i != correct_index and v is not None]
    gap = abs(value - key)
    if numbers_match(value, key, tolerance) and all(gap < abs(value - v) for _, v in others):
        return correct_index
    near = [(abs(value - v), i) for i, v in others if numbers_match(value, v, tolerance)]
    return min(near)[1] if near else NO_ANSWER
