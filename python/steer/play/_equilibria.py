"""Equilibrium benchmarks for the games: best replies, Nash equilibria, the
payoff-dominant one, finite and indefinite repetition, distances and efficiency.

Everything is computed from the game's own payoff rule, never from a formula
for a different game: a best reply is the argmax of `payoffs` over the action
space (exact for discrete and stepped actions; a grid refined three times for
continuous ones), and so the two-player 2/3 beauty contest gets x/2, not 2x/3.

Which equilibria are listed:

- two-player games with discrete actions: all (extreme) Nash equilibria, mixed
  included, by support enumeration (`steer._native.nash_equilibria`);
- other games small enough to enumerate (at most `MAX_PROFILES` action
  profiles): every pure equilibrium, by brute force over the payoff table;
- larger games on a grid: every symmetric pure equilibrium (all seats on one
  level), checked seat by seat against the best reply;
- continuous games: the fixed point of iterated best reply from the top and
  the bottom of the range (the beauty contest: 0);
- auctions: the known closed forms (truthful bidding in a second-price auction;
  (n − 1)/n of the value in a first-price one, for uniform values);
- the pirate game: its backward-induction allocation; the battle royale: none.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt

from steer._native import grim_trigger
from steer._native import nash_equilibria as _native_nash
from steer.errors import InputError
from steer.play._games import (
    MAX_PROFILES,
    AuctionParams,
    FloatArray,
    Game,
    NumberActions,
    PirateParams,
    PublicGoodsParams,
    SealedBidParams,
    payoffs,
)

TOL = 1e-9
_GRID = 1001  # first pass of the continuous best-reply search
_REFINE = 3  # each refinement divides the step by 100


@dataclass(frozen=True)
class Equilibrium:
    """One equilibrium. `strategies` is (players, actions) probabilities for
    discrete games and (players,) numbers for numeric ones; None where the
    equilibrium is a rule of play (bid your value) rather than a profile.
    `payoffs` is each seat's (expected) payoff, None where it depends on
    private values."""

    label: str
    strategies: FloatArray | None
    payoffs: FloatArray | None
    pure: bool


@dataclass(frozen=True)
class Equilibria:
    """A game's equilibrium benchmarks.

    `complete`: the list holds every equilibrium of the kind described in
    `note`. `payoff_dominant`: the index of the equilibrium whose payoffs are
    at least those of every other for every seat (None if there is none).
    `dominant`: every seat has a strictly dominant action, so the stage game's
    only equilibrium is the first listed. `subgame_perfect`: for a finitely
    repeated game whose stage game has a unique equilibrium (a dominant-action
    one, or the only one of a two-player game), that equilibrium played every
    round, by backward induction; None otherwise. `critical_continuation`: for an indefinitely
    repeated two-player game, the continuation probability from which grim
    trigger sustains the profile with the highest total payoff (None if it
    never does)."""

    game: str
    equilibria: tuple[Equilibrium, ...]
    complete: bool
    note: str
    payoff_dominant: int | None
    dominant: bool = False
    subgame_perfect: Equilibrium | None = None
    critical_continuation: float | None = None


# --- best replies -------------------------------------------------------------------


def _profiles_for(game: Game, others: FloatArray, seat: int, own: FloatArray) -> FloatArray:
    """Profiles (len(own), players): `others` in the other seats, `own` in `seat`."""
    rows = np.empty((own.size, game.players), dtype=np.float64)
    rows[:, np.arange(game.players) != seat] = others
    rows[:, seat] = own
    return rows


def _others(game: Game, others: Any) -> FloatArray:
    raw = np.asarray(others)
    if game.discrete and raw.dtype.kind in "OUS":
        raw = game.encode(raw)
    arr = np.asarray(raw, dtype=np.float64).reshape(-1)
    if arr.size != game.players - 1:
        raise InputError(f"game {game.name!r}: give the moves of the other {game.players - 1}")
    return arr


def _seat(game: Game, seat: int) -> None:
    if not 0 <= seat < game.players:
        raise InputError(f"game {game.name!r}: seat {seat} is not 0..{game.players - 1}")


def best_replies(game: Game, others: Any, seat: int, *, values: Any = None) -> FloatArray:
    """Every best reply of `seat` to the other seats' moves (in seat order,
    `seat` left out): action indices for discrete games, numbers otherwise;
    ascending. For a continuous range the search is a grid of 1001 points
    refined three times around the best, so replies are within 1e-8 of the
    range of an exact one."""
    _seat(game, seat)
    rest = _others(game, others)
    vals = None if values is None else np.asarray(values, dtype=np.float64).reshape(1, -1)
    grid = game.action_grid()

    def value_of(own: FloatArray) -> FloatArray:
        profiles = _profiles_for(game, rest, seat, own)
        v = None if vals is None else np.repeat(vals, own.size, axis=0)
        result: FloatArray = payoffs(game, profiles, values=v)[:, seat]
        return result

    if grid is not None:
        u = value_of(grid)
        best: FloatArray = grid[u >= u.max() - TOL]
        return best
    acts = game.actions
    assert isinstance(acts, NumberActions)
    lo, hi = acts.min, acts.max
    points = np.linspace(lo, hi, _GRID)
    for _ in range(_REFINE + 1):
        u = value_of(points)
        centre = points[int(np.argmax(u))]
        step = points[1] - points[0]
        points = np.linspace(max(lo, centre - step), min(hi, centre + step), 201)
    u = value_of(points)
    refined: FloatArray = points[u >= u.max() - TOL]
    return refined[:1]


def best_reply(game: Game, others: Any, seat: int, *, values: Any = None) -> float:
    """The best reply of `seat` (ties: the lowest action)."""
    return float(best_replies(game, others, seat, values=values)[0])


def expected_payoffs(game: Game, mixtures: Any, seat: int) -> FloatArray:
    """For a discrete game, `seat`'s expected payoff of each of its actions when
    each other seat plays its row of `mixtures` ((players − 1, actions)
    probabilities, or one row for all)."""
    if not game.discrete:
        raise InputError(f"game {game.name!r} has number actions: mixtures need discrete ones")
    _seat(game, seat)
    assert isinstance(game.actions, tuple)
    a, n = len(game.actions), game.players
    mix = np.broadcast_to(np.asarray(mixtures, dtype=np.float64), (n - 1, a))
    if a ** (n - 1) * a > MAX_PROFILES:
        raise InputError(f"game {game.name!r} has too many profiles to average over")
    # Every profile of the other seats, with its probability.
    idx = np.indices((a,) * (n - 1)).reshape(n - 1, -1).T
    prob = np.prod(mix[np.arange(n - 1), idx], axis=1)
    own = np.repeat(np.arange(a), len(idx))
    rest = np.tile(idx, (a, 1))
    profiles = np.empty((own.size, n), dtype=np.float64)
    profiles[:, np.arange(n) != seat] = rest
    profiles[:, seat] = own
    u = payoffs(game, profiles)[:, seat].reshape(a, -1)
    result: FloatArray = u @ prob
    return result


def regret(game: Game, profile: Any, *, values: Any = None) -> FloatArray:
    """Each seat's gain from its best unilateral deviation from a pure profile."""
    raw = np.asarray(profile)
    if game.discrete and raw.dtype.kind in "OUS":
        raw = game.encode(raw)
    prof = np.asarray(raw, dtype=np.float64).reshape(-1)
    now = payoffs(game, prof, values=values)
    out = np.empty(game.players)
    for seat in range(game.players):  # one search per seat
        others = np.delete(prof, seat)
        best = best_reply(game, others, seat, values=values)
        dev = prof.copy()
        dev[seat] = best
        out[seat] = max(0.0, float(payoffs(game, dev, values=values)[seat] - now[seat]))
    return out


# --- equilibria ---------------------------------------------------------------------


def payoff_table(game: Game) -> tuple[FloatArray, FloatArray]:
    """(actions, table): every action as a number and the payoffs of every
    profile, shape (k,) * players + (players,); for discrete and stepped games
    with at most `MAX_PROFILES` profiles."""
    grid = game.action_grid()
    if grid is None:
        raise InputError(f"game {game.name!r} has a continuous action range: no table")
    k, n = grid.size, game.players
    if k**n > MAX_PROFILES or game.needs_values or game.sequential:
        raise InputError(f"game {game.name!r} cannot be tabulated ({k}^{n} profiles)")
    if game.table is not None:
        return grid, game.table
    idx = np.indices((k,) * n).reshape(n, -1).T
    table = payoffs(game, grid[idx]).reshape((k,) * n + (n,))
    return grid, table


def _pure_mask(table: FloatArray) -> npt.NDArray[np.bool_]:
    n = table.shape[-1]
    mask = np.ones(table.shape[:-1], dtype=bool)
    for seat in range(n):  # a loop over seats, not profiles
        own = table[..., seat]
        mask &= own >= own.max(axis=seat, keepdims=True) - TOL
    return mask


def _one_hot(indices: npt.NDArray[np.int64], k: int) -> FloatArray:
    out = np.zeros((indices.size, k))
    out[np.arange(indices.size), indices] = 1.0
    return out


def nash_equilibria(game: Game) -> Equilibria:
    """The equilibrium benchmarks of `game` (see the module docstring)."""
    eqs, complete, note = _stage(game)
    best = _payoff_dominant(eqs)
    dominant = bool(eqs) and _dominant(game)
    unique = dominant or (game.discrete and game.players == 2 and len(eqs) == 1)
    spe = eqs[0] if game.rounds > 1 and game.continuation is None and unique else None
    critical = None
    if game.continuation is not None and game.table is not None and game.players == 2:
        critical = _grim(game, eqs)
    return Equilibria(game.name, tuple(eqs), complete, note, best, dominant, spe, critical)


def _dominant(game: Game) -> bool:
    """Whether every seat has a strictly dominant action."""
    p = game.rule_params
    if isinstance(p, PublicGoodsParams):
        # Each unit contributed returns multiplier / players to its giver.
        return p.multiplier / game.players != 1
    if not _tabulable(game):
        return False
    table = payoff_table(game)[1]
    for seat in range(game.players):  # a loop over seats
        own = np.moveaxis(table[..., seat], seat, 0).reshape(table.shape[seat], -1)
        top = own.argmax(axis=0)
        if np.any(top != top[0]):
            return False
        others = np.delete(own, top[0], axis=0)
        if others.size and np.any(others >= own[top[0]] - TOL):
            return False
    return True


def _stage(game: Game) -> tuple[list[Equilibrium], bool, str]:
    p = game.rule_params
    if game.rule == "gama:pirate":
        assert isinstance(p, PirateParams)
        alloc = pirate_outcome(game.players, p.gold, p.pass_share)
        eq = Equilibrium("backward induction", None, alloc.astype(np.float64), True)
        return [eq], True, "subgame-perfect allocation by backward induction"
    if game.sequential:
        return [], False, "no equilibrium computed for this sequential game"
    if isinstance(p, AuctionParams):
        return _auction(game, p)
    if game.discrete and game.players == 2:
        return _bimatrix(game)
    grid = game.action_grid()
    if grid is not None and grid.size**game.players <= MAX_PROFILES:
        return _pure_by_table(game)
    if grid is not None:
        return _symmetric_on_grid(game, grid)
    return _iterated(game)


def _bimatrix(game: Game) -> tuple[list[Equilibrium], bool, str]:
    table = game.table if game.table is not None else payoff_table(game)[1]
    rows, cols = _native_nash(np.ascontiguousarray(table, dtype=np.float64))
    labels = game.actions
    assert isinstance(labels, tuple)
    eqs = []
    for x, y in zip(rows, cols, strict=True):
        u = np.array([x @ table[..., 0] @ y, x @ table[..., 1] @ y])
        pure = bool(np.isclose(x.max(), 1.0) and np.isclose(y.max(), 1.0))
        label = f"({labels[int(np.argmax(x))]}, {labels[int(np.argmax(y))]})" if pure else "mixed"
        eqs.append(Equilibrium(label, np.vstack([x, y]), u, pure))
    return eqs, True, "every extreme Nash equilibrium (support enumeration)"


def _pure_by_table(game: Game) -> tuple[list[Equilibrium], bool, str]:
    grid, table = payoff_table(game)
    found = np.argwhere(_pure_mask(table))
    eqs = []
    for prof in found:  # the equilibria, not the profiles
        u = table[tuple(prof)]
        if isinstance(game.actions, tuple):
            labels = ", ".join(game.actions[i] for i in prof)
            eqs.append(Equilibrium(f"({labels})", _one_hot(prof, grid.size), u, True))
        else:
            moves = grid[prof]
            eqs.append(Equilibrium(f"({', '.join(f'{m:g}' for m in moves)})", moves, u, True))
    return eqs, True, "every pure Nash equilibrium (brute force over all profiles)"


def _symmetric_on_grid(game: Game, grid: FloatArray) -> tuple[list[Equilibrium], bool, str]:
    eqs = []
    for level in grid:  # one best-reply search per level
        prof = np.full(game.players, level)
        if regret(game, prof).max() <= TOL:
            u = payoffs(game, prof)
            eqs.append(Equilibrium(f"all {level:g}", prof, u, True))
    return eqs, False, "every symmetric pure equilibrium (all seats on one level)"


def _iterated(game: Game) -> tuple[list[Equilibrium], bool, str]:
    acts = game.actions
    assert isinstance(acts, NumberActions)
    span = acts.max - acts.min
    eqs: list[Equilibrium] = []
    for start in (acts.max, acts.min):
        x = start
        for _ in range(200):
            y = best_reply(game, np.full(game.players - 1, x), 0)
            if abs(y - x) <= 1e-9 * span:
                break
            x = y
        # Snap the fixed point to a bound it is within the search precision of.
        for bound in (acts.min, acts.max):
            if abs(x - bound) <= 1e-6 * span:
                x = bound
        prof = np.full(game.players, x)
        if regret(game, prof).max() <= 1e-6 * span and not any(
            np.allclose(e.strategies, prof) for e in eqs if e.strategies is not None
        ):
            eqs.append(Equilibrium(f"all {x:g}", prof, payoffs(game, prof), True))
    return eqs, False, "fixed points of iterated best reply (symmetric)"


def _auction(game: Game, p: AuctionParams) -> tuple[list[Equilibrium], bool, str]:
    price = p.price if isinstance(p, SealedBidParams) else "second"
    if price == "second":
        eq = Equilibrium("bid = value (weakly dominant)", None, None, True)
        return [eq], False, "truthful bidding; other (weakly dominated) equilibria exist"
    n = game.players
    eq = Equilibrium(f"bid = {n - 1}/{n} x value", None, None, True)
    return [eq], False, "the symmetric risk-neutral equilibrium for values uniform on [0, v]"


def _payoff_dominant(eqs: list[Equilibrium]) -> int | None:
    with_payoffs = [(i, e.payoffs) for i, e in enumerate(eqs) if e.payoffs is not None]
    for i, u in with_payoffs:
        if all(np.all(u >= v - TOL) for _, v in with_payoffs):
            return i
    return None


def _grim(game: Game, eqs: list[Equilibrium]) -> float | None:
    table = game.table
    assert table is not None
    total = table.sum(axis=-1)
    target = np.unravel_index(int(np.argmax(total)), total.shape)
    pure = [e for e in eqs if e.pure and e.strategies is not None and e.payoffs is not None]
    if not pure:
        return None
    worst = min(pure, key=lambda e: float(e.payoffs.sum()) if e.payoffs is not None else 0.0)
    assert worst.strategies is not None
    punish = tuple(int(i) for i in np.argmax(worst.strategies, axis=1))
    critical, _ = grim_trigger(
        np.ascontiguousarray(table), (int(target[0]), int(target[1])), (punish[0], punish[1])
    )
    return critical


def pirate_outcome(pirates: int, gold: int, pass_share: float) -> npt.NDArray[np.int64]:
    """The backward-induction allocation of the pirate game, most senior first.

    A proposal passes with at least ceil(pass_share × living) votes, the
    proposer's included; pirates prefer survival, then gold, and reject when
    indifferent, so a vote costs one coin more than the voter gets if the
    proposer dies. The proposer buys the cheapest votes, the most junior first
    among equals (when more are equally cheap than needed the allocation is
    not unique)."""
    return np.array(_pirate_plans(pirates, gold, pass_share)[pirates - 1], dtype=np.int64)


@cache
def _pirate_plans(pirates: int, gold: int, pass_share: float) -> tuple[tuple[int, ...], ...]:
    """The backward-induction plan for 1, 2, …, `pirates` living pirates
    (cached: scoring asks for it once per vote)."""
    alloc = np.array([gold], dtype=np.int64)  # one pirate keeps everything
    plans: list[tuple[int, ...]] = [(gold,)]
    for n in range(2, pirates + 1):
        need = votes_needed(n, pass_share) - 1  # votes beyond the proposer's
        nxt = alloc  # the allocation among the n − 1 juniors if the proposer dies
        cost = nxt + 1
        order = np.lexsort((-np.arange(n - 1), cost))[:need]
        if cost[order].sum() > gold:
            raise InputError(f"{pirates} pirates cannot buy enough votes with {gold} coins")
        rest = np.zeros(n - 1, dtype=np.int64)
        rest[order] = cost[order]
        alloc = np.concatenate([[gold - rest.sum()], rest])
        plans.append(tuple(int(x) for x in alloc))
    return tuple(plans)


def votes_needed(living: int, pass_share: float) -> int:
    """Accepting votes (the proposer's included) that carry a plan among `living`."""
    return max(1, math.ceil(pass_share * living - 1e-12))


def pirate_vote(proposal: Any, voter: int, gold: int, pass_share: float) -> bool:
    """The backward-induction vote of the living pirate at position `voter`
    (0 is the proposer) on `proposal` (coins per living pirate, most senior
    first): accept exactly when the plan gives it more than it gets if the
    proposer dies and the juniors play the equilibrium (a voter never dies
    itself by voting, and on the equilibrium path every later plan passes,
    so gold decides; indifference rejects)."""
    plan = [int(x) for x in proposal]
    if not 1 <= voter < len(plan):
        raise InputError(f"voter {voter} is not a living pirate other than the proposer")
    fallback = _pirate_plans(len(plan) - 1, gold, pass_share)[len(plan) - 2]
    return plan[voter] > fallback[voter - 1]


# --- distances and efficiency -------------------------------------------------------


def distance_to_nearest(game: Game, play: Any, equilibria: Equilibria) -> tuple[float, int]:
    """(distance, index) of the equilibrium nearest to `play` (rounds × players
    moves; pass the final rounds to ask what play converged to).

    Discrete games: the mean over seats of the total-variation distance between
    a seat's action frequencies and its equilibrium strategy (0 to 1). Numeric
    games: the mean absolute difference from the equilibrium profile, as a share
    of the action range."""
    raw = np.asarray(play)
    if game.discrete and raw.dtype.kind in "OUS":
        raw = game.encode(raw)
    moves = np.atleast_2d(np.asarray(raw, dtype=np.float64))
    if moves.shape[1] != game.players or moves.shape[0] == 0:
        raise InputError(f"play must be rounds × {game.players} players")
    candidates = [
        (i, e.strategies) for i, e in enumerate(equilibria.equilibria) if e.strategies is not None
    ]
    if not candidates:
        raise InputError(f"game {game.name!r}: no equilibrium profile to measure a distance to")
    dist = np.empty(len(candidates))
    if isinstance(game.actions, tuple):
        k = len(game.actions)
        counts = np.stack([np.bincount(c, minlength=k) for c in moves.astype(np.int64).T])
        freq = counts / moves.shape[0]
        for j, (_, s) in enumerate(candidates):
            dist[j] = 0.5 * np.abs(freq - s).sum(axis=1).mean()
    else:
        acts = game.actions
        assert isinstance(acts, NumberActions)
        span = acts.max - acts.min
        for j, (_, s) in enumerate(candidates):
            dist[j] = np.abs(moves - s).mean() / span
    best = int(np.argmin(dist))
    return float(dist[best]), candidates[best][0]


def collective_range(game: Game) -> tuple[float, float]:
    """The lowest and highest total payoff of one round over all profiles
    (for games too large to enumerate: over symmetric profiles, exact for
    public goods, whose total depends only on the sum of contributions)."""
    if isinstance(game.rule_params, PublicGoodsParams) or not _tabulable(game):
        grid = game.action_grid()
        if grid is None:
            acts = game.actions
            assert isinstance(acts, NumberActions)
            grid = np.linspace(acts.min, acts.max, _GRID)
        total = payoffs(game, np.repeat(grid[:, None], game.players, axis=1)).sum(axis=1)
    else:
        total = payoff_table(game)[1].sum(axis=-1)
    return float(total.min()), float(total.max())


def _tabulable(game: Game) -> bool:
    grid = game.action_grid()
    return (
        grid is not None
        and grid.size**game.players <= MAX_PROFILES
        and not game.needs_values
        and not game.sequential
    )


def efficiency(payoff: Any, game: Game) -> float:
    """Collective efficiency (payoff − min) / (max − min): `payoff` is the total
    payoff of all seats in one round, or a rounds × players payoff array (its
    mean total per round); min and max are the game's extreme round totals."""
    arr = np.asarray(payoff, dtype=np.float64)
    total = float(arr.sum(axis=-1).mean()) if arr.ndim >= 1 else float(arr)
    lo, hi = collective_range(game)
    if hi - lo <= TOL:
        raise InputError(f"game {game.name!r}: every profile pays the same total")
    return (total - lo) / (hi - lo)


def auction_deviation(bids: Any, values: Any) -> FloatArray:
    """|bid − value| / value, elementwise (the second-price auction's metric)."""
    b = np.asarray(bids, dtype=np.float64)
    v = np.asarray(values, dtype=np.float64)
    if np.any(v <= 0):
        raise InputError("values must be > 0")
    result: FloatArray = np.abs(b - v) / v
    return result
