"""Style transfer of a bank (auto-STEER): a model rewrites each question's
wording while every number, option and key stays as it was.

Only the question text changes. The options, the key, the payload (the
structured problem its solver proved) and the distractor tags are carried
over byte for byte, and a rewrite is accepted only if mechanical checks pass:

- the same numbers appear, as many times each (read the way a question writes
  them: "$1,250", "12.5%", "3/4"), so the problem the solver proved is still
  the one stated;
- it is a rewrite (not the original again) of a sane length;
- it does not give the answer away: no option's wording that the original
  did not contain appears in it.

A rejected rewrite is retried with the reason, a bounded number of times; a
question whose every reply is rejected keeps its original wording and is
counted. Multi-part (consistency) questions are kept as they are: their parts
share numbers across texts.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.generate.llm._client import LLMClient, host_of, model_of
from steer.generate.llm._numbers import _NUMBER
from steer.generate.llm._options import LLMOptions
from steer.generate.llm._parse import load_object
from steer.generate.llm._reject import Rejected, Rejections

DEFAULT_STYLE = "plain, natural English, as a different author would write it"
MAX_GROWTH = 3.0  # a rewrite at most this many times the original's length
REPHRASED_TAG = "rephrased"

_SYSTEM = (
    "You rewrite exam questions about economics and decision making in a new style. "
    "Keep the problem exactly: every number with its unit, every person, good and "
    "condition, and what is asked. Change the wording and sentence structure only. "
    "Do not solve it, do not hint at the answer, and do not list answer choices. "
    'Reply with a JSON object {"question_text": "..."} and nothing else.'
)


def written_numbers(text: str) -> list[float]:
    """The numbers `text` writes, each once, in order ("45%" is 45, "$1,250"
    is 1250, "3/4" is 3 and 4): what a rewrite must keep."""
    out: list[float] = []
    for m in _NUMBER.finditer(text):
        whole, frac = m.group("int"), m.group("frac")
        if not whole and not frac:
            continue
        value = float((whole or "0").replace(",", "") + (frac or ""))
        out.append(-value if m.group("sign") else value)
        if m.group("den"):
            out.append(float(m.group("den")))
    return out


def check_rewrite(original: str, rewrite: str, options: list[str]) -> None:
    """Raise `Rejected` unless `rewrite` is an acceptable rewording of `original`."""
    text = rewrite.strip()
    if not text:
        raise Rejected("empty", "the rewrite is empty")
    if " ".join(text.split()).casefold() == " ".join(original.split()).casefold():
        raise Rejected("unchanged", "the rewrite is the original")
    if len(text) > MAX_GROWTH * len(original) + 200:
        raise Rejected("too_long", f"{len(text)} characters for {len(original)}")
    want, got = Counter(written_numbers(original)), Counter(written_numbers(text))
    if want != got:
        lost = sorted((want - got).elements())
        added = sorted((got - want).elements())
        parts = [f"lost {', '.join(f'{x:g}' for x in lost)}" if lost else "",
                 f"added {', '.join(f'{x:g}' for x in added)}" if added else ""]  # fmt: skip
        raise Rejected("changed_numbers", "; ".join(p for p in parts if p))
    folded, before = text.casefold(), original.casefold()
    for option in options:
        words = option.strip().casefold()
        # Numbers are checked above; an option's wording is a give-away.
        leaked = words in folded and words not in before
        if leaked and len(words) >= 4 and not written_numbers(words):
            raise Rejected("leaks_option", f"the rewrite contains the option {option!r}")


def _messages(text: str, style: str) -> list[dict[str, str]]:
    ask = json.dumps({"style": style, "question": text}, ensure_ascii=False)
    return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": ask}]


@dataclass
class RephraseSummary(Rejections):
    spec: str
    questions: int = 0
    rephrased: int = 0
    kept: int = 0  # every reply rejected: original wording kept
    skipped: int = 0  # multi-part questions
    requests: int = 0

    def lines(self) -> list[str]:
        out = [
            f"{self.spec}: {self.rephrased} of {self.questions} questions rephrased in "
            f"{self.requests} requests; {self.kept} kept their wording after every reply "
            f"was rejected; {self.skipped} multi-part rows left as they were"
        ]
        return out + self.rejection_lines()


class _Rephraser:
    def __init__(self, spec: str, opts: LLMOptions, style: str, summary: RephraseSummary) -> None:
        self.llm = LLMClient(spec, opts, summary)
        self.opts, self.style, self.summary = opts, style, summary

    async def rewrite(self, text: str, options: list[str]) -> str | None:
        base = _messages(text, self.style)
        messages = base
        for _ in range(self.opts.attempts):
            reply = ""
            try:
                reply, _ = await self.llm.ask(messages)
                doc = load_object(reply)
                new = doc.get("question_text")
                if not isinstance(new, str):
                    raise Rejected("missing_field", "no question_text string")
                check_rewrite(text, new, options)
                return new.strip()
            except Rejected as exc:
                self.summary.reject(exc)
                if exc.reason != "request_failed":
                    messages = [
                        *base,
                        {"role": "assistant", "content": reply[:4000]},
                        {
                            "role": "user",
                            "content": f"That rewrite was rejected ({exc}). Rewrite the "
                            "question again; reply with the JSON object only.",
                        },
                    ]
        return None


def rephrase_bank(
    bank: pa.Table,
    spec: str,
    *,
    style: str = DEFAULT_STYLE,
    options: LLMOptions | dict[str, Any] | None = None,
) -> tuple[pa.Table, RephraseSummary]:
    """`bank` with its single-part questions reworded by `spec` (openai:MODEL).

    Rows keep their ids, options, keys, payloads and tags; a rephrased row
    gains the tag `rephrased` and one recording the model and a hash of the
    original wording (`rephrased-from:<sha256 prefix>`).
    """
    opts = options if isinstance(options, LLMOptions) else LLMOptions(**(options or {}))
    model_of(spec)
    summary = RephraseSummary(spec)
    texts = bank["question_text"].to_pylist()
    all_options = bank["options"].to_pylist()
    grading = bank["grading"].to_pylist() if "grading" in bank.column_names else None
    base_counts = (
        pc.value_counts(bank["base_id"]).to_pylist() if "base_id" in bank.column_names else []
    )
    multi = {c["values"] for c in base_counts if c["counts"] > 1}
    base_ids = (
        bank["base_id"].to_pylist() if "base_id" in bank.column_names else [None] * len(texts)
    )
    eligible = [
        i
        for i in range(len(texts))
        if base_ids[i] not in multi and (grading is None or grading[i] == "answer")
    ]
    summary.questions = len(eligible)
    summary.skipped = len(texts) - len(eligible)

    async def run() -> list[str | None]:
        worker = _Rephraser(spec, opts, style, summary)
        tasks = [
            asyncio.ensure_future(worker.rewrite(texts[i], list(all_options[i]))) for i in eligible
        ]
        try:
            return await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            raise
        finally:
            await worker.llm.close()

    results = asyncio.run(run())
    new_texts = list(texts)
    tags = bank["tags"].to_pylist() if "tags" in bank.column_names else [None] * len(texts)
    provenance = json.dumps(
        {"model": model_of(spec), "base_url_host": host_of(opts.base_url), "style": style},
        sort_keys=True,
    )
    changed = np.zeros(len(texts), dtype=bool)
    for i, new in zip(eligible, results, strict=True):
        if new is None:
            summary.kept += 1
            continue
        digest = hashlib.sha256(texts[i].encode()).hexdigest()[:16]
        new_texts[i] = new
        tags[i] = [*(tags[i] or []), REPHRASED_TAG, f"rephrased-from:{digest}",
                   f"rephrase:{provenance}"]  # fmt: skip
        changed[i] = True
    summary.rephrased = int(changed.sum())
    out = bank.set_column(
        bank.schema.get_field_index("question_text"),
        bank.schema.field("question_text"),
        pa.array(new_texts, pa.string()),
    )
    if "tags" in out.column_names:
        field_ = out.schema.field("tags")
        out = out.set_column(
            out.schema.get_field_index("tags"), field_, pa.array(tags, field_.type)
        )
    return out, summary
