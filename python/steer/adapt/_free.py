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
names the error it made; a number that matches no option is answered and
wrong (`OFF_OPTIONS`, error type `off_options`), never a no-answer. Only a
reply with no number is a no-answer.

Categorical questions (no `answer_value`, options without numbers: "substitutes",
"increasing returns to scale") are judged by the option's words
(`judge_words`): the option named in the reply's answer (its last `\\boxed{}`,
else what follows the last "ANSWER:", else the whole reply); naming none is a
no-answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from steer import _native
from steer.schema import NO_ANSWER, OFF_OPTIONS

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
    (so that option's error tag classifies the reply); else OFF_OPTIONS (a
    number was read: answered, wrong). With no key (consistency parts), the
    single option it matches, else OFF_OPTIONS. NO_ANSWER only when no
    (finite) number was read."""
    if value is None or not math.isfinite(value):
        return NO_ANSWER
    numbers = option_values(options, form)
    key: float | None = None
    if answer_value is not None and math.isfinite(answer_value):
        key = key_in_form(answer_value, form)
    elif correct_index is not None:
        key = numbers[correct_index]
    if key is None or correct_index is None:
        hit = match_option(value, options, form)
        return OFF_OPTIONS if hit == NO_ANSWER else hit
    others = [(i, v) for i, v in enumerate(numbers) if i != correct_index and v is not None]
    gap = abs(value - key)
    if numbers_match(value, key, tolerance) and all(gap < abs(value - v) for _, v in others):
        return correct_index
    near = [(abs(value - v), i) for i, v in others if numbers_match(value, v, tolerance)]
    return min(near)[1] if near else OFF_OPTIONS


_BOXED = re.compile(r"\\boxed\{([^{}]*(?:\{[^{}]*\}[^{}]*)*)\}")
_ANSWER = re.compile(r"answer\s*:", re.IGNORECASE)
_NON_WORD = re.compile(r"[^0-9a-z]+")


def _words(text: str) -> str:
    return f" {_NON_WORD.sub(' ', text.lower()).strip()} "


def answer_segment(text: str) -> str:
    """The part of a reply that states its answer: the last `\\boxed{}`,
    else what follows the last "ANSWER:", else the whole reply."""
    boxed = _BOXED.findall(text)
    if boxed:
        return str(boxed[-1])
    marks = list(_ANSWER.finditer(text))
    return text[marks[-1].end() :] if marks else text


def judge_words(text: str, options: Sequence[str]) -> int:
    """The option a categorical free-text reply names by its words: among
    the options whose words occur in the reply's answer segment (whole words,
    case and punctuation ignored), dropping any whose words lie inside
    another's that also occurs ("returns" inside "increasing returns"), the
    one named last; NO_ANSWER when it names none."""
    segment = _words(answer_segment(text))
    names = [_words(o) for o in options]
    found = [i for i, n in enumerate(names) if n.strip() and n in segment]
    found = [i for i in found if not any(j != i and names[i] in names[j] for j in found)]
    if not found:
        return NO_ANSWER
    return max(found, key=lambda i: segment.rfind(names[i]) + len(names[i]))


def is_categorical(options: Sequence[str], answer_value: float | None) -> bool:
    """A question judged by words: no `answer_value` and some option without
    a number."""
    if answer_value is not None and not (
        isinstance(answer_value, float) and math.isnan(answer_value)
    ):
        return False
    return any(v is None for v in option_values(options))


def read_free_reply(text: str, q: Mapping[str, Any]) -> tuple[int, float | None]:
    """(chosen_index, number read) of a free-text reply to question row `q`:
    categorical questions by the option's words (no number recorded), numeric
    ones by `judge_reply` on the number read in the question's answer form."""
    options = list(q["options"])
    answer_value = q.get("answer_value")
    if is_categorical(options, answer_value):
        return judge_words(text, options), None
    form = q.get("answer_form") or "number"
    value = extract_number(text, form)
    chosen = judge_reply(
        value, options, q.get("correct_index"), answer_value, form, q.get("answer_tolerance")
    )
    return chosen, value
