"""Pure sequential equilibria (steer-core `sequential_assess`) against the
textbook reference in sequential_reference.py, against pygambit, and on the
classic worked cases."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pygambit as gbt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sequential_reference as ref
from steer import _native
from steer.errors import InputError, SolverError

# --- game builders (independent of the question generators) ------------------------------


def tree(parent: list[int], player: list[int], infoset: list[int], prob: list[float], pay: Any):
    return {
        "parent": parent,
        "player": player,
        "infoset": infoset,
        "prob": prob,
        "payoffs": np.asarray(pay, dtype=float).tolist(),
    }


def entry(rng: np.random.Generator, ways: int, two_step: bool) -> dict[str, Any]:
    """Leader: out or one of `ways` entries (two_step: enter, then pick a way);
    the follower (2 replies) sees entry only."""
    parent, player, infoset = [-1], [0], [0]
    hub = 0
    parent.append(0)
    player.append(-1)
    infoset.append(-1)
    if two_step:
        parent.append(0)
        player.append(0)
        infoset.append(1)
        hub = 2
    fset = 2 if two_step else 1
    for _ in range(ways):
        parent.append(hub)
        player.append(1)
        infoset.append(fset)
        node = len(parent) - 1
        for _ in range(2):
            parent.append(node)
            player.append(-1)
            infoset.append(-1)
    n = len(parent)
    pay = rng.integers(-4, 9, size=(n, 2))
    return tree(parent, player, infoset, [1.0] * n, pay)


def signaling(rng: np.random.Generator, responses: int) -> dict[str, Any]:
    p = float(rng.integers(1, 10)) / 10
    parent, player, infoset, prob = [-1], [-2], [-1], [1.0]
    for ty in range(2):
        parent.append(0)
        player.append(0)
        infoset.append(ty)
        prob.append(p if ty == 0 else 1 - p)
        t = len(parent) - 1
        for m in range(2):
            parent.append(t)
            player.append(1)
            infoset.append(2 + m)
            prob.append(1.0)
            h = len(parent) - 1
            for _ in range(responses):
                parent.append(h)
                player.append(-1)
                infoset.append(-1)
                prob.append(1.0)
    pay = rng.integers(-3, 8, size=(len(parent), 2))
    return tree(parent, player, infoset, prob, pay)


def assess(d: dict[str, Any], profiles: Any = None) -> dict[str, np.ndarray]:
    return _native.sequential_assess(
        np.asarray(d["parent"], dtype=np.int64),
        np.asarray(d["player"], dtype=np.int64),
        np.asarray(d["infoset"], dtype=np.int64),
        np.asarray(d["prob"], dtype=np.float64),
        np.asarray(d["payoffs"], dtype=np.float64),
        None if profiles is None else np.asarray(profiles, dtype=np.int64),
    )


def games() -> st.SearchStrategy[dict[str, Any]]:
    def build(seed: int, kind: int, size: int) -> dict[str, Any]:
        rng = np.random.default_rng(seed)
        if kind == 0:
            return entry(rng, size, False)
        if kind == 1:
            return entry(rng, size, True)
        return signaling(rng, size)

    return st.builds(build, st.integers(0, 2**32), st.integers(0, 2), st.integers(2, 3))


# --- agreement with the reference -----------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(d=games())
def test_matches_reference_on_every_profile(d: dict[str, Any]) -> None:
    g = ref.Game.from_payload(d)
    verdict = assess(d)
    profiles = ref.all_profiles(g)
    assert [tuple(p) for p in verdict["profiles"].tolist()] == profiles
    for k, profile in enumerate(profiles):
        want = ref.judge(g, profile)
        assert bool(verdict["sequential"][k]) == want.sequential, profile
        assert bool(verdict["nash"][k]) == want.nash, profile
        np.testing.assert_allclose(verdict["margin"][k], want.margins, atol=1e-7)


@settings(max_examples=100, deadline=None)
@given(d=games())
def test_supporting_beliefs_are_distributions_that_justify_the_moves(d: dict[str, Any]) -> None:
    g = ref.Game.from_payload(d)
    verdict = assess(d)
    for k, profile in enumerate(ref.all_profiles(g)):
        for i, nodes in enumerate(g.sets()):
            mu = verdict["belief"][k][nodes]
            assert mu.min() >= -1e-12 and mu.sum() == pytest.approx(1.0)
            fixed = ref.beliefs(g, nodes, profile)
            if fixed is not None:
                np.testing.assert_allclose(mu, fixed, atol=1e-12)
            who = g.player[nodes[0]]
            actions = len(g.children(nodes[0]))
            u = np.array(
                [[g.value(g.children(v)[a], profile)[who] for a in range(actions)] for v in nodes]
            )
            expected = mu @ u
            gaps = [expected[profile[i]] - expected[b] for b in range(actions) if b != profile[i]]
            if gaps:  # the witness belief attains the reported margin
                assert min(gaps) == pytest.approx(verdict["margin"][k][i], abs=1e-9)


# --- pygambit ---------------------------------------------------------------------------


def to_gambit(d: dict[str, Any]) -> tuple[gbt.Game, dict[int, Any]]:
    g = ref.Game.from_payload(d)
    game = gbt.Game.new_tree(players=["P0", "P1", "P2"][: g.payoffs.shape[1]])
    nodes = {0: game.root}
    made: dict[int, Any] = {}
    for v in range(len(g.parent)):
        kids = g.children(v)
        if not kids:
            label = f"o{v}"
            game.set_outcome(nodes[v], game.add_outcome(label, [float(x) for x in g.payoffs[v]]))
            continue
        labels = [f"a{j}" for j in range(len(kids))]
        if g.player[v] == -2:
            game.append_move(nodes[v], game.players.chance, labels)
            # gambit wants probabilities that sum to one exactly
            exact = [Fraction(str(g.prob[c])).limit_denominator(1000) for c in kids]
            game.set_chance_probs(nodes[v].infoset, exact)
        elif g.infoset[v] in made:
            game.append_infoset(nodes[v], made[g.infoset[v]])
        else:
            game.append_move(nodes[v], game.players[f"P{g.player[v]}"], labels)
            made[g.infoset[v]] = nodes[v].infoset
        for c, child in zip(kids, nodes[v].children, strict=True):
            nodes[c] = child
    return game, made


def pure_behavior(game: gbt.Game, sets: dict[int, Any], profile: tuple[int, ...]) -> Any:
    mixed = game.mixed_behavior_profile(rational=False)
    for i, infoset in sets.items():
        for j, action in enumerate(infoset.actions):
            mixed[action] = 1.0 if j == profile[i] else 0.0
    return mixed


@settings(max_examples=60, deadline=None)
@given(d=games())
def test_nash_flags_match_gambit_regret(d: dict[str, Any]) -> None:
    game, sets = to_gambit(d)
    verdict = assess(d)
    for k, profile in enumerate(verdict["profiles"].tolist()):
        regret = float(pure_behavior(game, sets, tuple(profile)).max_regret())
        assert bool(verdict["nash"][k]) == (regret <= 1e-9), (profile, regret)


def test_gambit_logit_limits_are_sequential() -> None:
    """The limit of the agent logit QRE is a sequential equilibrium; when it is
    pure, steer must count that profile as sequential."""
    checked = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        d = signaling(rng, 2) if seed % 2 else entry(rng, 2, seed % 4 == 0)
        game, sets = to_gambit(d)
        eq = gbt.nash.logit_solve(game, use_strategic=False).equilibria[0]
        profile = []
        for i in range(len(sets)):
            probs = [float(eq[a]) for a in sets[i].actions]
            if max(probs) < 1 - 1e-4:
                break
            profile.append(int(np.argmax(probs)))
        else:
            verdict = assess(d, [profile])
            assert verdict["sequential"][0], (seed, profile)
            checked += 1
    assert checked >= 20


# --- worked cases -------------------------------------------------------------------------


def beer_quiche() -> dict[str, Any]:
    parent, player, infoset, prob, pay = [-1], [-2], [-1], [1.0], [[0, 0]]
    for ty, p in enumerate((0.9, 0.1)):
        parent.append(0)
        player.append(0)
        infoset.append(ty)
        prob.append(p)
        pay.append([0, 0])
        t = len(parent) - 1
        for m in range(2):  # 0 beer, 1 quiche
            parent.append(t)
            player.append(1)
            infoset.append(2 + m)
            prob.append(1.0)
            pay.append([0, 0])
            h = len(parent) - 1
            for duel in (True, False):
                parent.append(h)
                player.append(-1)
                infoset.append(-1)
                prob.append(1.0)
                strong, beer = ty == 0, m == 0
                pay.append([(strong == beer) + (0 if duel else 2), int(duel != strong)])
    return tree(parent, player, infoset, prob, pay)


def test_beer_quiche_has_two_pooling_equilibria() -> None:
    verdict = assess(beer_quiche())
    seq = sorted(map(tuple, verdict["profiles"][verdict["sequential"]].tolist()))
    assert seq == [(0, 0, 1, 0), (1, 1, 0, 1)]


def test_selten_horse() -> None:
    # 0: P0 D (node 1) or A (node 2); 2: P1 d (node 5) or a (node 6); P2 at {1, 5}.
    parent = [-1, 0, 0, 1, 1, 2, 2, 5, 5]
    player = [0, 2, 1, -1, -1, 2, -1, -1, -1]
    infoset = [0, 2, 1, -1, -1, 2, -1, -1, -1]
    pay = np.zeros((9, 3))
    pay[3], pay[4], pay[6], pay[7], pay[8] = [3, 3, 2], [0, 0, 0], [1, 1, 1], [4, 4, 0], [1, 1, 1]
    d = tree(parent, player, infoset, [1.0] * 9, pay)
    verdict = assess(d)
    seq = sorted(map(tuple, verdict["profiles"][verdict["sequential"]].tolist()))
    assert seq == [(1, 0, 1), (1, 1, 1)]
    k = verdict["profiles"].tolist().index([0, 1, 0])  # (D, a, L): Nash, not sequential
    assert verdict["nash"][k] and not verdict["sequential"][k] and verdict["failing"][k] == 1


# --- bad input ----------------------------------------------------------------------------


def test_bad_games_name_the_problem() -> None:
    rng = np.random.default_rng(0)
    d = entry(rng, 2, False)
    bad = {**d, "player": [0, *d["player"][1:-1], 0]}
    with pytest.raises(InputError, match="decision node 7 needs an information set number"):
        assess(bad)
    with pytest.raises(InputError, match="node 7 has no children, so it must be terminal"):
        assess({**bad, "infoset": [*d["infoset"][:-1], 0]})
    with pytest.raises(InputError, match="information set 1 has 2 actions; got action 5"):
        assess(d, [[0, 5]])
    with pytest.raises(InputError, match="profiles: 3 columns for 2 information sets"):
        assess(d, [[0, 0, 0]])
    s = signaling(rng, 2)
    with pytest.raises(InputError, match="sum to"):
        assess({**s, "prob": [1.0, s["prob"][1] + 0.2, *s["prob"][2:]]})  # types: p + 0.2, 1 − p
    with pytest.raises(InputError, match="payoffs"):
        assess({**d, "payoffs": [[0.0, 0.0]]})


def test_linked_beliefs_are_refused() -> None:
    # P0 picks 0, 1 or 2; after 1 or 2, P1 and then P2 move, each seeing only
    # that P0 did not pick 0: consistency ties P2's beliefs to P1's.
    parent = [-1, 0, 0, 0, 2, 2, 3, 3, 4, 4, 6, 6]
    player = [0, -1, 1, 1, 2, -1, 2, -1, -1, -1, -1, -1]
    infoset = [0, -1, 1, 1, 2, -1, 2, -1, -1, -1, -1, -1]
    d = tree(parent, player, infoset, [1.0] * 12, np.zeros((12, 3)))
    with pytest.raises(SolverError, match="linked"):
        assess(d, [[0, 0, 0]])


def test_beliefs_beyond_single_deviations_are_refused() -> None:
    # P0 then P1 (who sees P0's move); P2's set holds (0, 1) and (1, 0).
    parent = [-1, 0, 0, 1, 1, 2, 2, 4, 4, 5, 5]
    player = [0, 1, 1, -1, 2, 2, -1, -1, -1, -1, -1]
    infoset = [0, 1, 2, -1, 3, 3, -1, -1, -1, -1, -1]
    d = tree(parent, player, infoset, [1.0] * 11, np.zeros((11, 3)))
    with pytest.raises(SolverError, match="2 deviations"):
        assess(d, [[0, 0, 1, 0]])
    ok = assess(d, [[0, 0, 0, 0]])  # both nodes one deviation away: beliefs free
    assert ok["free"][0][3]
