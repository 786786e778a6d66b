"""Ask an OpenAI-compatible server for questions, keep only the ones that pass."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from steer.backends._openai import _KEYLIKE, OpenAIOptions, _read_key
from steer.bank import validate_questions
from steer.errors import InputError
from steer.generate._generate import MAX_DRAWS, generate_questions
from steer.generate._options import FALLBACK_CHOICE, KEY_TAG
from steer.generate._registry import SOLVERS, STRUCTURES, Resample
from steer.generate.llm._options import LLMOptions
from steer.generate.llm._parse import LLMQuestion, parse_reply
from steer.generate.llm._prompt import build_messages, prompt_hash
from steer.generate.llm._reject import Rejected
from steer.generate.llm._select import select_templates
from steer.generate.llm._verify import verify_payload
from steer.schema import QUESTION_SCHEMA
from steer.taxonomy import Element, load_taxonomy
from steer.templates import Template
from steer.templates._vars import Unmet


@dataclass
class LLMSummary:
    """What was asked, kept and turned down (by reason)."""

    spec: str
    requested: int = 0
    accepted: int = 0
    verified: int = 0
    failed: int = 0
    requests: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    details: dict[str, str] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)

    def reject(self, exc: Rejected) -> None:
        self.rejected[exc.reason] += 1
        self.details.setdefault(exc.reason, exc.detail)

    def lines(self) -> list[str]:
        out = [
            f"{self.spec}: {self.accepted} of {self.requested} questions accepted "
            f"({self.verified} verified by a solver) in {self.requests} requests; "
            f"{sum(self.rejected.values())} replies rejected"
        ]
        for reason, n in sorted(self.rejected.items(), key=lambda kv: (-kv[1], kv[0])):
            detail = self.details.get(reason, "")
            out.append(f"  rejected {n} × {reason}" + (f" (e.g. {detail})" if detail else ""))
        if self.failed:
            out.append(f"  {self.failed} question(s) had no acceptable reply")
        if self.skipped:
            out.append(f"  skipped (consistency-graded): {', '.join(self.skipped)}")
        return out


@dataclass
class _Cell:
    template: Template
    element: Element
    grade: int
    gold: dict[str, Any]
    n_choices: int | None = None  # how many natural choices the structure has at this grade


def _n_choices(template: Template, grade: int, seed: int) -> int | None:
    """The structure's number of natural choices at `grade` (fixed by the grade)."""
    t = template.spec
    rng = np.random.default_rng([seed & 0xFFFFFFFF, grade])
    for _ in range(MAX_DRAWS):
        try:
            choices = STRUCTURES[t.structure].sample(rng, t.grade[grade], t).choices
        except (Resample, Unmet):
            continue
        return None if choices is None else len(choices)
    return None


def _host(url: str | None) -> str:
    if url is None:
        return "api.openai.com"
    parts = urllib.parse.urlsplit(url)
    return f"{parts.hostname}:{parts.port}" if parts.port else str(parts.hostname)


def _model_of(spec: str) -> str:
    family, sep, model = spec.partition(":")
    if family != "openai" or not sep or not model:
        raise InputError(f"--llm takes openai:MODEL (an OpenAI-compatible server), got {spec!r}")
    return model


class _Generator:
    def __init__(self, spec: str, opts: LLMOptions, seed: int, summary: LLMSummary) -> None:
        import openai

        self.spec, self.model, self.opts, self.seed = spec, _model_of(spec), opts, seed
        self.summary = summary
        self._oa = openai
        key = _read_key(OpenAIOptions(base_url=opts.base_url, api_key_env=opts.api_key_env))
        self._key = key
        self.client = openai.AsyncOpenAI(
            api_key=key,
            base_url=opts.base_url,
            max_retries=opts.max_retries,
            timeout=opts.timeout_s,
        )
        self.limit = asyncio.Semaphore(opts.concurrency)
        self.seen: set[str] = set()

    def _short(self, exc: BaseException) -> str:
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        if len(self._key) >= 8:
            text = text.replace(self._key, "***")
        return _KEYLIKE.sub(r"\1***", text)[:200]

    async def _ask(self, messages: list[dict[str, str]]) -> tuple[str, str]:
        params: dict[str, Any] = {
            "temperature": self.opts.temperature,
            "max_tokens": self.opts.max_tokens,
        }
        if self.opts.json_mode:
            params["response_format"] = {"type": "json_object"}
        oa = self._oa
        async with self.limit:
            self.summary.requests += 1
            try:
                response = await self.client.chat.completions.create(
                    model=self.model, messages=messages, **params
                )
                return response.choices[0].message.content or "", str(response.id)
            except (oa.AuthenticationError, oa.PermissionDeniedError, oa.NotFoundError) as exc:
                status = exc.status_code
                raise InputError(f"{self.spec}: HTTP {status}: {self._short(exc)}") from None
            except oa.APIStatusError as exc:
                status = exc.status_code
                raise Rejected("request_failed", f"HTTP {status}: {self._short(exc)}") from None
            except (oa.APIError, ValueError, LookupError, TypeError, AttributeError) as exc:
                raise Rejected("request_failed", self._short(exc)) from None

    def _check(self, q: LLMQuestion, cell: _Cell) -> tuple[str | None, float | None]:
        text = " ".join(q.question_text.split()).casefold()
        if text == " ".join(cell.gold["question_text"].split()).casefold():
            raise Rejected("copied_example", "the question repeats the example")
        if text in self.seen:
            raise Rejected("duplicate_question", "the same text was accepted before")
        if q.payload is None:
            if self.opts.require_payload:
                raise Rejected("no_payload", "a structured payload is required")
            return None, None
        gold_payload = json.loads(cell.gold["payload"])
        return verify_payload(q, cell.template, cell.grade, gold_payload, cell.n_choices)

    async def question(self, cell: _Cell, index: int) -> dict[str, Any] | None:
        t = cell.template.spec
        base = build_messages(cell.template, cell.element, cell.grade, cell.gold, index)
        messages = base
        n_options = len(cell.gold["options"])
        for attempt in range(1, self.opts.attempts + 1):
            reply = ""
            try:
                reply, response_id = await self._ask(messages)
                q = parse_reply(reply, n_options)
                payload, value = self._check(q, cell)
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
            self.seen.add(" ".join(q.question_text.split()).casefold())
            verified = payload is not None
            self.summary.accepted += 1
            self.summary.verified += verified
            provenance = {
                "model": self.model,
                "backend": "openai",
                "base_url_host": _host(self.opts.base_url),
                "prompt_sha256": prompt_hash(messages),
                "response_id": response_id,
                "attempts": attempt,
                "verified": verified,
                "temperature": self.opts.temperature,
                "example": cell.gold["question_id"],
            }
            base_id = f"{t.id}.g{cell.grade}.llm{index}"
            return {
                "question_id": f"{cell.template.element}/{base_id}/0",
                "element": cell.template.element,
                "base_id": base_id,
                "part": 0,
                "question_text": q.question_text,
                "options": q.options,
                "correct_index": q.correct_index,
                "grading": "answer",
                "type": t.type,
                "domain": t.domain,
                "perspective": "",
                "grade": cell.grade,
                "template_id": t.id,
                "seed": self.seed,
                "source": f"llm:{self.spec}",
                "explanation": q.explanation.strip(),
                "option_tags": [
                    KEY_TAG if i == q.correct_index else FALLBACK_CHOICE
                    for i in range(len(q.options))
                ],
                "answer_value": value,
                "tags": [
                    "llm",
                    "verified" if verified else "unverified",
                    "provenance:" + json.dumps(provenance, sort_keys=True, separators=(",", ":")),
                ],
                "payload": payload,
            }
        self.summary.failed += 1
        return None


def _cells(chosen: list[tuple[Template, list[int]]], seed: int, summary: LLMSummary) -> list[_Cell]:
    taxonomy = load_taxonomy()
    cells = []
    for template, grades in chosen:
        if SOLVERS[template.spec.solver].answer == "consistency":
            summary.skipped.append(template.spec.id)
            continue
        for grade in grades:
            gold = generate_questions([template], per_cell=1, seed=seed, grades=(grade, grade))
            cells.append(
                _Cell(
                    template,
                    taxonomy.element(template.element),
                    grade,
                    gold.to_pylist()[0],
                    _n_choices(template, grade, seed),
                )
            )
    return cells


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
    _model_of(spec)
    summary = LLMSummary(spec)
    chosen = select_templates(
        elements, suite=suite, templates=templates, grades=grades, domains=domains
    )
    cells = _cells(chosen, seed, summary)
    if not cells:
        raise InputError("no template with a single correct answer matches the selection")
    summary.requested = len(cells) * per_cell

    async def run() -> list[dict[str, Any] | None]:
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
            await gen.client.close()

    rows = [r for r in asyncio.run(run()) if r is not None]
    table = pa.Table.from_pylist(rows, schema=QUESTION_SCHEMA)
    return validate_questions(table, "<generated>"), summary
