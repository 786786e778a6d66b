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

from steer._draws import sample, sample_of
from steer.generate import _solvers  # noqa: F401  (best_stored_option is registered there)
from steer.generate._optimization import NAME_TAGS
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

SYLLOGISM_FORMS = ("all", "some", "no", "some_not")
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


# Premises are worded in several ways, conclusions in one: a blind reader
# cannot match a conclusion to the premises by their shared quantifier words.
PREMISE_WORDINGS = {
    "all": (
        "All {x} are {y}",
        "Every one of the {x} is among the {y}",
        "{X} are, without exception, {y}",
    ),
    "some": (
        "Some {x} are {y}",
        "At least one of the {x} is among the {y}",
        "There are {x} who are also {y}",
    ),
    "no": (
        "No {x} are {y}",
        "{X} and {y} have no members in common",
        "Not a single one of the {x} is among the {y}",
    ),
    "some_not": (
        "Some {x} are not {y}",
        "Not all {x} are {y}",
        "At least one of the {x} is not among the {y}",
    ),
}


def _premise_sentence(rng: np.random.Generator, form: str, x: str, y: str) -> tuple[str, str]:
    """The premise as a sentence for the stem and as a clause for the
    explanation ("that no x are y"), so an explanation never pastes whole
    sentences, full stops and all, into its own sentence."""
    wordings = PREMISE_WORDINGS[form]
    text = wordings[int(rng.integers(len(wordings)))]
    clause = text[:1].lower() + text[1:]
    return text.format(x=x, y=y, X=x[:1].upper() + x[1:]), clause.format(x=x, y=y, X=x)


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


def _strongest(premises: list[list[object]]) -> list[list[object]]:
    """The valid conclusions about S and P, a universal one standing for its
    particular one too."""
    conclusions: list[list[object]] = [[f, S, P] for f in SYLLOGISM_FORMS]
    holding = {str(c[0]) for c in conclusions if follows(premises, c)}
    weaker = {"some": "all", "some_not": "no"}
    return [c for c in conclusions if c[0] in holding and weaker.get(str(c[0])) not in holding]


@functools.cache
def _premise_pairs() -> dict[str, list[tuple[tuple[object, ...], tuple[object, ...]]]]:
    """Every major/minor premise pair with one answer, grouped by that answer
    (a conclusion form, or "none" when nothing follows)."""
    out: dict[str, list[tuple[tuple[object, ...], tuple[object, ...]]]] = {}
    for f1, f2 in itertools.product(SYLLOGISM_FORMS, repeat=2):
        for major in ((f1, M, P), (f1, P, M)):
            for minor in ((f2, S, M), (f2, M, S)):
                strongest = _strongest([list(major), list(minor)])
                if len(strongest) <= 1:
                    answer = str(strongest[0][0]) if strongest else "none"
                    out.setdefault(answer, []).append((major, minor))
    return out


@functools.cache
def _answer_rates() -> dict[str, float]:
    """How often each answer is the key: "none" a quarter, the rest in
    proportion to the premise pairs that prove it."""
    pairs = _premise_pairs()
    valid = sum(len(v) for a, v in pairs.items() if a != "none")
    return {a: 0.25 if a == "none" else 0.75 * len(v) / valid for a, v in pairs.items()}


def _syllogism(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    pool = list(dict.fromkeys(t.words.get("term", [])))
    names = sample_of(rng, pool, 3)
    # "Nothing follows" is the key in one question in four (one in n of the
    # four options); otherwise a premise pair with a valid conclusion is drawn
    # uniformly. (Drawing each conclusion form equally often would repeat the
    # one premise pair that proves "All": its premises would give it away.)
    pairs = _premise_pairs()
    if rng.random() < 0.25:
        answer = "none"
    else:
        valid = [(a, pr) for a in sorted(pairs) if a != "none" for pr in pairs[a]]
        answer = valid[int(rng.integers(len(valid)))][0]
    major, minor = pairs[answer][int(rng.integers(len(pairs[answer])))]
    premises: list[list[object]] = [list(major), list(minor)]
    # Wrong answers: the conclusions that do not follow (a valid weaker one,
    # "Some" beside a valid "All", is never offered).
    errors = {
        f: syllogism_error(premises, [f, S, P])
        for f in SYLLOGISM_FORMS
        if not follows(premises, [f, S, P])
    }
    # distinct error tags: a repeated specific error falls back to the form's own tag
    seen: set[str] = set()
    for form in errors:
        if errors[form] in seen:
            errors[form] = f"unsupported_{form}"
        seen.add(errors[form])
    if answer != "none":
        errors["none"] = "missed_valid_conclusion"
    wrong = sorted(errors)
    if len(wrong) < spec.size - 1:
        raise Resample("not enough invalid conclusions")
    # Offer each wrong answer about as often as that answer is the key, so that
    # every offered answer is the key about one time in n ("All" is rarely
    # valid, so it is rarely offered either).
    rates = np.array([_answer_rates()[f] for f in wrong])
    keep = spec.size - 1
    picked = wrong
    while len(picked) > keep:  # leave out the rarest answers most often
        left_out = np.clip(1 - keep * rates / rates.sum(), 1e-3, None)
        drop = int(rng.choice(len(picked), p=left_out / left_out.sum()))
        picked = picked[:drop] + picked[drop + 1 :]
        rates = np.delete(rates, drop)
    options = [(f, errors[f]) for f in picked] + [(answer, "key")]
    options = [options[int(i)] for i in rng.permutation(len(options))]
    texts = [CANNOT_TELL if f == "none" else _sentence(f, names[S], names[P]) for f, _ in options]
    tags = [e for _, e in options]
    words = [names[int(x)] for x in (0, 1, 2)]
    sentences, clauses = zip(
        *(_premise_sentence(rng, str(f), words[int(x)], words[int(y)]) for f, x, y in premises),
        strict=True,
    )
    data = {
        "terms": words,
        "premises": [{"form": f, "subject": x, "predicate": y} for f, x, y in premises],
        "conclusions": [{"form": f, "subject": S, "predicate": P} for f, _ in options],
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    fields = {
        "premises": " ".join(s + "." for s in sentences),
        "given": " and that ".join(clauses),  # "no x are y and that all z are x"
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
        ("premises", "given", "subject", "predicate", "middle", "n_choices"),
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


def _rule(rng: np.random.Generator, t: TemplateSpec) -> tuple[list[str], list[str]]:
    """The clauses p, not p, q, not q of one rule; each proposition is stated
    in its positive or its negative form at random ("if the order does not
    ship today, then ..."), so that no option's count of negations tells the
    valid one apart. Returns the clauses as stated and as written (positive
    first), the latter for asking "whether q"."""
    rules = list(dict.fromkeys(t.words.get("rule", [])))
    written = [p.strip() for p in rules[int(rng.integers(len(rules)))].split("|")]
    parts = list(written)
    if rng.integers(2):
        parts[0], parts[1] = parts[1], parts[0]
    if rng.integers(2):
        parts[2], parts[3] = parts[3], parts[2]
    return parts, written  # p, not p, q, not q


def _rule_clause(parts: list[str], literal: list[object]) -> str:
    return parts[2 * int(literal[0]) + (0 if literal[1] else 1)]  # type: ignore[call-overload]


FACT_ERRORS = {
    # (fact is about q?, fact is true?) -> name of the tempting invalid inference
    (True, True): "affirming_the_consequent",
    (False, False): "denying_the_antecedent",
}


def _conditional(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    parts, written = _rule(rng, t)
    rule = [[0, True], [1, True]]
    # Modus ponens and tollens (something follows) in two draws of three,
    # affirming the consequent and denying the antecedent (nothing follows) in
    # one: with three options each answer is the key about equally often.
    valid_form = rng.random() < 2 / 3
    about_q = bool(rng.integers(2))
    truth = about_q != valid_form  # p true (ponens) or q false (tollens) when valid
    fact = [1 if about_q else 0, truth]
    asked = 0 if about_q else 1
    premises = [rule, [fact]]
    candidates: list[list[object]] = [[asked, True], [asked, False]]
    valid = [implies(premises, c) for c in candidates]
    texts, tags, conclusions = [], [], []
    for c, v in zip(candidates, valid, strict=True):
        texts.append(f"{_rule_clause(parts, c)[:1].upper()}{_rule_clause(parts, c)[1:]}")
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
        "fact": _rule_clause(parts, fact),
        "asked": written[2 * asked],  # "whether q", in q's positive wording
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
    # One part negated: only the antecedent ('if not q then p', or 'if not p
    # then q') or only the consequent ('if q then not p', or 'if p then not q').
    "negation_misplaced": [[1, False], [0, True]],
    "negated_consequent_only": [[1, True], [0, False]],
}
# Two conditionals over the same two propositions have one of four truth
# tables; the converse and the inverse share one, so a menu shows only one of
# them (else a solver rules both out as a pair without finding the key).
SAME_TABLE = ("illicit_conversion", "denying_the_antecedent")


# How a conditional "if A then B" is worded: as such, as "A only if B", or as
# "B if A" (its parts in the other order). The disjunction "not A or B" is
# left out: turning a conditional into one is another skill than the
# contrapositive's. Stem and options are worded at random, so neither the
# key's wording nor which part it names first points at it.
WORDINGS = ("if", "only_if", "then_first")
# Options may also say "X unless Y" ("if not Y, then X"): "B unless not A", or
# "not A unless B". In the three wordings above an option equivalent to the
# rule repeats both or none of the stem's clauses word for word, and a wrong
# one exactly one, so counting repeated clauses found the key half the time
# (chance a quarter; the learner +0.09 to +0.14). "Unless" turns those
# counts round (an equivalent option repeats one clause), and every option
# takes it half the time, so the count tells nothing.
UNLESS = ("unless", "unless_first")


def _negated(literal: list[object]) -> list[object]:
    return [literal[0], not literal[1]]


def _worded(parts: list[str], conditional: list[list[object]], wording: str) -> str:
    a, b = conditional
    if wording == "if":
        text = f"If {_rule_clause(parts, a)}, then {_rule_clause(parts, b)}"
    elif wording == "only_if":
        text = f"{_rule_clause(parts, a)} only if {_rule_clause(parts, b)}"
    elif wording == "unless":
        text = f"{_rule_clause(parts, b)} unless {_rule_clause(parts, _negated(a))}"
    elif wording == "unless_first":
        text = f"{_rule_clause(parts, _negated(a))} unless {_rule_clause(parts, b)}"
    else:
        text = f"{_rule_clause(parts, b)} if {_rule_clause(parts, a)}"
    return text[:1].upper() + text[1:]


def _option_wording(rng: np.random.Generator, otherwise: str | None = None) -> str:
    """An option's wording: "unless" (either order) half the time, else
    `otherwise`, or one of WORDINGS drawn."""
    if rng.integers(2):
        return UNLESS[int(rng.integers(2))]
    return otherwise if otherwise is not None else WORDINGS[int(rng.integers(3))]


def _either_way(rng: np.random.Generator, form: list[list[object]]) -> list[list[object]]:
    """A half-negated swap as drawn or as its own contrapositive (the same
    truth table), so that which proposition an option opens with tells nothing."""
    half = (EQUIV_FORMS["negation_misplaced"], EQUIV_FORMS["negated_consequent_only"])
    if form in half and rng.integers(2):
        a, b = form
        return [[b[0], not b[1]], [a[0], not a[1]]]
    return form


def _equivalence(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    parts, _ = _rule(rng, t)
    rule = [[0, True], [1, True]]
    # The key is the contrapositive, or the rule itself between "if" and "only
    # if" (what "only if" means is the contrapositive: "p only if q" says "if
    # not q, then not p"); never the stem's words reordered ("q if p"). A key
    # that negates both parts stands beside the inverse, which does too, and
    # one that negates neither beside the converse, so no option stands out by
    # how many of the stem's clauses it repeats. The other two options are the
    # two remaining truth tables: no two options say the same thing.
    stated = WORDINGS[int(rng.integers(3))]
    if rng.integers(2):
        key = EQUIV_FORMS["contrapositive"]
        # Not "only if": the rule-type key already takes that wording in two
        # draws of three, and each wording is the key's one time in three.
        wording = ("if", "then_first")[int(rng.integers(2))]
        shared = "denying_the_antecedent"
    else:
        key = rule
        wording = "only_if" if stated != "only_if" else ("if", "then_first")[int(rng.integers(2))]
        shared = "illicit_conversion"
    options = [("key", key, _option_wording(rng, wording))] + [
        (name, _either_way(rng, form), _option_wording(rng))
        for name, form in EQUIV_FORMS.items()
        if name != "contrapositive" and (name not in SAME_TABLE or name == shared)
    ]
    # An "unless" key reads "not p unless q" (the contrapositive spelled out)
    # or "q unless not p" (the rule restated) at random: keying only the
    # first made its texts recur as keys, and the key-text prior beat chance
    # by 0.20-0.29 (seeds 20-26).
    key_wording = options[0][2]
    options = [options[int(i)] for i in rng.permutation(len(options))]
    tags = ["key" if equivalent(rule, c) else n for n, c, _ in options]
    texts = [_worded(parts, c, w) for _, c, w in options]
    data = {
        "rule": {"if": "p", "then": "q", "wording": stated},
        "conditionals": [
            {"if": literal_name(a), "then": literal_name(b), "wording": w}
            for (_, (a, b), w) in options
        ],
        "errors": ["" if e == "key" else e for e in tags],
        "lotteries": [{"values": [1.0 if e == "key" else 0.0], "probs": [1.0]} for e in tags],
    }
    rule_text = _worded(parts, rule, stated)
    # Why the key says what the rule says (a reader took "here that is: the
    # rule reworded" for a claim that the rewording is the contrapositive).
    if key_wording in UNLESS and (key_wording == "unless_first") == (key is rule):
        reason = (
            '"X unless Y" says "if not Y, then X": here that is the contrapositive of the '
            "rule (both parts swapped and negated), which is true in exactly the same cases"
        )
    elif key_wording in UNLESS:
        reason = '"X unless Y" says "if not Y, then X": here that is the rule itself'
    elif key is rule:
        reason = (
            '"p only if q" says that p never holds without q (if not q, then not p), '
            'which is the contrapositive of "if p, then q": the rule worded the other '
            "way says the same"
        )
    else:
        reason = (
            "A conditional is true in exactly the same cases as its contrapositive, "
            "which swaps the two parts and negates both"
        )
    fields = {
        "reason": reason,
        "if_part": parts[0],
        "then_part": parts[2],
        "rule": rule_text[:1].lower() + rule_text[1:],
        "Rule": rule_text,
        "n_choices": str(len(texts)),
    }
    return Instance(data=data, fields=fields, choices=texts)


register_structure(
    StructureKind(
        "equivalent_conditional",
        ("reason", "if_part", "then_part", "rule", "Rule", "n_choices"),
        _equivalence,
        _check_rule,
        "if p then q; which other conditional says the same",
    )
)

# --- completeness -----------------------------------------------------------------------

# The agent's statement is a set of facts about "at least as good as" (>=) between
# the two alternatives, each one a negation, so that the facts alone always leave
# room for the two being incomparable: only completeness (at least one of
# a >= b, b >= a holds) turns them into a ranking. Facts are [kind, i, j]:
# "not_ge" (i is not at least as good as j), "not_gt" (i is not strictly better
# than j), "not_eq" (the two are not equally good). The four relations two
# alternatives can stand in are "gt" (0 strictly better), "lt" (1 strictly
# better), "eq" (indifference) and "none" (incomparable).
RELATIONS = ("gt", "lt", "eq", "none")
# Statement forms per grade and answer: the ranking is "strict" (the named
# first alternative `a` strictly better), "indifferent", or "open" (the facts
# fit two complete rankings, so which one holds cannot be determined).
FORMS: dict[int, dict[str, list[list[object]]]] = {
    1: {
        "strict": [["not_ge", "b", "a"]],
        "indifferent": [["not_gt", "a", "b"], ["not_gt", "b", "a"]],
        "open": [["not_gt", "a", "b"]],
    },
    2: {
        "strict": [["not_gt", "b", "a"], ["not_eq", "a", "b"]],
        "indifferent": [["not_gt", "b", "a"], ["not_gt", "a", "b"]],
        "open": [["not_eq", "a", "b"]],
    },
}
CLAUSES = {
    "not_ge": "{i} is not at least as good as {j}",
    "not_gt": "{i} is not strictly better than {j}",
    "not_eq": "{i} and {j} are not equally good",
}
# Grade 1 says "neither is strictly better than the other" in one clause.
NEITHER = "neither {i} nor {j} is strictly better than the other"
PAIR_OPTIONS = (
    "Strict preference for {x} over {y}",
    "Strict preference for {y} over {x}",
    "Indifference between {x} and {y}",
    "No ranking: the two cannot be compared",
    # Not "it cannot be determined": that is as true without completeness,
    # so a key worded so never needed the axiom (a reader's finding). This
    # one says a ranking holds, which only completeness gives.
    "The two are ranked, but the statement does not settle how",
)
OPEN = 4  # the index of "ranked, but not settled how" among PAIR_OPTIONS


def _ge(relation: str, i: int, j: int) -> bool:
    """Whether alternative i is at least as good as j under `relation`."""
    return relation == "eq" or relation == ("gt" if i == 0 else "lt")


def fact_holds(fact: list[object], relation: str) -> bool:
    kind, i, j = str(fact[0]), int(fact[1]), int(fact[2])  # type: ignore[call-overload]
    if kind == "not_ge":
        return not _ge(relation, i, j)
    if kind == "not_gt":
        return not (_ge(relation, i, j) and not _ge(relation, j, i))
    return relation != "eq"


def rankings(facts: list[list[object]]) -> list[str]:
    """The complete rankings (gt, lt, eq) that fit every fact."""
    return [r for r in RELATIONS[:3] if all(fact_holds(f, r) for f in facts)]


def judgement(facts: list[list[object]]) -> int:
    """The option that follows: 0/1 strict, 2 indifference, 4 cannot be determined."""
    fitting = rankings(facts)
    if not fitting:
        raise AssertionError("the statement contradicts every complete ranking")
    return RELATIONS.index(fitting[0]) if len(fitting) == 1 else OPEN


def pair_errors(facts: list[list[object]]) -> list[str]:
    """The error each option stands for ("" for the key): a ranking the facts
    rule out, one they allow but do not force, incomparability (the two cannot
    be compared), or "cannot be determined" when completeness settles it."""
    fitting = rankings(facts)
    key = judgement(facts)
    errors = []
    for k, relation in enumerate(RELATIONS[:3]):
        if relation in fitting:  # allowed, but so is another ranking
            strict = (
                "unwarranted_strict_reversed"
                if k == 1 and "gt" in fitting
                else ("unwarranted_strict")
            )
            errors.append("unwarranted_indifference" if k == 2 else strict)
        elif fitting == ["eq"]:
            errors.append(("strict_from_indifference", "strict_from_indifference_reversed")[k])
        else:
            errors.append("assumed_indifference_pair" if k == 2 else "reversed_preference")
    errors += ["incomparability", "missed_completeness"]
    errors[key] = ""
    return errors


def _clause(fact: list[object], names: list[str]) -> str:
    kind, i, j = str(fact[0]), int(fact[1]), int(fact[2])  # type: ignore[call-overload]
    return CLAUSES[kind].format(i=names[i], j=names[j])


def _lottery_text(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> list[str]:
    from steer.generate._format import amount, percent

    steps = int((spec.high - spec.low) // spec.step) + 1
    grid = sorted(spec.low + spec.step * float(k) for k in sample(rng, steps, 4))
    out = []
    for lo, hi in ((grid[1], grid[2]), (grid[0], grid[3])):  # neither dominates the other
        p = int(rng.integers(2, 19)) * 0.05
        out.append(
            f"{amount(hi, t.unit, t.decimals)} with probability {percent(p)}, "
            f"otherwise {amount(lo, t.unit, t.decimals)}"
        )
    if rng.integers(2):
        out.reverse()
    return out


def _completeness(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    if "item" in t.words:
        pool = list(dict.fromkeys(t.words["item"]))
        names = sample_of(rng, pool, 2)
        menu = ""
    else:
        label = t.words.get("label", ["Lottery"])[0]
        names = [f"{label} {tag}" for tag in NAME_TAGS[:2]]
        texts = _lottery_text(rng, spec, t)
        menu = "; ".join(f"{n} pays {x}" for n, x in zip(names, texts, strict=True))
    # Each answer equally often: either strict ranking, indifference, undetermined.
    kind = ("strict", "strict", "indifferent", "open")[int(rng.integers(4))]
    a = int(rng.integers(2))  # the alternative the statement names as `a`
    where = {"a": a, "b": 1 - a}
    form = FORMS[1 if spec.size <= 1 else 2][kind]
    facts: list[list[object]] = [[f[0], where[str(f[1])], where[str(f[2])]] for f in form]
    if spec.size <= 1 and kind == "indifferent":
        statement = NEITHER.format(i=names[a], j=names[1 - a])
    else:
        clauses = [_clause(f, names) for f in facts]
        if len(facts) == 2 and facts[1][0] == "not_eq":
            clauses[1] = "the two are not equally good"
        statement = (", but " if kind == "strict" else ", and ").join(clauses)
    key = judgement(facts)
    options = [o.format(x=names[0], y=names[1]) for o in PAIR_OPTIONS]
    errors = pair_errors(facts)
    if rng.random() < 0.5:
        # "Cannot be compared" is never right under completeness: offered in
        # half the questions, so a blind rule that avoids it gains little.
        del options[3], errors[3]
    data = {
        "names": names,
        "facts": facts,
        "errors": errors,
        "lotteries": [{"values": [1.0 if not e else 0.0], "probs": [1.0]} for e in errors],
    }
    fields = {
        "statement": statement,
        "first": names[0],
        "second": names[1],
        "menu": menu,
        "n_choices": str(len(options)),
        "reason": _REASON[key].format(x=names[0], y=names[1]),
    }
    return Instance(data=data, fields=fields, choices=options)


# Why the key follows, for the explanation (`{reason}`).
_REASON = {
    0: "one of the two must be at least as good as the other, and only {x} can be",
    1: "one of the two must be at least as good as the other, and only {y} can be",
    2: "one of the two must be at least as good as the other, and neither may be "
    "strictly better, so each is at least as good as the other",
    OPEN: "one of the two must be at least as good as the other, but the statement "
    "fits two different complete rankings",
}


def _check_completeness(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if "item" in t.words and len(set(t.words["item"])) < 2:
        return "words.item needs at least 2 distinct alternatives"
    if "item" not in t.words and (spec.high - spec.low) // spec.step < 3:
        return "the grade's amount range is too narrow for four distinct prizes"
    return None


register_structure(
    StructureKind(
        "preference_pair",
        ("statement", "first", "second", "menu", "n_choices", "reason"),
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
    "negated_consequent_only",
    "reversed_preference",
    "assumed_indifference_pair",
    "strict_from_indifference",
    "strict_from_indifference_reversed",
    "incomparability",
    "missed_completeness",
    "unwarranted_strict",
    "unwarranted_strict_reversed",
    "unwarranted_indifference",
)
for _name in LOGIC_ERRORS:
    _lookup(_name)
