"""Multi-part questions graded by consistency (independence, certainty and
reflection effects, ambiguity aversion): no key, only a rule that the parts'
answers must satisfy together, in the scorer's grammar (`same:01`, `flip:01`)."""

from __future__ import annotations

import re

import numpy as np

from steer import _native
from steer.generate._registry import (
    Instance,
    Solution,
    SolverKind,
    StructureKind,
    register_solver,
    register_structure,
)
from steer.generate._scenario import scenario_instance
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._text import render

_CLAUSE = r"\s*(same|flip)\s*:\s*\d\d(\s*,\s*\d\d)*\s*"
_RULE = re.compile(rf"^{_CLAUSE}(;{_CLAUSE})*;?\s*$")


def rule_pairs(rule: str) -> list[tuple[str, int, int]]:
    """('same'|'flip', a, b) for each pair of a rule; ValueError if malformed."""
    if not _RULE.match(rule):
        raise ValueError(f"consistency rule {rule!r} must read like 'same:01,12' or 'flip:01'")
    out = []
    for clause in filter(None, (c.strip() for c in rule.split(";"))):
        kind, pairs = clause.split(":")
        for pair in pairs.split(","):
            pair = pair.strip()
            if pair[0] == pair[1]:
                raise ValueError(f"pair {pair!r} must name two different parts")
            out.append((kind.strip(), int(pair[0]), int(pair[1])))
    return out


def consistency_parts(t: TemplateSpec, values: dict[str, object]) -> list[tuple[str, list[str]]]:
    """Each part's rendered text and options."""
    return [(render(p.text, values), [render(o, values) for o in p.options]) for p in t.parts]


def verify_parts(parts: list[tuple[str, list[str]]], rule: str) -> str | None:
    """Why the parts cannot carry the rule, or None."""
    for text, options in parts:
        if len(set(options)) != len(options):
            return f"two options of {text[:30]!r}… read the same"
    for kind, a, b in rule_pairs(rule):
        if max(a, b) >= len(parts):
            return f"rule names part {max(a, b)} but there are {len(parts)} parts"
        if kind == "same" and len(parts[a][1]) > len(parts[b][1]):
            return f"'same' needs part {b} to offer every position of part {a}"
    return None


def _sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    instance = scenario_instance(rng, spec, t, shuffle=False)
    instance.choices = None
    return instance


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if len(t.parts) < 2:
        return "a consistency question needs at least two `parts`"
    if not t.consistency_rule:
        return "a consistency question needs a `consistency_rule`"
    try:
        pairs = rule_pairs(t.consistency_rule)
    except ValueError as exc:
        return str(exc)
    if any(max(a, b) >= len(t.parts) for _, a, b in pairs):
        return f"consistency_rule names a part beyond the {len(t.parts)} parts"
    return None


register_structure(
    StructureKind(
        "consistency",
        (),
        _sample,
        _check,
        "several parts over the same sampled variables, graded by a consistency rule",
    )
)


def _consistency(instance: Instance) -> Solution:
    # Expected values of the parts' lotteries (when the template defines them)
    # document what a risk-neutral agent would be indifferent between.
    lotteries = instance.data.get("lotteries") or []
    working = ""
    if lotteries:
        values = np.array([v for lot in lotteries for v in lot["values"]], dtype=np.float64)
        probs = np.array([p for lot in lotteries for p in lot["probs"]], dtype=np.float64)
        offsets = np.cumsum([0] + [len(lot["values"]) for lot in lotteries], dtype=np.int64)
        evs = _native.expected_values(values, probs, offsets)
        working = "Expected values: " + ", ".join(f"{ev:,.2f}" for ev in evs)
    return Solution(fields={"working": working})


register_solver(
    SolverKind(
        "consistency",
        ("consistency",),
        "consistency",
        _consistency,
        fields=("working",),
        doc="no key: the parts are graded by the template's consistency_rule",
    )
)
