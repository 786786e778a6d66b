"""The sequential games (the pirate game, the battle royale), step by step on
the round engine's `steer.play._rounds.run_groups`.

A sample's state lives in a `Pirates` or a `Royale`; at each step it names
the seats it asks (`turns`: none, one proposer, the voters, or one shooter)
and then takes their moves (`apply`). Samples advance in lockstep by step
index: a sample whose game has ended asks nobody. Each step's rows (one per
sample and seat asked, element ``game.<name>``, the `Turn` in the payload
for reference agents) go through `run_groups` into
``rounds/rNNNN/pG/`` like a round, so the journal, the response cache,
``--max-cost`` and resuming are the same: a killed game replays the earlier
steps from their journals and asks only what is missing.

The pirate game. Step 2j asks pirate j (0-based; every failed plan costs the
proposer's life, so the j-th proposer is always seat j) for a plan; step
2j + 1 asks every other living pirate to vote. A plan is carried with at
least ceil(pass_share × living) accepting votes, the proposer's included;
otherwise the proposer is thrown overboard (a dead pirate's payoff is 0
coins). A lone survivor keeps all the gold. Forfeits: a proposal that is not
a valid list after the re-asks throws the proposer overboard without a vote
(not answering never buys the proposer anything: it is the worst outcome it
could have); a vote that is not 1 or 0 counts as a reject.

The battle royale. Step k asks one shooter per running sample: players
shoot in seat order, skipping those who are out, for at most ``rounds``
turns in all. A shot at a living opponent hits with the shooter's hit rate
(a seeded draw from (seed, sample, step, seat)); shooting into the air (0)
is a legal move (GAMA-Bench's own game lets a player shoot no one). A
forfeit (no valid target) is a shot into the air, so it can never do better
than the legal move it replaces. The last player standing gets 1; when the
turn cap ends the game, the players standing share the 1 equally.

`moves.parquet` has one row per (sample, step, seat asked) (``round`` is
the 1-based step): ``move`` is the proposer's own coins (NaN for a forfeited
proposal), a vote's 1 or 0, or the target's 1-based seat (0: the air);
``action`` is the plan (``96,0,1,0``, coins for the living pirates, most
senior first), ``accept``/``reject``, or ``shoot 3: hit`` / ``shoot 3:
missed`` / ``shoot into the air``; ``payoff`` is the seat's final payoff in
that sample, on every row of the seat (a game stopped before its end has
NaN). The metrics read the game back from these rows
(`steer.play._game_metrics`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer.adapt import Answer
from steer.adapt._lists import read_number_list
from steer.backends import Backend
from steer.errors import FileFormatError
from steer.play._describe import (
    compose,
    number,
    pirate_line,
    rules_text,
    sequential_history,
    shot_line,
    turn_text,
)
from steer.play._equilibria import votes_needed
from steer.play._game_run import (
    MOVES,
    MOVES_SCHEMA,
    ROUNDS_DIR,
    GameRecord,
    GameResult,
    move_row,
    who,
)
from steer.play._games import BattleRoyaleParams, FloatArray, Game, PirateParams, Turn
from steer.play._rounds import paid, run_groups
from steer.play._seats import StrategyBackend, is_strategy
from steer.play._strategies import TurnMove, make_turn_agent, parse_agent
from steer.run import RunLoop, RunResult
from steer.schema import Adaptation

#: A seat's move as read from its reply, or None with the forfeit's reason.
Read = tuple[TurnMove, str | None]


# --- one sample's state ---------------------------------------------------------------


@dataclass
class Pirates:
    """One pirate game: `dead` pirates (the most senior ones) thrown overboard,
    the plan on the table, the public record, the final coins."""

    game: Game
    dead: int = 0
    plan: tuple[int, ...] | None = None
    done: bool = False
    lines: list[str] = field(default_factory=list)
    pay: FloatArray = field(init=False)

    def __post_init__(self) -> None:
        self.pay = np.zeros(self.game.players)

    @property
    def params(self) -> PirateParams:
        p = self.game.rule_params
        assert isinstance(p, PirateParams)
        return p

    @property
    def alive(self) -> tuple[int, ...]:
        return tuple(range(self.dead, self.game.players))

    def turns(self, step: int) -> list[Turn]:
        if self.done:
            return []
        if step % 2 == 0:
            return [Turn("propose", self.dead, self.alive)]
        if self.plan is None:  # the proposal was forfeited: no vote
            return []
        return [Turn("vote", seat, self.alive, self.plan) for seat in self.alive[1:]]

    def apply(self, step: int, moves: dict[int, TurnMove], rng_of: Any) -> dict[int, str]:
        """Take the step's moves (a forfeit is absent); the action of each seat."""
        if self.done:
            return {}
        number_ = step // 2 + 1
        if step % 2 == 0:
            proposer, plan = self.dead, moves.get(self.dead)
            if plan is None:
                self.lines.append(pirate_line(number_, self.alive, None, {}, False))
                self._overboard()
                return {proposer: "none"}
            assert isinstance(plan, tuple)
            self.plan = plan
            return {self.dead: ",".join(str(c) for c in plan)}
        if self.plan is None:
            return {}
        votes = {seat: moves.get(seat) for seat in self.alive[1:]}
        accepts = 1 + sum(1 for v in votes.values() if v is True)
        carried = accepts >= votes_needed(len(self.alive), self.params.pass_share)
        self.lines.append(
            pirate_line(number_, self.alive, self.plan, {s: _vote(v) for s, v in votes.items()},
                        carried)
        )  # fmt: skip
        actions = {s: "accept" if v is True else "reject" for s, v in votes.items()}
        if carried:
            self.pay[list(self.alive)] = self.plan
            self.done = True
        else:
            self._overboard()
        return actions

    def _overboard(self) -> None:
        self.dead += 1
        self.plan = None
        if self.dead == self.game.players - 1:  # one pirate left keeps the gold
            self.pay[self.dead] = self.params.gold
            self.done = True


def _vote(move: TurnMove) -> bool | None:
    return move if isinstance(move, bool) else None


@dataclass
class Royale:
    """One battle royale: who is standing, whose turn it is, the turns taken."""

    game: Game
    shooter: int = 0
    taken: int = 0
    done: bool = False
    lines: list[str] = field(default_factory=list)
    standing: npt.NDArray[np.bool_] = field(init=False)
    pay: FloatArray = field(init=False)

    def __post_init__(self) -> None:
        self.standing = np.ones(self.game.players, dtype=bool)
        self.pay = np.zeros(self.game.players)

    @property
    def alive(self) -> tuple[int, ...]:
        return tuple(int(s) for s in np.flatnonzero(self.standing))

    def turns(self, step: int) -> list[Turn]:
        return [] if self.done else [Turn("shoot", self.shooter, self.alive)]

    def apply(self, step: int, moves: dict[int, TurnMove], rng_of: Any) -> dict[int, str]:
        if self.done:
            return {}
        p = self.game.rule_params
        assert isinstance(p, BattleRoyaleParams)
        shooter = self.shooter
        target = moves.get(shooter)  # None: into the air (chosen or forfeited)
        assert target is None or isinstance(target, int)
        hit = False
        if target is not None:
            hit = bool(rng_of(shooter).random() < p.hit_rates[shooter])
            if hit:
                self.standing[target] = False
        self.taken += 1
        self.lines.append(shot_line(self.taken, shooter, target, hit))
        order = [*range(shooter + 1, self.game.players), *range(shooter + 1)]
        self.shooter = next(s for s in order if self.standing[s])
        left = int(self.standing.sum())
        if left == 1 or self.taken >= self.game.rounds:
            self.pay[self.standing] = 1.0 / left
            self.done = True
        if target is None:
            return {shooter: "shoot into the air"}
        return {shooter: f"shoot {target + 1}: {'hit' if hit else 'missed'}"}


State = Pirates | Royale


def new_state(game: Game) -> State:
    return Pirates(game) if isinstance(game.rule_params, PirateParams) else Royale(game)


def max_steps(game: Game) -> int:
    """The most steps a game can take: two per proposal, or the turn cap."""
    if isinstance(game.rule_params, PirateParams):
        return 2 * (game.players - 1)
    return game.rounds


# --- reading a seat's reply -------------------------------------------------------------


def read_move(game: Game, turn: Turn, response: dict[str, Any]) -> Read:
    """The move a reply gives for `turn`, or (None, why) for a forfeit."""
    if response.get("error") is not None:
        return None, f"request failed: {response['error']}"
    if turn.kind == "propose":
        p = game.rule_params
        assert isinstance(p, PirateParams)
        text = response.get("response_text") or ""
        plan, why = read_number_list(text, len(turn.alive), p.gold)
        if plan is None:
            return None, f"no valid plan ({why}), even after asking again"
        return tuple(plan), None
    x = response.get("answer_read")
    if x is None or (isinstance(x, float) and math.isnan(x)):
        what = "vote (1 or 0)" if turn.kind == "vote" else "player number"
        return None, f"no {what} in the reply, even after asking again"
    if turn.kind == "vote":
        if x not in (0.0, 1.0):
            return None, f"{number(x)} is not a vote (1 accepts, 0 rejects)"
        return x == 1.0, None
    if x != int(x):
        return None, f"{number(x)} is not a player's number"
    if x == 0:
        return None, None  # into the air, on purpose
    target = int(x) - 1
    if target == turn.seat:
        return None, "a player cannot shoot at itself"
    if target not in turn.alive:
        return None, f"player {target + 1} is not in the game"
    return target, None


# --- reference agents as backends -------------------------------------------------------


@dataclass
class TurnBackend(StrategyBackend):
    """A reference agent answering a sequential game's rows from the `Turn`
    in their payload (seeded by (seed, sample, step, seat), so a resumed
    game replays it exactly)."""

    def __post_init__(self) -> None:
        assert self.game is not None
        self._agent = make_turn_agent(self.spec, self.game)

    def _one(self, q: dict[str, Any]) -> Answer:
        game = self.game
        assert game is not None
        p = json.loads(q["payload"])
        turn = Turn.from_json(p["turn"])
        rng = np.random.default_rng([self.seed, p["sample"], p["round"], p["seat"]])
        move = self._agent(game, turn, rng)
        if turn.kind == "propose":
            assert isinstance(move, tuple)
            return Answer(chosen_index=0, response_text=", ".join(map(str, move)))
        if turn.kind == "vote":
            value = 1.0 if move else 0.0
        else:
            value = 0.0 if move is None else float(int(move) + 1)
        return Answer(chosen_index=0, response_text=number(value), answer_read=value)


def check_sequential(game: Game, seats: list[str]) -> None:
    """Refuse, before anything is written, an agent that cannot play `game`."""
    for spec in dict.fromkeys(seats):
        if is_strategy(spec):
            parse_agent(spec)
            make_turn_agent(spec, game)


def _turn_backends(backends: dict[str, Backend], game: Game, seed: int) -> dict[str, Backend]:
    return {
        spec: TurnBackend(spec=spec, family="agent", model=b.model, game=game, seed=seed)
        if isinstance(b, StrategyBackend)
        else b
        for spec, b in backends.items()
    }


# --- question rows ----------------------------------------------------------------------


def _row(game: Game, rules: str, s: int, step: int, turn: Turn, lines: list[str],
         wording: str) -> dict[str, Any]:  # fmt: skip
    """The question row of `turn` at `step` of sample `s`."""
    text = compose(rules, sequential_history(lines), turn_text(game, turn, step + 1), wording)
    payload: dict[str, Any] = {
        "game": game.name, "sample": int(s), "round": step, "seat": turn.seat,
        "turn": turn.to_json(),
    }  # fmt: skip
    if turn.kind == "propose":
        p = game.rule_params
        assert isinstance(p, PirateParams)
        payload["number_list"] = {"count": len(turn.alive), "total": p.gold}
        options = [f"{len(turn.alive)} whole numbers adding up to {p.gold}"]
    elif turn.kind == "vote":
        payload["number_range"] = [0, 1]
        options = ["1 to accept or 0 to reject"]
    else:
        payload["number_range"] = [0, game.players]
        options = [f"a player's number from 1 to {game.players}, or 0 for the air"]
    return move_row(game, s, step, turn.seat, text, options, payload)


# --- the game ---------------------------------------------------------------------------


@dataclass
class _Asked:
    """One move asked: where it is recorded and what came of it."""

    sample: int
    step: int
    seat: int
    move: float = math.nan
    action: str = ""
    forfeit: bool = False
    reason: str | None = None
    question_id: str = ""
    run_dir: str = ""


def play_sequential(
    game: Game,
    record: GameRecord,
    seats: list[str],
    backends: dict[str, Backend],
    out: Path,
    adaptation: Adaptation,
    cache_dir: str | Path | None,
    on_round: Any,
    *,
    max_cost: float | None = None,
    loop: RunLoop | None = None,
) -> GameResult:
    """Play every sample of a sequential game step by step (see the module)."""
    samples, seed = record.samples, record.seed
    backends = _turn_backends(backends, game, seed)
    states = [new_state(game) for _ in range(samples)]
    rules = [rules_text(game, seat, game.rounds, record.wording) for seat in range(game.players)]
    groups: dict[str, int] = {}
    for seat_spec in seats:
        groups.setdefault(seat_spec, len(groups))
    cache = Path(cache_dir) if cache_dir is not None else out
    asked: list[_Asked] = []
    runs: list[RunResult] = []
    problems: list[str] = []
    n_new, spent, played = 0, 0.0, 0
    stopped: str | None = None
    last = max_steps(game)
    for step in range(last):
        if all(st.done for st in states):
            break
        turns = {(s, t.seat): t for s, st in enumerate(states) for t in st.turns(step)}
        rows: dict[str, list[dict[str, Any]]] = {}
        for (s, seat), turn in turns.items():
            row = _row(game, rules[seat], s, step, turn, states[s].lines, record.wording)
            rows.setdefault(seats[seat], []).append(row)
        jobs = [
            (spec, out / ROUNDS_DIR / f"r{step + 1:04d}" / f"p{g + 1}", rows[spec])
            for spec, g in groups.items()
            if spec in rows
        ]
        paying = [j for j in jobs if paid(backends[j[0]])]
        share = None if max_cost is None else max(0.0, max_cost - spent) / max(1, len(paying))
        if share is not None and share <= 0 and paying:
            stopped = "max-cost"
            break
        results = run_groups(
            jobs, backends, adaptation=adaptation, seed=seed, cache=cache, share=share, loop=loop
        ) if jobs else []  # fmt: skip
        spent += sum(r.manifest.spent_usd for r in results)
        runs.extend(results)
        n_new += sum(r.n_new for r in results)
        if any(r.stopped == "max-cost" for r in results):
            stopped = "max-cost"  # the step's payoffs wait for the rest of its moves
            break
        moves: dict[int, dict[int, TurnMove]] = {}
        for (_, run_dir, _), result in zip(jobs, results, strict=True):
            problems.extend(result.problems)
            rel = str(run_dir.relative_to(out))
            for response in result.responses.to_pylist():
                s, seat = who(response["question_id"])
                move, why = read_move(game, turns[(s, seat)], response)
                entry = _Asked(s, step, seat, question_id=response["question_id"], run_dir=rel)
                entry.forfeit, entry.reason = why is not None, why
                entry.move = _number(turns[(s, seat)], move, why)
                asked.append(entry)
                if why is None:
                    moves.setdefault(s, {})[seat] = move
        for s, st in enumerate(states):
            actions = st.apply(step, moves.get(s, {}), _draws(seed, s, step))
            _label(asked, s, step, actions)
        played = step + 1
        if on_round is not None:
            on_round(step + 1, last)
    table = _moves_table(game, seats, asked, states)
    n_forfeits = sum(a.forfeit for a in asked)
    if stopped is None:
        with atomic_path(out / MOVES) as tmp:
            pq.write_table(table, tmp, compression="zstd")
    return GameResult(
        out, record, game, table, runs, n_new, n_forfeits, list(dict.fromkeys(problems)),
        stopped=stopped, spent_usd=spent, rounds_played=played,
    )  # fmt: skip


def _number(turn: Turn, move: TurnMove, why: str | None) -> float:
    """The `move` column: own coins, a vote's 1/0, a target's 1-based seat (0: air)."""
    if turn.kind == "propose":
        return math.nan if why is not None else float(move[0])  # type: ignore[index]
    if turn.kind == "vote":
        return 1.0 if why is None and move is True else 0.0
    return 0.0 if why is not None or move is None else float(int(move) + 1)  # type: ignore[arg-type]


def _draws(seed: int, s: int, step: int) -> Any:
    """The random draw of a seat's shot at `step` of sample `s`."""
    return lambda seat: np.random.default_rng([seed, s, step, seat, 0xB7])


def _label(asked: list[_Asked], s: int, step: int, actions: dict[int, str]) -> None:
    for entry in reversed(asked):
        if entry.step != step:
            break
        if entry.sample == s and entry.seat in actions:
            entry.action = actions[entry.seat]


def _moves_table(
    game: Game, seats: list[str], asked: list[_Asked], states: list[State]
) -> pa.Table:
    """One row per (sample, step, seat asked), sorted; a seat's final payoff on each of its rows."""
    rows = sorted(asked, key=lambda a: (a.sample, a.step, a.seat))
    pay = [float(states[a.sample].pay[a.seat]) if states[a.sample].done else math.nan for a in rows]
    return pa.table(
        {
            "game": pa.array([game.name] * len(rows), pa.string()),
            "sample": pa.array([a.sample for a in rows], pa.int32()),
            "round": pa.array([a.step + 1 for a in rows], pa.int32()),
            "seat": pa.array([a.seat + 1 for a in rows], pa.int32()),
            "player": pa.array([seats[a.seat] for a in rows], pa.string()),
            "move": pa.array([a.move for a in rows], pa.float64()),
            "action": pa.array([a.action for a in rows], pa.string()),
            "payoff": pa.array(pay, pa.float64()),
            "value": pa.nulls(len(rows), pa.float64()),
            "forfeit": pa.array([a.forfeit for a in rows], pa.bool_()),
            "reason": pa.array([a.reason for a in rows], pa.string()),
            "question_id": pa.array([a.question_id for a in rows], pa.string()),
            "run_dir": pa.array([a.run_dir for a in rows], pa.string()),
        },
        schema=MOVES_SCHEMA,
    )


# --- a moves table read back ------------------------------------------------------------

_SHOT = re.compile(r"^shoot (\d{1,3}): (hit|missed)$")


def check_sequential_rows(game: Game, rows: list[dict[str, Any]], source: str) -> None:
    """Every row of a sequential game's moves table is a move the game could
    have made (the forms `moves.parquet` holds, see the module), in step
    order per sample; else a `FileFormatError` naming the row and column."""

    def bad(i: int, name: str, problem: str) -> FileFormatError:
        return FileFormatError(problem, source=source, where=f"row {i + 1}", field=name)

    p = game.rule_params
    proposed: set[tuple[int, int]] = set()
    for i in sorted(range(len(rows)), key=lambda i: (rows[i]["sample"], rows[i]["round"])):
        r = rows[i]
        move, action, forfeit = r["move"], str(r["action"] or ""), bool(r["forfeit"])
        if isinstance(p, BattleRoyaleParams):
            if move is None or not math.isfinite(move) or move != int(move):
                raise bad(i, "move", f"{move!r} is not a seat number (0: into the air)")
            if not 0 <= move <= game.players or move == r["seat"]:
                raise bad(i, "move", f"seat {move:g} cannot be shot by seat {r['seat']}")
            shot = _SHOT.match(action)
            if move == 0 and action != "shoot into the air":
                raise bad(i, "action", f"{action[:40]!r} does not match move 0 (into the air)")
            if move != 0 and (shot is None or int(shot.group(1)) != move):
                raise bad(i, "action", f"{action[:40]!r} is not 'shoot {move:g}: hit|missed'")
            continue
        assert isinstance(p, PirateParams)
        j = (r["round"] - 1) // 2  # the proposal's number; its proposer is seat j
        if j >= game.players - 1:
            raise bad(i, "round", f"step {r['round']} is past the last proposal")
        if r["round"] % 2 == 1:  # a proposal
            if r["seat"] != j + 1:
                raise bad(i, "seat", f"seat {r['seat']} cannot propose at step {r['round']}")
            if forfeit:
                continue
            plan, why = read_number_list(action, game.players - j, p.gold)
            if plan is None:
                raise bad(i, "action", f"{action[:40]!r} is not a plan ({why})")
            proposed.add((r["sample"], j))
        else:
            if (r["sample"], j) not in proposed:
                raise bad(i, "round", f"a vote at step {r['round']} on no proposal")
            if move not in (0.0, 1.0) or action not in ("accept", "reject"):
                raise bad(i, "action", f"{action[:40]!r} (move {move!r}) is not a vote")
