"""Assemble answer options around a proven key, then verify the result."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

import numpy as np

from steer import _native
from steer.generate._registry import DISTRACTORS, SOLVERS, Instance, Resample, Solution
from steer.templates._expr import ExprError, Fn
from steer.templates._identity import by_identity
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._vars import expr

KEY_TAG = "key"
# Numbers near the key that no named error produces: honest, not a slip.
FALLBACK_NUMERIC = "other"
FALLBACK_CHOICE = "other"
# Menus built per numeric question at most, to put the key at a drawn place
# among the options by shared digits (the Rust core's `centre_rank`).
MENU_TRIES = 4


def min_gap(key: float, grade: int, decimals: int) -> float:
    """How far a distractor must be from the key and from each other.

    Younger grades get wider gaps so options are told apart without precise
    arithmetic; every gap is at least one unit of the displayed rounding.
    """
    return max(10.0**-decimals, relative_gap(grade) * abs(key))


def relative_gap(grade: int) -> float:
    """The gap between options relative to the key: wider for younger grades."""
    return 0.05 if grade <= 4 else 0.02


def numeric_options(
    rng: np.random.Generator,
    instance: Instance,
    solution: Solution,
    t: TemplateSpec,
    spec: GradeSpec,
    grade: int,
) -> tuple[list[str], list[str], int]:
    """Options (texts), tags and the key's index for a numeric answer.

    Distractors come from the template's named errors (registered distractors
    and its `wrong` table), evaluated here; the menu is built in the Rust core
    (`steer._native.numeric_options`, rust/steer-core/src/options/numeric.rs;
    its Python reference is tests/numeric_options_reference.py). Nearby
    numbers that no named error produces fill the menu only when those run
    short, tagged `other`; digit slips of the key or of a named error are
    tagged by the slip. Two blind cues are closed by construction: the key is
    the largest option in about 1/n of the draws and the smallest in about
    1/n, and every option is shown at one precision (cents on all or none),
    the nearby numbers taking the key's form (whole or fractional). A third,
    the key's place by digits shared with the others, is drawn uniformly too:
    slips cluster around what they slip from. The menu's draws come from a
    seed taken from `rng`, so a question stays a function of its stream.
    """
    assert solution.value is not None and spec.options is not None
    named: list[tuple[float, str]] = [
        (_plain(DISTRACTORS[name].make(instance, solution)), name) for name in t.distractors
    ]
    if t.wrong:
        env = instance.data["env"]
        for tag, fn in _wrong_fns(t):
            try:
                named.append((fn(env), tag))  # non-finite values are skipped there
            except ExprError:
                named.append((math.nan, tag))
    key = float(solution.value)  # plain floats: numpy scalars convert slowly
    percent = _percent_answer(t)
    if percent:
        # A percentage is stored as a fraction (the free-text key) and shown,
        # with its distractors, as a percent with `decimals` places: "67.71%".
        key, named = key * 100.0, [(v * 100.0, tag) for v, tag in named]
    low, high = answer_bounds(instance, t)
    if percent:
        low, high = low * 100.0, high * 100.0
    made = _native.numeric_options(
        key,
        t.decimals,
        relative_gap(grade),
        t.nonnegative,
        t.probability and not percent,  # a percent probability: [0, 100], not [0, 1]
        "" if percent else t.unit,
        spec.options,
        named,
        int(rng.bit_generator.random_raw()),
        low,
        high,
    )
    if isinstance(made, str):
        raise Resample(made)
    if percent:
        texts, tags, correct = made
        return [f"{text}%" for text in texts], tags, correct
    return made


def answer_bounds(instance: Instance, t: TemplateSpec) -> tuple[float, float]:
    """Where the answer lies whatever the numbers (the solver's `bounds`: an
    expected value lies between its least and greatest outcome). Options
    outside would be struck on their face (a sum of the outcomes, say), so no
    menu offers them."""
    bounds = SOLVERS[t.solver].bounds
    if bounds is None:
        return -math.inf, math.inf
    low, high = bounds(instance)
    return float(low), float(high)


@by_identity
def _percent_answer(t: TemplateSpec) -> bool:
    """Whether the template's answer is a percentage (`formats` of the answer
    variable is `percent`)."""
    return t.answer is not None and t.formats.get(t.answer.strip()) == "percent"


def _plain(made: object) -> float:
    """A named error's value as a plain float; NaN for none."""
    return math.nan if made is None else float(made)  # type: ignore[arg-type]


@by_identity
def _wrong_fns(t: TemplateSpec) -> tuple[tuple[str, Fn], ...]:
    """The template's `wrong` expressions, compiled once: (tag, function)."""
    return tuple((tag, expr(text).fn) for tag, text in t.wrong.items())


def text_options(
    rng: np.random.Generator,
    instance: Instance,
    solution: Solution,
    t: TemplateSpec,
    spec: GradeSpec,
) -> tuple[list[str], list[str], int]:
    """The key text, distinct distractor texts (tagged by error), then texts from the
    solver's pool of other well-formed wrong answers, shuffled."""
    assert solution.text is not None
    n = spec.options or 4
    chosen: list[tuple[str, str]] = [(solution.text, KEY_TAG)]
    sep = instance.data.get("parts_sep")
    if isinstance(sep, str):
        named: list[tuple[str, str]] = []
        for name in t.distractors:
            made = DISTRACTORS[name].make(instance, solution)
            if made is not None and all(str(made) != c for c, _ in [*chosen, *named]):
                named.append((str(made), name))
        chosen += _hub_balanced(rng, instance, solution.text, named, n, sep)
    else:
        for name in t.distractors:
            made = DISTRACTORS[name].make(instance, solution)
            if made is not None and len(chosen) < n and all(made != c for c, _ in chosen):
                chosen.append((str(made), name))
    if len(chosen) < n:
        pool = solution.pool() if callable(solution.pool) else solution.pool
        taken = {c for c, _ in chosen}
        # Walk a random order and stop once the menu is full: pools can be
        # large and lazily built (every strategy profile of a tree).
        for i in rng.permutation(len(pool)):
            made = pool[int(i)]
            if made not in taken:
                taken.add(made)
                chosen.append((made, FALLBACK_CHOICE))
                if len(chosen) == n:
                    break
    if len(chosen) < n:
        raise Resample("not enough distinct wrong answers")
    order = rng.permutation(len(chosen)).tolist()
    return [chosen[i][0] for i in order], [chosen[i][1] for i in order], order.index(0)


def shared_parts(texts: list[str], sep: str) -> list[int]:
    """How many parts (split on `sep`) each text shares with the others."""
    parts = [set(text.split(sep)) for text in texts]
    return [sum(len(p & q) for j, q in enumerate(parts) if j != i) for i, p in enumerate(parts)]


def hub_fits(
    parts: Sequence[set[object]], n: int, target: int, first: bool = False
) -> list[tuple[int, ...]]:
    """The sets of n - 1 wrong answers (indices into parts[1:], the key's parts
    first) that put the key at `target` among the options ranked by parts
    shared with the others: 0, no option shares more (the hub, ties allowed);
    n - 1, none shares fewer; else strictly between. Drawn uniformly, a
    most-shared or least-shared agent then finds the key at most 1/n of the
    time. `first`: stop at the first set found."""
    m = len(parts)
    # Parts shared by each pair, once: a menu's scores are sums of these.
    common = [[len(parts[i] & parts[j]) if i != j else 0 for j in range(m)] for i in range(m)]
    fits = []
    for combo in itertools.combinations(range(1, m), n - 1):
        menu = (0, *combo)
        mine = sum(common[0][j] for j in combo)
        scores = [sum(common[i][j] for j in menu) for i in combo]
        above = sum(x > mine for x in scores)
        below = sum(x < mine for x in scores)
        if target == 0:
            fits_here = above == 0
        elif target == n - 1:
            fits_here = below == 0
        else:
            fits_here = above > 0 and below > 0
        if fits_here:
            fits.append(tuple(i - 1 for i in combo))
            if first:
                break
    return fits


def _hub_balanced(
    rng: np.random.Generator,
    instance: Instance,
    key: str,
    named: list[tuple[str, str]],
    n: int,
    sep: str,
) -> list[tuple[str, str]]:
    """n - 1 of the named wrong answers, chosen so that the key's place by
    parts shared with the other options is the structure's `hub_target` (see
    `hub_fits`), drawn before the instance (which is drawn until it allows one). Slips
    of a whole answer (an assignment, a profile) keep most of the key's parts,
    so the first listed would make the key the hub a blind agent picks."""
    if len(named) < n - 1:
        return named  # too few: the pool fills the menu
    target = instance.data.get("hub_target")
    target = int(rng.integers(n)) if target is None else int(target)
    fits = hub_fits([set(text.split(sep)) for text in (key, *(t for t, _ in named))], n, target)
    if not fits:
        raise Resample("the key would be the hub of the options' shared parts")
    return [named[i] for i in fits[int(rng.integers(len(fits)))]]


def choice_options(
    instance: Instance, solution: Solution, t: TemplateSpec
) -> tuple[list[str], list[str], int]:
    """The structure's natural choices in order, each wrong one tagged by the
    first listed error that leads to it."""
    assert instance.choices is not None and solution.choice is not None
    tags = [FALLBACK_CHOICE] * len(instance.choices)
    if t.choices and len(t.choices) == len(tags):
        order = instance.data.get("order", list(range(len(tags))))
        tags = [t.choices[i].error for i in order]
    tags[solution.choice] = KEY_TAG
    for name in t.distractors:
        index = DISTRACTORS[name].make(instance, solution)
        if index is not None and tags[int(index)] == FALLBACK_CHOICE:
            tags[int(index)] = name
    # A structure that records each choice's error (data["errors"], "" for the
    # key) names the rest: two choices can stand for the same error.
    errors = instance.data.get("errors")
    if isinstance(errors, list) and len(errors) == len(tags):
        tags = [
            str(e) if tag == FALLBACK_CHOICE and e else tag
            for tag, e in zip(tags, errors, strict=True)
        ]
    return list(instance.choices), tags, solution.choice


def verify(texts: list[str], tags: list[str], correct: int) -> str | None:
    """Why the options are unusable, or None when they are fine."""
    if len(set(texts)) != len(texts):
        return "two options read the same"
    if tags.count(KEY_TAG) != 1 or tags[correct] != KEY_TAG:
        return "the key is not exactly one option"
    return None
