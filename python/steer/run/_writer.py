"""A run's durable writes, off the event loop and in order.

Each flush of a chat run fsyncs the response cache, the transcripts, the
journal and (when money was spent) the manifest: a few milliseconds of disk
wait per batch. Done on the event loop it stalls every request in flight;
`JournalWriter` hands each batch to a worker thread instead, one batch at a
time in the order they were flushed, and counts a batch's answers as new
only once its journal lines are on disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from steer.run._cache import ResponseCache
from steer.run._journal import append_rows
from steer.run._transcripts import append_transcripts


@dataclass
class Batch:
    """What one flush writes: transcripts first, then responses, then the
    manifest with the money spent so far (None: unchanged)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    transcripts: list[dict[str, Any]] = field(default_factory=list)
    manifest: Callable[[], None] | None = None


class JournalWriter:
    """Writes `Batch`es in a worker thread, one after another."""

    def __init__(
        self,
        journal: Path,
        transcripts: Path,
        cache: Any,
        on_written: Callable[[int], None],
    ) -> None:
        self._journal, self._transcripts, self._cache = journal, transcripts, cache
        self._on_written = on_written
        self._queue: asyncio.Queue[Batch | None] = asyncio.Queue()
        self._task = asyncio.create_task(self._drain())
        self.queued = 0  # answers handed over and not yet on disk

    def submit(self, batch: Batch) -> None:
        if self._task.done():  # a write failed (disk full): say so now
            self._task.result()
        self.queued += len(batch.rows)
        self._queue.put_nowait(batch)

    async def close(self) -> None:
        """Write what was submitted, then stop (a failed write raises here)."""
        self._queue.put_nowait(None)
        await asyncio.shield(self._task)

    def _write(self, batch: Batch) -> None:
        # The cache first: an answer journaled is an answer whose reply is
        # on disk, so a resumed run never pays for it again.
        if isinstance(self._cache, ResponseCache):
            self._cache.sync()
        if batch.rows:
            append_transcripts(self._transcripts, batch.transcripts)
            append_rows(self._journal, batch.rows)
        if batch.manifest is not None:
            batch.manifest()

    async def _drain(self) -> None:
        while (batch := await self._queue.get()) is not None:
            await asyncio.to_thread(self._write, batch)
            self.queued -= len(batch.rows)
            if batch.rows:
                self._on_written(len(batch.rows))
