"""Durable runs: a manifest, a journal written as answers arrive, a Parquet
table at the end. Re-running the same command resumes where it stopped."""

from __future__ import annotations

import asyncio
import datetime as dt
import hashlib
import platform
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from steer._atomic import atomic_path, atomic_text
from steer.adapt import prompts_hash
from steer.adapt._order import order_passes, same_order, shuffle_rows
from steer.backends import Backend, BackendError, BudgetExhaustedError, ChatBackend, resolve_backend
from steer.backends._budget import CostBudget
from steer.backends._chat import EXCHANGES, REQUEST_SAMPLE
from steer.backends._ratelimit import QUESTION_BUDGET, QuestionBudget
from steer.bank import file_sha256, read_bank
from steer.errors import FileFormatError, InputError
from steer.run._cache import CACHE_FILE, ResponseCache
from steer.run._journal import append_rows, read_journal, trim_partial_line
from steer.run._lock import run_lock
from steer.run._loop import RunLoop
from steer.run._plan import Conversation, plan_conversations
from steer.run._progress import Progress
from steer.run._rows import SAMPLE_KEY, response_row, sample_of
from steer.run._transcripts import TRANSCRIPTS, append_transcripts, trim_partial_tail
from steer.run._writer import Batch, JournalWriter
from steer.schema import RESPONSE_SCHEMA, Adaptation, RunManifest

MANIFEST = "manifest.json"
JOURNAL = "journal.jsonl"
RESPONSES = "responses.parquet"
#: The key of a persona text's sha256 in a run manifest's `generation`.
PERSONA_SHA256 = "persona_sha256"

# Manifest fields that must match for a directory to be resumed.
_IDENTITY = ("bank_sha256", "model", "adaptation", "seed", "generation")

# The largest --limit (a row count fits a signed 64-bit integer).
_MAX_LIMIT = 2**63 - 1


@dataclass
class RunResult:
    directory: Path
    manifest: RunManifest
    responses: pa.Table
    n_new: int
    problems: list[str]
    n_failed: int = 0  # question parts recorded as errors by this invocation
    n_errors_kept: int = 0  # errored rows from earlier invocations, not asked again
    n_errors_left: int = 0  # questions of the directory still recorded as errors
    stopped: str | None = None  # why the run stopped early ("max-cost"), if it did
    paid_usd: float = 0.0
    requests: int = 0
    cache_hits: int = 0
    overhead_s: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def _steer_version() -> str:
    from steer import __version__

    return __version__


def _load_manifest(path: Path) -> RunManifest:
    try:
        return RunManifest.model_validate_json(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        first = str(exc).splitlines()
        raise FileFormatError(
            f"not a valid run manifest ({first[1] if len(first) > 1 else exc})", source=str(path)
        ) from None


def _generation(
    backend: Backend, adaptation: Adaptation, shots_pool: Path | None
) -> dict[str, Any]:
    params = backend.generation_params()
    if isinstance(backend, ChatBackend):
        # The prompt wording and the example pool shape every request.
        params = {**params, "prompts": prompts_hash()}
        if adaptation.shots and shots_pool is not None:
            params["shots_pool_sha256"] = file_sha256(shots_pool)
    if adaptation.persona_text is not None:
        # A collective member's persona (steer run --collective --personas):
        # editing its text makes another run, like editing the prompts.
        digest = hashlib.sha256(adaptation.persona_text.encode("utf-8")).hexdigest()
        params = {**params, PERSONA_SHA256: digest}
    return params


def run_bank(
    bank_path: str | Path,
    model: str | Backend,
    out_dir: str | Path,
    *,
    adaptation: Adaptation | None = None,
    limit: int | None = None,
    seed: int = 0,
    batch_size: int = 32,
    on_batch: Callable[[int, int], None] | None = None,
    backend_options: dict[str, Any] | None = None,
    max_cost: float | None = None,
    cache_dir: str | Path | None = None,
    shots_pool: str | Path | None = None,
    progress: bool = False,
    retry_errors: bool = False,
    sample: int = 0,
    loop: RunLoop | None = None,
) -> RunResult:
    """Answer every question of a bank with a backend, durably.

    Writes `manifest.json`, appends to `journal.jsonl` batch by batch (fsync),
    and compacts to `responses.parquet` at the end. When `out_dir` already
    holds the same run (same bank, model, adaptation, seed, generation
    parameters) only the missing questions are asked; a different run there
    is an error. Chat backends answer concurrently; every reply goes through a
    response cache (`out_dir/cache.jsonl`, or `cache_dir/cache.jsonl` to share
    replies between runs), so a resumed run never pays for a reply twice.
    `max_cost` (USD) is a budget for the directory across invocations
    (the manifest's `spent_usd`): each request reserves its worst-case cost
    first, so the budget is never overshot. Questions the backend gave up on
    are journaled with their `error`; a re-run asks them again only with
    `retry_errors` (the new rows supersede the old ones). One process at a
    time may run in a directory (a second one is an InputError naming the
    first one's pid). `sample` > 0 records every answer as that sample of its
    question (a member of a collective, `steer.run.run_collective`): it joins
    the response key and the response-cache key, so members never share a
    reply.
    """
    bank_path, out = Path(bank_path), Path(out_dir)
    adaptation = adaptation or Adaptation()
    backend = (
        resolve_backend(model, seed=seed, options=backend_options)
        if isinstance(model, str)
        else model
    )
    pool_path = Path(shots_pool) if shots_pool is not None else None
    full = read_bank(bank_path)
    bank = full
    if limit is not None:
        if not 0 <= limit <= _MAX_LIMIT:
            raise InputError(f"--limit must be an integer from 0 to {_MAX_LIMIT}, got {limit}")
        bank = full.slice(0, limit)
    chat = isinstance(backend, ChatBackend)
    if max_cost is not None and not max_cost >= 0:  # also refuses NaN
        raise InputError(f"--max-cost must be a number of USD >= 0, got {max_cost}")
    if max_cost is not None and getattr(getattr(backend, "settings", None), "batch_api", False):
        raise InputError(
            "--max-cost cannot stop a Batch API run (all requests go in one batch); "
            "see the cost first with --dry-run"
        )
    if max_cost is not None and backend.family in ("hf", "vllm", "agent"):
        raise InputError(f"--max-cost applies to paid APIs; {backend.family} models run locally")
    if max_cost is not None and chat and getattr(backend, "price", None) is None:
        raise InputError(
            f"--max-cost needs a price for {backend.model!r}; add it to a --pricing file"
        )

    manifest = RunManifest(
        run_id=out.name,
        created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        steer_version=_steer_version(),
        bank_path=str(bank_path),
        bank_sha256=file_sha256(bank_path),
        n_questions=bank.num_rows,
        model=backend.spec,
        backend=backend.family,
        revision=backend.revision,
        generation={
            **_generation(backend, adaptation, pool_path),
            **({"sample": sample} if sample else {}),
        },
        adaptation=adaptation,
        seed=seed,
        limit=limit,
        asked=[str(x) for x in bank["question_id"].to_pylist()],
        python=sys.version.split()[0],
        platform=platform.platform(),
    )
    try:  # settings that cannot be recorded are refused before anything is written
        manifest.model_dump_json()
    except ValueError as exc:
        raise InputError(f"backend options cannot be recorded: {exc}") from None
    out.mkdir(parents=True, exist_ok=True)
    with run_lock(out):
        # `order=shuffle:K`: K passes, each under its own permutation index.
        passes = [
            adaptation.model_copy(update={"order": o}) for o in order_passes(adaptation.order)
        ]
        results: list[RunResult] = []
        for shown in passes:
            if isinstance(backend, ChatBackend):
                # Each pass meters its own spend (the manifest adds it up): a
                # backend reused across runs (a game's rounds, a collective's
                # members) would otherwise count earlier runs' spend here too.
                backend.meter = type(backend.meter)()
            results.append(
                _run_locked(
                    out,
                    manifest,
                    backend,
                    bank,
                    full,
                    rows_limit=limit,
                    adaptation=shown,
                    seed=seed,
                    batch_size=batch_size,
                    on_batch=on_batch,
                    max_cost=max_cost,
                    cache_dir=cache_dir,
                    pool_path=pool_path,
                    progress=progress,
                    retry_errors=retry_errors,
                    sample=sample,
                    loop=loop,
                )
            )
            if results[-1].stopped:  # --max-cost: the later passes are not started
                break
        return _combined(results)


def _combined(results: list[RunResult]) -> RunResult:
    """One result for the passes of a run (the last pass's table holds all)."""
    last = results[-1]
    if len(results) == 1:
        return last
    for earlier in results[:-1]:
        last.n_new += earlier.n_new
        last.n_failed += earlier.n_failed
        last.n_errors_kept += earlier.n_errors_kept
        last.paid_usd += earlier.paid_usd
        last.requests += earlier.requests
        last.cache_hits += earlier.cache_hits
        last.overhead_s += earlier.overhead_s
        last.stopped = last.stopped or earlier.stopped
        last.problems = [
            *earlier.problems,
            *(p for p in last.problems if p not in earlier.problems),
        ]
    return last


def _difference(name: str, was: Any, now: Any) -> str:
    """Which part of a manifest field differs, briefly: the first differing
    key of a nested setting (`generation.answer.temperature was 0.0, now 0.7`)."""
    if isinstance(was, Adaptation) and isinstance(now, Adaptation):
        was, now = was.model_dump(), now.model_dump()
    path = name
    while isinstance(was, dict) and isinstance(now, dict):
        key = next((k for k in sorted({*was, *now}, key=str) if was.get(k) != now.get(k)), None)
        if key is None:
            break
        path, was, now = f"{path}.{key}", was.get(key, _UNSET), now.get(key, _UNSET)
    return f"{path} was {_brief(was)}, now {_brief(now)}"


_UNSET = object()


def _brief(value: Any) -> str:
    if value is _UNSET:
        return "unset"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _remove_stale_temporaries(out: Path) -> None:
    """Temporary files `steer._atomic` left when a write was killed (we hold
    the lock, so no writer of this directory is alive)."""
    for name in (MANIFEST, RESPONSES):
        for stale in out.glob(f".{name}.*.tmp"):
            stale.unlink(missing_ok=True)


def _run_locked(
    out: Path,
    manifest: RunManifest,
    backend: Backend,
    bank: pa.Table,
    full: pa.Table,
    *,
    rows_limit: int | None,
    adaptation: Adaptation,
    seed: int,
    batch_size: int,
    on_batch: Callable[[int, int], None] | None,
    max_cost: float | None,
    cache_dir: str | Path | None,
    pool_path: Path | None,
    progress: bool,
    retry_errors: bool,
    sample: int = 0,
    loop: RunLoop | None = None,
) -> RunResult:
    _remove_stale_temporaries(out)
    manifest_path = out / MANIFEST
    if manifest_path.exists():
        previous = _load_manifest(manifest_path)
        for name in _IDENTITY:
            if getattr(previous, name) != getattr(manifest, name):
                what = _difference(name, getattr(previous, name), getattr(manifest, name))
                raise InputError(
                    f"{out}: holds a different run ({what}); use another --out directory"
                )
        manifest = manifest.model_copy(
            update={"created_at": previous.created_at, "spent_usd": previous.spent_usd}
        )
    _write_manifest(manifest_path, manifest)

    journal_path = out / JOURNAL
    done = read_journal(journal_path)
    trim_partial_line(journal_path, done.complete_bytes)
    # What this pass asked before (a run's passes differ in adaptation.order only).
    mine = done.table.filter(same_order(done.table, adaptation.order))
    ids = mine["question_id"]
    errored = pc.is_valid(mine["error"])
    answered: set[str] = {str(x) for x in ids.to_pylist()}
    n_errored = int(pc.sum(errored).as_py() or 0)
    if retry_errors and n_errored:
        answered -= {str(x) for x in ids.filter(errored).to_pylist()}
    rows = shuffle_rows(bank.to_pylist(), adaptation.order, seed)
    if sample:
        for q in rows:
            q[SAMPLE_KEY] = sample
    result = RunResult(out, manifest, RESPONSE_SCHEMA.empty_table(), 0, list(done.problems))
    if not retry_errors:
        asked = set(manifest.asked or ())
        result.n_errors_kept = len({str(x) for x in ids.filter(errored).to_pylist()} & asked)
    transcripts_path = out / TRANSCRIPTS
    trim_partial_tail(transcripts_path)

    if isinstance(backend, ChatBackend):
        pool = read_bank(pool_path).to_pylist() if pool_path is not None else None
        conversations = plan_conversations(
            rows,
            adaptation,
            seed=seed,
            answered=answered,
            everything=(
                shuffle_rows(full.to_pylist(), adaptation.order, seed)
                if rows_limit is not None
                else rows
            ),
            pool=pool,
        )
        cache = ResponseCache(Path(cache_dir or out) / CACHE_FILE)
        result.problems.extend(cache.problems)
        backend.cache = cache
        if max_cost is not None:
            backend.budget = CostBudget(max_cost, spent_usd=manifest.spent_usd)
        drive = _drive(
            backend, conversations, adaptation, manifest, out, result,
            total=bank.num_rows, answered=len(answered), batch_size=batch_size,
            on_batch=on_batch, progress=progress, keep_open=loop is not None,
        )  # fmt: skip
        try:
            if loop is None:
                asyncio.run(drive)
            else:
                loop.keep(backend)
                loop.run(drive)
        finally:
            cache.close()
            backend.cache = None
            backend.budget = None
        m = backend.meter
        result.paid_usd, result.requests = m.paid_usd, m.requests
        result.cache_hits, result.overhead_s = m.cache_hits, m.overhead_s
    else:
        todo = [q for q in rows if q["question_id"] not in answered]
        for start in range(0, len(todo), batch_size):
            batch = todo[start : start + batch_size]
            t0 = time.time()
            if adaptation.format == "free" and hasattr(backend, "answer_free"):
                # Reference agents write free-text replies, read like a model's.
                answers = backend.answer_free(batch)
            else:
                answers = backend.answer(batch)
            new = [
                _response(manifest, backend, adaptation, q, a)
                for q, a in zip(batch, answers, strict=True)
            ]
            append_transcripts(
                transcripts_path,
                [
                    _agent_transcript(manifest, backend, adaptation, q, a, t0)
                    for q, a in zip(batch, answers, strict=True)
                ],
            )
            append_rows(journal_path, new)
            result.n_new += len(new)
            if on_batch:
                on_batch(len(answered) + result.n_new, bank.num_rows)

    final = read_journal(journal_path)
    table = final.table.cast(RESPONSE_SCHEMA)
    with atomic_path(out / RESPONSES) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    result.responses = table
    result.problems.extend(p for p in final.problems if p not in result.problems)
    # Questions whose latest row is still an error (earlier invocations' too).
    result.n_errors_left = len(
        set(table.filter(pc.is_valid(table["error"]))["question_id"].to_pylist())
    )
    # result.manifest: the last one written (its spent_usd counts every batch).
    return result


def _write_manifest(path: Path, manifest: RunManifest) -> None:
    with atomic_text(path) as fh:
        fh.write(manifest.model_dump_json(indent=2) + "\n")


def _response(
    manifest: RunManifest, backend: Backend, adaptation: Adaptation, q: dict[str, Any], a: Any
) -> dict[str, Any]:
    """The journal row of question `q` answered `a` in this run."""
    return response_row(
        manifest.run_id, backend.spec, backend.family, adaptation, q, a,
        bank_sha256=manifest.bank_sha256, sample=sample_of(q),
    )  # fmt: skip


def _transcript(
    manifest: RunManifest,
    backend: Backend,
    adaptation: Adaptation,
    parts: list[dict[str, Any]],
    answers: list[Any],
    error: str | None,
    t0: float,
    **said: Any,
) -> dict[str, Any]:
    """One transcript line: who was asked which parts, what was said (`said`:
    the exchanges, or what an agent was given), and the answers."""
    return {
        "run_id": manifest.run_id,
        "model": backend.spec,
        "backend": backend.family,
        "adaptation": adaptation.model_dump(),
        "bank_sha256": manifest.bank_sha256,
        "base_id": parts[0].get("base_id") or "",
        "question_ids": [q["question_id"] for q in parts],
        **said,
        "answers": [_part_answer(q, a) for q, a in zip(parts, answers, strict=True)],
        "error": error,
        "started_at": round(t0, 6),
        "finished_at": round(time.time(), 6),
    }


def _agent_transcript(
    manifest: RunManifest,
    backend: Backend,
    adaptation: Adaptation,
    q: dict[str, Any],
    a: Any,
    t0: float,
) -> dict[str, Any]:
    # What the agent was given (under order=shuffle:K, the permuted options)
    # and the pass's adaptation.
    given = {k: q.get(k) for k in ("question_id", "question_text", "options")}
    return _transcript(manifest, backend, adaptation, [q], [a], a.error, t0, given=[given])


def _part_answer(q: Mapping[str, Any], a: Any) -> dict[str, Any]:
    return {
        "question_id": q["question_id"],
        "chosen_index": a.chosen_index,
        "option_probs": a.option_probs,
        "response_text": a.response_text,
        "explanation": a.explanation,
        "error": a.error,
    }


async def _drive(
    backend: ChatBackend,
    conversations: list[Conversation],
    adaptation: Adaptation,
    manifest: RunManifest,
    out: Path,
    result: RunResult,
    *,
    total: int,
    answered: int,
    batch_size: int,
    on_batch: Callable[[int, int], None] | None,
    progress: bool,
    keep_open: bool = False,
) -> None:
    """Answer conversations with `concurrency` workers; journal in fsynced
    batches (transcripts first, then responses, then the money spent).
    `keep_open`: leave the backend's client open (a `RunLoop` closes it)."""
    from steer.adapt import Answer

    journal_path, transcripts_path = out / JOURNAL, out / TRANSCRIPTS
    pending: list[dict[str, Any]] = []
    pending_transcripts: list[dict[str, Any]] = []
    meter = backend.meter
    spent_before = manifest.spent_usd
    bar = Progress(total, answered) if progress else None
    state = {"last_flush": time.monotonic(), "last_answer": time.monotonic(), "stop": False}
    timeout = getattr(getattr(backend, "settings", None), "timeout_s", None)
    limit = f" (timeout {timeout:g} s per request)" if timeout else ""
    fatal: list[BackendError] = []
    it = iter(conversations)
    cache = backend.cache
    budget_s = float(getattr(getattr(backend, "settings", None), "retry_budget_s", 0) or 0)

    def written(n: int) -> None:
        result.n_new += n
        if on_batch:
            on_batch(answered + result.n_new, total)

    writer = JournalWriter(journal_path, transcripts_path, cache, written)

    def flush() -> None:
        # Hands the batch to the writer (fsyncs happen off the event loop).
        if not pending and spent_before + meter.paid_usd == result.manifest.spent_usd:
            return
        batch = Batch(list(pending), list(pending_transcripts))
        pending.clear()
        pending_transcripts.clear()
        if spent_before + meter.paid_usd != result.manifest.spent_usd:
            # Spent so far (replies paid for by an unfinished conversation
            # too), for --max-cost across invocations and the stop message.
            result.manifest = manifest.model_copy(
                update={"spent_usd": spent_before + meter.paid_usd}
            )
            spent = result.manifest
            batch.manifest = lambda: _write_manifest(out / MANIFEST, spent)
        writer.submit(batch)
        state["last_flush"] = time.monotonic()

    def draw(final: bool = False) -> None:
        if bar is not None:
            cost = meter.paid_usd if getattr(backend, "price", None) is not None else None
            n = answered + result.n_new + writer.queued + len(pending)
            bar.update(n, meter.tokens_in, meter.tokens_out, cost, final=final)

    def waiting(text: str) -> None:
        if bar is not None and bar.note(text):
            draw()

    backend.on_wait = waiting

    async def worker() -> None:
        for conv in it:
            if state["stop"]:
                return
            exchanges: list[dict[str, Any]] = []
            EXCHANGES.set(exchanges)
            QUESTION_BUDGET.set(
                QuestionBudget(time.monotonic() + budget_s) if budget_s > 0 else None
            )
            REQUEST_SAMPLE.set(sample_of(conv.parts[0]))
            t0 = time.time()
            error: str | None = None
            try:
                answers = await backend.answer_group(conv.parts, adaptation, conv.examples)
            except BudgetExhaustedError:
                state["stop"] = True
                result.stopped = "max-cost"
                return
            except BackendError as exc:
                if exc.fatal:
                    state["stop"] = True
                    fatal.append(exc)
                    return
                # Recorded against the question (a no-answer when scored);
                # a re-run asks it again only with --retry-errors.
                error = str(exc)
                answers = [Answer(error=error) for _ in conv.parts]
                result.n_failed += len(conv.todo)
                if len(result.problems) < 20:
                    result.problems.append(f"{conv.parts[0]['base_id']}: {exc}")
            for q, a in zip(conv.parts, answers, strict=True):
                if q["question_id"] in conv.todo:
                    pending.append(_response(manifest, backend, adaptation, q, a))
            pending_transcripts.append(
                _transcript(
                    manifest, backend, adaptation, conv.parts, answers, error, t0,
                    exchanges=exchanges,
                )
            )  # fmt: skip
            state["last_answer"] = time.monotonic()
            if len(pending) >= batch_size or time.monotonic() - state["last_flush"] > 0.5:
                flush()
            draw()

    async def ticker() -> None:
        # Redraws while every worker waits (a silent server, a long Retry-After),
        # and says so when nothing has come back for a while.
        while True:
            await asyncio.sleep(0.2)
            quiet = time.monotonic() - state["last_answer"]
            if bar is not None and quiet >= _QUIET_S:
                waiting(f"waiting for replies: nothing back for {int(quiet)} s{limit}")
            draw()

    concurrency = _concurrency(backend, len(conversations))
    tick = asyncio.create_task(ticker()) if bar is not None else None
    try:
        await asyncio.gather(*(worker() for _ in range(concurrency)))
    finally:
        if tick is not None:
            tick.cancel()
        flush()
        await writer.close()
        draw(final=True)
        backend.on_wait = None
        if not keep_open:
            await backend.aclose()
    if fatal:
        raise InputError(f"{fatal[0]} (answers received so far are kept; fix and re-run)")


# After this long without an answer the progress line says it is waiting.
_QUIET_S = 2.0


def _concurrency(backend: ChatBackend, n: int) -> int:
    settings = getattr(backend, "settings", None)
    if getattr(settings, "batch_api", False):
        return max(1, n)  # every conversation waits in the same batch
    return max(1, min(n, int(getattr(settings, "concurrency", 1))))


def read_responses(path: str | Path) -> tuple[pa.Table, list[str]]:
    """Responses from a run directory (finished or in progress) or a table file."""
    from steer.bank import read_table
    from steer.bank._read import require_regular
    from steer.schema import RESPONSE_COLUMNS, conform

    path = Path(path)
    if path.is_dir():
        if (path / JOURNAL).exists():
            # The journal is the source of truth; it also covers runs in progress.
            read = read_journal(path / JOURNAL)
            return read.table, read.problems
        if (path / RESPONSES).exists():
            path = path / RESPONSES
        else:
            raise FileFormatError(
                f"not a run directory (no {JOURNAL} or {RESPONSES})", source=str(path)
            )
    if path.exists() and not path.is_file():
        require_regular(path)
    if path.suffix == ".jsonl":
        # A table file a user gave is strict (a bad line is exit 2); only a run
        # directory's own journal, read above, skips bad lines with a warning.
        read = read_journal(path, strict=True)
        return read.table, read.problems
    return conform(read_table(path), RESPONSE_COLUMNS, str(path)), []
