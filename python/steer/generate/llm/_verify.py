"""Check a model-written question against the template's solver.

The payload is untrusted input: its shape must match what the template's
structure produces (same keys, same kinds of values), template-fixed parts
(the `formula` expression) are taken from the template, never from the
model, and the solver must agree with the keyed option.
"""

from __future__ import annotations

import json
import re
from typing import Any

from steer.generate._options import min_gap
from steer.generate._registry import SOLVERS, Instance, Resample
from steer.generate.llm._env import check_env
from steer.generate.llm._parse import LLMQuestion
from steer.generate.llm._reject import Rejected
from steer.generate.llm._stated import Stated, check_stated
from steer.templates import Template

# Filled from the template (or irrelevant to the key) when the model leaves them out.
_TEMPLATE_KEYS = ("answer", "order")
_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?|-?\.\d+")


_MARK = "\x00"


class _Blank(dict[str, str]):
    """Text pieces (names of players, labels) the model chose itself: each one
    reads as a marker, so a text key becomes a pattern with a slot per name."""

    def __missing__(self, key: str) -> str:
        return f"{_MARK}{key}{_MARK}"


def key_pattern(text: str) -> re.Pattern[str]:
    """The solver's text answer with every marked name as a wildcard; a name
    used twice must read the same both times."""
    out, seen = [], set()
    for i, part in enumerate(text.split(_MARK)):
        if i % 2 == 0:
            out.append(re.escape(re.sub(r"\s+", " ", part)))
            continue
        group = "f" + re.sub(r"\W", "_", part)
        out.append(f"(?P={group})" if group in seen else f"(?P<{group}>[^;:,()]+?)")
        seen.add(group)
    return re.compile("".join(out), re.IGNORECASE)


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    if isinstance(value, dict):
        return "object"
    return "null"


def shape_problem(gold: Any, got: Any, where: str = "payload") -> str | None:
    """How `got` differs in shape from `gold` (keys and kinds of values), or None."""
    if gold is None:
        return None
    if _kind(gold) != _kind(got):
        return f"{where} should be a {_kind(gold)}, got a {_kind(got)}"
    if isinstance(gold, dict):
        exempt = _TEMPLATE_KEYS if where == "payload" else ()
        missing = sorted(set(gold) - set(got) - set(exempt))
        extra = sorted(set(got) - set(gold))
        if missing:
            return f"{where} lacks {', '.join(missing)}"
        if extra:
            return f"{where} has unknown keys {', '.join(extra)}"
        for key in got:
            problem = shape_problem(gold[key], got[key], f"{where}.{key}")
            if problem:
                return problem
    elif isinstance(gold, list) and gold:
        if not got:
            return f"{where} is empty"
        for i, item in enumerate(got):
            # Items may differ among themselves (an empty list in one rule only).
            like = gold[i] if i < len(gold) else gold[0]
            problem = shape_problem(like, item, f"{where}[{i}]")
            if problem:
                return problem
    return None


def option_number(text: str, unit: str) -> float:
    body = (text.replace(unit, "", 1) if unit else text).replace("\u2212", "-")
    found = _NUMBER.findall(body)
    if len(found) != 1:
        raise Rejected("bad_fields", f"option {text!r} is not one number")
    value = float(found[0].replace(",", ""))
    return value / 100 if "%" in body else value


def choice_shown(choice: int | None, options: list[str], data: dict[str, Any]) -> int | None:
    """Where the solver's choice (a position in the payload's order) sits
    among the model's options.

    Where the payload names the choices (a list of strings holding exactly
    the options, such as a game's actions or a vote's candidates) and every
    such list gives the choice the same name, the key is found by that name,
    so options in any order verify. Otherwise the options are the payload's
    choices in order (as the prompt asks) and the choice is its own position.
    """
    if choice is None or not 0 <= choice < len(options):
        return choice
    # Names are matched without case: an option opens with a capital where
    # the payload's name ("the castle") runs on in a sentence.
    folded = [o.casefold() for o in options]
    wanted = sorted(folded)
    names = {
        value[choice].casefold()
        for value in data.values()
        if isinstance(value, list)
        and len(value) == len(options)
        and all(isinstance(v, str) for v in value)
        and sorted(v.casefold() for v in value) == wanted
    }
    if len(names) == 1 and len(set(folded)) == len(folded):
        return folded.index(names.pop())
    return choice


def check_shape(gold_payload: dict[str, Any], payload: dict[str, Any], grade: int) -> None:
    """Raise `Rejected` unless `payload` has the gold's shape and the grade's sizes."""
    problem = shape_problem(gold_payload, payload)
    if problem:
        raise Rejected("bad_payload", problem)
    for key, value in gold_payload.items():
        # A grade fixes the problem's size (outcomes, actions, voters, choices).
        got = payload.get(key)
        if isinstance(value, list) and isinstance(got, list) and len(got) != len(value):
            raise Rejected(
                "bad_payload",
                f"payload.{key} has {len(got)} items; grade {grade} uses {len(value)}",
            )


def verify_payload(
    q: LLMQuestion,
    template: Template,
    grade: int,
    gold_payload: dict[str, Any],
    n_choices: int | None = None,
    stated: Stated | None = None,
) -> tuple[str, float | None]:
    """The payload (JSON) and numeric key, proven by the solver; raises `Rejected`.

    Before solving, the payload must agree with itself (`check_env`) and with
    the text: every number the template path would state must be stated.
    """
    t = template.spec
    assert q.payload is not None
    check_shape(gold_payload, q.payload, grade)
    if "env" in gold_payload:
        check_env(template, grade, q.payload)
    if stated is not None:
        check_stated(q.payload, stated, "\n".join([q.question_text, *q.options]))
    data = dict(q.payload)
    if t.answer is not None:
        data["answer"] = t.answer  # never the model's own formula
    if "order" in gold_payload and "order" not in data:
        data["order"] = list(range(len(data.get("lotteries", []))))
    solver = SOLVERS[t.solver]
    value: float | None = None  # the numeric key
    try:
        if solver.answer == "choice":
            choices = list(q.options)  # the options are the structure's choices, in order
        else:
            choices = [_Blank()[f"choice{i}"] for i in range(n_choices or 0)]
        solution = solver.solve(Instance(data, _Blank(), choices or None))
    except Resample as exc:
        raise Rejected("no_unique_answer", str(exc)) from None
    except Exception as exc:  # arbitrary model input: any failure of the solver rejects it
        raise Rejected("bad_payload", f"the solver cannot use it ({type(exc).__name__})") from None
    if solver.answer == "numeric":
        assert solution.value is not None
        key = value = round(solution.value, t.decimals)
        values = [option_number(o, t.unit) for o in q.options]
        tolerance = 0.5 * 10.0**-t.decimals + 1e-9
        if abs(values[q.correct_index] - key) > tolerance:
            raise Rejected(
                "wrong_key",
                f"the solver gives {key:g}, the keyed option is {q.options[q.correct_index]!r}",
            )
        gap = min_gap(key, grade, t.decimals)
        for i, v in enumerate(values):
            if i != q.correct_index and abs(v - key) < gap - 1e-9:
                close = f"{q.options[i]!r} is within {gap:g} of the key"
                raise Rejected("options_too_close", close)
    elif solver.answer == "choice":
        picked_index = choice_shown(solution.choice, q.options, data)
        if picked_index != q.correct_index:
            picked = "none" if picked_index is None else repr(q.options[picked_index])
            raise Rejected("wrong_key", f"the solver picks option {picked}")
    elif solver.answer == "text":
        pattern = key_pattern(solution.text or "")
        matching = [i for i, o in enumerate(q.options) if pattern.fullmatch(o)]
        shown = (solution.text or "").replace(_MARK, "")
        if matching != [q.correct_index]:
            if not matching:
                raise Rejected("key_not_in_options", f"the solver's answer is {shown!r}")
            raise Rejected("wrong_key", f"the solver's answer is {shown!r}")
    else:
        raise Rejected("bad_payload", f"{solver.answer} questions are not generated by a model")
    return json.dumps(data, separators=(",", ":")), value
