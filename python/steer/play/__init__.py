"""Play: experiments (and, on the same engine, games) answered by a model.

An experiment's trials are question rows with no key; `play_experiment` writes
them into the run directory and answers them through `steer.run`, so a play
run has the journal, the response cache, the cost limit, the transcripts and
the resumption of any other run.

`score_rc` reproduces the Rationality Check scoring (per-metric
normalisation, prompt versions averaged, domain means) from a table of raw
game metrics in the published layout (`read_rc_table`).
"""

from steer.play._experiment import PLAY_FILE, TRIALS, PlayResult, play_experiment, read_play
from steer.play._rc_scores import (
    RCScores,
    RCTable,
    domain_scores,
    normalized_metrics,
    read_rc_table,
    score_rc,
)

__all__ = [
    "PLAY_FILE",
    "TRIALS",
    "PlayResult",
    "RCScores",
    "RCTable",
    "domain_scores",
    "normalized_metrics",
    "play_experiment",
    "read_play",
    "read_rc_table",
    "score_rc",
]
