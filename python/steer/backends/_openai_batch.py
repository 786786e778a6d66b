"""The OpenAI Batch API behind the same `complete` coroutine: requests made
while a run advances are gathered, uploaded as one JSONL file, submitted as a
batch, polled and harvested. Half price, up to 24 hours.

Durability: each submitted batch is recorded (`batches.jsonl`, beside the
response cache) before anyone waits on it, and every request's `custom_id`
is its cache key. A run killed while a batch is in flight re-attaches to the
recorded batch on resume and harvests it into the cache instead of
submitting (and paying for) the requests again.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from steer.adapt import Completion, Message
from steer.backends._base import BackendError
from steer.backends._chat import cache_key
from steer.backends._completion import MalformedReplyError, completion_from

if TYPE_CHECKING:
    from steer.backends._openai import OpenAIBackend

BATCHES_FILE = "batches.jsonl"
TERMINAL = {"completed", "failed", "expired", "cancelled"}
GATHER_S = 0.2  # quiet time after the last request before a batch is sent


class BatchCollector:
    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend
        self.pending: dict[str, tuple[list[Message], dict[str, Any]]] = {}
        self.waiting: dict[str, list[asyncio.Future[Completion]]] = {}
        self._last = 0.0
        self._flusher: asyncio.Task[None] | None = None
        self._recovery: asyncio.Future[None] | None = None

    # -- bookkeeping --------------------------------------------------------
    def _record_path(self) -> Path | None:
        cache = self.backend.cache
        path = getattr(cache, "path", None)
        return None if path is None else Path(path).with_name(BATCHES_FILE)

    def _record(self, entry: dict[str, Any]) -> None:
        path = self._record_path()
        if path is None:
            return
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
            fh.flush()
            os.fsync(fh.fileno())

    async def _recover(self) -> None:
        """Harvest batches a previous process submitted but did not collect."""
        path = self._record_path()
        if path is None or not path.exists():
            return
        submitted, harvested = [], set()
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue  # a line cut by a kill: that batch was never announced
            if "harvested" in entry:
                harvested.add(entry["harvested"])
            elif "batch_id" in entry:
                submitted.append(entry["batch_id"])
        for batch_id in submitted:
            if batch_id not in harvested:
                await self._harvest(batch_id, {})

    # -- submission ---------------------------------------------------------
    async def submit(self, messages: list[Message], params: dict[str, Any]) -> Completion:
        if self._recovery is None:
            self._recovery = asyncio.ensure_future(self._recover())
        await asyncio.shield(self._recovery)
        key = self._key(messages, params)
        cache = self.backend.cache
        hit = None if cache is None else cache.get(key)
        if hit is not None:  # harvested from a batch a killed run had submitted
            return hit
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self.waiting.setdefault(key, []).append(future)
        self.pending[key] = (messages, params)
        self._last = time.monotonic()
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush_when_quiet())
        return await future

    def _key(self, messages: list[Message], params: dict[str, Any]) -> str:
        return cache_key(self.backend.identity(), messages, params)

    async def _flush_when_quiet(self) -> None:
        while time.monotonic() - self._last < GATHER_S:
            await asyncio.sleep(GATHER_S / 4)
        batch, self.pending = self.pending, {}
        try:
            await self._run_batch(batch)
        except Exception as exc:  # every waiter must hear about it
            error = exc if isinstance(exc, BackendError) else None
            for key in batch:
                for future in self.waiting.pop(key, []):
                    if not future.done():
                        future.set_exception(
                            error or BackendError(f"batch failed: {exc}", transient=True)
                        )

    async def _run_batch(self, batch: dict[str, tuple[list[Message], dict[str, Any]]]) -> None:
        client = self.backend._client
        lines = [
            json.dumps(
                {
                    "custom_id": key,
                    "method": "POST",
                    "url": "/v1/chat/completions",
                    "body": {"model": self.backend.model, "messages": messages, **params},
                }
            )
            for key, (messages, params) in batch.items()
        ]
        upload = await client.files.create(
            file=("steer-batch.jsonl", io.BytesIO(("\n".join(lines) + "\n").encode())),
            purpose="batch",
        )
        created = await client.batches.create(
            input_file_id=upload.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        self._record({"batch_id": created.id, "n": len(batch)})
        await self._harvest(created.id, batch)

    async def _harvest(self, batch_id: str, batch: dict[str, Any]) -> None:
        client, settings = self.backend._client, self.backend.settings
        while True:
            info = await client.batches.retrieve(batch_id)
            if info.status in TERMINAL:
                break
            await asyncio.sleep(settings.batch_poll_s)
        results: dict[str, Completion] = {}
        if info.status == "completed" and info.output_file_id:
            content = await client.files.content(info.output_file_id)
            for line in content.text.splitlines():
                if not line.strip():
                    continue
                item = json.loads(line)
                response = item.get("response") or {}
                if response.get("status_code") == 200:
                    try:
                        done = completion_from(
                            response.get("body"), self.backend.price, 0.0, batch=True
                        )
                    except MalformedReplyError:
                        continue  # that request gets "no result" below
                    results[item["custom_id"]] = done
        cache = self.backend.cache
        for key, done in results.items():
            # Cached at once: a kill before the journal catches up loses nothing.
            if cache is not None:
                cache.put(key, done)
        self._record({"harvested": batch_id})
        for key in batch:
            for future in self.waiting.pop(key, []):
                if future.done():
                    continue
                if key in results:
                    future.set_result(results[key])
                else:
                    future.set_exception(
                        BackendError(f"batch {batch_id} ({info.status}): no result", transient=True)
                    )

    async def aclose(self) -> None:
        if self._flusher is not None and not self._flusher.done():
            self._flusher.cancel()
