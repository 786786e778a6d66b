"""A plain-Python reference for pure sequential equilibria, written the textbook
way rather than the way steer-core does it.

Beliefs at an information set are Bayes' rule conditional on reaching the
nearest common ancestor of its nodes (chance times the profile's 0/1 moves
below it); when that gives zero everywhere, every belief is allowed. For
the games steer asks about (entry with a hidden move, possibly inside a
subgame; signaling games; Selten's horse) that is exactly the set of
consistent beliefs. Optimality under a free belief is an LP solved by scipy.
Nash: every pure strategy of every player, enumerated.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.optimize import linprog

TOL = 1e-9


@dataclass
class Game:
    parent: list[int]
    player: list[int]  # -1 terminal, -2 chance
    infoset: list[int]
    prob: list[float]
    payoffs: np.ndarray  # (n, players)

    @classmethod
    def from_payload(cls, d: dict[str, Any]) -> Game:
        return cls(d["parent"], d["player"], d["infoset"], d["prob"], np.asarray(d["payoffs"]))

    def children(self, v: int) -> list[int]:
        return [c for c, p in enumerate(self.parent) if p == v]

    def sets(self) -> list[list[int]]:
        count = max(self.infoset) + 1
        return [[v for v, s in enumerate(self.infoset) if s == i] for i in range(count)]

    def set_player(self, i: int) -> int:
        return self.player[self.sets()[i][0]]

    def value(self, v: int, profile: tuple[int, ...]) -> np.ndarray:
        kids = self.children(v)
        if not kids:
            return self.payoffs[v].astype(float)
        if self.player[v] == -2:
            return sum(self.prob[c] * self.value(c, profile) for c in kids)
        return self.value(kids[profile[self.infoset[v]]], profile)

    def ancestors(self, v: int) -> list[int]:
        out = [v]
        while self.parent[out[-1]] >= 0:
            out.append(self.parent[out[-1]])
        return out

    def reach_from(self, top: int, v: int, profile: tuple[int, ...]) -> float:
        """Probability of reaching v from `top` under the profile."""
        p, u = 1.0, v
        while u != top:
            w = self.parent[u]
            if self.player[w] == -2:
                p *= self.prob[u]
            elif self.children(w).index(u) != profile[self.infoset[w]]:
                return 0.0
            u = w
        return p


def beliefs(g: Game, nodes: list[int], profile: tuple[int, ...]) -> np.ndarray | None:
    """Bayes' rule below the nodes' nearest common ancestor, or None (free)."""
    common = set(g.ancestors(nodes[0]))
    for v in nodes[1:]:
        common &= set(g.ancestors(v))
    top = max(common)  # parents precede children: the deepest common ancestor
    reach = np.array([g.reach_from(top, v, profile) for v in nodes])
    return reach / reach.sum() if reach.sum() > 0 else None


def best_margin(u: np.ndarray, chosen: int) -> float:
    """max over beliefs μ of min_b (u[:, chosen] − u[:, b])·μ, by LP."""
    g, actions = u.shape
    rivals = [b for b in range(actions) if b != chosen]
    if not rivals:
        return np.inf
    # variables μ (g) and t; minimize −t
    c = np.zeros(g + 1)
    c[-1] = -1
    a_ub = np.array([np.append(-(u[:, chosen] - u[:, b]), 1.0) for b in rivals])
    res = linprog(
        c,
        A_ub=a_ub,
        b_ub=np.zeros(len(rivals)),
        A_eq=np.append(np.ones(g), 0.0)[None, :],
        b_eq=[1.0],
        bounds=[(0, None)] * g + [(None, None)],
        method="highs",
    )
    assert res.status == 0, res.message
    return float(-res.fun)


@dataclass
class Verdict:
    sequential: bool
    nash: bool
    margins: list[float]


def judge(g: Game, profile: tuple[int, ...]) -> Verdict:
    margins = []
    for i, nodes in enumerate(g.sets()):
        who = g.player[nodes[0]]
        mu = beliefs(g, nodes, profile)
        actions = len(g.children(nodes[0]))
        u = np.array(
            [[g.value(g.children(v)[a], profile)[who] for a in range(actions)] for v in nodes]
        )
        if mu is None:
            margins.append(best_margin(u, profile[i]))
        else:
            expected = mu @ u
            others = [expected[profile[i]] - expected[b] for b in range(actions) if b != profile[i]]
            margins.append(min(others) if others else np.inf)
    scale = max(1.0, float(np.abs(g.payoffs).max()))
    return Verdict(
        sequential=all(m >= -TOL * scale for m in margins),
        nash=is_nash(g, profile),
        margins=margins,
    )


def is_nash(g: Game, profile: tuple[int, ...]) -> bool:
    base = g.value(0, profile)
    sets = g.sets()
    for who in {g.set_player(i) for i in range(len(sets))}:
        mine = [i for i in range(len(sets)) if g.set_player(i) == who]
        sizes = [len(g.children(sets[i][0])) for i in mine]
        for choice in itertools.product(*[range(s) for s in sizes]):
            trial = list(profile)
            for i, a in zip(mine, choice, strict=True):
                trial[i] = a
            if g.value(0, tuple(trial))[who] > base[who] + 1e-9:
                return False
    return True


def all_profiles(g: Game) -> list[tuple[int, ...]]:
    """In steer-core's order: the first information set varies fastest."""
    sizes = [len(g.children(nodes[0])) for nodes in g.sets()]
    return [tuple(reversed(p)) for p in itertools.product(*[range(s) for s in reversed(sizes)])]


def profile_text(d: dict[str, Any], profile: tuple[int, ...]) -> str:
    """The option wording for a profile, rebuilt from the payload's labels."""
    by: dict[str, list[str]] = {}
    for s, a in zip(d["sets"], profile, strict=True):
        by.setdefault(s["who"], []).append(" ".join(x for x in (s["actions"][a], s["when"]) if x))
    return "; ".join(f"{who}: {', '.join(moves)}" for who, moves in by.items())
