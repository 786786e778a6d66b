"""One event loop kept for a sequence of runs (a game's rounds).

`run_bank` answers a chat backend's questions on an event loop. Alone it
makes one with `asyncio.run` and closes the backend's client after; a game
runs a bank per round and per group, and a fresh loop each time means a
fresh HTTP client and a fresh connection pool per round. A `RunLoop` is an
event loop in a thread of its own: every run given it submits its coroutine
there (groups of a round from their own threads, at the same time), the
backends' clients and connections live as long as the loop, and `close`
closes them once.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar

T = TypeVar("T")

#: How long `close` and an interrupted `run` wait for the loop to wind down.
_WIND_DOWN_S = 30.0


class RunLoop:
    """An event loop running in a daemon thread, for runs in sequence."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="steer-run-loop", daemon=True
        )
        self._thread.start()
        self._open: list[Any] = []  # backends whose clients live on this loop
        self._lock = threading.Lock()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run `coro` on the loop and wait for it. Interrupted (Ctrl-C in the
        waiting thread), the coroutine is cancelled and its `finally` blocks
        (the journal's last flush) run before the interrupt goes on."""
        finished = threading.Event()

        async def wrapped() -> T:
            try:
                return await coro
            finally:
                finished.set()

        future = asyncio.run_coroutine_threadsafe(wrapped(), self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            finished.wait(_WIND_DOWN_S)
            raise

    def keep(self, backend: Any) -> None:
        """Close `backend` (its `aclose`) when the loop closes, not after each run."""
        with self._lock:
            if all(b is not backend for b in self._open):
                self._open.append(backend)

    def close(self) -> None:
        with self._lock:
            backends, self._open = self._open, []
        for backend in backends:
            # Closing a client must not hide the run's own result or error.
            with suppress(Exception):
                self.run(backend.aclose())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_WIND_DOWN_S)
        if not self._thread.is_alive():
            self._loop.close()


@contextmanager
def run_loop() -> Iterator[RunLoop]:
    """A `RunLoop` for the runs inside the block, closed at its end."""
    loop = RunLoop()
    try:
        yield loop
    finally:
        loop.close()
