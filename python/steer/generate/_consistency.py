"""Multi-part questions graded by consistency (independence, certainty and
reflection effects, ambiguity aversion): no key, only a rule that the parts'
answers must satisfy together, in the scorer's grammar (see steer-core's
metrics/consistency.rs):

- `map:AB=S0|S1|…` — when part A chose option i, part B must choose an option
  in `Si`: `*` (any), `-` (none: choosing i in A is already inconsistent) or
  option indices of B joined by `+`. `map:01=2|1+2`: whoever chose option 0 in
  part 0 must choose option 2 in part 1; whoever chose option 1 may choose 1
  or 2. A choice of A beyond the listed sets fails.
- `same:AB` (B chooses A's index) and `flip:AB` (B chooses the mirror), sugar
  for the matching maps; constraints join with `;`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

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

Allowed = frozenset[int] | None  # None: any option of part B
MAX_INDEX = 999


@dataclass(frozen=True)
class Constraint:
    """One clause, `kind` as written; `sets` (map only) say what part `b` may
    choose after each choice of part `a` (None: anything)."""

    kind: str  # "same" | "flip" | "map"
    a: int
    b: int
    sets: tuple[Allowed, ...] = ()

    def as_map(self, n_a: int, n_b: int) -> tuple[Allowed, ...]:
        """The sets for each of part a's `n_a` options (a part with `n_b` options)."""
        if self.kind == "same":
            return tuple(frozenset({i}) for i in range(n_a))
        if self.kind == "flip":
            return tuple(frozenset({n_b - 1 - i} if n_b - 1 - i >= 0 else ()) for i in range(n_a))
        return tuple(self.sets[i] if i < len(self.sets) else frozenset() for i in range(n_a))


def _pair(pair: str, clause: str, rule: str) -> tuple[int, int]:
    if len(pair) != 2 or not (pair.isascii() and pair.isdigit()) or pair[0] == pair[1]:
        raise ValueError(
            f"consistency rule {rule!r}, clause {clause!r}: pair {pair!r} must name "
            "two different parts (two digits)"
        )
    return int(pair[0]), int(pair[1])


def _allowed(text: str, clause: str, rule: str) -> Allowed:
    if text == "*":
        return None
    if text == "-":
        return frozenset()
    items = [s.strip() for s in text.split("+")]
    if not all(s.isascii() and s.isdigit() and int(s) <= MAX_INDEX for s in items):
        raise ValueError(
            f"consistency rule {rule!r}, clause {clause!r}: set {text!r} must be *, - or "
            f"option indices joined by + (0 to {MAX_INDEX})"
        )
    return frozenset(int(s) for s in items)


@lru_cache(maxsize=4096)
def parse_rule(rule: str) -> tuple[Constraint, ...]:
    """The rule's constraints; ValueError names the clause at fault."""
    out: list[Constraint] = []
    for clause in filter(None, (c.strip() for c in rule.split(";"))):
        kind, sep, rest = clause.partition(":")
        kind = kind.strip()
        if not sep or kind not in ("same", "flip", "map"):
            raise ValueError(
                f"consistency rule {rule!r}, clause {clause!r}: expected same:PAIRS, "
                "flip:PAIRS or map:AB=S0|S1|…"
            )
        if kind == "map":
            pair, eq, sets = rest.partition("=")
            if not eq:
                raise ValueError(
                    f"consistency rule {rule!r}, clause {clause!r}: map needs one part "
                    "pair and its sets, map:AB=S0|S1|…"
                )
            a, b = _pair(pair.strip(), clause, rule)
            parsed = tuple(_allowed(s.strip(), clause, rule) for s in sets.split("|"))
            out.append(Constraint("map", a, b, parsed))
        else:
            for pair in rest.split(","):
                a, b = _pair(pair.strip(), clause, rule)
                out.append(Constraint(kind, a, b))
    if not out:
        raise ValueError(f"consistency rule {rule!r} has no constraints")
    return tuple(out)


def rule_pairs(rule: str) -> list[tuple[str, int, int]]:
    """(kind, a, b) for each constraint of a rule; ValueError if malformed."""
    return [(c.kind, c.a, c.b) for c in parse_rule(rule)]


def rule_holds(rule: str, choices: Sequence[int], n_options: Sequence[int]) -> bool:
    """Whether one group's choices (`choices[p]`: part p's chosen index, of
    `n_options[p]`) satisfy the rule, as the scorer judges them."""
    for c in parse_rule(rule):
        x, y = choices[c.a], choices[c.b]
        if c.kind == "same":
            ok = x == y
        elif c.kind == "flip":
            ok = y == n_options[c.b] - 1 - x
        else:
            s = c.sets[x] if 0 <= x < len(c.sets) else frozenset()
            ok = (0 <= y < n_options[c.b]) if s is None else y in s
        if not ok:
            return False
    return True


def _set_text(s: Allowed) -> str:
    if s is None:
        return "*"
    return "+".join(str(i) for i in sorted(s)) if s else "-"


def permute_rule(rule: str, perms: Sequence[Sequence[int]]) -> str:
    """The rule over displayed indices once part p's options are reordered so
    that the option at index `old` shows at `perms[p][old]` (`len(perms[p])` is
    part p's option count). Returned in map form, one clause per constraint;
    `rule` itself when every permutation is the identity."""
    for p, perm in enumerate(perms):
        if sorted(perm) != list(range(len(perm))):
            raise ValueError(f"perms[{p}] = {list(perm)} is not a permutation")
    if all(list(perm) == list(range(len(perm))) for perm in perms):
        return rule
    clauses = []
    for c in parse_rule(rule):
        if max(c.a, c.b) >= len(perms):
            raise ValueError(f"rule {rule!r} names part {max(c.a, c.b)}; perms cover {len(perms)}")
        pa, pb = perms[c.a], perms[c.b]
        sets: list[Allowed] = [frozenset()] * len(pa)
        for old, s in enumerate(c.as_map(len(pa), len(pb))):
            sets[pa[old]] = None if s is None else frozenset(pb[j] for j in s if j < len(pb))
        clauses.append(f"map:{c.a}{c.b}=" + "|".join(_set_text(s) for s in sets))
    return "; ".join(clauses)


ORDER_FIELD = "_part_order"


def _orders(values: dict[str, object], t: TemplateSpec) -> list[list[int]]:
    """Each part's permutation, `perm[old] = shown`, as the draw recorded it
    (as written when it recorded none)."""
    text = str(values.get(ORDER_FIELD) or "")
    if not text:
        return [list(range(len(p.options))) for p in t.parts]
    return [[int(i) for i in part.split(",")] for part in text.split(";")]


def consistency_parts(t: TemplateSpec, values: dict[str, object]) -> list[tuple[str, list[str]]]:
    """Each part's rendered text and options, in the order the draw chose."""
    out = []
    for p, perm in zip(t.parts, _orders(values, t), strict=True):
        shown = [""] * len(perm)
        for old, new in enumerate(perm):
            shown[new] = render(p.options[old], values)
        out.append((render(p.text, values), shown))
    return out


def option_orders(t: TemplateSpec, values: dict[str, object]) -> list[list[int]]:
    """Each part's `option_order`: for every shown position, the index the
    option has in the template (the bank's convention, see steer.bank._order)."""
    out = []
    for perm in _orders(values, t):
        order = [0] * len(perm)
        for old, new in enumerate(perm):
            order[new] = old
        out.append(order)
    return out


def consistency_rule_of(t: TemplateSpec, values: dict[str, object]) -> str:
    """The template's rule over the options as this draw shows them."""
    return permute_rule(t.consistency_rule or "", _orders(values, t))


def verify_parts(parts: list[tuple[str, list[str]]], rule: str) -> str | None:
    """Why the parts cannot carry the rule, or None."""
    for text, options in parts:
        if len(set(options)) != len(options):
            return f"two options of {text[:30]!r}… read the same"
    try:
        constraints = parse_rule(rule)
    except ValueError as exc:
        return str(exc)
    for c in constraints:
        if max(c.a, c.b) >= len(parts):
            return f"rule names part {max(c.a, c.b)} but there are {len(parts)} parts"
        n_a, n_b = len(parts[c.a][1]), len(parts[c.b][1])
        if c.kind == "same" and n_a > n_b:
            return f"'same' needs part {c.b} to offer every position of part {c.a}"
        if c.kind == "map":
            if len(c.sets) != n_a:
                return (
                    f"map:{c.a}{c.b} lists {len(c.sets)} sets for the {n_a} options of part {c.a}"
                )
            top = max((max(s) for s in c.sets if s), default=-1)
            if top >= n_b:
                return f"map:{c.a}{c.b} names option {top} of part {c.b}, which has {n_b}"
    return None


def _sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    instance = scenario_instance(rng, spec, t, shuffle=False)
    instance.choices = None
    # Each part's option order, so that neither keeping part 0's position nor
    # switching away from it is consistent more often than chance.
    orders = []
    for p in t.parts:
        n = len(p.options)
        if p.order == "shuffle":
            perm = [int(i) for i in rng.permutation(n)]
        elif p.order == "reverse" and rng.random() < 0.5:
            perm = list(range(n))[::-1]
        else:
            perm = list(range(n))
        orders.append(",".join(str(i) for i in perm))
    instance.fields[ORDER_FIELD] = ";".join(orders)
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
