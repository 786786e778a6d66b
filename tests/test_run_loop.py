"""`steer.run.RunLoop` (one event loop, and so one HTTP client per backend, for
runs in sequence) and `JournalWriter` (a run's fsynced writes off the loop)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from bank_factory import write_test_bank
from openai_server import FakeOpenAI, serving
from steer.backends import resolve_backend
from steer.run import run_bank, run_loop
from steer.run._cache import ResponseCache
from steer.run._writer import Batch, JournalWriter


@pytest.fixture
def url() -> Iterator[str]:
    with serving(FakeOpenAI()) as address:
        yield address


def test_runs_on_one_loop_share_the_backends_client_and_close_it_at_the_end(
    url: str, tmp_path: Path
) -> None:
    backend = resolve_backend("openai:m", options={"base_url": url, "concurrency": 4})
    banks = [write_test_bank(tmp_path / f"bank{i}.parquet", 6) for i in range(3)]
    clients = []
    with run_loop() as loop:
        for i, bank in enumerate(banks):
            done = run_bank(bank, backend, tmp_path / f"run{i}", loop=loop)
            assert done.responses.num_rows == 6 and done.n_new == 6
            clients.append(backend._client_obj)  # type: ignore[attr-defined]
        assert clients[0] is not None
        assert all(c is clients[0] for c in clients)  # not one client per run
    assert backend._client_obj is None  # type: ignore[attr-defined]  # closed with the loop


def test_without_a_loop_each_run_closes_its_client(url: str, tmp_path: Path) -> None:
    backend = resolve_backend("openai:m", options={"base_url": url})
    run_bank(write_test_bank(tmp_path / "bank.parquet", 3), backend, tmp_path / "run")
    assert backend._client_obj is None  # type: ignore[attr-defined]


def test_a_run_on_a_loop_journals_the_same_rows_as_a_run_without(url: str, tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 20, multipart_every=4)
    plain = run_bank(bank, "openai:m", tmp_path / "plain", backend_options={"base_url": url})
    with run_loop() as loop:
        looped = run_bank(
            bank, "openai:m", tmp_path / "looped", backend_options={"base_url": url}, loop=loop
        )
    keep = ["question_id", "chosen_index", "response_text", "error"]
    assert (
        looped.responses.select(keep)
        .sort_by("question_id")
        .equals(plain.responses.select(keep).sort_by("question_id"))
    )


def test_the_loop_passes_on_a_coroutines_error() -> None:
    async def fails() -> None:
        raise ValueError("from the coroutine")

    with run_loop() as loop, pytest.raises(ValueError, match="from the coroutine"):
        loop.run(fails())


def test_ctrl_c_while_waiting_cancels_the_coroutine_and_runs_its_finally() -> None:
    started, cleaned = threading.Event(), threading.Event()

    async def long() -> None:
        try:
            started.set()
            await asyncio.sleep(60)
        finally:
            cleaned.set()  # a run's last journal flush lives in such a finally

    def ctrl_c() -> None:
        started.wait(5)
        os.kill(os.getpid(), signal.SIGINT)

    with run_loop() as loop:
        threading.Thread(target=ctrl_c, daemon=True).start()
        with pytest.raises(KeyboardInterrupt):
            loop.run(long())
        assert cleaned.is_set()  # waited for, before the interrupt went on


def test_the_writer_writes_batches_in_order_and_counts_them_once_on_disk(
    tmp_path: Path,
) -> None:
    journal, transcripts = tmp_path / "journal.jsonl", tmp_path / "transcripts.jsonl"
    cache = ResponseCache(tmp_path / "cache.jsonl")
    counted: list[int] = []
    seen_on_disk: list[int] = []

    def written(n: int) -> None:
        counted.append(n)
        seen_on_disk.append(len(journal.read_text().splitlines()))

    async def main() -> None:
        writer = JournalWriter(journal, transcripts, cache, written)
        for b in range(5):
            rows = [{"i": b * 10 + k} for k in range(b + 1)]
            writer.submit(Batch(rows, [{"t": b}]))
        writer.submit(Batch())  # nothing to write: not counted
        await writer.close()
        assert writer.queued == 0

    asyncio.run(main())
    cache.close()
    lines = [json.loads(x)["i"] for x in journal.read_text().splitlines()]
    assert lines == [b * 10 + k for b in range(5) for k in range(b + 1)]
    assert [json.loads(x)["t"] for x in transcripts.read_text().splitlines()] == list(range(5))
    assert counted == [1, 2, 3, 4, 5]
    assert seen_on_disk == [1, 3, 6, 10, 15]  # counted only after its lines were written


def test_a_failed_write_is_raised_not_lost(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-dir"

    async def main() -> None:
        writer = JournalWriter(missing / "journal.jsonl", missing / "t.jsonl", None, lambda n: None)
        writer.submit(Batch([{"i": 1}], [{"t": 1}]))
        await writer.close()

    with pytest.raises(FileNotFoundError):
        asyncio.run(main())
