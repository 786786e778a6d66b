"""Check a model-written multi-part question against its template.

There is no key to prove, so what is checked is everything the consistency
rule relies on: each pair of parts the rule compares offers corresponding
options (the same choice at the positions the rule pairs), and the payload is
the template's structure re-derived from the model's numbers, solved the way
the template path solves it, and stated by the text.
"""

from __future__ import annotations

import json
from typing import Any

from steer.generate._consistency import parse_rule
from steer.generate._registry import SOLVERS, Instance, Resample
from steer.generate.llm._env import check_env
from steer.generate.llm._parse_parts import LLMMultiPart
from steer.generate.llm._reject import Rejected
from steer.generate.llm._stated import Stated, check_option_numbers, check_stated
from steer.generate.llm._verify import check_shape
from steer.templates import Template


def paired(rule: str, n_options: list[int]) -> list[tuple[int, int, int, int]]:
    """(a, i, b, j) for every option i of part a after which the rule allows
    exactly one option j of part b (`same`, `flip`, or a one-option `map` set)."""
    out = []
    for c in parse_rule(rule):
        if max(c.a, c.b) >= len(n_options):
            continue
        for i, allowed in enumerate(c.as_map(n_options[c.a], n_options[c.b])):
            if allowed is not None and len(allowed) == 1:
                out.append((c.a, i, c.b, next(iter(allowed))))
    return out


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def check_correspondence(q: LLMMultiPart, template: Template) -> None:
    """Options the template words identically in two compared parts (the same
    dish, the same bracket) must read the same in the model's parts too."""
    t = template.spec
    n_options = [len(p.options) for p in t.parts]
    for a, i, b, j in paired(t.consistency_rule or "", n_options):
        fixed_a, fixed_b = t.parts[a].options, t.parts[b].options
        if j >= len(fixed_b) or fixed_a[i] != fixed_b[j]:
            continue
        got_a, got_b = q.parts[a].options[i], q.parts[b].options[j]
        if _norm(got_a) != _norm(got_b):
            raise Rejected(
                "options_do_not_correspond",
                f"option {i + 1} of part {a + 1} ({got_a!r}) and option {j + 1} of part "
                f"{b + 1} ({got_b!r}) must offer the same choice",
            )


def verify_multipart(
    q: LLMMultiPart,
    template: Template,
    grade: int,
    gold_payload: dict[str, Any] | None,
    stated: Stated,
) -> str | None:
    """The checked payload as JSON (None when the model sent none); raises `Rejected`."""
    check_correspondence(q, template)
    if q.payload is None or gold_payload is None:
        return None
    t = template.spec
    data = dict(q.payload)
    check_shape(gold_payload, data, grade)
    if "env" in gold_payload:
        check_env(template, grade, data)
    if "order" in gold_payload and "order" not in data:
        data["order"] = list(range(len(data.get("lotteries", []))))
    options = [p.options for p in q.parts]
    text = "\n".join(
        [
            q.question_text,
            *(p.question_text for p in q.parts),
            *(o for opts in options for o in opts),
        ]
    )
    check_stated(data, stated, text)
    check_option_numbers(data, stated, options)
    try:
        SOLVERS[t.solver].solve(Instance(data, {}, None))
    except Resample as exc:
        raise Rejected("bad_payload", str(exc)) from None
    except Exception as exc:  # arbitrary model input: any failure of the solver rejects it
        raise Rejected("bad_payload", f"the solver cannot use it ({type(exc).__name__})") from None
    return json.dumps(data, separators=(",", ":"))
