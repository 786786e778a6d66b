"""Preference chains: transitivity of stated strict preferences.

`preference_chain` samples `size` alternatives and a strict ranking of them,
states only the neighbouring pairs of the ranking (best over second, second
over third, ...) and asks about two alternatives that are never compared
directly. Transitivity settles the answer: the one ranked higher. The
alternatives are the template's `words.item` (deterministic choice, 2.1.b) or,
when the template has no `item` words, two-outcome lotteries labelled with
`words.label`, described in the `menu` field and drawn so that none
stochastically dominates another (choice under risk, 2.3.b).

The options are the two asked alternatives, "cannot be determined" and "equally
good", stored as sure amounts (an alternative's value is its position counted
from the bottom of the ranking, the two statements are worth 0) so that
`best_stored_option` proves the key from the payload.
"""

from __future__ import annotations

import numpy as np

from steer.generate._format import amount, join_and, percent
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    StructureKind,
    distractor,
    register_structure,
)
from steer.templates._model import GradeSpec, TemplateSpec

CANNOT_TELL = "It cannot be determined from the stated preferences"
INDIFFERENT = "Neither: the two are equally good"


def _lottery_texts(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec, n: int) -> list[str]:
    """n two-outcome lotteries, none dominating another: the larger the top
    prize, the smaller the consolation prize."""
    steps = int((spec.high - spec.low) // spec.step) + 1
    if steps < 2 * n:
        raise Resample("the grade's amount range is too narrow for distinct prizes")
    grid = sorted(
        spec.low + spec.step * float(k) for k in rng.choice(steps, size=2 * n, replace=False)
    )
    lows, highs = grid[:n][::-1], grid[n:]
    order = rng.permutation(n)
    texts = []
    for k in order:
        p = int(rng.integers(1, 20)) * 0.05
        texts.append(
            f"{amount(highs[k], t.unit, t.decimals)} with probability {percent(p)}, "
            f"otherwise {amount(lows[k], t.unit, t.decimals)}"
        )
    return texts


def _sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    if "item" in t.words:
        pool = list(dict.fromkeys(t.words["item"]))
        names = [pool[int(i)] for i in rng.choice(len(pool), size=n, replace=False)]
        menu = ""
    else:
        label = t.words.get("label", ["Lottery"])[0]
        names = [f"{label} {chr(ord('A') + i)}" for i in range(n)]
        texts = _lottery_texts(rng, spec, t, n)
        menu = "; ".join(f"{name} pays {text}" for name, text in zip(names, texts, strict=True))
    ranking = [int(i) for i in rng.permutation(n)]  # best first
    relations = [[ranking[k], ranking[k + 1]] for k in range(n - 1)]
    if n > 3:  # longer chains are stated out of order
        relations = [relations[int(i)] for i in rng.permutation(len(relations))]
    gaps = [(a, b) for a in range(n) for b in range(a + 2, n)]
    hi, lo = gaps[int(rng.integers(len(gaps)))]  # positions in the ranking, never adjacent
    pair = [ranking[hi], ranking[lo]]
    if rng.integers(2):
        pair.reverse()
    options = [names[pair[0]], names[pair[1]], CANNOT_TELL, INDIFFERENT]
    values = [float(n - ranking.index(i)) for i in pair] + [0.0, 0.0]
    data = {
        "names": names,
        "ranking": ranking,
        "relations": relations,
        "pair": pair,
        "lotteries": [{"values": [v], "probs": [1.0]} for v in values],
    }
    fields = {
        "prefs": join_and([f"{names[a]} over {names[b]}" for a, b in relations]),
        "first": names[pair[0]],
        "second": names[pair[1]],
        "menu": menu,
        "n_choices": str(len(options)),
    }
    return Instance(data=data, fields=fields, choices=options)


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if spec.size < 3:
        return "a preference chain needs size >= 3 (two alternatives never compared directly)"
    if "item" in t.words and len(set(t.words["item"])) < spec.size:
        return f"words.item needs at least {spec.size} distinct alternatives"
    return None


register_structure(
    StructureKind(
        "preference_chain",
        ("prefs", "first", "second", "menu", "n_choices"),
        _sample,
        _check,
        "a strict ranking stated as neighbouring pairs; asks about two never compared directly",
    )
)


@distractor("intransitive_choice", "choice")
def _intransitive(instance: Instance, solution: Solution) -> int:
    """Picks the alternative the stated chain ranks lower: violates transitivity."""
    return 1 - int(solution.choice or 0)


@distractor("no_transitive_inference", "choice")
def _no_inference(_instance: Instance, _solution: Solution) -> int:
    """Refuses to chain the pairwise preferences: 'cannot be determined'."""
    return 2


@distractor("assumed_indifference", "choice")
def _indifferent(_instance: Instance, _solution: Solution) -> int:
    """Treats two alternatives never compared directly as equally good."""
    return 3
