"""Plain-Python reference for social welfare functions and four Arrow-style axioms.

Independent of steer-core: every profile is enumerated with itertools and each rule's
social relation is computed with numpy over all profiles at once; monotonicity tries
every raise of one alternative by one *or more* places (steer-core checks one-place
raises only, which is equivalent).
"""

from __future__ import annotations

import functools
import itertools
from typing import Any

import numpy as np

AXIOMS = ("pareto", "monotonicity", "transitivity", "nondictatorship")


@functools.cache
def _profiles(n: int, m: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """Rankings of m, and positions (profiles, n, m) with voter 0 varying fastest."""
    perms = list(itertools.permutations(range(m)))
    pos = np.array([[r.index(c) for c in range(m)] for r in perms])
    # product varies its last factor fastest: reverse to make voter 0 the fastest.
    idx = np.array(list(itertools.product(range(len(perms)), repeat=n)))[:, ::-1]
    return perms, pos[idx]


def relation(kind: str, params: list[int], pos: np.ndarray) -> np.ndarray:
    """R (profiles, m, m): row alternative at least as good as column alternative."""
    m = pos.shape[2]
    above = (pos[:, :, :, None] < pos[:, :, None, :]).astype(np.int64)  # (k, n, a, b)

    def by(score: np.ndarray) -> np.ndarray:
        return score[:, :, None] >= score[:, None, :]

    if kind == "scoring":
        return by(np.asarray(params)[pos].sum(axis=1))
    if kind == "weighted_majority":
        w = np.einsum("i,kiab->kab", np.asarray(params), above)
        return w >= w.transpose(0, 2, 1)
    if kind in ("dictatorship", "reversed_dictatorship"):
        p = pos[:, params[0], :]
        if kind == "reversed_dictatorship":
            p = -p
        return p[:, :, None] <= p[:, None, :]
    if kind == "imposed":
        place = np.array([params.index(c) for c in range(m)])
        return np.broadcast_to(place[:, None] <= place[None, :], (len(pos), m, m))
    votes = above.sum(axis=1)
    if kind == "unanimity":
        return votes.transpose(0, 2, 1) < pos.shape[1]  # not everyone ranks b over a
    if kind == "copeland":
        return by(np.sign(votes - votes.transpose(0, 2, 1)).sum(axis=2))
    raise ValueError(kind)


@functools.lru_cache(maxsize=4096)
def satisfies(kind: str, params: tuple[int, ...], n: int, m: int, axiom: str) -> bool:
    perms, pos = _profiles(n, m)
    r = relation(kind, list(params), pos)
    strict = r & ~r.transpose(0, 2, 1)
    off = ~np.eye(m, dtype=bool)
    if axiom == "pareto":
        unanimous = (pos[:, :, :, None] < pos[:, :, None, :]).all(axis=1)
        return bool(np.all(~unanimous | strict))
    if axiom == "transitivity":
        bad = r[:, :, :, None] & r[:, None, :, :] & ~r[:, :, None, :]  # xRy, yRz, not xRz
        return not bad.any()
    if axiom == "nondictatorship":
        for i in range(n):
            prefers = pos[:, i, :, None] < pos[:, i, None, :]
            if np.all(~prefers | strict):
                return False
        return True
    # Monotonicity: raise x in voter i's ballot by one or more places.
    k = len(perms)
    index = {p: j for j, p in enumerate(perms)}
    ballots = np.arange(len(pos))[:, None] // k ** np.arange(n)[None, :] % k
    for i in range(n):
        for old, ranking in enumerate(perms):
            here = np.flatnonzero(ballots[:, i] == old)
            for place in range(1, m):
                x = ranking[place]
                for to in range(place):
                    moved = list(ranking)
                    moved.insert(to, moved.pop(place))
                    there = here + (index[tuple(moved)] - old) * k**i
                    before, after = r[here, x, :], r[there, x, :]
                    fell = (before & ~after) | (strict[here, x, :] & ~strict[there, x, :])
                    if (fell & off[x]).any():
                        return False
    return True


def expected_choice(d: dict[str, Any]) -> int:
    """The key of a generated `social_axiom` question from its payload."""
    verdicts = [
        satisfies(r["kind"], tuple(r["params"]), d["n"], d["m"], d["axiom"]) for r in d["rules"]
    ]
    if d["judge"]:  # how many of the listed rules satisfy the axiom
        return sum(verdicts)
    want = d["ask"] == "satisfies"
    (key,) = [i for i, v in enumerate(verdicts) if v == want]
    return key
