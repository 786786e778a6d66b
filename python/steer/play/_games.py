"""Games as data: the file format, the shipped games and their payoff rules.

A game is a TOML file (the shipped ones are in ``games/``) with

``name``, ``version`` (1), ``source`` (the paper), ``notes``
    What the game is, where it comes from and what steer had to choose.
``players``, ``rounds``, ``continuation``
    The number of seats; the rounds played; and, for an indefinitely repeated
    game, the probability that another round follows each round (``rounds`` is
    then a cap on the length, so a run always ends).
``information``
    What a player is shown of the history: ``all-moves`` (every seat's move
    and payoff), ``aggregate`` (the group's total or mean, and its own),
    ``own-payoff`` (its own move and payoff only), ``outcome`` (the winner and
    the price or result, and its own payoff) or ``none``.
``actions``
    Either discrete labels (``actions = ["cooperate", "defect"]``) or a number
    range (``[actions]`` with ``kind = "number"``, ``min``, ``max`` and an
    optional ``step``; without one, any real number in the range).
``payoffs`` or ``rule`` + ``[params]``
    Discrete games may list one ``[payoff per player]`` entry per action
    profile, in row-major order (the first player's action changes slowest):
    ``players × len(actions) ** players`` numbers. Every other game names a
    rule from the closed set `RULES`, implemented here, with its parameters;
    nothing in a file is evaluated as code.

Moves are arrays with one column per seat: action indices for discrete games,
numbers for numeric ones; `payoffs` is vectorised over rows (rounds).

Two rules are sequential (`Game.sequential`): ``gama:pirate`` and
``gama:battle-royale`` have no payoff of one profile of moves; they are played
step by step (`steer.play._sequential`), and a `Turn` is what the seat asked
at one step sees. Their files are checked for what that play needs: the
public history (``information = "all-moves"``), the action range a seat
answers in (a pirate's coins 0..gold; a shooter's target 0..players, 0 being
the air), at most `MAX_PIRATES` pirates whose votes the gold can buy, and
for the pirate game enough ``rounds`` (one proposal and its vote each) to
reach the last pirate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    field_validator,
    model_validator,
)

from steer._suggest import did_you_mean
from steer._toml import parse_toml, read_toml_text
from steer.errors import FileFormatError, InputError, UnknownNameError

GAMES_DIR = Path(__file__).with_name("games")

FloatArray = npt.NDArray[np.float64]

#: The most pirates a pirate game may have: each proposal is a list of one
#: coin count per living pirate, written out in every prompt.
MAX_PIRATES = 30

# Enumerating every action profile (pure equilibria, payoff ranges) is done
# only below this many profiles; larger games use closed forms.
MAX_PROFILES = 1 << 20


def _finite(value: float) -> float:
    if not math.isfinite(value):
        raise ValueError("is not a finite number")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NumberActions(_Strict):
    """A numeric action: any number in [min, max], or the grid min, min + step, …, max."""

    kind: Literal["number"]
    min: float
    max: float
    step: float | None = Field(default=None, gt=0)

    @field_validator("min", "max", "step")
    @classmethod
    def _finite_bounds(cls, value: float | None) -> float | None:
        return None if value is None else _finite(value)

    @model_validator(mode="after")
    def _range(self) -> NumberActions:
        if self.max <= self.min:
            raise ValueError(f"max ({self.max:g}) must exceed min ({self.min:g})")
        if self.step is not None:
            count = (self.max - self.min) / self.step
            if abs(count - round(count)) > 1e-9 * max(1.0, count):
                raise ValueError("(max - min) must be a whole number of steps")
            if round(count) + 1 > MAX_PROFILES:
                raise ValueError(f"more than {MAX_PROFILES} grid points")
        return self

    def grid(self) -> FloatArray | None:
        """The grid points, or None for a continuous range."""
        if self.step is None:
            return None
        n = round((self.max - self.min) / self.step) + 1
        return self.min + self.step * np.arange(n, dtype=np.float64)


# --- payoff rules -------------------------------------------------------------------


class _Params(_Strict):
    pass


class PublicGoodsParams(_Params):
    endowment: float = Field(gt=0)
    multiplier: float = Field(gt=0)


class AuctionParams(_Params):
    # The private values a bidder's value is drawn from (uniformly, per round).
    values: tuple[float, ...] = Field(min_length=1)

    @field_validator("values")
    @classmethod
    def _positive(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if any(not math.isfinite(v) or v <= 0 for v in value):
            raise ValueError("values must be finite and > 0")
        return value


class SealedBidParams(AuctionParams):
    price: Literal["first", "second"]


class BeautyParams(_Params):
    fraction: float = Field(gt=0, le=1)


class GuessingParams(BeautyParams):
    prize: float = Field(gt=0)


class MinimumEffortParams(_Params):
    a: float
    b: float
    c: float

    _f = field_validator("a", "b", "c")(_finite)


class ElFarolParams(_Params):
    capacity: float = Field(gt=0, lt=1)
    go_uncrowded: float
    go_crowded: float
    stay: float

    @model_validator(mode="after")
    def _order(self) -> ElFarolParams:
        if not self.go_crowded < self.stay < self.go_uncrowded:
            raise ValueError("needs go_crowded < stay < go_uncrowded")
        return self


class DivideParams(_Params):
    total: float = Field(gt=0)


class DinerParams(_Params):
    cheap_price: float = Field(ge=0)
    cheap_utility: float
    expensive_price: float = Field(ge=0)
    expensive_utility: float


class BattleRoyaleParams(_Params):
    hit_rates: tuple[float, ...] = Field(min_length=2)

    @field_validator("hit_rates")
    @classmethod
    def _probabilities(cls, value: tuple[float, ...]) -> tuple[float, ...]:
        if any(not 0.0 <= p <= 1.0 for p in value):
            raise ValueError("hit rates are probabilities (0 to 1)")
        return value


class PirateParams(_Params):
    gold: int = Field(ge=1, le=1_000_000)
    pass_share: float = Field(gt=0, le=1)


@dataclass(frozen=True)
class Turn:
    """One step of a sequential game as the seat asked sees it (0-based seats).

    `kind`: ``propose`` (the most senior living pirate splits the gold),
    ``vote`` (a living pirate accepts or rejects `proposal`), ``shoot`` (the
    shooter picks a living opponent or the air). `alive`: the living seats in
    seniority / turn order. `proposal`: the coins of each seat in `alive`, in
    that order (votes only)."""

    kind: Literal["propose", "vote", "shoot"]
    seat: int
    alive: tuple[int, ...]
    proposal: tuple[int, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "alive": list(self.alive),
                "proposal": None if self.proposal is None else list(self.proposal)}  # fmt: skip

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Turn:
        proposal = data.get("proposal")
        return cls(
            data["kind"], int(data["seat"]), tuple(int(x) for x in data["alive"]),
            None if proposal is None else tuple(int(x) for x in proposal),
        )  # fmt: skip


Payoff = Callable[["Game", FloatArray, FloatArray | None], FloatArray]


@dataclass(frozen=True)
class Rule:
    """A payoff rule: its parameters, the action space it needs, its payoff."""

    params: type[_Params]
    actions: Literal["number", "discrete"]
    labels: tuple[str, ...] | None = None  # the discrete labels it expects, in order
    payoff: Payoff | None = None  # None: a sequential game, scored by its play
    private_values: bool = False  # payoffs need each seat's private value


def _public_goods(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, PublicGoodsParams)
    share = p.multiplier * moves.sum(axis=1, keepdims=True) / game.players
    result: FloatArray = p.endowment - moves + share
    return result


def _auction(price: Literal["first", "second"]) -> Payoff:
    def payoff(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
        assert values is not None
        rows = np.arange(moves.shape[0])
        # argmax takes the first maximum: ties go to the lowest seat, as in
        # steer._native.sealed_bid_auction.
        winner = np.argmax(moves, axis=1)
        top = moves[rows, winner]
        paid = top if price == "first" else np.sort(moves, axis=1)[:, -2]
        out = np.zeros_like(moves)
        out[rows, winner] = values[rows, winner] - paid
        return out

    return payoff


def _beauty(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    # Payoff is minus the distance to the target (the guess counts in the
    # average), so the best reply hits the target exactly: with two players
    # and fraction 2/3 the best reply to x is x/2.
    p = game.rule_params
    assert isinstance(p, BeautyParams)
    target = p.fraction * moves.mean(axis=1, keepdims=True)
    result: FloatArray = -np.abs(moves - target)
    return result


def _guessing(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, GuessingParams)
    distance = np.abs(moves - p.fraction * moves.mean(axis=1, keepdims=True))
    win = np.isclose(distance, distance.min(axis=1, keepdims=True), rtol=0, atol=1e-9)
    result: FloatArray = p.prize * win / win.sum(axis=1, keepdims=True)
    return result


def _minimum_effort(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, MinimumEffortParams)
    result: FloatArray = p.a * moves.min(axis=1, keepdims=True) - p.b * moves + p.c
    return result


def _el_farol(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, ElFarolParams)
    go = moves == 0  # action 0 is "go"
    crowded = go.sum(axis=1, keepdims=True) > p.capacity * game.players
    going = np.where(crowded, p.go_crowded, p.go_uncrowded)
    return np.where(go, going, p.stay)


def _divide(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, DivideParams)
    feasible = moves.sum(axis=1, keepdims=True) <= p.total + 1e-9
    return np.where(feasible, moves, 0.0)


def _diner(game: Game, moves: FloatArray, values: FloatArray | None) -> FloatArray:
    p = game.rule_params
    assert isinstance(p, DinerParams)
    expensive = moves == 1  # actions: cheap, expensive
    price = np.where(expensive, p.expensive_price, p.cheap_price)
    utility = np.where(expensive, p.expensive_utility, p.cheap_utility)
    result: FloatArray = utility - price.sum(axis=1, keepdims=True) / game.players
    return result


RULES: dict[str, Rule] = {
    "public-goods": Rule(PublicGoodsParams, "number", payoff=_public_goods),
    "second-price-auction": Rule(
        AuctionParams, "number", payoff=_auction("second"), private_values=True
    ),
    "beauty-contest": Rule(BeautyParams, "number", payoff=_beauty),
    "minimum-effort": Rule(MinimumEffortParams, "number", payoff=_minimum_effort),
    "gama:guessing": Rule(GuessingParams, "number", payoff=_guessing),
    "gama:el-farol": Rule(ElFarolParams, "discrete", ("go", "stay"), payoff=_el_farol),
    "gama:divide-dollar": Rule(DivideParams, "number", payoff=_divide),
    "gama:diner": Rule(DinerParams, "discrete", ("cheap", "expensive"), payoff=_diner),
    # The price rule is a parameter; the payoff is chosen when the game loads.
    "gama:sealed-bid-auction": Rule(SealedBidParams, "number", private_values=True),
    "gama:battle-royale": Rule(BattleRoyaleParams, "number"),
    "gama:pirate": Rule(PirateParams, "number"),
}

Information = Literal["all-moves", "aggregate", "own-payoff", "outcome", "none"]
_NAME = re.compile(r"^[a-z0-9][a-z0-9:-]{0,63}$")


class Game(_Strict):
    """A validated game. `path` is the file it came from."""

    name: str
    version: Literal[1]
    source: str = Field(min_length=1)
    notes: str
    players: int = Field(ge=2, le=1000)
    rounds: int = Field(ge=1, le=100_000)
    continuation: float | None = None
    information: Information
    actions: tuple[str, ...] | NumberActions
    payoffs: tuple[tuple[float, ...], ...] | None = None
    rule: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)

    _path: str = PrivateAttr(default="")
    _rule_params: _Params | None = PrivateAttr(default=None)
    _table: FloatArray | None = PrivateAttr(default=None)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME.match(value):
            raise ValueError("names are lower-case letters, digits, '-' and ':' (at most 64)")
        return value

    @field_validator("continuation")
    @classmethod
    def _probability(cls, value: float | None) -> float | None:
        if value is not None and not 0.0 <= value <= 1.0:
            raise ValueError(f"{value:g} is not a probability (0 to 1)")
        return value

    @field_validator("actions", mode="before")
    @classmethod
    def _labels(cls, value: Any) -> Any:
        if isinstance(value, list):
            if not value:
                raise ValueError("needs at least one action")
            if len(set(value)) != len(value):
                raise ValueError("action labels repeat")
            if any(not isinstance(v, str) or not v.strip() for v in value):
                raise ValueError("action labels are non-empty strings")
        return value

    @field_validator("payoffs")
    @classmethod
    def _finite_payoffs(
        cls, value: tuple[tuple[float, ...], ...] | None
    ) -> tuple[tuple[float, ...], ...] | None:
        if value is not None and any(not math.isfinite(x) for row in value for x in row):
            raise ValueError("payoffs must be finite numbers")
        return value

    @model_validator(mode="after")
    def _rule_or_table(self) -> Game:
        # Cross-field checks name their field through _FieldError, so the
        # loader can point at it.
        if (self.payoffs is None) == (self.rule is None):
            raise _FieldError("payoffs", "give either a payoffs table or a rule (not both)")
        if self.payoffs is not None:
            self._check_table()
        else:
            self._check_rule()
        return self

    def _check_table(self) -> None:
        assert self.payoffs is not None
        if not isinstance(self.actions, tuple):
            raise _FieldError("payoffs", "a payoffs table needs discrete actions (labels)")
        if self.params:
            raise _FieldError("params", "params belong to a rule; this game has a payoffs table")
        n, a = self.players, len(self.actions)
        profiles = a**n
        if profiles > MAX_PROFILES:
            raise _FieldError("payoffs", f"{a}^{n} profiles are too many for a table: use a rule")
        if len(self.payoffs) != profiles:
            raise _FieldError(
                "payoffs",
                f"has {len(self.payoffs)} entries; {n} players with {a} actions need "
                f"{a}^{n} = {profiles} (one per action profile, first player slowest)",
            )
        for i, entry in enumerate(self.payoffs):
            if len(entry) != n:
                raise _FieldError(
                    f"payoffs[{i}]", f"has {len(entry)} payoffs; needs one per player ({n})"
                )
        self._table = np.asarray(self.payoffs, dtype=np.float64).reshape((a,) * n + (n,))

    def _check_rule(self) -> None:
        assert self.rule is not None
        rule = RULES.get(self.rule)
        if rule is None:
            hint = did_you_mean(self.rule, RULES)
            raise _FieldError(
                "rule",
                f"unknown rule {self.rule!r}"
                + (f" — did you mean {', '.join(map(repr, hint))}?" if hint else "")
                + f" (rules: {', '.join(sorted(RULES))})",
            )
        try:
            self._rule_params = rule.params.model_validate(self.params)
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise _FieldError(
                f"params.{loc}" if loc else "params", err["msg"].removeprefix("Value error, ")
            ) from None
        if rule.actions == "discrete":
            if self.actions != rule.labels:
                raise _FieldError(
                    "actions", f"rule {self.rule!r} needs actions = {list(rule.labels or ())}"
                )
        elif not isinstance(self.actions, NumberActions):
            raise _FieldError("actions", f"rule {self.rule!r} needs number actions")
        p = self._rule_params
        if isinstance(p, PublicGoodsParams):
            acts = self.actions
            assert isinstance(acts, NumberActions)
            if acts.min < 0 or acts.max > p.endowment:
                raise _FieldError("actions", "contributions must lie in [0, endowment]")
        if isinstance(p, BattleRoyaleParams) and len(p.hit_rates) != self.players:
            raise _FieldError("params.hit_rates", f"needs one hit rate per player ({self.players})")
        if isinstance(p, BattleRoyaleParams | PirateParams):
            self._check_sequential(p)

    def _check_sequential(self, p: BattleRoyaleParams | PirateParams) -> None:
        """What step-by-step play needs of a sequential game's file."""
        if self.information != "all-moves":
            raise _FieldError(
                "information", "a sequential game's proposals, votes and shots are public: "
                "use information = \"all-moves\"",
            )  # fmt: skip
        if isinstance(p, PirateParams):
            top, what = p.gold, "a pirate's coins: min = 0, max = gold, step = 1"
            if self.players > MAX_PIRATES:
                raise _FieldError(
                    "players",
                    f"{self.players} pirates; the pirate game takes at most {MAX_PIRATES}",
                )
            if self.rounds < self.players - 1:
                raise _FieldError(
                    "rounds", f"{self.rounds} is too few: each round is one proposal and its "
                    f"vote, and {self.players} pirates may need {self.players - 1} "
                    "(rounds >= players - 1)",
                )  # fmt: skip
            from steer.play._equilibria import pirate_outcome  # the equilibrium needs the game

            try:
                pirate_outcome(self.players, p.gold, p.pass_share)
            except InputError as exc:
                raise _FieldError("params.gold", str(exc)) from None
        else:
            top, what = (
                self.players,
                "the player shot at: min = 0 (the air), max = players, step = 1",
            )
        acts = self.actions
        if not (
            isinstance(acts, NumberActions) and acts.min == 0 and acts.max == top and acts.step == 1
        ):
            raise _FieldError("actions", f"rule {self.rule!r} is answered with {what}")

    # --- derived ------------------------------------------------------------------

    @property
    def path(self) -> str:
        return self._path

    @property
    def rule_params(self) -> _Params | None:
        return self._rule_params

    @property
    def discrete(self) -> bool:
        return isinstance(self.actions, tuple)

    @property
    def table(self) -> FloatArray | None:
        """The payoff table as an array (a,) * players + (players,), for table games."""
        return self._table

    @property
    def sequential(self) -> bool:
        """A game whose payoffs come from its play (proposals, votes, shots), not
        from one simultaneous profile."""
        return self.payoffs is None and self._payoff() is None

    @property
    def needs_values(self) -> bool:
        return self.rule is not None and RULES[self.rule].private_values

    def _payoff(self) -> Payoff | None:
        if self.rule is None:
            return None
        if self.rule == "gama:sealed-bid-auction":
            assert isinstance(self._rule_params, SealedBidParams)
            return _auction(self._rule_params.price)
        return RULES[self.rule].payoff

    def encode(self, labels: Any) -> npt.NDArray[np.int64]:
        """Action indices of discrete labels (any array shape)."""
        if not isinstance(self.actions, tuple):
            raise InputError(f"game {self.name!r} has number actions, not labels")
        index = {a: i for i, a in enumerate(self.actions)}
        arr = np.asarray(labels, dtype=object)
        try:
            coded: npt.NDArray[np.int64] = np.vectorize(index.__getitem__, otypes=[np.int64])(arr)
            return coded
        except KeyError as exc:
            raise InputError(
                f"game {self.name!r}: unknown action {exc.args[0]!r} "
                f"(actions: {', '.join(self.actions)})"
            ) from None

    def action_grid(self) -> FloatArray | None:
        """Every action as a number: indices for discrete games, the grid for
        stepped numeric ones; None for a continuous range."""
        if isinstance(self.actions, tuple):
            return np.arange(len(self.actions), dtype=np.float64)
        return self.actions.grid()

    def draw_values(self, rng: np.random.Generator, rounds: int | None = None) -> FloatArray:
        """Private values (rounds × players), each drawn uniformly from `values`."""
        p = self._rule_params
        if not isinstance(p, AuctionParams):
            raise InputError(f"game {self.name!r} has no private values")
        support = np.asarray(p.values, dtype=np.float64)
        return rng.choice(support, size=(rounds or self.rounds, self.players))


class _FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


# --- payoffs ------------------------------------------------------------------------


def payoffs(game: Game, moves: Any, *, values: Any = None) -> FloatArray:
    """Each seat's payoff for each row of `moves` (rounds × players, or a single
    profile of length players, giving a 1-D result). Discrete games take action
    indices or labels; auctions need each seat's private `values` (same shape)."""
    raw = np.asarray(moves)
    if game.discrete and raw.dtype.kind in "OUS":
        raw = game.encode(raw)
    arr = np.asarray(raw, dtype=np.float64)
    single = arr.ndim == 1
    arr = np.atleast_2d(arr)
    if arr.ndim != 2 or arr.shape[1] != game.players:
        raise InputError(
            f"game {game.name!r}: moves must be rounds × {game.players} players "
            f"(got shape {np.asarray(moves).shape})"
        )
    if not np.isfinite(arr).all():
        raise InputError(f"game {game.name!r}: moves must be finite numbers")
    _check_moves(game, arr)
    if game.table is not None:
        idx = arr.astype(np.int64)
        out = game.table[tuple(idx.T)]
    else:
        payoff = game._payoff()
        if payoff is None:
            raise InputError(
                f"game {game.name!r} is sequential: its payoffs come from its play, "
                "not from one profile of moves"
            )
        vals = None
        if game.needs_values:
            if values is None:
                raise InputError(f"game {game.name!r}: payoffs need each bidder's private values")
            vals = np.atleast_2d(np.asarray(values, dtype=np.float64))
            if vals.shape != arr.shape:
                raise InputError(f"values must have the shape of moves {arr.shape}")
        out = payoff(game, arr, vals)
    result: FloatArray = out[0] if single else out
    return result


def _check_moves(game: Game, arr: FloatArray) -> None:
    acts = game.actions
    if isinstance(acts, tuple):
        ok = (arr >= 0) & (arr < len(acts)) & (arr == np.floor(arr))
        what = f"action indices 0..{len(acts) - 1}"
    else:
        tol = 1e-9 * max(1.0, acts.max - acts.min)
        ok = (arr >= acts.min - tol) & (arr <= acts.max + tol)
        what = f"numbers in [{acts.min:g}, {acts.max:g}]"
        if acts.step is not None:
            k = (arr - acts.min) / acts.step
            ok &= np.abs(k - np.round(k)) <= 1e-6
            what += f" on steps of {acts.step:g}"
    if not ok.all():
        bad = arr[~ok][0]
        raise InputError(f"game {game.name!r}: move {bad:g} is not one of the {what}")


# --- loading ------------------------------------------------------------------------


@cache
def shipped_games() -> dict[str, Path]:
    """The shipped games by name (each file's own `name`)."""
    found: dict[str, Path] = {}
    for path in sorted(GAMES_DIR.glob("*.toml")):
        data = parse_toml(read_toml_text(path, str(path)), str(path))
        found[str(data.get("name", path.stem))] = path
    return found


def load_game(name_or_path: str | Path, **overrides: Any) -> Game:
    """A shipped game by name, or the game file at a path, with top-level keys
    replaced by `overrides` (``rounds=1``, ``players=4``, ``payoffs=[...]``);
    ``params={...}`` is merged into the rule's parameters. Every problem is a
    `FileFormatError` naming the file and the field (``where="override"`` when
    the value came from an override)."""
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or text.endswith(".toml") or "/" in text:
        path = Path(name_or_path)
        if not path.is_file():
            raise InputError(f"{path}: no such game file")
    else:
        games = shipped_games()
        if text not in games:
            raise UnknownNameError("game", text, did_you_mean(text, games))
        path = games[text]
    source = str(path)
    data = parse_toml(read_toml_text(path, source), source)
    if "params" in overrides and isinstance(data.get("params"), dict):
        overrides = {**overrides, "params": {**data["params"], **overrides["params"]}}
    data.update(overrides)
    return _validate(data, source, set(overrides))


def _validate(data: Mapping[str, Any], source: str, overridden: set[str]) -> Game:
    def where(field: str) -> str | None:
        return "override" if field.split(".")[0].split("[")[0] in overridden else None

    try:
        game = Game.model_validate(dict(data))
    except ValidationError as exc:
        errors = exc.errors()
        # A number range given for `actions` fails the labels branch too: report
        # the branch the value was meant for.
        branch = "NumberActions" if isinstance(data.get("actions"), dict) else "tuple["
        preferred = [
            e
            for e in errors
            if e["loc"][:1] != ("actions",) or any(branch in str(p) for p in e["loc"])
        ]
        err = (preferred or errors)[0]
        ctx = err.get("ctx", {})
        inner = ctx.get("error") if isinstance(ctx, dict) else None
        if isinstance(inner, _FieldError):
            raise FileFormatError(
                inner.message, source=source, where=where(inner.field), field=inner.field
            ) from None
        # For a union (discrete labels | number range) pydantic reports each
        # branch; name the field without the branch tag.
        loc = [str(p) for p in err["loc"] if not _is_branch(p)]
        field = ".".join(loc) or "game"
        message = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = f"unknown key {loc[-1]!r}"
        elif err["type"] == "missing":
            message = "is required"
        raise FileFormatError(message, source=source, where=where(field), field=field) from None
    game._path = source
    return game


def _is_branch(part: Any) -> bool:
    return isinstance(part, str) and (part.startswith("tuple[") or "NumberActions" in part)
