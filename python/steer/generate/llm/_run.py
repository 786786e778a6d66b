"""Ask an OpenAI-compatible server for questions, keep only the ones that pass."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from steer.bank import validate_questions
from steer.errors import InputError
from steer.generate.llm._cell import Cell, make_cell
from steer.generate.llm._client import LLMClient, host_of, model_of
from steer.generate.llm._options import LLMOptions
from steer.generate.llm._parse import parse_reply
from steer.generate.llm._parse_parts import parse_parts
from steer.generate.llm._prompt import build_messages, prompt_hash
from steer.generate.llm._reject import Rejected, Rejections
from steer.generate.llm._rows import answer_rows, consistency_rows
from steer.generate.llm._select import select_templates
from steer.generate.llm._verify import verify_payload
from steer.generate.llm._verify_parts import verify_multipart
from steer.schema import QUESTION_SCHEMA
from steer.taxonomy import load_taxonomy
from steer.templates import Template


@dataclass
class LLMSummary(Rejections):
    """What was asked, kept and turned down (by reason)."""

    spec: str
    requested: int = 0
    accepted: int = 0
    verified: int = 0
    failed: int = 0
    requests: int = 0

    def lines(self) -> list[str]:
        out = [
            f"{self.spec}: {self.accepted} of {self.requested} questions accepted "
            f"({self.verified} verified by a solver) in {self.requests} requests; "
            f"{sum(self.rejected.values())} replies rejected"
        ]
        out += self.rejection_lines()
        if self.failed:
            out.append(f"  {self.failed} question(s) had no acceptable reply")
        return out


class _Generator:
    def __init__(self, spec: str, opts: LLMOptions, seed: int, summary: LLMSummary) -> None:
        self.llm = LLMClient(spec, opts, summary)
        self.spec, self.model, self.opts, self.seed = spec, self.llm.model, opts, seed
        self.summary = summary
        self.seen: set[str] = set()

    def _fresh(self, cell: Cell, texts: list[str]) -> str:
        """The question's fingerprint, unless it copies the example or repeats
        an accepted question."""
        gold = [r["question_text"] for r in cell.rows]
        if cell.multipart:
            intro, _, first = gold[0].partition("\n\n")
            gold = [intro, first, *gold[1:]]
        norm = "\x1f".join(" ".join(t.split()).casefold() for t in texts)
        if norm == "\x1f".join(" ".join(t.split()).casefold() for t in gold):
            raise Rejected("copied_example", "the question repeats the example")
        if norm in self.seen:
            raise Rejected("duplicate_question", "the same text was accepted before")
        return norm

    def _no_payload(self) -> None:
        if self.opts.require_payload:
            raise Rejected("no_payload", "a structured payload is required")

    def _accept(
        self, reply: str, cell: Cell, base_id: str, **kw: Any
    ) -> tuple[str, list[dict[str, Any]]]:
        """The reply's fingerprint and rows, or `Rejected`."""
        t = cell.template.spec
        if cell.multipart:
            n_options = [len(r["options"]) for r in cell.rows]
            mq = parse_parts(reply, n_options, t.consistency_rule or "")
            fingerprint = self._fresh(
                cell, [mq.question_text, *(p.question_text for p in mq.parts)]
            )
            if mq.payload is None:
                self._no_payload()
            payload = verify_multipart(
                mq, cell.template, cell.grade, cell.gold_payload, cell.stated
            )
            kw["provenance"]["verified"] = payload is not None
            return fingerprint, consistency_rows(
                mq, cell.template, cell.grade, base_id, payload=payload, **kw
            )
        q = parse_reply(reply, len(cell.gold["options"]))
        fingerprint = self._fresh(cell, [q.question_text])
        payload, value = None, None
        if q.payload is None:
            self._no_payload()
        else:
            gold_payload = cell.gold_payload or {}
            payload, value = verify_payload(
                q, cell.template, cell.grade, gold_payload, cell.n_choices, cell.stated
            )
        kw["provenance"]["verified"] = payload is not None
        return fingerprint, answer_rows(
            q, cell.template, cell.grade, base_id, value, payload=payload, **kw
        )

    async def question(self, cell: Cell, index: int) -> list[dict[str, Any]]:
        """The rows of one accepted question (one per part), or none."""
        t = cell.template.spec
        base = build_messages(cell.template, cell.element, cell.grade, cell.rows, index)
        base_id = f"{t.id}.g{cell.grade}.llm{index}"
        messages = base
        for attempt in range(1, self.opts.attempts + 1):
            reply = ""
            try:
                reply, response_id = await self.llm.ask(messages)
                provenance: dict[str, Any] = {
                    "model": self.model,
                    "backend": "openai",
                    "base_url_host": host_of(self.opts.base_url),
                    "prompt_sha256": prompt_hash(messages),
                    "response_id": response_id,
                    "attempts": attempt,
                    "temperature": self.opts.temperature,
                    "example": cell.gold["question_id"],
                }
                fingerprint, rows = self._accept(
                    reply,
                    cell,
                    base_id,
                    seed=self.seed,
                    spec=self.spec,
                    provenance=provenance,
                )
            except Rejected as exc:
                self.summary.reject(exc)
                if exc.reason != "request_failed":
                    messages = [
                        *base,
                        {"role": "assistant", "content": reply[:4000]},
                        {
                            "role": "user",
                            "content": f"That reply was rejected ({exc}). Write a corrected "
                            "question; reply with the JSON object only.",
                        },
                    ]
                continue
            self.seen.add(fingerprint)
            self.summary.accepted += 1
            self.summary.verified += bool(provenance["verified"])
            return rows
        self.summary.failed += 1
        return []


def _cells(chosen: list[tuple[Template, list[int]]], seed: int) -> list[Cell]:
    taxonomy = load_taxonomy()
    return [
        make_cell(template, taxonomy.element(template.element), grade, seed)
        for template, grades in chosen
        for grade in grades
    ]


def generate_llm_bank(
    spec: str,
    elements: Sequence[str] | None = None,
    *,
    suite: str | None = None,
    templates: Sequence[Template] | None = None,
    per_cell: int = 1,
    seed: int = 0,
    grades: tuple[int, int] | None = None,
    domains: Sequence[str] | None = None,
    options: LLMOptions | dict[str, Any] | None = None,
) -> tuple[pa.Table, LLMSummary]:
    """Ask `spec` (openai:MODEL) for `per_cell` questions per template × grade.

    Each prompt carries the template's skill, domain, grade and one gold
    example made by the ordinary generator; replies are parsed, checked by the
    template's solver when they carry a payload, retried up to
    `options.attempts` times, and recorded with their provenance.
    """
    if per_cell < 1:
        raise InputError(f"per_cell must be at least 1, got {per_cell}")
    opts = options if isinstance(options, LLMOptions) else LLMOptions(**(options or {}))
    model_of(spec)
    summary = LLMSummary(spec)
    chosen = select_templates(
        elements, suite=suite, templates=templates, grades=grades, domains=domains
    )
    cells = _cells(chosen, seed)
    summary.requested = len(cells) * per_cell

    async def run() -> list[list[dict[str, Any]]]:
        gen = _Generator(spec, opts, seed, summary)
        tasks = [
            asyncio.ensure_future(gen.question(cell, i)) for cell in cells for i in range(per_cell)
        ]
        try:
            return await asyncio.gather(*tasks)
        except BaseException:
            # A fatal reply (bad key, unknown model): stop the other requests.
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            await gen.llm.close()

    rows = [row for question in asyncio.run(run()) for row in question]
    table = pa.Table.from_pylist(rows, schema=QUESTION_SCHEMA)
    return validate_questions(table, "<generated>"), summary
