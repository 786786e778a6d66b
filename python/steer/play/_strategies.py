"""Reference strategies: scripted seats to play against, and yardsticks.

A strategy is a pure function ``(game, history, seat, rng, **params) ->
action`` (a label for discrete games, a number otherwise); all randomness
comes from `rng`. Agents are named by specs such as ``agent:tit-for-tat`` or
``agent:level-k(k=2)``; `make_agent` checks the name and the parameters
(unknown keys are errors) once, before any play.

Definitions (what each one plays):

``always-defect`` / ``always-cooperate``
    The game's ``defect`` / ``cooperate`` action, every round.
``tit-for-tat(first=cooperate)``
    ``first`` in round one, then the other seat's previous move (two players).
``truthful``
    Its own private value (auctions).
``level-k(k=…)``
    Level 0 plays uniformly at random over the action space. Level 1 best-
    replies to every other seat playing level 0: for numeric actions to the
    level-0 mean (the middle of the range), for discrete actions to the
    uniform mixture (exact expected payoffs). Level k ≥ 2 best-replies to every
    other seat playing level k − 1. Best replies come from the game's payoff
    rule (`steer.play._equilibria.best_reply`), so in the two-player 2/3 beauty
    contest on [0, 100] level 1 guesses 25 and level 2 guesses 12.5.
``free-rider``
    Contributes the least allowed (0) in a public-goods game.
``conditional-cooperator(first=…)``
    Contributes the mean of the other seats' previous contributions (rounded
    to the action grid); in round one ``first``, by default half the
    endowment.
``random``
    Uniformly at random over the action space (the grid, the labels, or the
    continuous range). In the sequential games, a uniformly drawn valid move:
    a proposal uniform over every split of the gold among the living pirates,
    accept or reject with equal chance, a target uniform over the living
    opponents and the air.

Agents of the sequential games (`steer.play._sequential`) answer a `Turn`
(what the seat asked at one step sees) instead of a round's history:

``backward-induction`` (pirate game)
    Proposes the backward-induction plan for the living pirates
    (`pirate_outcome`) and votes as that equilibrium does (`pirate_vote`:
    accept exactly when the plan gives it more than it would get if the
    proposer died).
``strongest-target`` (battle royale)
    Shoots at the living opponent with the highest hit rate (a tie: the one
    who shoots next after it in turn order).
``fixed-target(seat=K)`` (battle royale)
    Shoots at player K (1-based) while K is standing and is not itself,
    otherwise at the living opponent who shoots next after it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from steer._suggest import did_you_mean
from steer.errors import InputError, UnknownNameError
from steer.play._equilibria import best_replies, expected_payoffs, pirate_outcome, pirate_vote
from steer.play._games import (
    BattleRoyaleParams,
    FloatArray,
    Game,
    NumberActions,
    PirateParams,
    PublicGoodsParams,
    Turn,
)

Action = str | float
#: A sequential move: a proposal (coins per living pirate, most senior first),
#: a vote (True accepts) or a target seat (0-based; None shoots into the air).
TurnMove = tuple[int, ...] | bool | int | None


@dataclass(frozen=True)
class History:
    """What has been played: `moves` (rounds so far × players; action indices
    for discrete games), their `payoffs` (same shape, optional), and this
    round's private `values` (one per seat) where the game has them."""

    moves: FloatArray
    payoffs: FloatArray | None = None
    values: FloatArray | None = None

    @classmethod
    def start(cls, game: Game, values: Any = None) -> History:
        """The history before the first round."""
        vals = None if values is None else np.asarray(values, dtype=np.float64)
        return cls(np.empty((0, game.players)), np.empty((0, game.players)), vals)

    @property
    def round(self) -> int:
        """The 0-based number of the round about to be played."""
        return int(self.moves.shape[0])


class StrategyFn(Protocol):
    def __call__(
        self, game: Game, history: History, seat: int, rng: np.random.Generator, **params: Any
    ) -> Action: ...


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _NoParams(_Params):
    pass


class _TitForTatParams(_Params):
    first: str = "cooperate"


class _LevelKParams(_Params):
    k: int = Field(ge=0, le=20)


class _ConditionalParams(_Params):
    first: float | None = None


class _FixedTargetParams(_Params):
    seat: int = Field(ge=1)


@dataclass(frozen=True)
class Strategy:
    """`fn` plays a simultaneous game's round; `turn` a sequential game's step
    (None: the agent does not play sequential games), in the games of the
    `rules` named (empty: every sequential game)."""

    fn: Callable[..., Action]
    params: type[_Params]
    turn: Callable[..., TurnMove] | None = None
    rules: tuple[str, ...] = ()

    def plays(self, game: Game) -> bool:
        """Whether the agent plays the sequential `game`."""
        return self.turn is not None and (not self.rules or game.rule in self.rules)


# --- helpers ------------------------------------------------------------------------


def _label(game: Game, index: float) -> Action:
    """The action to return: a label for discrete games, else the number."""
    if isinstance(game.actions, tuple):
        return game.actions[int(index)]
    return float(index)


def _need_label(game: Game, label: str, agent: str) -> int:
    if not isinstance(game.actions, tuple) or label not in game.actions:
        raise InputError(f"agent:{agent} needs a game with a {label!r} action ({game.name!r})")
    return game.actions.index(label)


def _public_goods(game: Game, agent: str) -> tuple[PublicGoodsParams, NumberActions]:
    p, acts = game.rule_params, game.actions
    if not isinstance(p, PublicGoodsParams) or not isinstance(acts, NumberActions):
        raise InputError(f"agent:{agent} plays public-goods games, not {game.name!r}")
    return p, acts


def _snap(acts: NumberActions, x: float) -> float:
    """The allowed action nearest to x."""
    x = min(max(x, acts.min), acts.max)
    if acts.step is not None:
        x = acts.min + acts.step * round((x - acts.min) / acts.step)
    return float(x)


# --- the strategies -----------------------------------------------------------------


def always_defect(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
    return _label(game, _need_label(game, "defect", "always-defect"))


def always_cooperate(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
    return _label(game, _need_label(game, "cooperate", "always-cooperate"))


def tit_for_tat(
    game: Game, history: History, seat: int, rng: np.random.Generator, first: str = "cooperate"
) -> Action:
    if game.players != 2:
        raise InputError(f"agent:tit-for-tat plays two-player games ({game.name!r} has more)")
    start = _need_label(game, first, "tit-for-tat")
    if history.round == 0:
        return _label(game, start)
    return _label(game, history.moves[-1, 1 - seat])


def truthful(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
    if not game.needs_values:
        raise InputError(f"agent:truthful bids in auctions, not {game.name!r}")
    if history.values is None:
        raise InputError("agent:truthful needs this round's private values")
    return float(history.values[seat])


def level_k(game: Game, history: History, seat: int, rng: np.random.Generator, k: int) -> Action:
    if k == 0:
        return random_action(game, history, seat, rng)
    return _label(game, level_k_actions(game, k)[seat])


def level_k_actions(game: Game, k: int) -> FloatArray:
    """Each seat's level-k action (k ≥ 1; action indices for discrete games)."""
    if k < 1:
        raise InputError("level 0 is random: level_k_actions needs k >= 1")
    if game.sequential or game.needs_values:
        raise InputError("agent:level-k needs a simultaneous game without private values")
    n = game.players
    seats = np.arange(n)
    acts = game.actions
    level = np.empty(n)
    for seat in seats:  # level 1: against level 0
        if isinstance(acts, tuple):
            uniform = np.full(len(acts), 1.0 / len(acts))
            u = expected_payoffs(game, uniform, int(seat))
            level[seat] = float(np.argmax(u >= u.max() - 1e-9))
        else:
            mean = (acts.min + acts.max) / 2.0
            level[seat] = _middle(best_replies(game, np.full(n - 1, mean), int(seat)))
    for _ in range(k - 1):  # each further level replies to the one below
        level = np.array([_middle(best_replies(game, level[seats != s], int(s))) for s in seats])
    return level


def _middle(replies: FloatArray) -> float:
    """The median best reply (the lower of the two middle ones): a winner-takes-
    all guessing game has a whole interval of them, and its lowest is an edge."""
    return float(replies[(replies.size - 1) // 2])


def free_rider(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
    _, acts = _public_goods(game, "free-rider")
    return float(acts.min)


def conditional_cooperator(
    game: Game,
    history: History,
    seat: int,
    rng: np.random.Generator,
    first: float | None = None,
) -> Action:
    p, acts = _public_goods(game, "conditional-cooperator")
    if history.round == 0:
        return _snap(acts, p.endowment / 2.0 if first is None else first)
    others = np.delete(history.moves[-1], seat)
    return _snap(acts, float(others.mean()))


def random_action(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
    acts = game.actions
    if isinstance(acts, tuple):
        return acts[int(rng.integers(len(acts)))]
    grid = acts.grid()
    if grid is not None:
        return float(grid[int(rng.integers(grid.size))])
    return float(rng.uniform(acts.min, acts.max))


# --- the sequential games' agents --------------------------------------------------


def _pirate(game: Game, agent: str) -> PirateParams:
    p = game.rule_params
    if not isinstance(p, PirateParams):
        raise InputError(f"agent:{agent} plays the pirate game, not {game.name!r}")
    return p


def _royale(game: Game, agent: str) -> BattleRoyaleParams:
    p = game.rule_params
    if not isinstance(p, BattleRoyaleParams):
        raise InputError(f"agent:{agent} plays the battle royale, not {game.name!r}")
    return p


def _after(turn: Turn) -> list[int]:
    """The living opponents in the order they shoot after `turn.seat`."""
    i = turn.alive.index(turn.seat)
    return list(turn.alive[i + 1 :] + turn.alive[:i])


def backward_induction(game: Game, turn: Turn, rng: np.random.Generator) -> TurnMove:
    p = _pirate(game, "backward-induction")
    if turn.kind == "propose":
        return tuple(int(x) for x in pirate_outcome(len(turn.alive), p.gold, p.pass_share))
    assert turn.proposal is not None
    return pirate_vote(turn.proposal, turn.alive.index(turn.seat), p.gold, p.pass_share)


def strongest_target(game: Game, turn: Turn, rng: np.random.Generator) -> TurnMove:
    p = _royale(game, "strongest-target")
    others = _after(turn)
    return max(others, key=lambda s: (p.hit_rates[s], -others.index(s)))


def fixed_target(game: Game, turn: Turn, rng: np.random.Generator, seat: int) -> TurnMove:
    _royale(game, "fixed-target")
    target = seat - 1
    if target != turn.seat and target in turn.alive:
        return target
    return _after(turn)[0]


def random_turn(game: Game, turn: Turn, rng: np.random.Generator) -> TurnMove:
    if turn.kind == "propose":
        gold = _pirate(game, "random").gold
        n = len(turn.alive)
        # Uniform over the splits: n − 1 bars among gold + n − 1 places.
        bars = np.sort(rng.choice(gold + n - 1, size=n - 1, replace=False))
        edges = np.concatenate([[-1], bars, [gold + n - 1]])
        return tuple(int(x) for x in np.diff(edges) - 1)
    if turn.kind == "vote":
        return bool(rng.integers(2))
    choices: list[int | None] = [*_after(turn), None]
    return choices[int(rng.integers(len(choices)))]


def _simultaneous_only(name: str) -> Callable[..., Action]:
    def refuse(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
        raise InputError(f"agent:{name} plays a sequential game, not {game.name!r}")

    return refuse


_ROYALE = ("gama:battle-royale",)

STRATEGIES: dict[str, Strategy] = {
    "always-defect": Strategy(always_defect, _NoParams),
    "always-cooperate": Strategy(always_cooperate, _NoParams),
    "tit-for-tat": Strategy(tit_for_tat, _TitForTatParams),
    "truthful": Strategy(truthful, _NoParams),
    "level-k": Strategy(level_k, _LevelKParams),
    "free-rider": Strategy(free_rider, _NoParams),
    "conditional-cooperator": Strategy(conditional_cooperator, _ConditionalParams),
    "random": Strategy(random_action, _NoParams, random_turn),
    "backward-induction": Strategy(
        _simultaneous_only("backward-induction"), _NoParams, backward_induction, ("gama:pirate",)
    ),
    "strongest-target": Strategy(
        _simultaneous_only("strongest-target"), _NoParams, strongest_target, _ROYALE
    ),
    "fixed-target": Strategy(
        _simultaneous_only("fixed-target"), _FixedTargetParams, fixed_target, _ROYALE
    ),
}


# --- agent specs --------------------------------------------------------------------

_SPEC = re.compile(r"^agent:(?P<name>[a-z0-9-]+)(?:\((?P<args>[^()]*)\))?$")


def _value(text: str) -> Any:
    text = text.strip()
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text.strip("'\"")


def parse_agent(spec: str) -> tuple[str, dict[str, Any]]:
    """("level-k", {"k": 2}) from "agent:level-k(k=2)"; the name and parameters
    are checked against the registry."""
    match = _SPEC.match(spec.strip())
    if match is None:
        raise InputError(f"{spec!r} is not an agent spec (agent:NAME or agent:NAME(key=value, …))")
    name = match.group("name")
    if name not in STRATEGIES:
        raise UnknownNameError("agent", f"agent:{name}", did_you_mean(name, STRATEGIES))
    params: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in (match.group("args") or "").split(","))):
        key, eq, value = part.partition("=")
        if not eq or not key.strip():
            raise InputError(f"{spec!r}: parameters are key=value")
        params[key.strip()] = _value(value)
    _check_params(name, params)
    return name, params


def _check_params(name: str, params: dict[str, Any]) -> dict[str, Any]:
    model = STRATEGIES[name].params
    try:
        checked = model.model_validate(params)
    except ValidationError as exc:
        errors = exc.errors()
        # An unknown key explains a missing one ("k" misspelt): report it first.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        key = ".".join(str(p) for p in err["loc"])
        if err["type"] == "extra_forbidden":
            known = ", ".join(model.model_fields) or "none"
            raise InputError(
                f"agent:{name}: unknown parameter {key!r} (parameters: {known})"
            ) from None
        raise InputError(f"agent:{name}: parameter {key!r}: {err['msg']}") from None
    return {k: v for k, v in checked.model_dump().items() if k in params or v is not None}


Agent = Callable[[Game, History, int, np.random.Generator], Action]


def make_agent(spec: str) -> Agent:
    """The agent of `spec` as a function (game, history, seat, rng) -> action."""
    name, params = parse_agent(spec)
    fn = STRATEGIES[name].fn
    checked = _check_params(name, params)

    def agent(game: Game, history: History, seat: int, rng: np.random.Generator) -> Action:
        return fn(game, history, seat, rng, **checked)

    return agent


TurnAgent = Callable[[Game, Turn, np.random.Generator], TurnMove]


def make_turn_agent(spec: str, game: Game) -> TurnAgent:
    """The agent of `spec` for a sequential game's steps; an agent that plays
    only simultaneous games is refused here, before any play."""
    name, params = parse_agent(spec)
    strategy = STRATEGIES[name]
    fn = strategy.turn
    if fn is None or not strategy.plays(game):
        able = ", ".join(f"agent:{n}" for n, s in STRATEGIES.items() if s.plays(game))
        how = "plays simultaneous rounds" if fn is None else "plays another game"
        raise InputError(
            f"agent:{name} {how}; {game.name!r} is played step by step "
            f"(agents that play it: {able})"
        )
    checked = _check_params(name, params)
    if name == "fixed-target" and checked["seat"] > game.players:
        raise InputError(f"agent:fixed-target: seat {checked['seat']} is not 1..{game.players}")

    def agent(game: Game, turn: Turn, rng: np.random.Generator) -> TurnMove:
        return fn(game, turn, rng, **checked)

    return agent
