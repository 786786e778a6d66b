"""`steer play GAME --players …`: a game between models and strategies, round by round.

One engine, on `steer.run`: each round, every seat's move in every sample is
one keyless question row (`grading = "elicit"`, element ``game.<name>``) whose
text holds the rules and the history the seat may see, and whose payload holds
the structured history for reference strategies. The rows of the seats one
spec plays go through `run_bank` together, into ``rounds/rNNNN/<group>/`` with
its own manifest, journal and transcripts, and every group's requests share
one response cache. Groups of one round run at the same time (a thread each;
chat models answer their rows concurrently, ``-j``).

Resuming is replaying: a round's rows are a function of the moves before it,
which are read back from the earlier rounds' responses, so a killed game run
again rebuilds the same rows (the same bank fingerprint), `run_bank` asks
only the moves missing from its journal, and the cache answers any reply
already paid for. `moves.parquet` (one row per sample, round and seat: the
move, its payoff, the private value, a forfeit and its reason, the question
id that leads to the transcript) is written when the game has been played
to its end (once: the rounds' journals are the durable record until then).

A seat whose reply holds no valid move after the re-asks (or whose request
failed) forfeits the round: it is recorded with the reason, and the game
goes on with a move drawn uniformly (seeded) in its place, so a silent player
can never hang a tournament; the graded metrics score a forfeit as the least
rational move (`steer.play._game_metrics.FORFEIT_SCORES`).
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer.backends import Backend
from steer.errors import FileFormatError, InputError
from steer.play._describe import WORDINGS, ask_text, compose, history_text, number, rules_text
from steer.play._game_run import (
    GAME_FILE,
    MAX_SAMPLES,
    MOVES,
    MOVES_SCHEMA,
    ROUNDS_DIR,
    GameRecord,
    GameResult,
    check_moves,
    move_row,
    who,
)
from steer.play._games import FloatArray, Game, NumberActions, load_game, payoffs
from steer.play._rounds import paid, run_groups
from steer.play._seats import check_player, seat_backend, split_players
from steer.play._sequential import check_sequential, play_sequential
from steer.run import RunLoop, RunResult, run_loop
from steer.run._record import read_record, refuse_other_run, write_record
from steer.schema import NO_ANSWER, Adaptation


def read_game_run(directory: str | Path) -> tuple[GameRecord, Game, pa.Table]:
    """The record, the game and the moves of a game run directory."""
    directory = Path(directory)
    record = read_record(directory / GAME_FILE, GameRecord, "game", "steer play GAME")
    moves_path = directory / MOVES
    if not moves_path.is_file():
        raise InputError(
            f"{directory}: no {MOVES} yet (the game was stopped before its end); re-run the "
            "same steer play command to finish it"
        )
    from steer.bank._read import read_table

    game = _game_of(record)
    return record, game, check_moves(game, read_table(moves_path), str(moves_path))


def _game_of(record: GameRecord) -> Game:
    overrides: dict[str, Any] = {"rounds": record.rounds}
    if record.players:
        overrides["players"] = len(record.players)
    source = record.source.removeprefix("steer:")
    return load_game(source if record.source.startswith("steer:") else Path(source), **overrides)


def _adaptation_for(game: Game, adaptation: Adaptation | None) -> Adaptation:
    numeric = isinstance(game.actions, NumberActions)
    if adaptation is None:
        return Adaptation(format="free" if numeric else "mc")
    if adaptation.shots:
        raise InputError("--adapt shots=K draws keyed examples; a game's moves have no key")
    if adaptation.order is not None:
        raise InputError("--adapt order=… reorders options; a game's rounds are asked once")
    if adaptation.format == "none":
        raise InputError("--adapt none removes the right option; a game's moves have none")
    if numeric and adaptation.format != "free":
        raise InputError(
            f"game {game.name!r} is played with numbers: its moves are read as free text "
            "(--adapt free, the default for this game)"
        )
    return adaptation


def _lengths(game: Game, samples: int, seed: int) -> npt.NDArray[np.int64]:
    """Rounds played in each sample: all of them, or, with a continuation
    probability p, 1 + a geometric number of further rounds (capped)."""
    p = game.continuation
    if p is None or p >= 1.0:
        return np.full(samples, game.rounds, dtype=np.int64)
    out = np.empty(samples, dtype=np.int64)
    for s in range(samples):
        rng = np.random.default_rng([seed, s, 0xC0])
        out[s] = 1 if p <= 0.0 else min(game.rounds, int(rng.geometric(1.0 - p)))
    return out


def _values(game: Game, samples: int, seed: int) -> FloatArray | None:
    if not game.needs_values:
        return None
    return np.stack(
        [game.draw_values(np.random.default_rng([seed, s, 0xA1])) for s in range(samples)]
    )


def _groups(players: list[str]) -> list[tuple[str, list[int]]]:
    """(spec, seats) per distinct spec, in order of first seat."""
    seen: dict[str, list[int]] = {}
    for seat, spec in enumerate(players):
        seen.setdefault(spec, []).append(seat)
    return list(seen.items())


def _sha256(path: str) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def play_game(
    game_name: str | Path,
    players: str | list[str],
    out_dir: str | Path,
    *,
    rounds: int | None = None,
    samples: int = 1,
    seed: int = 0,
    adaptation: Adaptation | None = None,
    backend_options: dict[str, Any] | None = None,
    cache_dir: str | Path | None = None,
    on_round: Any = None,
    wording: str = "v1",
    max_cost: float | None = None,
) -> GameResult:
    """Play `game_name` `samples` times with one spec per seat, durably.

    Re-running the same command resumes (no move is asked twice); a directory
    holding another game, other seats or other settings is an error.
    `max_cost` (USD) is a budget for the whole game directory across
    invocations, shared by the paid seats; when it runs out the game stops
    after the round in progress is recorded, without payoffs for that round
    (`stopped == "max-cost"`), and a re-run with a larger budget goes on.
    """
    if max_cost is not None and not max_cost >= 0:  # also refuses NaN
        raise InputError(f"--max-cost must be a number of USD >= 0, got {max_cost}")
    if wording not in WORDINGS:
        raise InputError(f"--wording must be one of {', '.join(WORDINGS)}, got {wording!r}")
    seats = split_players(players) if isinstance(players, str) else list(players)
    for spec in seats:
        check_player(spec)
    if not 1 <= samples <= MAX_SAMPLES:
        raise InputError(f"--samples must be from 1 to {MAX_SAMPLES}, got {samples}")
    overrides: dict[str, Any] = {}
    if rounds is not None:
        overrides["rounds"] = rounds
    base = load_game(game_name)
    if len(seats) != base.players:
        if base.table is not None:
            raise InputError(
                f"game {base.name!r} has {base.players} seats (its payoff table fixes them); "
                f"--players names {len(seats)}"
            )
        overrides["players"] = len(seats)
    try:
        game = load_game(game_name, **overrides) if overrides else base
    except FileFormatError as exc:
        if "players" not in overrides:
            raise
        # The file is fine; the seat count given does not fit it (per-player
        # parameters such as a battle royale's hit rates).
        raise InputError(
            f"game {base.name!r} cannot seat {len(seats)} players (--players): {exc.problem} "
            f"({exc.field or 'its parameters'} in {base.path}); it is written for {base.players}"
        ) from None
    if game.sequential:  # played step by step
        check_sequential(game, seats)
    adaptation = _adaptation_for(game, adaptation)
    shipped = not (isinstance(game_name, Path) or str(game_name).endswith(".toml"))
    record = GameRecord(
        game=game.name,
        source=f"steer:{game_name}" if shipped else str(Path(game_name).resolve()),
        game_sha256=_sha256(game.path),
        players=seats,
        rounds=game.rounds,
        continuation=game.continuation,
        samples=samples,
        seed=seed,
        adaptation=adaptation.model_dump(),
        wording=wording,
    )
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    record_path = out / GAME_FILE
    identity = ("game", "game_sha256", "players", "rounds", "samples", "seed", "adaptation",
                "wording")  # fmt: skip
    refuse_other_run(record_path, record, identity, "game")
    write_record(record_path, record)
    backends = {
        spec: seat_backend(spec, game, seed=seed, options=backend_options)
        for spec, _ in _groups(seats)
    }
    if max_cost is not None and not any(paid(b) for b in backends.values()):
        raise InputError("--max-cost applies to paid API seats; every seat here is a strategy")
    # One event loop for the whole game: each chat seat keeps one client and
    # its connections across rounds (or steps).
    play = play_sequential if game.sequential else _play
    with run_loop() as loop:
        return play(game, record, seats, backends, out, adaptation, cache_dir, on_round,
                    max_cost=max_cost, loop=loop)  # fmt: skip


def _play(
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
    n, samples, seed = game.players, record.samples, record.seed
    lengths = _lengths(game, samples, seed)
    values = _values(game, samples, seed)
    shape = (samples, game.rounds, n)
    moves = np.full(shape, np.nan)
    pay = np.full(shape, np.nan)
    forfeit = np.zeros(shape, dtype=bool)
    reasons: dict[tuple[int, int, int], str] = {}
    qids: dict[tuple[int, int, int], tuple[str, str]] = {}
    rules = [rules_text(game, seat, game.rounds, record.wording) for seat in range(n)]
    groups = _groups(seats)
    runs: list[RunResult] = []
    problems: list[str] = []
    n_new = 0
    cache = Path(cache_dir) if cache_dir is not None else out
    last_round = int(lengths.max())
    spent = 0.0  # by the rounds before this one
    stopped: str | None = None
    played = 0
    for r in range(last_round):
        active = np.flatnonzero(lengths > r)
        jobs = []
        for g, (spec, group_seats) in enumerate(groups):
            rows = [
                _row(game, rules[seat], int(s), r, seat, moves, pay, values, record.wording)
                for s in active
                for seat in group_seats
            ]
            run_dir = out / ROUNDS_DIR / f"r{r + 1:04d}" / f"p{g + 1}"
            jobs.append((spec, run_dir, rows))

        # The budget left is shared by this round's paid groups; each group's
        # directory gets what it had spent plus its share (run_bank's budget
        # is per directory, across invocations).
        paying = [j for j in jobs if paid(backends[j[0]])]
        share = None if max_cost is None else max(0.0, max_cost - spent) / max(1, len(paying))
        if share is not None and share <= 0 and paying:
            stopped = "max-cost"
            break

        results = run_groups(
            jobs, backends, adaptation=adaptation, seed=seed, cache=cache, share=share, loop=loop
        )
        spent += sum(result.manifest.spent_usd for result in results)
        if any(result.stopped == "max-cost" for result in results):
            # The round is journaled as far as it went; its payoffs wait for
            # the rest of its moves (a re-run with more budget asks them).
            runs.extend(results)
            n_new += sum(result.n_new for result in results)
            stopped = "max-cost"
            break
        for (_, run_dir, _), result in zip(jobs, results, strict=True):
            runs.append(result)
            n_new += result.n_new
            problems.extend(result.problems)
            _read_moves(game, result.responses, r, moves, forfeit, reasons)
            rel = str(run_dir.relative_to(out))
            for qid in result.responses["question_id"].to_pylist():
                s, seat = who(qid)
                qids[(s, r, seat)] = (qid, rel)
        _fill_forfeits(game, active, r, seed, moves, forfeit)
        vals = None if values is None else values[active, r]
        pay[active, r] = payoffs(game, moves[active, r], values=vals)
        played = r + 1
        if on_round is not None:
            on_round(r + 1, last_round)
    table = _moves_table(game, seats, moves, pay, values, forfeit, reasons, qids)
    if stopped is not None:
        return GameResult(
            out, record, game, table, runs, n_new, int(forfeit.sum()),
            list(dict.fromkeys(problems)), stopped=stopped, spent_usd=spent, rounds_played=played,
        )  # fmt: skip
    with atomic_path(out / MOVES) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return GameResult(
        out, record, game, table, runs, n_new, int(forfeit.sum()), list(dict.fromkeys(problems)),
        spent_usd=spent, rounds_played=played,
    )  # fmt: skip


def _row(
    game: Game,
    rules: str,
    s: int,
    r: int,
    seat: int,
    moves: FloatArray,
    pay: FloatArray,
    values: FloatArray | None,
    wording: str = "v1",
) -> dict[str, Any]:
    """The question row of `seat`'s move in round `r` of sample `s`."""
    value = None if values is None else float(values[s, r, seat])
    history = history_text(
        game, seat, moves[s, :r], pay[s, :r], None if values is None else values[s, :r]
    )
    text = compose(rules, history, ask_text(game, r, value), wording)
    payload: dict[str, Any] = {
        "game": game.name,
        "sample": int(s),
        "round": r,
        "seat": seat,
        "history": {"moves": moves[s, :r].tolist(), "payoffs": pay[s, :r].tolist()},
        "values": None if values is None else values[s, r].tolist(),
    }
    acts = game.actions
    if isinstance(acts, NumberActions):
        options = [f"a number from {number(acts.min)} to {number(acts.max)}"]
        payload["number_range"] = [acts.min, acts.max]
    else:
        options = list(acts)
    return move_row(game, s, r, seat, text, options, payload)


def _read_moves(
    game: Game,
    responses: pa.Table,
    r: int,
    moves: FloatArray,
    forfeit: Any,
    reasons: dict[tuple[int, int, int], str],
) -> None:
    """This round's moves from a group's responses (invalid ones forfeit)."""
    acts = game.actions
    ids = responses["question_id"].to_pylist()
    chosen = responses["chosen_index"].to_pylist()
    read = responses["answer_read"].to_pylist()
    errors = responses["error"].to_pylist()
    for qid, c, x, err in zip(ids, chosen, read, errors, strict=True):
        s, seat = who(qid)
        why: str | None = None
        if err is not None:
            why = f"request failed: {err}"
        elif isinstance(acts, NumberActions):
            if x is None:
                why = "no number in the reply, even after asking again"
            elif not acts.min <= x <= acts.max:
                why = f"{number(x)} is outside {number(acts.min)}..{number(acts.max)}"
            else:
                if acts.step is not None:
                    x = acts.min + acts.step * round((x - acts.min) / acts.step)
                moves[s, r, seat] = x
        elif c is None or not 0 <= c < len(acts) or c == NO_ANSWER:
            why = "the reply names no action, even after asking again"
        else:
            moves[s, r, seat] = c
        if why is not None:
            forfeit[s, r, seat] = True
            reasons[(s, r, seat)] = why


def _fill_forfeits(
    game: Game, active: Any, r: int, seed: int, moves: FloatArray, forfeit: Any
) -> None:
    """A forfeited move is replaced by a uniformly drawn one (seeded), so the
    others' payoffs are defined; the row keeps its forfeit flag."""
    acts = game.actions
    for s in active:
        for seat in np.flatnonzero(forfeit[s, r] | np.isnan(moves[s, r])):
            forfeit[s, r, seat] = True
            rng = np.random.default_rng([seed, int(s), r, int(seat), 0xF0])
            if isinstance(acts, tuple):
                moves[s, r, seat] = float(rng.integers(len(acts)))
            else:
                grid = acts.grid()
                moves[s, r, seat] = (
                    float(grid[rng.integers(grid.size)])
                    if grid is not None
                    else float(rng.uniform(acts.min, acts.max))
                )


def _moves_table(
    game: Game,
    seats: list[str],
    moves: FloatArray,
    pay: FloatArray,
    values: FloatArray | None,
    forfeit: Any,
    reasons: dict[tuple[int, int, int], str],
    qids: dict[tuple[int, int, int], tuple[str, str]],
) -> pa.Table:
    """One row per (sample, round, seat) played so far."""
    played = ~np.isnan(pay)
    s_idx, r_idx, p_idx = np.nonzero(played)
    mv = moves[played]
    labels = game.actions
    if isinstance(labels, tuple):
        action = np.asarray(labels, dtype=object)[mv.astype(np.int64)].tolist()
    else:
        action = [number(m) for m in mv]
    keys = list(zip(s_idx.tolist(), r_idx.tolist(), p_idx.tolist(), strict=True))
    return pa.table(
        {
            "game": pa.array([game.name] * len(keys), pa.string()),
            "sample": pa.array(s_idx, pa.int32()),
            "round": pa.array(r_idx + 1, pa.int32()),
            "seat": pa.array(p_idx + 1, pa.int32()),
            "player": pa.array([seats[p] for p in p_idx.tolist()], pa.string()),
            "move": pa.array(mv, pa.float64()),
            "action": pa.array(action, pa.string()),
            "payoff": pa.array(pay[played], pa.float64()),
            "value": pa.array(None if values is None else values[played], pa.float64())
            if values is not None
            else pa.nulls(len(keys), pa.float64()),
            "forfeit": pa.array(forfeit[played], pa.bool_()),
            "reason": pa.array([reasons.get(k) for k in keys], pa.string()),
            "question_id": pa.array([qids.get(k, ("", ""))[0] for k in keys], pa.string()),
            "run_dir": pa.array([qids.get(k, ("", ""))[1] for k in keys], pa.string()),
        },
        schema=MOVES_SCHEMA,
    )
