"""Collective answers: `steer run BANK --collective majority:N | debate:N,R`.

A collective of N members answers every question of a bank; each member is
an ordinary durable run (`members/mNN/`, `run_bank(sample=i, seed=seed + i)`:
the member index is the response's `sample`, so it joins the response key and
the response-cache key, and members never share a reply). The collective's
answer to each question part is the plurality of its members' answers
(no-answers and errors do not vote; a reply off the options votes for
"off the options"; ties are broken by a seeded draw per question), recorded
under its own adaptation (`collective=majority:N`) in `vote/`, a run
directory of its own with a manifest, so neither collides with the
one-response-per-key rule and both are scored like any run. The vote shares
become the collective's `option_probs` (calibration of the crowd).

`debate:N,R`: after the members' opening answers, R more rounds in which
each member answers every question again with the other members' previous
answers (their option, and their reason where the format gave one) after its
text; each member's round is a run of its own (`debate/rRR/mNN/`, its bank
written deterministically so a resumed debate finds it), and the collective
is the plurality of the last round. Only the opening answers are loaded as
the members (`collective_parts`): they are the independent ones.

`--personas default|FILE` (`steer.run._personas`): member i answers as the
file's i-th persona: its text opens every conversation of the member (before
the system prompt; reference agents ignore it), its id is in the member's
adaptation (`…;persona=actuary`, so `--by adaptation` tells members apart) and
the text's sha256 in the member's manifest (`generation.persona_sha256`), so
a member whose persona changed is not resumed. The vote's adaptation has no
persona; its manifest and `collective.json` name the persona file and its
sha256, and a collective is resumed only with the same file. Without
`--personas` every file reads as before.

`crowd_gain` compares the collective with its members on the answer-graded
parts: the collective's accuracy minus the members' mean accuracy, with a
paired percentile bootstrap over question parts.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

from steer._atomic import atomic_path, atomic_text
from steer.errors import InputError
from steer.run._personas import Persona, PersonaFile, load_personas
from steer.run._record import refuse_other_run, write_record
from steer.schema import NO_ANSWER, OFF_OPTIONS, RESPONSE_SCHEMA, Adaptation, RunManifest
from steer.schema.response import parse_collective

COLLECTIVE_FILE = "collective.json"
MEMBERS_DIR = "members"
VOTE_DIR = "vote"
DEBATE_DIR = "debate"
#: The longest reason of another member a debater is shown (characters).
MAX_REASON = 600
BOOTSTRAP = 2000


class CollectiveRecord(BaseModel):
    """What a collective run directory holds."""

    model_config = ConfigDict(extra="forbid")

    collective_version: int = 1
    collective: str
    members: int
    model: str
    seed: int
    # `--personas`: the persona file ("steer:default", or its resolved path)
    # and the sha256 of its bytes; absent from the file without personas.
    personas: str | None = None
    personas_sha256: str | None = None

    @model_serializer(mode="wrap")
    def _without_unset_personas(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        for name in ("personas", "personas_sha256"):
            if data.get(name) is None:
                data.pop(name, None)
        return data


@dataclass
class CollectiveResult:
    directory: Path
    record: CollectiveRecord
    members: list[Any]  # RunResult per member
    vote: pa.Table
    gain: dict[str, float | None]
    n_new: int
    problems: list[str]


def _member_table(results: list[Any]) -> pa.Table:
    return pa.concat_tables([r.responses for r in results]).combine_chunks()


def majority_vote(members: pa.Table, collective: str, *, seed: int = 0) -> pa.Table:
    """The plurality answer per question part of `members` (response rows of
    one model and adaptation, one sample per member), as response rows under
    the adaptation with `collective` set. Vectorised over rows."""
    if members.num_rows == 0:
        return RESPONSE_SCHEMA.empty_table()
    _, n_members, _ = parse_collective(collective)
    encoded = pc.dictionary_encode(members["question_id"]).combine_chunks()
    # Codes by sorted question id: tie-breaks depend on the bank, not row order.
    order = np.argsort(np.asarray(encoded.dictionary.to_pylist(), dtype=object), kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    codes = rank[np.asarray(encoded.indices)]
    n_q = int(order.size)
    chosen = pc.fill_null(members["chosen_index"], NO_ANSWER).to_numpy()
    n_opts = members["n_options"].to_numpy()
    errored = pc.is_valid(members["error"]).to_numpy(zero_copy_only=False)
    width = int(n_opts.max()) + 1  # the last column: "off the options"
    candidate = np.where(chosen == OFF_OPTIONS, width - 1, chosen)
    votes = (candidate >= 0) & (candidate < width) & ~errored
    counts = np.zeros((n_q, width))
    np.add.at(counts, (codes[votes], candidate[votes]), 1.0)
    jitter = np.random.default_rng([seed, 0xC011]).random((n_q, width)) * 0.5
    scored = np.where(counts > 0, counts + jitter, -1.0)
    winner = scored.argmax(axis=1)
    voted = counts.sum(axis=1)
    has_vote = voted > 0
    # A template row per question (its first row), and the first row that
    # chose the winner (its error type and number read carry over).
    first = np.full(n_q, members.num_rows, dtype=np.int64)
    np.minimum.at(first, codes, np.arange(members.num_rows))
    picked = np.full(n_q, members.num_rows, dtype=np.int64)
    wins = votes & (candidate == winner[codes])
    np.minimum.at(picked, codes[wins], np.nonzero(wins)[0])
    picked = np.where(has_vote, picked, first)
    template = members.take(pa.array(first))
    source = members.take(pa.array(picked))
    q_opts = n_opts[first]
    final = np.where(
        has_vote, np.where(winner == width - 1, OFF_OPTIONS, winner), NO_ANSWER
    ).astype(np.int32)
    # Vote shares over the question's own options: ragged lists.
    offsets = np.concatenate([[0], np.cumsum(q_opts)]).astype(np.int32)
    mask = np.arange(width - 1)[None, :] < q_opts[:, None]
    shares = (counts[:, : width - 1] / np.maximum(voted, 1)[:, None])[mask]
    probs = pa.ListArray.from_arrays(pa.array(offsets), pa.array(shares, pa.float64()))
    probs = pc.if_else(pa.array(has_vote), probs, pa.scalar(None, probs.type))
    adaptation = template["adaptation"].combine_chunks()
    fields = {f.name: adaptation.field(f.name) for f in adaptation.type}
    fields["collective"] = pa.array([collective] * n_q, pa.string())
    fields["persona"] = pa.nulls(n_q, pa.string())  # the crowd is nobody in particular
    names = [f.name for f in RESPONSE_SCHEMA.field("adaptation").type]
    new_adaptation = pa.StructArray.from_arrays(
        [fields.get(n, pa.nulls(n_q, pa.string())) for n in names], names=names
    ).cast(RESPONSE_SCHEMA.field("adaptation").type)
    tokens = {}
    for name in ("tokens_in", "tokens_out", "cost_usd"):
        values = pc.fill_null(members[name].cast(pa.float64()), 0.0).to_numpy()
        total = np.bincount(codes, weights=values, minlength=n_q)
        tokens[name] = total
    top = pa.array(counts.max(axis=1).astype(np.int64)).cast(pa.string())
    text = pc.binary_join_element_wise(top, pa.scalar(f" of {n_members} members"), "")
    columns = {name: template[name] for name in RESPONSE_SCHEMA.names}
    columns.update(
        {
            "adaptation": new_adaptation,
            "chosen_index": pa.array(final, pa.int32()),
            "option_probs": probs,
            "response_text": text,
            "explanation": pa.nulls(n_q, pa.string()),
            "tokens_in": pa.array(tokens["tokens_in"].astype(np.int64)),
            "tokens_out": pa.array(tokens["tokens_out"].astype(np.int64)),
            "cost_usd": pa.array(tokens["cost_usd"], pa.float64()),
            "latency_s": pa.nulls(n_q, pa.float64()),
            "error": pa.nulls(n_q, pa.string()),
            "sample": pa.array(np.zeros(n_q, np.int32)),
            "answer_read": pc.if_else(
                pa.array(has_vote), source["answer_read"], pa.scalar(None, pa.float64())
            ),
            "error_type": pc.if_else(
                pa.array(has_vote), source["error_type"], pa.scalar(None, pa.string())
            ),
        }
    )
    arrays = [
        pa.array(columns[f.name]).cast(f.type)
        if not isinstance(columns[f.name], pa.ChunkedArray)
        else columns[f.name].cast(f.type)
        for f in RESPONSE_SCHEMA
    ]
    return pa.Table.from_arrays(arrays, schema=RESPONSE_SCHEMA)


def crowd_gain(members: pa.Table, vote: pa.Table, *, seed: int = 0) -> dict[str, float | None]:
    """Accuracy of the collective, of its members (mean), and the gain with a
    95% paired bootstrap interval over answer-graded question parts."""
    keyed = pc.is_valid(vote["correct_index"])
    vote = vote.filter(keyed)
    if vote.num_rows == 0:
        return {"collective": None, "members": None, "gain": None, "lo": None, "hi": None, "n": 0}
    ids = vote["question_id"]
    right_vote = pc.equal(vote["chosen_index"], vote["correct_index"])
    right_vote = pc.fill_null(right_vote, False).to_numpy(zero_copy_only=False).astype(float)
    m = members.filter(pc.is_in(members["question_id"], ids))
    code = pc.index_in(m["question_id"], ids).to_numpy()
    answered = pc.is_null(m["error"])
    right = pc.fill_null(
        pc.and_(answered, pc.equal(m["chosen_index"], m["correct_index"])), False
    ).to_numpy(zero_copy_only=False)
    per_q = np.bincount(code, weights=right.astype(float), minlength=vote.num_rows)
    n_per = np.bincount(code, minlength=vote.num_rows)
    member_acc = np.where(n_per > 0, per_q / np.maximum(n_per, 1), 0.0)
    diff = right_vote - member_acc
    rng = np.random.default_rng([seed, 0x6A1])
    n = diff.size
    lo = hi = math.nan
    if n > 1:
        means = np.empty(BOOTSTRAP)
        for b in range(0, BOOTSTRAP, 100):  # bounded memory for large banks
            idx = rng.integers(0, n, size=(min(100, BOOTSTRAP - b), n))
            means[b : b + idx.shape[0]] = diff[idx].mean(axis=1)
        lo, hi = (float(x) for x in np.quantile(means, [0.025, 0.975]))
    return {
        "collective": float(right_vote.mean()),
        "members": float(member_acc.mean()),
        "gain": float(diff.mean()),
        "lo": None if math.isnan(lo) else lo,
        "hi": None if math.isnan(hi) else hi,
        "n": n,
    }


def run_collective(
    bank_path: str | Path,
    model: str,
    out_dir: str | Path,
    collective: str,
    *,
    adaptation: Adaptation | None = None,
    seed: int = 0,
    limit: int | None = None,
    backend_options: dict[str, Any] | None = None,
    cache_dir: str | Path | None = None,
    progress: bool = False,
    retry_errors: bool = False,
    personas: str | Path | None = None,
) -> CollectiveResult:
    """Answer a bank with a collective of members, durably; re-running resumes.

    `personas`: a shipped persona file's name (`default`) or a path; member i
    answers as its i-th persona (see the module's docstring)."""
    from steer.backends import resolve_backend
    from steer.run._runner import MANIFEST, PERSONA_SHA256, RESPONSES, run_bank

    try:
        _, n, rounds = parse_collective(collective)
    except ValueError as exc:
        raise InputError(f"--collective: {exc}") from None
    adaptation = adaptation or Adaptation()
    if adaptation.collective is not None:
        raise InputError("give the collective with --collective, not in --adapt")
    if adaptation.persona is not None:
        raise InputError("give the members' personas with --personas, not in --adapt")
    if adaptation.order is not None:
        raise InputError("--collective with --adapt order=… is not supported (one order each)")
    roster: PersonaFile | None = None
    cast: list[Persona | None] = [None] * n
    if personas is not None:
        roster = load_personas(personas)
        cast = list(roster.for_members(n, collective))
    out = Path(out_dir)
    record = CollectiveRecord(
        collective=collective, members=n, model=model, seed=seed,
        personas=roster.source if roster else None,
        personas_sha256=roster.sha256 if roster else None,
    )  # fmt: skip
    path = out / COLLECTIVE_FILE
    refuse_other_run(path, record, ("collective", "model", "seed", "personas_sha256"), "collective")
    # Member i's adaptation: the run's, as its persona (if any).
    adapted = [adaptation if p is None else adaptation.with_persona(p.id, p.text) for p in cast]
    # Local models load once; scripted agents are seeded per member.
    shared = None
    if not model.startswith("agent:"):
        shared = resolve_backend(model, seed=seed, options=backend_options)
    out.mkdir(parents=True, exist_ok=True)
    write_record(path, record)
    results = []
    for i in range(n):
        backend = shared or resolve_backend(model, seed=seed + i, options=backend_options)
        member = run_bank(
            bank_path, backend, out / MEMBERS_DIR / f"m{i + 1:02d}", adaptation=adapted[i],
            seed=seed + i, limit=limit, cache_dir=cache_dir or out, progress=progress,
            retry_errors=retry_errors, sample=i,
        )  # fmt: skip
        results.append(member)
    members = _member_table(results)
    final, debate_new = members, 0
    for r in range(1, rounds + 1):
        # Each member sees the others' answers (and reasons) of the round before.
        previous, now = final, []
        for i in range(n):
            backend = shared or resolve_backend(model, seed=seed + i, options=backend_options)
            run_dir = out / DEBATE_DIR / f"r{r:02d}" / f"m{i + 1:02d}"
            bank = _debate_bank(bank_path, previous, i, run_dir, limit)
            done = run_bank(
                bank, backend, run_dir, adaptation=adapted[i], seed=seed + i,
                cache_dir=cache_dir or out, progress=progress, retry_errors=retry_errors,
                sample=i,
            )  # fmt: skip
            debate_new += done.n_new
            now.append(done)
        final = _member_table(now)
    vote = majority_vote(final, collective, seed=seed)
    vote_dir = out / VOTE_DIR
    vote_dir.mkdir(exist_ok=True)
    first = results[0].manifest
    run_id = f"{out.name}:{collective}"
    generation = {k: v for k, v in first.generation.items() if k != PERSONA_SHA256}
    generation.update({"collective": collective, "members": n})
    if roster is not None:
        generation.update({"personas": roster.source, "personas_sha256": roster.sha256})
    vote = vote.set_column(
        vote.schema.get_field_index("run_id"), "run_id", pa.array([run_id] * vote.num_rows)
    )
    manifest = RunManifest.model_validate(
        {
            **first.model_dump(),
            "run_id": run_id,
            "created_at": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "adaptation": adaptation.model_copy(update={"collective": collective}).model_dump(),
            "generation": generation,
            "spent_usd": sum(r.manifest.spent_usd for r in results),
        }
    )
    with atomic_path(vote_dir / RESPONSES) as tmp:
        pq.write_table(vote, tmp, compression="zstd")
    with atomic_text(vote_dir / MANIFEST) as fh:
        fh.write(manifest.model_dump_json(indent=2) + "\n")
    problems = [p for r in results for p in r.problems]
    return CollectiveResult(
        out,
        record,
        results,
        vote,
        crowd_gain(members, vote, seed=seed),
        sum(r.n_new for r in results) + debate_new,
        list(dict.fromkeys(problems)),
    )


def collective_parts(directory: Path) -> list[Path]:
    """A collective run directory as its members' run directories and the vote's."""
    members = sorted(p for p in (directory / MEMBERS_DIR).glob("m*") if p.is_dir())
    vote = directory / VOTE_DIR
    return [*members, *([vote] if vote.is_dir() else [])]


def _debate_bank(
    bank_path: str | Path, previous: pa.Table, member: int, run_dir: Path, limit: int | None
) -> Path:
    """The bank member `member` answers in a debate round: every question part
    with the other members' previous answers (their option, and their reason
    where the format gave one) after its text. Written deterministically, so a
    resumed debate finds the same bank."""
    from steer.adapt._letters import letters
    from steer.bank import read_bank, validate_questions

    bank = read_bank(bank_path)
    if limit is not None:
        bank = bank.slice(0, limit)
    said: dict[str, list[str]] = {}
    for row in previous.select(["question_id", "sample", "chosen_index", "n_options",
                                "explanation", "error"]).to_pylist():  # fmt: skip
        if row["sample"] == member:
            continue
        who = f"Agent {row['sample'] + 1}"
        chosen, k = row["chosen_index"], row["n_options"]
        if row["error"] is not None or chosen is None or chosen == NO_ANSWER:
            line = f"{who} gave no answer."
        elif chosen == OFF_OPTIONS or not 0 <= chosen < k:
            line = f"{who} gave an answer that is none of the options."
        else:
            line = f"{who} chose {letters(k)[chosen]}."
        reason = (row["explanation"] or "").strip()
        if reason:
            short = reason if len(reason) <= MAX_REASON else reason[: MAX_REASON - 1] + "…"
            line += f" Their reasoning: {short}"
        said.setdefault(row["question_id"], []).append(line)
    rows = bank.to_pylist()
    for q in rows:
        lines = said.get(q["question_id"])
        if lines:
            q["question_text"] = (
                f"{q['question_text']}\n\nOther agents answered this question in the "
                "previous round:\n" + "\n".join(f"- {x}" for x in lines) + "\n\nConsider "
                "their answers, then give your own."
            )
    run_dir.mkdir(parents=True, exist_ok=True)
    path = run_dir / "questions.parquet"
    table = validate_questions(pa.Table.from_pylist(rows, schema=bank.schema), str(path))
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp, compression="zstd")
    return path


def crowd_gain_of(
    directory: str | Path,
) -> tuple[CollectiveRecord, pa.Table, dict[str, float | None]]:
    """A collective run directory read back: its record, its vote's responses
    and its `crowd_gain` exactly as `run_collective` reported it (the members'
    opening answers in `members/` against the vote in `vote/`, the record's
    seed). For `steer score` and the rubric checks of `steer grade`."""
    from steer.run._record import read_record
    from steer.run._runner import read_responses

    out = Path(directory)
    record = read_record(
        out / COLLECTIVE_FILE, CollectiveRecord, "collective", "steer run BANK --collective"
    )
    members = [p for p in collective_parts(out) if p.name != VOTE_DIR]
    if not members or not (out / VOTE_DIR).is_dir():
        raise InputError(f"{out}: a collective run without its members' answers and vote yet")
    tables = [read_responses(p)[0] for p in members]
    table = pa.concat_tables(tables, promote_options="permissive").combine_chunks()
    vote = read_responses(out / VOTE_DIR)[0]
    return record, vote, crowd_gain(table, vote, seed=record.seed)
