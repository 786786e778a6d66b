"""Play: experiments answered by a model, and games between models and
strategies (`play_game`, round by round), on one engine.

An experiment's trials are question rows with no key; `play_experiment` writes
them into the run directory and answers them through `steer.run`, so a play
run has the journal, the response cache, the cost limit, the transcripts and
the resumption of any other run.

`score_rc` reproduces the Rationality Check scoring (per-metric
normalisation, prompt versions averaged, domain means) from a table of raw
game metrics in the published layout (`read_rc_table`).
"""

from steer.play._experiment import PLAY_FILE, TRIALS, PlayResult, play_experiment, read_play
from steer.play._game_metrics import game_metrics
from steer.play._rc_scores import (
    RC_GAMES,
    RCScores,
    RCTable,
    domain_scores,
    normalized_metrics,
    read_rc_table,
    score_rc,
    with_models,
)
from steer.play._tournament import GAME_FILE, MOVES, GameResult, play_game, read_game_run

__all__ = [
    "GAME_FILE",
    "MOVES",
    "PLAY_FILE",
    "RC_GAMES",
    "TRIALS",
    "GameResult",
    "PlayResult",
    "RCScores",
    "RCTable",
    "domain_scores",
    "game_metrics",
    "normalized_metrics",
    "play_experiment",
    "play_game",
    "read_game_run",
    "read_play",
    "read_rc_table",
    "score_rc",
    "with_models",
]
