"""A game run directory's record and result, and the moves table's layout:
what the round engine (`_tournament`) and the step engine (`_sequential`)
both write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from pydantic import BaseModel, ConfigDict

from steer.play._games import Game
from steer.run import RunResult

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
