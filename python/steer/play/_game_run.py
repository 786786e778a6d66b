"""A game run directory's record and result, and the moves table's layout:
what the round engine (`_tournament`) and the step engine (`_sequential`)
both write."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pydantic import BaseModel, ConfigDict

from steer.play._games import Game
from steer.run import RunResult
from steer.schema._columns import first_true

GAME_FILE = "game.json"
MOVES = "moves.parquet"
ROUNDS_DIR = "rounds"
MAX_SAMPLES = 10_000
GAME_ELEMENT = "game."

MOVES_SCHEMA = pa.schema(
    [
        ("game", pa.string()),
        ("sample", pa.int32()),
        ("round", pa.int32()),
        ("seat", pa.int32()),
        ("player", pa.string()),
        # The action index (discrete games) or the number played.
        ("move", pa.float64()),
        ("action", pa.string()),
        ("payoff", pa.float64()),
        ("value", pa.float64()),
        ("forfeit", pa.bool_()),
        ("reason", pa.string()),
        ("question_id", pa.string()),
        ("run_dir", pa.string()),
    ]
)


class GameRecord(BaseModel):
    """What a game run directory holds: the game, the seats, the settings."""

    model_config = ConfigDict(extra="forbid")

    game_version: int = 1
    game: str
    source: str
    game_sha256: str
    players: list[str]
    rounds: int
    continuation: float | None
    samples: int
    seed: int
    adaptation: dict[str, Any]
    # The prompt wording (steer.play._describe.WORDINGS).
    wording: str = "v1"


@dataclass
class GameResult:
    directory: Path
    record: GameRecord
    game: Game
    moves: pa.Table
    runs: list[RunResult]
    n_new: int
    n_forfeits: int
    problems: list[str]
    stopped: str | None = None  # "max-cost": the budget ran out; moves.parquet not written
    spent_usd: float = 0.0  # by every round's directory, across invocations
    rounds_played: int = 0


def check_moves(game: Game, moves: pa.Table, source: str) -> pa.Table:
    """`moves` (a game run's moves.parquet) in MOVES_SCHEMA, every row's
    sample, round and seat in range, and, for a sequential game, every move
    and action one the game could have made; else one `FileFormatError`
    naming the file, the row and the column (the metrics replay the game
    from these rows, so a hand-edited file must not reach them)."""
    from steer.errors import FileFormatError

    missing = [name for name in MOVES_SCHEMA.names if name not in moves.column_names]
    if missing:
        raise FileFormatError("no such column in a game's moves table", source=source,
                              field=missing[0])  # fmt: skip
    try:
        moves = moves.select(MOVES_SCHEMA.names).cast(MOVES_SCHEMA)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
        raise FileFormatError(f"a column of the wrong type ({exc})", source=source) from None
    bounds = {"sample": (0, None), "round": (1, None), "seat": (1, game.players)}
    for name, (lo, hi) in bounds.items():
        column = moves[name]
        out = pc.or_kleene(pc.is_null(column), pc.less(column, lo))
        if hi is not None:
            out = pc.or_kleene(out, pc.greater(column, hi))
        first = first_true(pc.fill_null(out, True))  # a null is out of range too
        if first >= 0:
            allowed = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise FileFormatError(
                f"{column[first].as_py()} is outside {allowed}", source=source,
                where=f"row {first + 1}", field=name,
            )  # fmt: skip
    if game.sequential:
        from steer.play._sequential import check_sequential_rows

        check_sequential_rows(game, moves.to_pylist(), source)
    return moves


def move_row(
    game: Game, s: int, step: int, seat: int, text: str, options: list[str],
    payload: dict[str, Any],
) -> dict[str, Any]:  # fmt: skip
    """The keyless question row of `seat`'s move at `step` (0-based) of sample
    `s`: what the round engine and the step engine both hand to `run_bank`."""
    base_id = f"s{s}.r{step + 1}.p{seat + 1}"
    return {
        "question_id": f"{GAME_ELEMENT}{game.name}/{base_id}/0",
        "element": f"{GAME_ELEMENT}{game.name}",
        "base_id": base_id,
        "part": 0,
        "question_text": text,
        "options": options,
        "correct_index": None,
        "grading": "elicit",
        "type": "game",
        "domain": "strategic",
        "perspective": "first",
        "template_id": f"game:{game.name}",
        "source": f"steer:games/{game.name}",
        "payload": json.dumps(payload, separators=(",", ":")),
    }


def who(qid: str) -> tuple[int, int]:
    """(sample, seat) of a move's question id (`move_row`)."""
    s, _, p = qid.rsplit("/", 2)[-2].split(".")
    return int(s[1:]), int(p[1:]) - 1
