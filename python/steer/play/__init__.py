"""Play: experiments (and, on the same engine, games) answered by a model.

An experiment's trials are question rows with no key; `play_experiment` writes
them into the run directory and answers them through `steer.run`, so a play
run has the journal, the response cache, the cost limit, the transcripts and
the resumption of any other run.
"""

from steer.play._experiment import PLAY_FILE, TRIALS, PlayResult, play_experiment, read_play

__all__ = ["PLAY_FILE", "TRIALS", "PlayResult", "play_experiment", "read_play"]
