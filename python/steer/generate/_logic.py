"""Logic and completeness: syllogisms (1.4.a), conditional syllogisms (1.4.b),
equivalent conditionals (1.4.c) and completeness of preferences (2.1.a, 2.3.a).

Each structure decides its answer with a small exact evaluator written here:
categorical syllogisms by brute force over every set model of three non-empty
terms (which of the 7 Venn regions are inhabited), conditionals by truth
tables over the two propositions, completeness by the fact that a complete
preference relation ranks any two alternatives one way or the other (or
both: indifference). The options are then stored as sure amounts (the valid
one worth 1, the others 0) so that `best_stored_option` proves the key from
the payload, as `preference_chain` does. Every option carries the error it
stands for in `data["errors"]`; the distractors below read it back.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np

from steer.generate import _solvers  # noqa: F401  (best_stored_option is registered there)
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    StructureKind,
    distractor,
    register_structure,
)
from steer.templates._model import GradeSpec, TemplateSpec

CANNOT_TELL = "Nothing follows: it cannot be determined from the premises"

# --- categorical syllogisms -------------------------------------------------------------

FORMS = ("all", "some", "no", "some_not")
S, M, P = 0, 1, 2
REGIONS = range(1, 8)  # bit t set: inside term t


def models() -> list[frozenset[int]]:
    """Every set model: the inhabited Venn regions, each of the three terms non-empty."""
    out = []
    for bits in range(1 << 7):
        inhabited = frozenset(r for k, r in enumerate(REGIONS) if bits >> k & 1)
        if all(any(r >> t & 1 for r in inhabited) for t in (S, M, P)):
            out.append(inhabited)
    return out


MODELS = models()


def holds(form: str, x: int, y: int, model: frozenset[int]) -> bool:
    inside = [r for r in model if r >> x & 1]
    if form == "all":
        return all(r >> y & 1 for r in inside)
    if form == "some":
        return any(r >> y & 1 for r in inside)
    if form == "no":
        return not any(r >> y & 1 for r in inside)
    return any(not r >> y & 1 for r in inside)


def follows(premises: list[list[object]], conclusion: list[object]) -> bool:
    """True when the conclusion holds in every model where all premises hold."""
    key = tuple((str(f), int(a), int(b)) for f, a, b in premises)  # type: ignore[call-overload]
    form, x, y = conclusion
    return _follows(key, (str(form), int(x), int(y)))  # type: ignore[call-overload]


@functools.lru_cache(maxsize=4096)
def _follows(premises: tuple[tuple[str, int, int], ...], conclusion: tuple[str, int, int]) -> bool:
    # Cached: there are only a few thousand premise/conclusion combinations,
    # and each check walks every model.
    form, x, y = conclusion
    return all(
        holds(form, x, y, m) for m in MODELS if all(holds(f, a, b, m) for f, a, b in premises)
    )


def _sentence(form: str, x: str, y: str) -> str:
    return {
        "all": f"All {x} are {y}",
        "some": f"Some {x} are {y}",
        "no": f"No {x} are {y}",
        "some_not": f"Some {x} are not {y}",
    }[form]


def _middle_distributed(premises: list[list[object]]) -> bool:
    """A term is distributed as the subject of All/No and the predicate of No/Some-not."""
    for form, x, y in premises:
        if (x == M and form in ("all", "no")) or (y == M and form in ("no", "some_not")):
            return True
    return False


def syllogism_error(premises: list[list[object]], conclusion: list[object]) -> str:
    """Why an invalid conclusion tempts: a converted premise would make it valid,
    or the middle term is undistributed; otherwise the form it overstates."""
    for k, (form, x, y) in enumerate(premises):
        if form in ("all", "some_not"):
            converted = [list(p) for p in premises]
            converted[k] = [form, y, x]
            if follows(converted, conclusion):
                return "illicit_conversion"
    if not _middle_distributed(premises) and conclusion[0] in {p[0] for p in premises}:
        return "undistributed_middle"
    return f"unsupported_{conclusion[0]}"


def _syllogism(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    pool = list(dict.fromkeys(t.words.get("term", [])))
    names = [pool[int(i)] for i in rng.choice(len(pool), size=3, replace=False)]
    major = [FORMS[int(rng.integers(4))], *([M, P] if rng.integers(2) else [P, M])]
    minor = [FORMS[int(rng.integers(4))], *([S, M] if rng.integers(2) else [M, S])]
    premises: list[list[object]] = [major, minor]
    conclusions: list[list[object]] = [[f, S, P] for f in FORMS]
    valid = [follows(premises, c) for c in conclusions]
    # a universal conclusion implies its particular one: keep the strongest only
    weaker = {"some": "all", "some_not": "no"}
    holding = {str(c[0]) for c, v in zip(conclusions, valid, strict=True) if v}
    strongest = [c for c in conclusions if c[0] in holding and weaker.get(str(c[0])) not in holding]
    if len(strongest) > 1:
        raise Resample("two independent valid conclusions")
    if not strongest and rng.random() < 0.8:
        raise Resample("keep 'nothing follows' a minority of the questions")
    errors = {
        str(c[0]): syllogism_error(premises, c)
        for c, v in zip(conclusions, valid, strict=True)
        if not v
    }
    wrong = list(errors)
    # distinct error tags: a repeated specific error falls back to the form's own tag
    seen: set[str] = set()
    for form in wrong:
        if errors[form] in seen:
            errors[form] = f"unsupported_{form}"
        seen.add(errors[form])
    keep = spec.size - 2 if strongest else spec.size - 1
    if len(wrong) < keep:
        raise Resample("not enough invalid conclusions")
    picked = [wrong[int(i)] for i in sorted(rng.choice(len(wrong), size=keep, replace=False))]
    options = [(f, errors[f]) for f in picked]
    if strongest:
        options.append((str(strongest[0][0]), "key"))
    order = [int(i) for i in rng.permutation(len(options))]
    options = [options[i] for i in order]
    texts = [_sentence(f, names[S], names[P]) for f, _ in options] + [CANNOT_TELL]
    tags = [e for _, e in options] + ["key" if not strongest else "missed_valid_conclusion"]
    words = [names[int(x)] for x in (0, 1, 2)]
    sentences = [_sentence(str(f), words[int(x)], words[int(y)]) for f, x, y in premises]
    data = {
        "terms": words,
        "premises": [{"form": f, "subject": x, "predicate": y} for f, x, y in premises],
        "conclusions": [{"form": f, "subject": S, "predicate": P} for f, _ in options]
        + [{"form": "none", "subject": S, "predicate": P}],
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    fields = {
        "premises": " ".join(s + "." for s in sentences),
        "subject": names[S],
        "predicate": names[P],
        "middle": names[M],
        "n_choices": str(len(texts)),
    }
    return Instance(data=data, fields=fields, choices=texts)


def _check_syllogism(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if len(set(t.words.get("term", []))) < 3:
        return "a syllogism needs words.term with at least 3 distinct plural nouns"
    if not 3 <= spec.size <= 4:
        return "a syllogism offers 3 or 4 choices (size)"
    return None


register_structure(
    StructureKind(
        "syllogism",
        ("premises", "subject", "predicate", "middle", "n_choices"),
        _syllogism,
        _check_syllogism,
        "two categorical premises; which conclusion about subject and predicate follows",
    )
)

# --- conditionals -----------------------------------------------------------------------

# A literal is [variable, truth]: [0, True] is p, [1, False] is not q.
ROWS = list(itertools.product((True, False), repeat=2))


def implies(premises: list[list[list[object]]], conclusion: list[object]) -> bool:
    """Premises are conditionals [antecedent, consequent] or facts [literal]; the
    conclusion is a literal. True when every truth row meeting the premises meets it."""

    def lit(lv: list[object], row: tuple[bool, bool]) -> bool:
        return row[int(lv[0])] == bool(lv[1])  # type: ignore[call-overload]

    def ok(prem: list[list[object]], row: tuple[bool, bool]) -> bool:
        if len(prem) == 2:
            return (not lit(prem[0], row)) or lit(prem[1], row)
        return lit(prem[0], row)

    return all(lit(conclusion, row) for row in ROWS if all(ok(p, row) for p in premises))


def equivalent(a: list[list[object]], b: list[list[object]]) -> bool:
    """Two conditionals with the same truth table."""

    def value(c: list[list[object]], row: tuple[bool, bool]) -> bool:
        (va, ta), (vb, tb) = c
        return (row[int(va)] != bool(ta)) or (row[int(vb)] == bool(tb))  # type: ignore[call-overload]

    return all(value(a, row) == value(b, row) for row in ROWS)


def literal_name(literal: list[object]) -> str:
    """[0, True] -> 'p', [1, False] -> 'not q' (as stored in payloads)."""
    name = "pq"[int(literal[0])]  # type: ignore[call-overload]
    return name if literal[1] else f"not {name}"


def _rule(rng: np.random.Generator, t: TemplateSpec) -> list[str]:
    rules = list(dict.fromkeys(t.words.get("rule", [])))
    parts = rules[int(rng.integers(len(rules)))].split("|")
    return [p.strip() for p in parts]  # p, not p, q, not q


def _clause(parts: list[str], literal: list[object]) -> str:
    return parts[2 * int(literal[0]) + (0 if literal[1] else 1)]  # type: ignore[call-overload]


FACT_ERRORS = {
    # (fact is about q?, fact is true?) -> name of the tempting invalid inference
    (True, True): "affirming_the_consequent",
    (False, False): "denying_the_antecedent",
}


def _conditional(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    parts = _rule(rng, t)
    rule = [[0, True], [1, True]]
    about_q, truth = bool(rng.integers(2)), bool(rng.integers(2))
    fact = [1 if about_q else 0, truth]
    asked = 0 if about_q else 1
    premises = [rule, [fact]]
    candidates: list[list[object]] = [[asked, True], [asked, False]]
    valid = [implies(premises, c) for c in candidates]
    texts, tags, conclusions = [], [], []
    for c, v in zip(candidates, valid, strict=True):
        texts.append(f"{_clause(parts, c)[:1].upper()}{_clause(parts, c)[1:]}")
        conclusions.append(c)
        if v:
            tags.append("key")
        elif not any(valid) and c[1] == truth:
            tags.append(FACT_ERRORS[(about_q, truth)])
        elif any(valid):
            tags.append("contradicts_the_rule")
        else:
            tags.append("unsupported_negation")
    texts.append(CANNOT_TELL)
    conclusions.append(None)
    tags.append("missed_valid_conclusion" if any(valid) else "key")
    order = [int(i) for i in rng.permutation(2)] + [2]
    texts, tags, conclusions = ([x[i] for i in order] for x in (texts, tags, conclusions))
    data = {
        "rule": {"if": "p", "then": "q"},
        "fact": literal_name(fact),
        "conclusions": ["none" if c is None else literal_name(c) for c in conclusions],
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    fields = {
        "if_part": parts[0],
        "then_part": parts[2],
        "fact": _clause(parts, fact),
        "asked": parts[2 * asked],
        "n_choices": str(len(texts)),
    }
    return Instance(data=data, fields=fields, choices=texts)


def _check_rule(spec: GradeSpec, t: TemplateSpec) -> str | None:
    rules = t.words.get("rule", [])
    if not rules or any(len(r.split("|")) != 4 for r in rules):
        return "words.rule needs entries 'p | not p | q | not q'"
    return None


register_structure(
    StructureKind(
        "conditional_syllogism",
        ("if_part", "then_part", "fact", "asked", "n_choices"),
        _conditional,
        _check_rule,
        "if p then q, plus a fact about p or q; what follows about the other",
    )
)

EQUIV_FORMS = {
    # a conditional built from the rule 'if p then q'
    "contrapositive": [[1, False], [0, False]],
    "illicit_conversion": [[1, True], [0, True]],  # the converse
    "denying_the_antecedent": [[0, False], [1, False]],  # the inverse
    "negation_misplaced": [[1, False], [0, True]],
}


def _equivalence(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    parts = _rule(rng, t)
    rule = [[0, True], [1, True]]
    names = list(EQUIV_FORMS)
    order = [names[int(i)] for i in rng.permutation(len(names))]
    conditionals = [EQUIV_FORMS[n] for n in order]
    tags = ["key" if equivalent(rule, c) else n for n, c in zip(order, conditionals, strict=True)]
    texts = [f"If {_clause(parts, a)}, then {_clause(parts, b)}" for a, b in conditionals]
    data = {
        "rule": {"if": "p", "then": "q"},
        "conditionals": [{"if": literal_name(a), "then": literal_name(b)} for a, b in conditionals],
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    fields = {"if_part": parts[0], "then_part": parts[2], "n_choices": str(len(texts))}
    return Instance(data=data, fields=fields, choices=texts)


register_structure(
    StructureKind(
        "equivalent_conditional",
        ("if_part", "then_part", "n_choices"),
        _equivalence,
        _check_rule,
        "if p then q; which other conditional says the same",
    )
)

# --- completeness -----------------------------------------------------------------------

# What the agent says, as (A at least as good as B?, B at least as good as A?);
# None when the statement leaves that direction unsaid. Grade 1 states both
# directions; grade 2 states only the negations, so completeness must fill in.
STATEMENTS_1 = {
    (True, True): "{a} is at least as good as {b}, and {b} is at least as good as {a}",
    (True, False): "{a} is at least as good as {b}, but {b} is not at least as good as {a}",
}
STATEMENTS_2 = {
    (True, True): "neither of {a} and {b} is strictly better than the other",
    (True, False): "{b} is not at least as good as {a}",
}


def judgement(relation: list[bool]) -> int:
    """0: first preferred, 1: second preferred, 2: indifferent; completeness
    means at least one direction of 'at least as good as' holds."""
    ab, ba = relation
    if ab and ba:
        return 2
    if ab:
        return 0
    if ba:
        return 1
    raise AssertionError("complete preferences rank every pair")


def _lottery_text(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> list[str]:
    from steer.generate._format import amount, percent

    steps = int((spec.high - spec.low) // spec.step) + 1
    grid = sorted(spec.low + spec.step * float(k) for k in rng.choice(steps, size=4, replace=False))
    out = []
    for lo, hi in ((grid[1], grid[2]), (grid[0], grid[3])):  # neither dominates the other
        p = int(rng.integers(2, 19)) * 0.05
        out.append(
            f"{amount(hi, t.unit, t.decimals)} with probability {percent(p)}, "
            f"otherwise {amount(lo, t.unit, t.decimals)}"
        )
    return out


def _completeness(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    if "item" in t.words:
        pool = list(dict.fromkeys(t.words["item"]))
        names = [pool[int(i)] for i in rng.choice(len(pool), size=2, replace=False)]
        menu = ""
    else:
        label = t.words.get("label", ["Lottery"])[0]
        names = [f"{label} A", f"{label} B"]
        texts = _lottery_text(rng, spec, t)
        menu = "; ".join(f"{n} pays {x}" for n, x in zip(names, texts, strict=True))
    table = STATEMENTS_1 if spec.size <= 1 else STATEMENTS_2
    # indifference a third of the time, each strict preference a third
    kind = (True, True) if rng.random() < 1 / 3 else (True, False)
    first, second = (0, 1) if rng.integers(2) else (1, 0)  # who is named first in the statement
    statement = table[kind].format(a=names[first], b=names[second])
    relation = [True, True] if kind == (True, True) else [first == 0, first == 1]
    key = judgement(relation)
    options = [
        f"{names[0]} is strictly preferred to {names[1]}",
        f"{names[1]} is strictly preferred to {names[0]}",
        f"{names[0]} and {names[1]} are equally good (indifference)",
        "The two cannot be compared, so no preference can be stated",
    ]
    options = [o[:1].upper() + o[1:] for o in options]
    tags = ["reversed_preference"] * 2 + ["assumed_indifference_pair", "incomparability"]
    if key != 2:
        tags[2] = "assumed_indifference_pair"
    else:
        tags[0], tags[1] = "strict_from_indifference", "strict_from_indifference_reversed"
    tags[key] = "key"
    data = {
        "names": names,
        "relation": relation,
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    fields = {
        "statement": statement,
        "first": names[0],
        "second": names[1],
        "menu": menu,
        "n_choices": str(len(options)),
    }
    return Instance(data=data, fields=fields, choices=options)


def _check_completeness(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if "item" in t.words and len(set(t.words["item"])) < 2:
        return "words.item needs at least 2 distinct alternatives"
    if "item" not in t.words and (spec.high - spec.low) // spec.step < 3:
        return "the grade's amount range is too narrow for four distinct prizes"
    return None


register_structure(
    StructureKind(
        "preference_pair",
        ("statement", "first", "second", "menu", "n_choices"),
        _completeness,
        _check_completeness,
        "a preference statement about two alternatives that completeness settles",
    )
)

# The options are stored as sure amounts, so best_stored_option (which lists
# these structures in _solvers) proves the key from the payload.


def _lookup(name: str) -> None:
    def make(instance: Instance, _solution: Solution) -> int | None:
        errors = instance.data.get("errors", [])
        return errors.index(name) if name in errors else None

    make.__doc__ = f"The option stored with error {name!r}: the tempting wrong answer it names."
    distractor(name, "choice")(make)


LOGIC_ERRORS = (
    "illicit_conversion",
    "undistributed_middle",
    "unsupported_all",
    "unsupported_some",
    "unsupported_no",
    "unsupported_some_not",
    "missed_valid_conclusion",
    "affirming_the_consequent",
    "denying_the_antecedent",
    "contradicts_the_rule",
    "unsupported_negation",
    "negation_misplaced",
    "reversed_preference",
    "assumed_indifference_pair",
    "strict_from_indifference",
    "strict_from_indifference_reversed",
    "incomparability",
)
for _name in LOGIC_ERRORS:
    _lookup(_name)
