"""The fork server that generation's worker processes come from.

Light on purpose (standard library only): the command line starts the
server before its own heavy imports, so the server's imports (about 0.6 s of
CPU, see `generate/_preload`) run beside them on another core instead of
after them. Workers are not forked from the caller: a forked child would
inherit steer-core's thread pool (and pyarrow's) without their threads. Where
there is no fork server (Windows), workers are spawned.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.context
import multiprocessing.forkserver

# Below this many questions starting workers costs more than it saves.
MIN_PARALLEL = 20000
# What the fork server imports before it forks a worker.
PRELOAD = ("steer.generate._preload",)
# Set once this process has started the fork server ahead of its first pool.
_warmed = False


def context() -> multiprocessing.context.BaseContext:
    """The start method workers use: the fork server, else spawn."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(list(PRELOAD))
    return ctx


def warmed() -> bool:
    """Whether `warm_up` has started the fork server in this process."""
    return _warmed


def warm_up(workers: int, questions: int) -> None:
    """Start the fork server now when `questions` (an estimate) will need
    workers, so its imports overlap the caller's work instead of following
    it. Harmless when the estimate is wrong: an unused server only costs its
    imports on another core, and exits with this process."""
    if workers < 2 or questions < MIN_PARALLEL:
        return
    global _warmed
    if "forkserver" in multiprocessing.get_all_start_methods():
        context()
        multiprocessing.forkserver.ensure_running()
        _warmed = True
