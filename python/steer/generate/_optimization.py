"""Preference chains: transitivity of stated pairwise comparisons.

`preference_chain` samples `size` alternatives laid out on a path and states
only the comparisons of neighbours on that path, each a strict preference
("X is better than Y") or an indifference ("X and Y are equally good"). It
asks about two alternatives never compared directly. Transitivity (of strict
preference, of indifference, and of the two mixed) settles the answer when
every step between them points the same way: the one ranked higher, or
"neither" when every step is an indifference. When the steps point in
opposite directions ("X is better than Z" and "Y is better than Z"), the
comparisons fit complete rankings either way and the answer "cannot be
determined" is right. Each of the four answers (either alternative, neither,
cannot be determined) is drawn to be the key a quarter of the time.

The alternatives are the template's `words.item` (deterministic choice, 2.1.b)
or, when the template has no `item` words, two-outcome lotteries labelled with
`words.label`, described in the `menu` field and drawn so that none
stochastically dominates another (choice under risk, 2.3.b).

The options are stored as sure amounts (the key worth 1, the others 0) so that
`best_stored_option` proves the key from the payload; `data["errors"]` names
the error each wrong option stands for.
"""

from __future__ import annotations

import numpy as np

from steer._draws import integer, sample, sample_of
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

CANNOT_TELL = "It cannot be determined from the stated comparisons"
INDIFFERENT = "Either one: they tie"
# What labelled alternatives are called ("Fund Oak"): never letters, which
# clash with the answer letters ("D. Fund B"), nor numbers, which read as counts.
NAME_TAGS = ("Oak", "Elm", "Pine", "Birch", "Ash", "Maple")
# What the asked pair's steps add up to: the first asked alternative better,
# the second better, a tie all the way, or steps in opposite directions.
KINDS = ("first", "second", "tie", "open")


def _lottery_texts(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec, n: int) -> list[str]:
    """n two-outcome lotteries, none dominating another: the larger the top
    prize, the smaller the consolation prize."""
    steps = int((spec.high - spec.low) // spec.step) + 1
    if steps < 2 * n:
        raise Resample("the grade's amount range is too narrow for distinct prizes")
    grid = sorted(spec.low + spec.step * float(k) for k in sample(rng, steps, 2 * n))
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


def _steps(rng: np.random.Generator, kind: str, k: int) -> list[int]:
    """Directions of the k steps from the first asked alternative to the
    second: +1 the nearer one strictly better, -1 strictly worse, 0 a tie."""
    if kind == "tie":
        return [0] * k
    if kind == "open":  # a strict step each way, the rest anything
        steps = [1, -1] + [int(rng.integers(-1, 2)) for _ in range(k - 2)]
        return [steps[int(i)] for i in rng.permutation(k)]
    sign = 1 if kind == "first" else -1
    while True:  # every step the same way, at least one strict
        steps = [sign if rng.random() < 0.6 else 0 for _ in range(k)]
        if any(steps):
            return steps


def verdict(links: list[list[object]], pair: list[int]) -> str:
    """What the stated comparisons imply for `pair`, by the closure of the
    relation "at least as good as" (a tie counts both ways): "first",
    "second", "tie" or "open" (neither ranking is implied)."""
    n = 1 + max(max(int(u), int(v)) for u, v, _ in links)  # type: ignore[call-overload]
    ge = [[i == j for j in range(n)] for i in range(n)]
    gt = [[False] * n for _ in range(n)]
    for u, v, kind in links:
        a, b = int(u), int(v)  # type: ignore[call-overload]
        ge[a][b] = True
        if kind == "eq":
            ge[b][a] = True
        else:
            gt[a][b] = True
    for m in range(n):  # Floyd-Warshall: strict if any step on the way is strict
        for i in range(n):
            for j in range(n):
                if ge[i][m] and ge[m][j]:
                    gt[i][j] = gt[i][j] or gt[i][m] or gt[m][j]
                    ge[i][j] = True
    x, y = pair
    if gt[x][y]:
        return "first"
    if gt[y][x]:
        return "second"
    if ge[x][y] and ge[y][x]:
        return "tie"
    return "open"


ERRORS = {
    "first": ["", "intransitive_choice", "no_transitive_inference", "assumed_indifference"],
    "second": ["intransitive_choice", "", "no_transitive_inference", "assumed_indifference"],
    "tie": [
        "strict_from_indifference",
        "strict_from_indifference_reversed",
        "no_transitive_inference",
        "",
    ],
    "open": [
        "false_transitive_inference",
        "false_transitive_inference_reversed",
        "",
        "assumed_indifference",
    ],
}


def _clause(names: list[str], u: int, v: int, kind: str) -> str:
    if kind == "eq":
        return f"{names[u]} and {names[v]} are equally good"
    return f"{names[u]} is better than {names[v]}"


def _chain(names: list[str], path: list[int]) -> str:
    """'the chain from X through A and B to Y' along `path`."""
    via = join_and([names[i] for i in path[1:-1]])
    return f"the chain from {names[path[0]]} through {via} to {names[path[-1]]}"


def _reason(names: list[str], path: list[int], steps: list[int], kind: str) -> str:
    x, y = names[path[0]], names[path[-1]]
    if kind == "tie":
        return (
            f"along {_chain(names, path)}, each ties with the next, "
            f"and ties are transitive, so {x} and {y} tie"
        )
    if kind == "open":
        return (
            f"along {_chain(names, path)}, the comparisons point in opposite directions, "
            f"so either ranking of {x} and {y} is consistent with them"
        )
    better, worse = (x, y) if kind == "first" else (y, x)
    # The chain reads from the better end.
    chain = _chain(names, path if kind == "first" else path[::-1])
    return (
        f"along {chain}, each is at least as good as the next, "
        "and at least one is strictly better than the next, so transitivity ranks "
        f"{better} above {worse}"
    )


def _sample(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    if "item" in t.words:
        pool = list(dict.fromkeys(t.words["item"]))
        names = sample_of(rng, pool, n)
        menu = ""
    else:
        label = t.words.get("label", ["Lottery"])[0]
        names = [f"{label} {tag}" for tag in NAME_TAGS[:n]]
        texts = _lottery_texts(rng, spec, t, n)
        menu = "; ".join(f"{name} pays {text}" for name, text in zip(names, texts, strict=True))
    path = [int(i) for i in rng.permutation(n)]  # the alternatives in the order compared
    gaps = [(a, b) for a in range(n) for b in range(a + 2, n)]
    lo, hi = gaps[int(rng.integers(len(gaps)))]  # positions on the path, never adjacent
    kind = KINDS[int(rng.integers(len(KINDS)))]
    inner = _steps(rng, kind, hi - lo)
    directions = [integer(rng, -1, 2) for _ in range(n - 1)]  # steps off the asked span
    directions[lo:hi] = inner
    links: list[list[object]] = []
    for k, d in enumerate(directions):
        a, b = path[k], path[k + 1]
        if d == 0:
            links.append([a, b, "eq"] if rng.integers(2) else [b, a, "eq"])
        else:
            links.append([a, b, "gt"] if d > 0 else [b, a, "gt"])
    if n > 3:  # longer chains are stated out of order
        links = [links[int(i)] for i in rng.permutation(len(links))]
    pair = [path[lo], path[hi]]
    if rng.integers(2):  # which of the two is named first
        pair.reverse()
        kind = {"first": "second", "second": "first"}.get(kind, kind)
    if verdict(links, pair) != kind:
        raise AssertionError("the stated comparisons do not imply the drawn answer")
    options = [names[pair[0]], names[pair[1]], CANNOT_TELL, INDIFFERENT]
    errors = ERRORS[kind]
    span = path[lo : hi + 1] if pair[0] == path[lo] else path[lo : hi + 1][::-1]
    span_steps = inner if pair[0] == path[lo] else [-s for s in inner[::-1]]
    data = {
        "names": names,
        "links": links,
        "pair": pair,
        "errors": list(errors),
        "lotteries": [{"values": [0.0 if e else 1.0], "probs": [1.0]} for e in errors],
    }
    fields = {
        # Semicolons: a tie's own "and" would blur a list joined by "and".
        "prefs": "; ".join(_clause(names, int(u), int(v), str(k)) for u, v, k in links),  # type: ignore[call-overload]
        "first": names[pair[0]],
        "second": names[pair[1]],
        "menu": menu,
        "n_choices": str(len(options)),
        "reason": _reason(names, span, span_steps, kind),
    }
    return Instance(data=data, fields=fields, choices=options)


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if spec.size < 3:
        return "a preference chain needs size >= 3 (two alternatives never compared directly)"
    if "item" in t.words and len(set(t.words["item"])) < spec.size:
        return f"words.item needs at least {spec.size} distinct alternatives"
    if "item" not in t.words and spec.size > len(NAME_TAGS):
        return f"a labelled chain names at most {len(NAME_TAGS)} alternatives"
    return None


register_structure(
    StructureKind(
        "preference_chain",
        ("prefs", "first", "second", "menu", "n_choices", "reason"),
        _sample,
        _check,
        "pairwise comparisons of neighbours on a path; asks about two never compared directly",
    )
)


def _lookup(name: str, doc: str) -> None:
    def make(instance: Instance, _solution: Solution) -> int | None:
        errors = instance.data.get("errors", [])
        return errors.index(name) if name in errors else None

    make.__doc__ = doc
    distractor(name, "choice")(make)


for _name, _doc in (
    ("intransitive_choice", "Picks the alternative the stated chain ranks lower."),
    ("no_transitive_inference", "Refuses to chain comparisons that do settle the choice."),
    ("assumed_indifference", "Calls two alternatives a tie that the chain does not tie."),
    (
        "false_transitive_inference",
        "Chains comparisons that point in opposite directions, ranking the first named higher.",
    ),
    (
        "false_transitive_inference_reversed",
        "Chains comparisons that point in opposite directions, ranking the second named higher.",
    ),
):
    _lookup(_name, _doc)
