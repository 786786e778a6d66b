"""Games with imperfect information: entry with a hidden move (3.3.a) and
signaling games (3.5.b).

Keys come from steer-core `sequential_assess`, which judges every pure strategy
profile: the key is a profile that is part of a sequential equilibrium (in a
signaling game, a perfect Bayesian equilibrium), with every move strictly
justified by a consistent belief; every other option is a profile that is not
part of any. The payload holds the tree as steer-core reads it, so the key can
be re-derived from it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from steer import _native
from steer._draws import sample
from steer.generate._format import amount, join_and
from steer.generate._games import _payoffs
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    lazy_texts,
    register_solver,
    register_structure,
)
from steer.generate._structures import _grid, _two_names
from steer.templates._inflect import possessive
from steer.templates._model import GradeSpec, TemplateSpec

# A move must beat the alternatives by this much under its supporting belief.
STRICT = 1e-6


@dataclass
class _Tree:
    """Flat arrays in steer-core's layout; node 0 is the root."""

    parent: list[int] = field(default_factory=lambda: [-1])
    player: list[int] = field(default_factory=list)
    infoset: list[int] = field(default_factory=list)
    prob: list[float] = field(default_factory=lambda: [1.0])
    payoffs: list[list[float]] = field(default_factory=lambda: [[0.0, 0.0]])

    def root(self, player: int, infoset: int = -1) -> int:
        self.player, self.infoset = [player], [infoset]
        return 0

    def add(self, parent: int, player: int = -1, infoset: int = -1, prob: float = 1.0) -> int:
        self.parent.append(parent)
        self.player.append(player)
        self.infoset.append(infoset)
        self.prob.append(prob)
        self.payoffs.append([0.0, 0.0])
        return len(self.parent) - 1

    def data(self) -> dict[str, Any]:
        return {
            "parent": self.parent,
            "player": self.player,
            "infoset": self.infoset,
            "prob": self.prob,
            "payoffs": self.payoffs,
        }


def _words(t: TemplateSpec, key: str, n: int, fallback: str) -> list[str]:
    return t.words.get(key, [])[:n] or [f"{fallback} {i + 1}" for i in range(n)]


def _roles(rng: np.random.Generator, t: TemplateSpec, first: str, second: str) -> tuple[str, str]:
    """Names for two roles from their own word lists (a worker and an employer
    do not swap), or two of `players` when the roles are alike."""
    if first in t.words and second in t.words:
        a, b = t.words[first], t.words[second]
        return a[int(rng.integers(len(a)))], b[int(rng.integers(len(b)))]
    return _two_names(rng, t)


def _or(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " or " + parts[-1]


def _pays(x: float, t: TemplateSpec) -> str:
    return amount(x, "", t.decimals)


# --- entry with a hidden move (3.3.a) ----------------------------------------------------

# Games an entry draw tries before it gives up (the caller then draws again).
_ENTRY_TRIES = 200


def _sample_entry(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """The leader stays out or enters in one of `size` ways; the follower sees
    entry but not the way, and responds. With depth 2 the leader first decides
    whether to enter and then picks the way, so the follower's uncertainty sits
    inside a subgame and consistency pins its beliefs to the leader's plan."""
    k, depth = spec.size, spec.depth
    out, enter = (t.words.get("out_in") or ["Stay out", "Enter"])[:2]
    ways = _words(t, "ways", k, "Way")
    replies = _words(t, "replies", 2, "Reply")
    # Most draws fail the checks below: redraw the game alone until one passes,
    # before the names and text are drawn. Each try is a fresh draw of the
    # same law (the checks read no names), so the games kept are distributed
    # as before.
    # Whether the key stays out, drawn first and held through the redraws: the
    # games where staying out is an equilibrium are fewer, and keys that
    # mostly enter would let a blind reader pick the options that enter.
    key_out = bool(rng.random() < 0.5)
    for _ in range(_ENTRY_TRIES):
        pays = _payoffs(rng, spec, (k * 2 + 1, 2))
        # The follower's best reply must depend on how the leader entered: if one
        # reply were best at every node of the information set, no belief would
        # matter and the question would reduce to backward induction.
        column = pays[1:, 1].tolist()
        follower_best = {int(column[2 * w + 1] > column[2 * w]) for w in range(k)}
        if len(follower_best) < 2 or any(column[2 * w] == column[2 * w + 1] for w in range(k)):
            continue
        # Staying out pays the leader a middling amount, so entering is a real choice.
        third = (spec.high - spec.low) / 3
        pays[0, 0] = float(np.clip(pays[0, 0], spec.low + third, spec.high - third).round())
        # The follower (an incumbent, say) does best when the leader stays out,
        # as the stories tell: a reader found an incumbent earning less alone
        # than after entry. It never moves there, so no equilibrium changes.
        pays[0, 1] = float(pays[1:, 1].max() + 2)
        tree = _Tree()
        tree.root(0, 0)
        out_node = tree.add(0)
        if depth == 1:
            sets = [
                {"who": "", "actions": [out, *ways], "when": "", "nodes": []},
                {"who": "", "actions": replies, "when": "", "nodes": ways},
            ]
            hub, follower_set = 0, 1
        else:
            hub = tree.add(0, 0, 1)
            sets = [
                {"who": "", "actions": [out, enter], "when": "", "nodes": []},
                {
                    "who": "",
                    "actions": ways,
                    "when": (t.words.get("if_in") or ["if entering"])[0],
                    "nodes": [],
                },
                {"who": "", "actions": replies, "when": "", "nodes": ways},
            ]
            follower_set = 2
        tree.payoffs[out_node] = [float(x) for x in pays[0]]
        follower_nodes = []
        for w in range(k):
            node = tree.add(hub, 1, follower_set)
            follower_nodes.append(node)
            for r in range(2):
                leaf = tree.add(node)
                tree.payoffs[leaf] = [float(x) for x in pays[1 + 2 * w + r]]
        for s in sets:
            s["node_ids"] = follower_nodes if s["nodes"] else []
        data = {
            **tree.data(),
            "sets": sets,
            "pick": int(rng.integers(1 << 30)),
            "key_out": key_out,
        }
        verdict = assess(data)
        if not any(_stays_out(verdict, i) == key_out for i in _strict(verdict)):
            continue
        # Mostly ask about games where a Nash equilibrium rests on a threat that
        # no belief justifies: telling those apart is what the element tests.
        if (verdict["nash"] & ~verdict["sequential"]).any() or rng.random() >= 0.7:
            break
    else:
        raise Resample(f"no entry game in {_ENTRY_TRIES} passes the checks")
    leader, follower = _roles(rng, t, "leaders", "followers")
    for s in sets:
        s["who"] = follower if s["nodes"] else leader
    lines = [
        f"- {out}: {leader} gets {_pays(pays[0, 0], t)}, {follower} gets {_pays(pays[0, 1], t)}"
    ]
    for w in range(k):
        for r in range(2):
            u = pays[1 + 2 * w + r]
            how = f"{enter}, {ways[w]}" if depth == 2 else ways[w]
            lines.append(
                f'- {how}, then {follower} chooses "{replies[r]}": {leader} gets {_pays(u[0], t)}, '
                f"{follower} gets {_pays(u[1], t)}"
            )
    return Instance(
        data=data,
        fields={
            "game": "\n".join(lines),
            "leader": leader,
            "follower": follower,
            "out": out,
            "enter": enter,
            "ways": _or(ways),
            "replies": _or(replies),
        },
    )


def _check_entry(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 3:
        return "size (ways to enter) must be 2-3"
    if spec.depth not in (1, 2):
        return "depth must be 1 (one move) or 2 (enter, then choose how)"
    return None


register_structure(
    StructureKind(
        "hidden_entry",
        ("game", "leader", "follower", "out", "enter", "ways", "replies"),
        _sample_entry,
        _check_entry,
        "an entry game whose follower sees entry but not how the leader entered",
    )
)


# --- signaling games (3.5.b) -----------------------------------------------------------
#
# In these games (the first message costs the weak type more; the receiver's
# first response suits the strong type, its last the weak; the sender wants the
# first response) only six pure profiles can ever be a strict perfect Bayesian
# equilibrium, writing P1 for both types sending the free message, P0 for both
# sending the dear one, SEP for the strong type alone sending it, and rXY for
# the replies after the dear and the free message (0 the first response, 1 the
# last):
#   a = P1 r00, b = P1 r10 (when the prior favours the strong type's reply),
#   c = P1 r11 (when it favours the weak type's), d = P1 r01 (the same, and the
#   signal is too dear even for the strong type), e = SEP r01 (the strong type
#   gains from the signal, the weak one not), f = P0 r01 (the prior favours the
#   strong type and even the weak one pays for the signal).
# Every other profile (the weak type alone signalling, a receiver answering a
# type it knows against its interest) is wrong on its face. Drawing games
# freely makes some of the six keys far more often than distractors, so a
# blind learner picks the key from the profile's shape (0.44 against 0.25).
# Instead each question draws one of twelve plans: a scenario (which reply the
# prior favours; whether the signal separates, is mimicked, or is too dear),
# the key and three distractors, all from the six. Over the plans each profile
# is the key twice and a distractor six times, so every shape is the key in a
# quarter of its appearances. The game is then drawn to fit the scenario and
# the solver proves the key (and that no other option is an equilibrium).

_SHAPES = {
    "a": (1, 1, 0, 0),
    "b": (1, 1, 1, 0),
    "c": (1, 1, 1, 1),
    "d": (1, 1, 0, 1),
    "e": (0, 1, 0, 1),
    "f": (0, 0, 0, 1),
}
# (prior favours the strong type's reply, cost regime, key, distractors);
# regimes: "separates" c_strong < gain < c_weak, "mimicked" c_strong < c_weak
# < gain, "too_dear" gain < c_strong < c_weak (gain: first minus last response).
_PLANS = (
    (True, "separates", "a", "cdf"),
    (True, "separates", "b", "cdf"),
    (True, "mimicked", "f", "cde"),
    (True, "mimicked", "f", "cde"),
    (True, "too_dear", "a", "cef"),
    (True, "too_dear", "b", "cef"),
    (False, "separates", "e", "abd"),
    (False, "separates", "e", "abf"),
    (False, "mimicked", "c", "abd"),
    (False, "mimicked", "c", "abe"),
    (False, "too_dear", "d", "abe"),
    (False, "too_dear", "d", "abf"),
)


def _middle_never_best(pay: np.ndarray) -> bool:
    """With three responses: the middle one is a best reply to no belief (it
    lies below the line joining the others at their crossing), so only the
    first and the last can answer a message and the six shapes stay the only
    candidates. `pay` is (types, responses), first row the strong type."""
    d0 = pay[0, 0] - pay[0, 2]  # the first response's edge at a strong type (> 0)
    d2 = pay[1, 2] - pay[1, 0]  # the last one's at a weak type (> 0)
    mu = d2 / (d0 + d2)  # the belief at which the first and the last tie
    top = mu * pay[0, 0] + (1 - mu) * pay[1, 0]
    return bool(mu * pay[0, 1] + (1 - mu) * pay[1, 1] < top - 1e-9)


def _fit_plan(
    rng: np.random.Generator, spec: GradeSpec, favours_strong: bool, regime: str
) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """Payoffs that fit a plan's scenario: the receiver's payoffs (types ×
    responses), the prior of the strong type, the sender's benefit from each
    response and the cost of the first message to each type. Drawn again
    here until they fit, not by a fresh question draw: a redraw of the whole
    question would pick a new plan and favour the plans that fit at once."""
    n = spec.size
    span = spec.high - spec.low
    grid = _grid(spec)
    step = spec.step
    for _attempt in range(200):
        # The receiver's payoff: response 0 suits the strong type, the last
        # the weak. Distinct values per type, so no belief leaves the
        # receiver indifferent between two responses at a pure type.
        suits = np.sort([grid[sample(rng, len(grid), n)] for _ in range(2)], axis=1)
        receiver_pay = np.stack([suits[0, ::-1], suits[1]])
        if n == 3 and not _middle_never_best(receiver_pay):
            continue
        # The prior: the first or the last response is the strict best reply.
        edge = float(receiver_pay[0, 0] - receiver_pay[0, -1])
        against = float(receiver_pay[1, -1] - receiver_pay[1, 0])
        lean = {k / 10: k * edge - (10 - k) * against for k in range(2, 9)}
        priors = [p for p, v in lean.items() if v != 0 and (v > 0) == favours_strong]
        if not priors:
            continue
        p = priors[int(rng.integers(len(priors)))]
        benefit = np.sort(grid[sample(rng, len(grid), n)])[::-1]
        gain = float(benefit[0] - benefit[-1])
        units = round(gain / step)
        if units < 3:
            continue  # too little gain for every cost regime
        if regime == "separates":
            strong = step * float(rng.integers(1, units))
            weak = gain + step * float(rng.integers(1, int(span / step) // 2 + 2))
        elif regime == "mimicked":
            strong = step * float(rng.integers(1, units - 1))
            weak = step * float(rng.integers(round(strong / step) + 1, units))
        else:
            strong = gain + step * float(rng.integers(1, 3))
            weak = strong + step * float(rng.integers(1, 3))
        # A cost equal to the gain between two responses makes a type
        # indifferent: no equilibrium with an indifferent type is asked about.
        gains = {float(x - y) for x in benefit for y in benefit if x > y}
        if strong in gains or weak in gains:
            continue
        return receiver_pay, p, benefit, np.array([strong, weak])
    raise Resample(f"no payoffs fit the plan ({regime})")


def _sample_signaling(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Chance draws the sender's type (prior p); the sender, knowing it, sends
    one of two messages; the receiver sees the message only and picks one of
    `size` responses. The sender gains from the responses the receiver gives a
    good type, and the first message costs the weaker type more. A plan (see
    above) fixes the scenario, the key and the distractors; the payoffs are
    drawn to fit it."""
    n = spec.size
    favours_strong, regime, key, wrong = _PLANS[int(rng.integers(len(_PLANS)))]
    types = _words(t, "types", 2, "Type")
    messages = _words(t, "messages", 2, "Message")
    after = t.words.get("after") or [f"after {m}" for m in messages]
    responses = _words(t, "responses", n, "Response")
    sender, receiver = _roles(rng, t, "senders", "receivers")
    receiver_pay, p, benefit, cost = _fit_plan(rng, spec, favours_strong, regime)
    tree = _Tree()
    tree.root(-2)
    whose = possessive(sender)
    lines = [f"Payoffs by ({whose} type, {whose} choice, {possessive(receiver)} response):"]
    for ty in range(2):
        node = tree.add(0, 0, ty, prob=p if ty == 0 else round(1 - p, 10))
        for m in range(2):
            hub = tree.add(node, 1, 2 + m)
            for a in range(n):
                leaf = tree.add(hub)
                u = [float(benefit[a] - (cost[ty] if m == 0 else 0.0)), float(receiver_pay[ty, a])]
                tree.payoffs[leaf] = u
                lines.append(
                    f"- {types[ty]}, {messages[m]}, {responses[a]}: {sender} gets "
                    f"{_pays(u[0], t)}, {receiver} gets {_pays(u[1], t)}"
                )
    hubs = [[i for i, s in enumerate(tree.infoset) if s == 2 + m] for m in range(2)]
    sets: list[dict[str, Any]] = [
        {"who": sender, "actions": messages, "when": f"if {types[ty]}", "nodes": [], "node_ids": []}
        for ty in range(2)
    ]
    sets += [
        {
            "who": receiver,
            "actions": responses,
            "when": after[m],
            "nodes": types,
            "node_ids": hubs[m],
        }
        for m in range(2)
    ]
    last = n - 1
    shown = [key, *wrong]
    order = [int(i) for i in rng.permutation(len(shown))]
    options = [
        [s0, s1, r0 * last, r1 * last] for s0, s1, r0, r1 in (_SHAPES[shown[i]] for i in order)
    ]
    data = {**tree.data(), "sets": sets, "options": options}
    data["receiver_pay"] = receiver_pay.tolist()
    data["prior_first"] = p
    data["errors"] = _signal_errors(data)
    return Instance(
        data=data,
        fields={
            "game": "\n".join(lines),
            "sender": sender,
            "receiver": receiver,
            "p": f"{p:g}",
            "q": f"{1 - p:g}",
            "type_1": types[0],
            "type_2": types[1],
            "messages": _or(messages),
            "responses": _or(responses),
        },
        choices=[profile_text(data, np.asarray(o)) for o in options],
    )


def _check_signaling(spec: GradeSpec, _t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 3:
        return "size (responses) must be 2-3"
    if int((spec.high - spec.low) / spec.step + 1e-9) + 1 < 2 * spec.size:
        return f"the payoff range needs at least {2 * spec.size} values for {spec.size} responses"
    return None


register_structure(
    StructureKind(
        "signaling_game",
        ("game", "sender", "receiver", "p", "q", "type_1", "type_2", "messages", "responses"),
        _sample_signaling,
        _check_signaling,
        "a two-type signaling game: chance, sender's message, receiver's response",
    )
)


# --- the solver ------------------------------------------------------------------------


# The sampler, the solver and each distractor judge the same draw; keep the
# last verdict for that very payload object (a re-solve from the stored JSON is
# a new object and is judged afresh).
_last: list[Any] = [None, None]


def assess(data: dict[str, Any]) -> dict[str, np.ndarray]:
    """steer-core's verdict on every pure profile of the payload's game."""
    if _last[0] is data:
        return _last[1]  # type: ignore[no-any-return]
    verdict = _native.sequential_assess(
        np.asarray(data["parent"], dtype=np.int64),
        np.asarray(data["player"], dtype=np.int64),
        np.asarray(data["infoset"], dtype=np.int64),
        np.asarray(data["prob"], dtype=np.float64),
        np.asarray(data["payoffs"], dtype=np.float64),
    )
    _last[:] = [data, verdict]
    return verdict


def profile_text(data: dict[str, Any], profile: np.ndarray) -> str:
    """'Leader: Enter, Premium if entering; Follower: Accommodate'."""
    by_player: dict[str, list[str]] = {}
    for s, a in zip(data["sets"], profile, strict=True):
        move = s["actions"][int(a)]
        by_player.setdefault(s["who"], []).append(f"{move} {s['when']}".strip())
    return "; ".join(f"{who}: {', '.join(moves)}" for who, moves in by_player.items())


def _beliefs_text(data: dict[str, Any], verdict: dict[str, np.ndarray], i: int) -> str:
    parts = []
    for s, (on, free) in enumerate(zip(verdict["on_path"][i], verdict["free"][i], strict=True)):
        spec = data["sets"][s]
        if not spec["node_ids"]:
            continue
        mu = [max(0.0, verdict["belief"][i][v]) for v in spec["node_ids"]]
        said = join_and([f"{name} {m:.2f}" for name, m in zip(spec["nodes"], mu, strict=True)])
        # Two-stage games name the leader's move in ("after \"Ask for a raise\""):
        # not every story is about entering a market.
        moved_in = data["sets"][0]["actions"][1] if len(data["sets"]) == 3 else "entry"
        where = spec["when"] or (f'after "{moved_in}"' if moved_in != "entry" else "after entry")
        how = (
            "by Bayes' rule"
            if on
            else ("off the path, for instance" if free else "as consistency requires")
        )
        parts.append(f"{spec['who']}, {where}, believes ({how}) {said}")
    return "; ".join(parts)


def _strict(verdict: dict[str, np.ndarray]) -> list[int]:
    """The profiles in a sequential equilibrium with strict incentives."""
    seq = np.flatnonzero(verdict["sequential"])
    return [int(i) for i in seq if (verdict["margin"][i] > STRICT).all()]


def _stays_out(verdict: dict[str, np.ndarray], i: int) -> bool:
    """Whether profile `i` of an entry game has the leader stay out."""
    return int(verdict["profiles"][i][0]) == 0


def _pick_key(data: dict[str, Any], profiles: np.ndarray, strict: list[int]) -> int:
    """One strict equilibrium, drawn by the payload's `pick`: first a strategy
    of the first mover among those the equilibria use, then an equilibrium
    with it. Drawing equilibria alone would favour whatever behaviour has the
    most equilibria (in signaling games, pooling: 84% of keys). An entry game
    drawn with `key_out` keeps to equilibria that stay out, or that enter."""
    if "key_out" in data:
        side = [i for i in strict if (int(profiles[i][0]) == 0) == data["key_out"]]
        strict = side or strict
    first = [s for s, spec in enumerate(data["sets"]) if spec["who"] == data["sets"][0]["who"]]
    groups: dict[tuple[int, ...], list[int]] = {}
    for i in strict:
        groups.setdefault(tuple(int(profiles[i][s]) for s in first), []).append(i)
    classes = list(groups.values())
    pick = int(data["pick"])
    chosen = classes[pick % len(classes)]
    return chosen[(pick // len(classes)) % len(chosen)]


def _sequential(instance: Instance) -> Solution:
    data = instance.data
    verdict = assess(data)
    strict = _strict(verdict)
    if not strict:
        raise Resample("no pure sequential equilibrium with strict incentives")
    profiles = verdict["profiles"]
    key = _pick_key(data, profiles, strict)
    if "key_out" in data and _entry_menu(data, verdict, key) is None:
        raise Resample("too few wrong profiles on each side of the entry decision")
    wrong = [i for i in range(len(profiles)) if not verdict["sequential"][i]]

    def pool() -> Sequence[str]:
        return lazy_texts(wrong, lambda i: profile_text(data, profiles[i]))

    text = profile_text(data, profiles[key])
    return Solution(
        text=text,
        pool=pool,
        fields={
            "working": f"{text}: every move is a best reply at its information set "
            f"({_beliefs_text(data, verdict, key)})"
        },
    )


register_solver(
    SolverKind(
        "sequential_equilibrium",
        ("hidden_entry", "signaling_game"),
        "text",
        _sequential,
        doc="a pure profile in a sequential equilibrium (steer-core sequential_assess)",
    )
)


# --- distractors: profiles that fail, by how they fail --------------------------------------


# The ways an entry profile can fail, in the order a profile is named by
# (`_failure`), and for each side of the entry decision (True: stays out) the
# names a question offers there, in the order it prefers them.
# `unilateral_deviation` is the general case of the on-path failures: it
# names a second such profile when a side needs two.
_SIDE_FAILURES = {
    True: ("nash_not_sequential", "belief_not_consistent", "stays_out_wrongly"),
    False: ("enters_wrongly", "reply_not_best_on_path", "nash_not_sequential"),
}
_ON_PATH = ("stays_out_wrongly", "enters_wrongly", "reply_not_best_on_path")
_menu_cache: list[Any] = [None, -1, None]


def _failure(verdict: dict[str, np.ndarray], i: int, leader_sets: int) -> str:
    """How a profile of an entry game that is not a sequential equilibrium
    fails (its leader moves in the first `leader_sets` information sets)."""
    f = int(verdict["failing"][i])
    if verdict["nash"][i]:
        return "nash_not_sequential"
    if not verdict["on_path"][i][f]:
        return "belief_not_consistent" if not verdict["free"][i][f] else "other"
    if f < leader_sets:
        return "stays_out_wrongly" if _stays_out(verdict, i) else "enters_wrongly"
    return "reply_not_best_on_path"


def _entry_menu(
    data: dict[str, Any], verdict: dict[str, np.ndarray], key: int
) -> dict[str, str] | None:
    """The wrong profiles an entry question offers, by failure: one on the
    key's side of the entry decision and two on the other, so that two
    options stay out and two enter, and the key (drawn with `key_out` at one
    half) is on either side as often. Left to the template's order, most keys
    entered and most distractors stayed out, and a blind reader picked the
    odd side out. None when a side has too few wrong profiles."""
    if _menu_cache[0] is data and _menu_cache[1] == key:
        return _menu_cache[2]  # type: ignore[no-any-return]
    leader_sets = sum(1 for s in data["sets"] if not s["node_ids"])
    wrong = [i for i in range(len(verdict["profiles"])) if not verdict["sequential"][i]]
    named = {i: _failure(verdict, i, leader_sets) for i in wrong}
    menu: dict[str, str] | None = {}
    key_out = _stays_out(verdict, key)
    for out, need in ((key_out, 1), (not key_out, 2)):
        side = [i for i in wrong if _stays_out(verdict, i) == out]
        picked: list[int] = []
        for tag in _SIDE_FAILURES[out]:
            hits = [i for i in side if named[i] == tag]
            if hits and len(picked) < need:
                picked.append(hits[data["pick"] % len(hits)])
                menu[tag] = profile_text(data, verdict["profiles"][picked[-1]])
        if len(picked) < need:
            rest = [i for i in side if i not in picked and named[i] in _ON_PATH]
            if rest and "unilateral_deviation" not in menu:
                picked.append(rest[data["pick"] % len(rest)])
                menu["unilateral_deviation"] = profile_text(data, verdict["profiles"][picked[-1]])
        if len(picked) < need:
            menu = None
            break
    _menu_cache[:] = [data, key, menu]
    return menu


def _entry_distractor(instance: Instance, solution: Solution, tag: str) -> str | None:
    """The profile named `tag` on an entry question's menu (None when the
    menu names none). The solver has built the menu already: the cache
    answers the six distractors that ask."""
    data = instance.data
    if _menu_cache[0] is data:
        menu = _menu_cache[2]
    else:
        verdict = assess(data)
        menu = _entry_menu(data, verdict, _pick_key(data, verdict["profiles"], _strict(verdict)))
    return (menu or {}).get(tag)


def _failing(instance: Instance, keep: Any) -> str | None:
    data = instance.data
    verdict = assess(data)
    hits = [
        i
        for i in range(len(verdict["profiles"]))
        if not verdict["sequential"][i] and keep(verdict, i, int(verdict["failing"][i]))
    ]
    if not hits:
        return None
    return profile_text(data, verdict["profiles"][hits[data["pick"] % len(hits)]])


@distractor("nash_not_sequential", "text")
def _nash_not_sequential(instance: Instance, _s: Solution) -> str | None:
    """A Nash equilibrium resting on a move off the path that no consistent
    belief justifies (a threat that would not be carried out)."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "nash_not_sequential")
    return _failing(instance, lambda v, i, f: v["nash"][i])


@distractor("belief_not_consistent", "text")
def _belief_not_consistent(instance: Instance, _s: Solution) -> str | None:
    """Justifies an off-path move by a belief that contradicts the equilibrium's
    own plan (consistency pins the belief there)."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "belief_not_consistent")
    return _failing(instance, lambda v, i, f: not v["on_path"][i][f] and not v["free"][i][f])


@distractor("unilateral_deviation", "text")
def _unilateral_deviation(instance: Instance, _s: Solution) -> str | None:
    """Someone on the path of play gains by moving differently: not even a Nash
    equilibrium."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "unilateral_deviation")
    return _failing(instance, lambda v, i, f: not v["nash"][i] and v["on_path"][i][f])


# --- signaling games: the key and how each other option fails ------------------------------


def _receiver_fits(data: dict[str, Any], prof: Sequence[int]) -> tuple[bool, bool]:
    """(off-path replies are best replies to some belief, on-path replies are
    best replies to the belief Bayes' rule gives) for a signaling profile
    (strong type's message, weak type's message, reply to each message)."""
    pay = np.asarray(data["receiver_pay"], dtype=np.float64)  # (types, responses)
    p = float(data["prior_first"])
    sends, replies = prof[:2], prof[2:]
    mu = np.linspace(0.0, 1.0, 201)[:, None]
    some = {int(a) for a in np.argmax(mu * pay[0] + (1 - mu) * pay[1], axis=1)}
    off_ok, on_ok = True, True
    for m in (0, 1):
        w = np.array([p * (sends[0] == m), (1 - p) * (sends[1] == m)])
        if w.sum() == 0:
            off_ok &= replies[m] in some
            continue
        value = (w / w.sum()) @ pay
        on_ok &= bool(value[replies[m]] >= value.max() - 1e-12)
    return off_ok, on_ok


def _signal_error(data: dict[str, Any], prof: Sequence[int]) -> str:
    """How a profile that is no equilibrium fails: the receiver's reply to a
    message sent in it is not its best reply under Bayes' rule (it answers as
    if it knew the type, or held the wrong belief); or the replies are right
    but a sender type gains by switching message, pooling or separating."""
    off_ok, on_ok = _receiver_fits(data, prof)
    if not on_ok:
        return "bayes_belief_ignored"
    if not off_ok:
        return "off_path_reply_unjustified"
    return "pooling_type_deviates" if prof[0] == prof[1] else "separating_type_deviates"


def _option_rows(data: dict[str, Any], verdict: dict[str, np.ndarray]) -> list[int]:
    """Each option's row in steer-core's table of profiles."""
    # Plain lists of integers: equal rows, without numpy's cost per option.
    profiles = verdict["profiles"].tolist()
    rows = []
    for option in data["options"]:
        wanted = list(option)
        hit = [i for i, profile in enumerate(profiles) if profile == wanted]
        if len(hit) != 1:
            raise Resample("an option is not a profile of the game")
        rows.append(hit[0])
    return rows


def _signal_errors(data: dict[str, Any]) -> list[str]:
    """The error tag of each option ('' for an equilibrium), from the verdict."""
    verdict = assess(data)
    return [
        "" if verdict["sequential"][i] else _signal_error(data, data["options"][k])
        for k, i in enumerate(_option_rows(data, verdict))
    ]


def _signaling(instance: Instance) -> Solution:
    """The one option that is a perfect Bayesian equilibrium with strict
    incentives (steer-core `sequential_assess`); every other option must be
    part of no equilibrium at all."""
    data = instance.data
    verdict = assess(data)
    rows = _option_rows(data, verdict)
    good = [k for k, i in enumerate(rows) if verdict["sequential"][i]]
    if len(good) != 1 or not (verdict["margin"][rows[good[0]]] > STRICT).all():
        raise Resample("not exactly one option is a strict perfect Bayesian equilibrium")
    key = rows[good[0]]
    text = profile_text(data, verdict["profiles"][key])
    return Solution(
        choice=good[0],
        fields={
            "working": f"{text}: every move is a best reply at its information set "
            f"({_beliefs_text(data, verdict, key)})"
        },
    )


register_solver(
    SolverKind(
        "signaling_equilibrium",
        ("signaling_game",),
        "choice",
        _signaling,
        doc="the one offered profile of a signaling game that is a strict perfect "
        "Bayesian equilibrium (steer-core sequential_assess)",
    )
)


def _on_path_failure(instance: Instance, leader: bool, out: bool | None = None) -> str | None:
    """A profile failing on the path of play, at the first mover's information
    set (`leader`) or the second mover's; with `out`, only profiles whose first
    move is (True) or is not (False) staying out."""
    data = instance.data
    leader_name = data["sets"][0]["who"]
    return _failing(
        instance,
        lambda v, i, f: (
            not v["nash"][i]
            and v["on_path"][i][f]
            and (data["sets"][f]["who"] == leader_name) == leader
            and (out is None or (int(v["profiles"][i][0]) == 0) == out)
        ),
    )


@distractor("stays_out_wrongly", "text")
def _stays_out_wrongly(instance: Instance, _s: Solution) -> str | None:
    """The first mover stays out although, given the replies, entering pays more."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "stays_out_wrongly")
    return _on_path_failure(instance, True, out=True)


@distractor("enters_wrongly", "text")
def _enters_wrongly(instance: Instance, _s: Solution) -> str | None:
    """The first mover enters (in a way) that, given the replies, pays less than
    another of its moves."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "enters_wrongly")
    return _on_path_failure(instance, True, out=False)


@distractor("reply_not_best_on_path", "text")
def _reply_not_best_on_path(instance: Instance, _s: Solution) -> str | None:
    """The second mover's reply on the path of play is not its best reply to the
    belief the first mover's plan implies."""
    if "key_out" in instance.data:
        return _entry_distractor(instance, _s, "reply_not_best_on_path")
    return _on_path_failure(instance, False)
