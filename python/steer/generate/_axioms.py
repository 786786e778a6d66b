"""Social welfare functions and the axioms they satisfy (STEER 4.1.a-d).

A `welfare_rules` question lists concrete rules in its stem, as Rule 1, Rule
2, ... (points schemes, weighted majority, dictatorships, a fixed ranking,
unanimity-only, Copeland), and asks which one satisfies, or which one
violates, an axiom; `welfare_rule` lists three rules and asks how many of
them satisfy it. The key comes from `_native.social_axioms`, which checks the
axiom on every profile of ballots, so a verdict is proved for the stated
numbers of voters and alternatives.

Which way a menu asks (satisfies or violates) is drawn per question, half and
half: a rule's description then names the key about as often as it names a
wrong option (in a menu of k, one rule of the asked kind among k - 1 of the
other), so the key cannot be read off the rule texts without the axiom. The
count question draws its answer (0-3) uniformly for the same reason.

Template words: `axiom` (pareto, monotonicity, transitivity, nondictatorship),
`voter_names`, `alternative_names`, `voter_noun` and `alternative_noun`
(plurals). Template vars: `n_voters` and `n_alternatives`. Fields besides the
names: `definition` (the axiom in words), `asked` (what the menu asks: "meets
this condition for every possible set of ballots" or "breaks it for at least
one"; for nondictatorship, whether some voter is a dictator), `asked_short`
("always meets the condition" / "can break the condition").
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from steer import _native
from steer._draws import integers, sample, sample_of
from steer.generate._format import join_and
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    register_solver,
    register_structure,
)
from steer.templates._inflect import possessive
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._vars import Unmet, sample_env, var_specs

AXIOMS = ("pareto", "monotonicity", "transitivity", "nondictatorship")
ASKS = ("satisfies", "violates")
ASKED = {
    "satisfies": "meets this condition for every possible set of ballots",
    "violates": "breaks this condition for at least one possible set of ballots",
}
ASKED_SHORT = {"satisfies": "always meets the condition", "violates": "can break the condition"}
# Nondictatorship is a property of the rule over all sets of ballots at once
# (no voter always wins), not one that a single set of ballots can break.
ASKED_RULE_WIDE = {
    "satisfies": "meets this condition (no voter is a dictator under it)",
    "violates": "breaks this condition (some voter is a dictator under it)",
}
# Counts as numbers: masked alike for a blind reader, none echoes the stem.
COUNTS = ["0 of the 3", "1 of the 3", "2 of the 3", "3 of the 3"]
MAX_PROFILES = 50_000  # the Rust checker's budget, (m!)^n
ORDINALS = ("first", "second", "third", "fourth")

DEFINITIONS = {
    "pareto": "The Pareto condition: whenever every voter ranks one alternative above "
    "another, society must rank it strictly above that other alternative.",
    "monotonicity": "Monotonicity: if a single voter moves one alternative up their "
    "ranking and leaves the order of the others unchanged, that alternative must not "
    "lose ground against any other alternative: if society had it strictly ahead, it "
    "stays strictly ahead, and if the two were tied, it is now tied or ahead.",
    "transitivity": "Transitivity: for every possible set of ballots, whenever society "
    "ranks X at least as high as Y and Y at least as high as Z, it also ranks X at "
    "least as high as Z.",
    "nondictatorship": "A dictator is a voter whose strict preference always wins: for "
    "every possible set of ballots, whenever this voter ranks X above Y, society ranks "
    "X strictly above Y. Nondictatorship holds when no voter is a dictator.",
}

# Which families a rule is expected to satisfy each axiom in: used only to draw
# menus likely to have one answer; the checker decides.
SATISFIES = {
    "pareto": {"points", "majority", "weighted_dictator", "dictator", "unanimity", "copeland"},
    "monotonicity": {
        "points",
        "tied_points",
        "majority",
        "weighted_dictator",
        "dictator",
        "imposed",
        "unanimity",
        "copeland",
    },
    "transitivity": {
        "points",
        "tied_points",
        "non_monotone_points",
        "weighted_dictator",
        "dictator",
        "reversed",
        "imposed",
        "copeland",
    },
    "nondictatorship": {
        "points",
        "tied_points",
        "non_monotone_points",
        "majority",
        "reversed",
        "imposed",
        "unanimity",
        "copeland",
    },
}
FAMILIES = (
    "points",
    "tied_points",
    "non_monotone_points",
    "majority",
    "weighted_dictator",
    "dictator",
    "reversed",
    "imposed",
    "unanimity",
    "copeland",
)

# Rules that single out one voter yet leave no dictator: a count of rules with
# no dictator then needs the definition, not "no rule names a voter" (4.1.d).
NEAR_DICTATORS = ("reversed", "heavy_majority")

Rule = dict[str, Any]  # {"family", "kind", "params"}

# --- drawing rules ----------------------------------------------------------------------------


def _points(rng: np.random.Generator, m: int, family: str) -> list[int]:
    if family == "points":  # strictly decreasing: Borda or a sampled scheme
        if rng.random() < 0.3:
            return list(range(m - 1, -1, -1))
        return sorted(sample(rng, 11, m), reverse=True)
    if family == "tied_points" and rng.random() < 0.4:
        top = int(rng.integers(1, m))  # plurality-like (top 1) to veto-like (top m - 1)
        return [1] * top + [0] * (m - top)
    while True:
        vals = integers(rng, 0, 11, m).tolist()
        if family == "tied_points":
            vals.sort(reverse=True)
            if len(set(vals)) < m and vals[0] > vals[-1]:
                return vals
        elif any(a < b for a, b in itertools.pairwise(vals)):  # a lower place earns more
            return vals


def _weights(rng: np.random.Generator, n: int, dictator: bool, heavy: bool = False) -> list[int]:
    if heavy:  # one voter weighs exactly as much as all the others together
        w = integers(rng, 1, 4, n).tolist()
        top = int(rng.integers(n))
        w[top] = sum(w) - w[top]
        return w
    if not dictator:
        if rng.random() < 0.4:
            return [1] * n
        while True:
            w = integers(rng, 1, 5, n).tolist()
            # No single voter outweighs all the others together.
            if 2 * max(w) <= sum(w):
                return w
    w = integers(rng, 1, 4, n).tolist()
    top = int(rng.integers(n))
    w[top] = sum(w) - w[top] + int(rng.integers(1, 4))
    return w


def _draw_rule(rng: np.random.Generator, family: str, n: int, m: int) -> Rule:
    if family in ("points", "tied_points", "non_monotone_points"):
        kind, params = "scoring", _points(rng, m, family)
    elif family in ("majority", "weighted_dictator", "heavy_majority"):
        kind = "weighted_majority"
        params = _weights(rng, n, family == "weighted_dictator", family == "heavy_majority")
    elif family in ("dictator", "reversed"):
        kind = "dictatorship" if family == "dictator" else "reversed_dictatorship"
        params = [int(rng.integers(n))]
    elif family == "imposed":
        kind, params = "imposed", [int(c) for c in rng.permutation(m)]
    else:
        kind, params = family, []
    return {"family": family, "kind": kind, "params": params}


# Families whose second rule in one menu would be the first renamed: another
# voter's ballot (copied or reversed), another fixed order, a second unanimity
# or head-to-head rule. Every axiom treats voters and alternatives alike, so
# such a pair is one rule listed twice.
RENAMED = ("dictator", "reversed", "imposed", "unanimity", "copeland")


def _families(rng: np.random.Generator, pool: list[str], count: int) -> list[str]:
    """`count` families from `pool`, distinct ones first in a random order; when
    the pool is smaller, further rules come from the families drawn with numbers
    (points, weights), never a second rule of a `RENAMED` family. Redrawing the
    menu instead would tilt the satisfies/violates balance."""
    order = [str(f) for f in rng.permutation(pool)]
    picked = order[:count]
    numbered = [f for f in order if f not in RENAMED]
    if len(picked) < count and not numbered:
        raise Resample(f"{count} rules from {len(pool)} families")
    picked += [numbered[i % len(numbered)] for i in range(count - len(picked))]
    return picked


def _menu(rng: np.random.Generator, axiom: str, ask: str, k: int, n: int, m: int) -> list[Rule]:
    """One rule of the asked kind and k - 1 of the other, from distinct families
    where possible (then the same family with other numbers)."""
    good = [f for f in FAMILIES if (f in SATISFIES[axiom]) == (ask == "satisfies")]
    bad = [f for f in FAMILIES if f not in good]
    picked = [str(rng.choice(good)), *_families(rng, bad, k - 1)]
    rules: list[Rule] = []
    for family in picked:
        for _ in range(20):
            rule = _draw_rule(rng, family, n, m)
            if all((r["kind"], r["params"]) != (rule["kind"], rule["params"]) for r in rules):
                rules.append(rule)
                break
        else:
            raise Resample(f"no distinct {family} rule")
    order = rng.permutation(k)
    return [rules[int(i)] for i in order]


# --- describing rules -------------------------------------------------------------------------


def _describe(rule: Rule, voters: list[str], alts: list[str], t: TemplateSpec) -> str:
    kind, params = rule["kind"], rule["params"]
    ballots = t.words.get("voter_noun", ["voters"])[0]
    things = t.words.get("alternative_noun", ["alternatives"])[0]
    if kind == "scoring":
        places = [f"{p} to its {ORDINALS[i]} choice" for i, p in enumerate(params)]
        return (
            f"Points: every ballot gives {join_and(places)}; the {things} are ranked by "
            "total points, highest first, and equal totals are tied."
        )
    if kind == "weighted_majority":
        tail = (
            f"For each pair of {things} X and Y, X is ranked above Y if more "
            f"{ballots} put X above Y than Y above X; an equal split is a tie."
        )
        if len(set(params)) == 1:
            return f"Simple majority: {tail[:1].lower()}{tail[1:]}"
        shares = join_and([f"{v} {w}" for v, w in zip(voters, params, strict=True)])
        return (
            f"Weighted majority (votes: {shares}): for each pair of {things} X and Y, X "
            "is ranked above Y if the ballots putting X above Y carry more votes in "
            "total than those putting Y above X; equal totals are a tie."
        )
    if kind == "dictatorship":
        return f"The ranking is always exactly {possessive(voters[params[0]])} ballot."
    if kind == "reversed_dictatorship":
        v = possessive(voters[params[0]])
        return (
            f"The ranking is always {v} ballot turned upside down: {v} first "
            "choice goes last, the second choice second to last, and so on."
        )
    if kind == "imposed":
        order = join_and([f"{alts[c]} {ORDINALS[i]}" for i, c in enumerate(params)])
        return f"The ranking is always {order}, whatever the ballots say."
    if kind == "unanimity":
        return (
            f"Of two {things} X and Y, X is ranked above Y if, and only if, every "
            "ballot puts X above Y; otherwise the two are tied."
        )
    return (
        f"Head-to-head: for each pair of {things}, the one more {ballots} put higher "
        "wins the contest (an equal split is a draw); each scores its wins minus its "
        f"losses, and the {things} are ranked by that score, equal scores tied."
    )


def _short(rule: Rule, voters: list[str]) -> str:
    kind, params = rule["kind"], rule["params"]
    if kind == "scoring":
        return "the points rule " + "-".join(map(str, params))
    if kind == "weighted_majority":
        if len(set(params)) == 1:
            return "simple majority"
        return "weighted majority " + "-".join(map(str, params))
    if kind == "dictatorship":
        return f"{possessive(voters[params[0]])} ballot"
    if kind == "reversed_dictatorship":
        return f"{possessive(voters[params[0]])} ballot reversed"
    return {"imposed": "the fixed ranking", "unanimity": "the unanimity-only rule"}.get(
        kind, "the head-to-head score"
    )


# --- structures -------------------------------------------------------------------------------


def _setup(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> dict[str, Any]:
    env = sample_env(rng, t, spec)
    n, m = int(env["n_voters"]), int(env["n_alternatives"])
    if math.factorial(m) ** n > MAX_PROFILES:
        raise Unmet(f"{n} voters over {m} alternatives is too many profiles to check")
    voters = t.words["voter_names"][:n]
    alts = t.words["alternative_names"][:m]
    return {
        "axiom": t.words["axiom"][0],
        "ask": ASKS[int(rng.random() < 0.5)],
        "n": n,
        "m": m,
        "voters": voters,
        "alternatives": alts,
    }


def _fields(d: dict[str, Any]) -> dict[str, str]:
    return {
        "voters": join_and(d["voters"]),
        "alternatives": join_and(d["alternatives"]),
        "n_voters": str(d["n"]),
        "n_alternatives": str(d["m"]),
        "definition": DEFINITIONS[d["axiom"]],
        "asked": (ASKED_RULE_WIDE if d["axiom"] == "nondictatorship" else ASKED)[d["ask"]],
        "asked_short": ASKED_SHORT[d["ask"]],
    }


def _sample_menu(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    d = _setup(rng, spec, t)
    d["rules"] = _menu(rng, d["axiom"], d["ask"], spec.size, d["n"], d["m"])
    d["judge"] = False
    # The rules are listed in the stem and the options name them: a rule's
    # description as an option lets a blind reader learn which texts tend to
    # be keys (the odd one out of a menu) without the axiom.
    fields = _fields(d)
    fields["rules"] = _listed(d["rules"], d, t)
    return Instance(data=d, fields=fields, choices=[f"Rule {i + 1}" for i in range(spec.size)])


def _listed(rules: list[Rule], d: dict[str, Any], t: TemplateSpec) -> str:
    texts = [_describe(r, d["voters"], d["alternatives"], t) for r in rules]
    return "\n".join(f"- Rule {i + 1}. {x}" for i, x in enumerate(texts))


def _sample_count(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Three rules, of which a uniformly drawn number (0-3) are expected to
    satisfy the axiom; the checker decides the key."""
    d = _setup(rng, spec, t)
    d["ask"] = "satisfies"
    want = int(rng.integers(4))
    good = [f for f in FAMILIES if f in SATISFIES[d["axiom"]]]
    bad = [f for f in FAMILIES if f not in SATISFIES[d["axiom"]]]
    picked = [str(f) for f in sample_of(rng, good, want)]
    if d["axiom"] == "nondictatorship" and want and not set(picked) & set(NEAR_DICTATORS):
        picked[0] = str(rng.choice(NEAR_DICTATORS))
    picked += _families(rng, bad, 3 - want)
    rules: list[Rule] = []
    for family in (picked[int(i)] for i in rng.permutation(3)):
        for _ in range(20):
            rule = _draw_rule(rng, family, d["n"], d["m"])
            if all((r["kind"], r["params"]) != (rule["kind"], rule["params"]) for r in rules):
                rules.append(rule)
                break
        else:
            raise Resample(f"no distinct {family} rule")
    d["rules"] = rules
    d["judge"] = True
    fields = _fields(d)
    fields["rules"] = _listed(rules, d, t)
    return Instance(data=d, fields=fields, choices=list(COUNTS))


def _check(spec: GradeSpec, t: TemplateSpec, options: int | None) -> str | None:
    words = t.words
    if words.get("axiom", [""])[0] not in AXIOMS or len(words.get("axiom", [])) != 1:
        return f"words.axiom must be one of {', '.join(AXIOMS)}"
    if "ask" in words:
        return "words.ask is drawn per question now: remove it and use {asked} in the wording"
    if options is not None and spec.size != options:
        return f"size must be {options} (the answers 0-3 for three rules)"
    if options is None and not 2 <= spec.size <= 6:
        return "size (rules offered) must be 2-6"
    specs = var_specs(t, spec)
    for name, lo, hi in (("n_voters", 1, 5), ("n_alternatives", 3, 4)):
        v = specs.get(name)
        values = v if isinstance(v, list) else [] if v is None else [v.low, v.high]
        if not values or not all(lo <= x <= hi and x == int(x) for x in values):
            return f"vars.{name} must be whole numbers in {lo}-{hi}"
    if (
        len(set(words.get("voter_names", []))) < 5
        or len(set(words.get("alternative_names", []))) < 4
    ):
        return "words.voter_names needs 5 distinct names and words.alternative_names 4"
    return None


_FIELDS = ("voters", "alternatives", "n_voters", "n_alternatives", "definition")
_MENU_FIELDS = (*_FIELDS, "asked", "asked_short", "rules")
register_structure(
    StructureKind(
        "welfare_rules",
        _MENU_FIELDS,
        _sample_menu,
        lambda spec, t: _check(spec, t, None),
        "a menu of social welfare functions, one satisfying (or violating) an axiom",
    )
)
register_structure(
    StructureKind(
        "welfare_rule",
        (*_FIELDS, "rules"),
        _sample_count,
        lambda spec, t: _check(spec, t, 4),
        "three social welfare functions: how many satisfy an axiom (none to all three)",
    )
)

# --- solver -----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=16384)
def _verdicts(kind: str, params: tuple[int, ...], n: int, m: int, axiom: str) -> dict[str, Any]:
    # The verdict depends only on the rule, the sizes and the axiom: cache it
    # across draws (menus repeat dictatorships, unanimity, Copeland...).
    return _native.social_axioms(kind, list(params), n, m, [axiom])[axiom]


def _verdict(rule: Rule, d: dict[str, Any]) -> dict[str, Any]:
    return _verdicts(rule["kind"], tuple(rule["params"]), d["n"], d["m"], d["axiom"])


def _ballots(profile: list[list[int]], d: dict[str, Any]) -> str:
    names, alts = d["voters"], d["alternatives"]
    return "; ".join(
        f"{names[i]}: " + " > ".join(alts[c] for c in r) for i, r in enumerate(profile)
    )


def _society(rel: list[list[bool]], x: int, y: int, alts: list[str]) -> str:
    if rel[x][y] and rel[y][x]:
        return f"ties {alts[x]} and {alts[y]}"
    a, b = (x, y) if rel[x][y] else (y, x)
    return f"ranks {alts[a]} above {alts[b]}"


def _why(v: dict[str, Any], d: dict[str, Any]) -> str:
    """The counterexample behind a violation, in words."""
    c, alts, axiom = v["counterexample"], d["alternatives"], d["axiom"]
    if axiom == "nondictatorship":
        return f"{d['voters'][c['voter']]} is a dictator"
    ballots = _ballots(c["profile"], d)
    rel = c["relation"]
    if axiom == "pareto":
        x, y = c["alternatives"]
        return (
            f"with ballots {ballots}, everyone ranks {alts[x]} above {alts[y]}, yet "
            f"society {_society(rel, x, y, alts)}"
        )
    if axiom == "monotonicity":
        x, y = c["alternatives"]
        new = " > ".join(alts[a] for a in c["raised"])
        return (
            f"with ballots {ballots}, society {_society(rel, x, y, alts)}; when "
            f"{d['voters'][c['voter']]} moves {alts[x]} up to {new}, society "
            f"{_society(c['raised_relation'], x, y, alts)}"
        )
    x, y, z = c["alternatives"]
    return (
        f"with ballots {ballots}, society ranks {alts[x]} at least as high as {alts[y]} "
        f"and {alts[y]} at least as high as {alts[z]}, but ranks {alts[z]} strictly "
        f"above {alts[x]}"
    )


def _no_dictator_because(rule: Rule, voters: list[str]) -> str:
    """Why a rule that singles out one voter still has no dictator."""
    w = rule["params"]
    if rule["kind"] == "weighted_majority" and 2 * max(w) == sum(w):
        top = voters[w.index(max(w))]
        others = {2: "the other two both", 3: "the other three all"}.get(
            len(w) - 1, f"the other {len(w) - 1} all"
        )
        return (
            f" ({top} has {max(w)} votes and the others {sum(w) - max(w)} together, so when "
            f"{others} disagree with {top} the pair is tied, not ranked {possessive(top)} way)"
        )
    if rule["kind"] == "reversed_dictatorship":
        v = voters[rule["params"][0]]
        return (
            f" (society ranks X above Y exactly when {v} ranks Y above X, never "
            f"{possessive(v)} way)"
        )
    return ""


def _solve(instance: Instance) -> Solution:
    d = instance.data
    verdicts = [_verdict(r, d) for r in d["rules"]]
    total = math.factorial(d["m"]) ** d["n"]
    lines = []
    for i, (r, v) in enumerate(zip(d["rules"], verdicts, strict=True)):
        what = "satisfies it" if v["satisfied"] else "fails: " + _why(v, d)
        if v["satisfied"] and d["axiom"] == "nondictatorship":
            what += _no_dictator_because(r, d["voters"])
        lines.append(f"Rule {i + 1} ({_short(r, d['voters'])}) {what}.")
    working = f"Each rule was checked on all {total} possible sets of ballots. " + " ".join(lines)
    if d["judge"]:
        choice = sum(bool(v["satisfied"]) for v in verdicts)
        return Solution(
            choice=choice, fields={"working": f"{working} So: {COUNTS[choice].lower()}."}
        )
    want = d["ask"] == "satisfies"
    hits = [i for i, v in enumerate(verdicts) if v["satisfied"] == want]
    if len(hits) != 1:
        raise Resample(f"{len(hits)} rules {d['ask']} {d['axiom']}")
    key = f"Rule {hits[0] + 1}"
    return Solution(choice=hits[0], fields={"working": f"{working} So the answer is {key}."})


register_solver(
    SolverKind(
        "social_axiom",
        ("welfare_rules", "welfare_rule"),
        "choice",
        _solve,
        doc="the rule that satisfies (or violates) an axiom, or yes / no for one rule, "
        "checked over every profile (steer-core)",
    )
)

# --- distractors: the first wrong option of a family, tagged by the error -----------------------
# Choosing a wrong rule means misjudging that rule against the asked axiom
# (thinking it satisfies it, or that it does not). The axiom is the template's,
# so the tag names the rule misjudged; the same names serve every axiom.


def _wrong_of(family: str, nth: int = 0) -> Callable[[Instance, Solution], int | None]:
    """The `nth` wrong rule of `family` in the menu (menus repeat a family, with
    other numbers, when the axiom has few families of one kind)."""

    def make(instance: Instance, solution: Solution) -> int | None:
        d = instance.data
        assert solution.choice is not None
        if d["judge"]:
            return None  # a count: tagged by how far it is off (below)
        hits = [
            i for i, r in enumerate(d["rules"]) if i != solution.choice and r["family"] == family
        ]
        return hits[nth] if len(hits) > nth else None

    return make


_TAGS: dict[str, tuple[str, str]] = {
    "misjudged_points_rule": (
        "points",
        "a strictly decreasing points scheme (Pareto, monotone, transitive, no dictator)",
    ),
    "misjudged_tied_points": (
        "tied_points",
        "a points scheme giving two places equal points (two alternatives everyone "
        "ranks in order can tie)",
    ),
    "misjudged_non_monotone_points": (
        "non_monotone_points",
        "a points scheme where a lower place earns more (moving up can cost points)",
    ),
    "misjudged_majority": (
        "majority",
        "pairwise majority without a decisive voter (majorities can cycle)",
    ),
    "misjudged_weighted_dictator": (
        "weighted_dictator",
        "a weighted majority where one voter outweighs all others (a dictatorship)",
    ),
    "misjudged_dictator": ("dictator", "a rule copying one voter's ballot (a dictatorship)"),
    "misjudged_reversed_ballot": (
        "reversed",
        "one voter's ballot turned upside down (that voter decides, but not as a dictator)",
    ),
    "misjudged_imposed_ranking": (
        "imposed",
        "a fixed ranking (transitive, but blind to unanimous ballots)",
    ),
    "misjudged_unanimity_only": (
        "unanimity",
        "ranking by unanimity only (ties chain into an intransitive relation)",
    ),
    "misjudged_copeland": (
        "copeland",
        "head-to-head scores (built from majorities, yet always transitive)",
    ),
}
for _tag, (_family_name, _rule) in _TAGS.items():
    _make = _wrong_of(_family_name)
    _make.__doc__ = f"Misjudges {_rule} against the asked axiom."
    distractor(_tag, "choice")(_make)
    _again = _wrong_of(_family_name, 1)
    _again.__doc__ = f"Misjudges a second rule of this kind, {_rule}, against the asked axiom."
    distractor(_tag.replace("misjudged_", "misjudged_another_"), "choice")(_again)


def _miscount(by: int) -> Callable[[Instance, Solution], int | None]:
    def make(instance: Instance, solution: Solution) -> int | None:
        assert solution.choice is not None
        if not instance.data["judge"]:
            return None
        wrong = solution.choice + by
        return wrong if 0 <= wrong < len(COUNTS) else None

    return make


for _by in (1, 2, 3):
    _over = _miscount(_by)
    _over.__doc__ = f"Counts {_by} rule(s) that fail the axiom as meeting it."
    distractor(f"overcount_by_{_by}", "choice")(_over)
    _under = _miscount(-_by)
    _under.__doc__ = f"Counts {_by} rule(s) that meet the axiom as failing it."
    distractor(f"undercount_by_{_by}", "choice")(_under)
