"""Who sits at a game: `--players` specs, and the reference strategies as backends.

`--players "openai:gpt-4o,agent:level-k(k=2)"` names one spec per seat;
commas inside parentheses belong to the spec, and ``SPEC*4`` fills four seats.
A reference strategy (``agent:tit-for-tat`` …, see `steer.play._strategies`)
becomes a `StrategyBackend`, which answers a round's question rows from the
structured history in their payload, so scripted seats are journaled, cached
and resumed by `steer.run` exactly like a model.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from steer._suggest import did_you_mean
from steer.adapt import Answer
from steer.backends import Backend, resolve_backend
from steer.errors import InputError, UnknownNameError
from steer.play._games import Game
from steer.play._strategies import STRATEGIES, History, make_agent, parse_agent

_REPEAT = re.compile(r"^(?P<spec>.+?)\s*\*\s*(?P<n>\d+)$")
MAX_SEATS = 1000


def split_players(text: str) -> list[str]:
    """The seats' specs: split on commas outside parentheses, ``SPEC*N`` repeated."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise InputError(f"--players {text!r}: ')' without '(' at character {i + 1}")
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    if depth:
        raise InputError(f"--players {text!r}: '(' without ')'")
    parts.append(text[start:])
    seats: list[str] = []
    for raw in parts:
        spec = raw.strip()
        if not spec:
            raise InputError(f"--players {text!r}: an empty spec (two commas in a row?)")
        match = _REPEAT.match(spec)
        if match is not None and ")" not in match.group("n"):
            n = int(match.group("n"))
            if not 1 <= n <= MAX_SEATS:
                raise InputError(f"--players: {spec!r} repeats a spec 1 to {MAX_SEATS} times")
            seats.extend([match.group("spec").strip()] * n)
        else:
            seats.append(spec)
        if len(seats) > MAX_SEATS:
            raise InputError(f"--players: more than {MAX_SEATS} seats")
    return seats


def is_strategy(spec: str) -> bool:
    family, _, rest = spec.partition(":")
    return family == "agent" and rest.partition("(")[0] in STRATEGIES


def check_player(spec: str) -> None:
    """Fail early on a spec no backend or strategy knows (with suggestions).
    Seats of the `agent` family are the game strategies; the question-bank
    agents (oracle, random answers, preference agents) cannot read a game."""
    if is_strategy(spec):
        parse_agent(spec)
        return
    family, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise InputError(
            f"player spec {spec!r} must look like FAMILY:MODEL, e.g. agent:tit-for-tat"
        )
    if family == "agent":
        name = rest.partition("(")[0]
        raise UnknownNameError(
            "game strategy", f"agent:{name}", [f"agent:{x}" for x in did_you_mean(name, STRATEGIES)]
        )


@dataclass
class StrategyBackend(Backend):
    """A reference strategy answering game rows. Its randomness is seeded by
    (seed, sample, round, seat), so a resumed game replays it exactly."""

    game: Game | None = None
    seed: int = 0
    _agent: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._agent = make_agent(self.spec)

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        assert self.game is not None
        return [self._one(q) for q in questions]

    def _one(self, q: dict[str, Any]) -> Answer:
        game = self.game
        assert game is not None
        p = json.loads(q["payload"])
        moves = np.asarray(p["history"]["moves"], dtype=np.float64).reshape(-1, game.players)
        pay = np.asarray(p["history"]["payoffs"], dtype=np.float64).reshape(-1, game.players)
        values = p.get("values")
        history = History(moves, pay, None if values is None else np.asarray(values, float))
        rng = np.random.default_rng([self.seed, p["sample"], p["round"], p["seat"]])
        action = self._agent(game, history, p["seat"], rng)
        if isinstance(game.actions, tuple):
            index = game.actions.index(str(action))
            return Answer(chosen_index=index, response_text=str(action))
        value = float(action)
        return Answer(chosen_index=0, response_text=repr(value), answer_read=value)

    def generation_params(self) -> dict[str, Any]:
        return {"strategy": self.spec, "seed": self.seed}


def seat_backend(spec: str, game: Game, *, seed: int, options: dict[str, Any] | None) -> Backend:
    """The backend that plays `spec`'s seats."""
    check_player(spec)
    if is_strategy(spec):  # backend options are the models' (--base-url, -j, …)
        name, _ = parse_agent(spec)
        return StrategyBackend(spec=spec, family="agent", model=name, game=game, seed=seed)
    return resolve_backend(spec, seed=seed, options=options)
