"""Re-derive a scenario payload the way the template path builds it.

Scenario and consistency templates draw `vars`, compute `derive`, enforce
`require` and turn `choices` into lotteries. A model picks its own numbers for
the drawn variables; everything computed from them is recomputed here with the
template's own expressions and must agree with what the model wrote.
"""

from __future__ import annotations

import math
from typing import Any

from steer.generate.llm._reject import Rejected
from steer.templates import Template
from steer.templates._vars import Unmet, evaluate, var_specs


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def derivation_notes(template: Template) -> list[str]:
    """Prompt lines that say how the computed parts of `payload.env` follow."""
    t = template.spec
    lines = [f"  {name} = {text}" for name, text in t.derive.items()]
    lines += [f"  require {text}" for text in t.require]
    if t.choices:
        lines.append("  lotteries[k] is the choice numbered order[k] below, evaluated on env:")
    for i, c in enumerate(t.choices):
        lines.append(
            f"  lottery {i} ({c.text}): values {', '.join(c.values)} "
            f"with probabilities {', '.join(c.probs)}"
        )
    return lines


def _lotteries(template: Template, env: dict[str, float], data: dict[str, Any]) -> None:
    t = template.spec
    order = data.get("order", list(range(len(t.choices))))
    if sorted(order) != list(range(len(t.choices))):
        raise Rejected("bad_payload", f"payload.order must order the {len(t.choices)} choices")
    got = data["lotteries"]
    if len(got) != len(order):
        raise Rejected("bad_payload", f"payload.lotteries needs {len(order)} lotteries")
    for k, (i, lottery) in enumerate(zip(order, got, strict=True)):
        c = t.choices[i]
        values = [evaluate(v, env) for v in c.values]
        probs = [evaluate(p, env) for p in c.probs]
        if any(not 0 <= p <= 1 for p in probs) or not _close(sum(probs), 1.0):
            raise Rejected("bad_payload", f"choice {c.text!r}: its probabilities are no lottery")
        same = len(lottery["values"]) == len(values) and len(lottery["probs"]) == len(probs)
        same = same and all(map(_close, lottery["values"], values))
        same = same and all(map(_close, lottery["probs"], probs))
        if not same:
            raise Rejected(
                "payload_contradiction",
                f"payload.lotteries[{k}] is not the template's {c.text!r} lottery at these numbers",
            )


def check_env(template: Template, grade: int, data: dict[str, Any]) -> None:
    """Raise `Rejected` when the payload's computed numbers disagree with its
    drawn ones, or break a `require` constraint. `data` has the gold's shape."""
    t = template.spec
    given: dict[str, float] = data["env"]
    try:
        env = {name: float(given[name]) for name in var_specs(t, t.grade[grade]) if name in given}
        for name, text in t.derive.items():
            expected = round(evaluate(text, env), 10)
            if name in given and not _close(float(given[name]), expected):
                raise Rejected(
                    "payload_contradiction",
                    f"payload.env.{name} is {given[name]:g}, but {text} gives {expected:g}",
                )
            env[name] = expected
        for text in t.require:
            if not evaluate(text, env):
                raise Rejected("payload_contradiction", f"the payload breaks {text!r}")
        if t.choices and "lotteries" in data:
            _lotteries(template, env, data)
    except Unmet as exc:
        raise Rejected("bad_payload", f"the template cannot use it ({exc})") from None
