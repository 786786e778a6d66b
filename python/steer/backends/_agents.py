"""Built-in reference agents: they need no model, network or GPU.

`agent:oracle` answers every question correctly; `agent:random` picks an
option uniformly at random (the floor normalized accuracy is built around);
`agent:human` imitates a typical human test taker (see `HumanAgent`).
All are deterministic for a seed and a question id, so runs are resumable.

Under `--adapt free` they answer in free text (`answer_free`): each picks an
option as it would with the options shown and writes that option's value the
way models write numbers (`$1,234.50`, `\\boxed{0.25}`, `25%`, `1.2e3`,
`3/4`, a number followed by units, an `ANSWER:` line, a sentence ending in
the number…), the form drawn per question from a seeded stream; the oracle
writes the key's exact `answer_value`. Categorical questions get the option's
words. The reply is then read and judged by the same code as a model's
(`steer.adapt._free.read_free_reply`), so the oracle scoring 100% and the
random agent scoring chance test the reader end to end.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from steer.adapt._free import is_categorical, option_values, read_free_reply
from steer.backends._base import Answer, Backend


def _plain(x: float, digits: int = 6) -> str:
    """`x` to `digits` significant figures, without an exponent."""
    text = f"{x:.{digits}g}"
    if "e" in text:
        text = np.format_float_positional(float(text), trim="-")
    return text


def _grouped(x: float) -> str:
    """`x` with thousands separators: two decimals from 10 up, else 6 figures."""
    if abs(x) >= 10:
        return f"{x:,.2f}"
    return _plain(x)


def _fraction(x: float) -> str | None:
    """`x` as `p/q` when it is exactly a fraction with a small denominator."""
    f = Fraction(x).limit_denominator(64)
    if f.denominator == 1 or float(f) != x:
        return None
    return f"{f.numerator}/{f.denominator}"


def _numeric_forms(value: float, form: str) -> list[str]:
    """Ways a model writes `value` (stored as a fraction for percentages)
    for a question wanting `form`."""
    if form == "percent":
        pct = _plain(value * 100)
        return [
            f"{pct}%",
            f"\\boxed{{{pct}\\%}}",
            f"ANSWER: {pct}%",
            f"The share comes to {pct} percent.",
            f"So it is {pct}",
            f"**{pct}%**",
        ]
    plain = _plain(value)
    forms = [
        f"\\boxed{{{plain}}}",
        f"ANSWER: {plain}",
        f"Working it through, the answer is {plain}.",
        f"It comes to {plain} in all",
        f"**{plain}**",
        f"{value:.6e}",
    ]
    if form == "money":
        money = _grouped(abs(value))
        sign = "-" if value < 0 else ""
        forms += [f"{sign}${money}", f"ANSWER: {sign}${money}", f"{plain} dollars"]
    else:
        forms += [f"{plain} units", f"That gives {plain} per period."]
        if abs(value) >= 1000:
            forms.append(_grouped(value))
    fraction = _fraction(value)
    if fraction is not None:
        forms.append(f"ANSWER: {fraction}")
    if value < 0:
        forms.append(f"ANSWER: \u2212{_plain(-value)}")
    return forms


def _word_forms(words: str) -> list[str]:
    return [
        f"ANSWER: {words}",
        f"\\boxed{{{words}}}",
        f"All told, the answer is: {words}.",
        f"**{words}**",
    ]


def free_reply(q: Mapping[str, Any], choice: int, rng: np.random.Generator) -> str:
    """A free-text reply naming option `choice` of question row `q` in one of
    the forms models use (the key's exact `answer_value` for the key)."""
    options = list(q["options"])
    answer_value = q.get("answer_value")
    if is_categorical(options, answer_value):
        forms = _word_forms(str(options[choice]))
    else:
        value: float | None = None
        if choice == q.get("correct_index") and answer_value is not None:
            value = float(answer_value)
        else:
            value = option_values([options[choice]])[0]
        if value is None or not math.isfinite(value):
            forms = _word_forms(str(options[choice]))
        else:
            forms = _numeric_forms(value, q.get("answer_form") or "number")
    return forms[int(rng.integers(len(forms)))]


class FreeTextAgent:
    """Reference agents in free text: the option `answer` picks, written out
    and read back like a model's reply."""

    seed: int = 0

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:  # pragma: no cover
        raise NotImplementedError

    def answer_free(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q, picked in zip(questions, self.answer(questions), strict=True):
            rng = np.random.default_rng([self.seed, 11, zlib.crc32(q["question_id"].encode())])
            choice = picked.chosen_index if picked.chosen_index >= 0 else 0
            text = free_reply(q, choice, rng)
            chosen, read = read_free_reply(text, q)
            out.append(Answer(chosen_index=chosen, response_text=text, answer_read=read))
        return out


@dataclass
class OracleAgent(FreeTextAgent, Backend):
    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            # Consistency-graded parts have no key; answering the first option
            # everywhere is trivially consistent.
            key = q["correct_index"] if q["correct_index"] is not None else 0
            probs = [0.0] * n
            probs[key] = 1.0
            out.append(
                Answer(
                    chosen_index=key,
                    option_probs=probs,
                    response_text=chr(ord("A") + key) if n <= 26 else str(key),
                )
            )
        return out


@dataclass
class RandomAgent(FreeTextAgent, Backend):
    seed: int = 0

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            rng = np.random.default_rng([self.seed, zlib.crc32(q["question_id"].encode())])
            choice = int(rng.integers(n))
            out.append(
                Answer(
                    chosen_index=choice,
                    option_probs=[1.0 / n] * n,
                    response_text=chr(ord("A") + choice) if n <= 26 else str(choice),
                )
            )
        return out

    def generation_params(self) -> dict[str, Any]:
        return {"seed": self.seed}


def _letter(i: int, n: int) -> str:
    return chr(ord("A") + i) if n <= 26 else str(i)


# Modules of the taxonomy about cognitive biases, where people err in a known direction.
BIAS_MODULES = ("steer.2.2.", "steer.2.5.")


@dataclass
class HumanAgent(FreeTextAgent, Backend):
    """A stylised human: on cognitive-bias elements (modules 2.2 and 2.5, or
    any question with a distractor tagged as a bias) it picks the biased
    distractor with probability `bias_rate` (the documented human-typical
    error, e.g. the certainty effect); elsewhere it is right with probability
    `accuracy` and otherwise picks a distractor at random. Probabilities are
    the agent's own mixed strategy. The rates are a modelling choice, not a
    measurement."""

    seed: int = 0
    bias_rate: float = 0.6
    accuracy: float = 0.7

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        out = []
        for q in questions:
            n = len(q["options"])
            rng = np.random.default_rng([self.seed, 7, zlib.crc32(q["question_id"].encode())])
            key = q["correct_index"] if q["correct_index"] is not None else 0
            tags = q.get("option_tags") or [""] * n
            biased = [i for i, t in enumerate(tags) if i != key and "bias" in (t or "")]
            on_bias_element = str(q["element"]).startswith(BIAS_MODULES)
            probs = [0.0] * n
            if biased and (on_bias_element or any("bias" in (t or "") for t in tags)):
                for i in biased:
                    probs[i] = self.bias_rate / len(biased)
                probs[key] = 1.0 - self.bias_rate
            elif n == 1:
                probs[key] = 1.0
            else:
                probs = [(1.0 - self.accuracy) / (n - 1)] * n
                probs[key] = self.accuracy
            choice = int(rng.choice(n, p=np.asarray(probs) / sum(probs)))
            out.append(
                Answer(chosen_index=choice, option_probs=probs, response_text=_letter(choice, n))
            )
        return out

    def generation_params(self) -> dict[str, Any]:
        return {"seed": self.seed, "bias_rate": self.bias_rate, "accuracy": self.accuracy}


AGENTS = {"oracle": OracleAgent, "random": RandomAgent, "human": HumanAgent}
