"""`hf:PATH_OR_NAME` — a local transformers causal LM (extra `hf`).

Requests from concurrent conversations are gathered into batches (left
padding, explicit position ids so padded and unpadded prompts see the same
positions). Prompts use the tokenizer's chat template when it has one.

Answer turns are not sampled: in `letters` mode the reply is the option
letter with the highest next-token probability, where "A" and " A" style
tokens are merged; in `loglik` mode each option's continuation ("B. text") is
scored by its total log-likelihood. Either way the per-letter log-probs are
returned like an API's top log-probs, so the adaptation layer reads them the
same way. Reasoning turns are generated greedily.
"""

from __future__ import annotations

import asyncio
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from steer.adapt import CallKind, Completion, Message
from steer.backends._chat import ChatBackend
from steer.errors import InputError

_OPTION_LINE = re.compile(r"^([A-Z])\. ?(.*)$", re.MULTILINE)
ALL_LETTERS = [chr(ord("A") + i) for i in range(26)]


def require_hf() -> None:
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise InputError(
            "the hf backend needs torch and transformers: pip install 'steer[hf]'"
        ) from None


class HFOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    revision: str | None = None
    mode: Literal["letters", "loglik"] = "letters"
    batch_size: int = Field(default=8, ge=1)
    concurrency: int = Field(default=16, ge=1)
    max_new_tokens: int = Field(default=512, ge=1)
    device: str = "auto"  # "auto": every GPU through device_map="auto", else the CPU
    dtype: Literal["auto", "bfloat16", "float16", "float32"] = "auto"
    trust_remote_code: bool = False


def offered_letters(messages: list[Message]) -> list[tuple[str, str]]:
    """(letter, text) of the options listed in the last user message."""
    last = next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")
    found = _OPTION_LINE.findall(last)
    expected = ALL_LETTERS[: len(found)]
    if found and [f[0] for f in found] == expected:
        return [(letter, text) for letter, text in found]
    return []


@dataclass
class _Job:
    prompt: str
    kind: CallKind
    options: list[tuple[str, str]]
    future: asyncio.Future[Completion]


@dataclass
class HFBackend(ChatBackend):
    settings: HFOptions = field(default_factory=HFOptions)

    def __post_init__(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        s = self.settings
        self.revision = s.revision
        self.torch = torch
        # "auto"/"cuda" spread the model over every GPU; "cuda:1" pins one.
        gpu = torch.cuda.is_available() and (s.device == "auto" or s.device.startswith("cuda"))
        dtype = {
            "auto": torch.bfloat16 if gpu else torch.float32,
            "bfloat16": torch.bfloat16,
            "float16": torch.float16,
            "float32": torch.float32,
        }[s.dtype]
        self.tokenizer: Any = AutoTokenizer.from_pretrained(
            self.model, revision=s.revision, trust_remote_code=s.trust_remote_code
        )
        self.tokenizer.padding_side = "left"
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        kwargs: dict[str, Any] = {"revision": s.revision, "dtype": dtype}
        if gpu:
            kwargs["device_map"] = "auto" if s.device in ("auto", "cuda") else s.device
        lm: Any = AutoModelForCausalLM.from_pretrained(
            self.model, trust_remote_code=s.trust_remote_code, **kwargs
        )
        if not gpu and s.device not in ("auto", "cpu"):
            lm.to(s.device)  # another accelerator ("mps"), or a GPU torch cannot see: torch says so
        lm.eval()
        self.lm = lm
        self.device = next(self.lm.parameters()).device
        self._letter_ids = self._letter_token_ids()
        self._queue: asyncio.Queue[_Job] | None = None
        self._worker: asyncio.Task[None] | None = None
        self.price = None

    # -- what identifies the replies -----------------------------------------
    def request_params(self, kind: CallKind) -> dict[str, Any]:
        if kind == "answer":
            return {"mode": self.settings.mode}
        return {"greedy": True, "max_new_tokens": self.settings.max_new_tokens}

    def _letter_token_ids(self) -> dict[str, list[tuple[str, int]]]:
        """For each letter, the single tokens that spell it ("A", " A")."""
        out: dict[str, list[tuple[str, int]]] = {}
        for letter in ALL_LETTERS:
            seen: list[tuple[str, int]] = []
            for text in (letter, " " + letter):
                ids = self.tokenizer.encode(text, add_special_tokens=False)
                if len(ids) == 1 and ids[0] not in [i for _, i in seen]:
                    seen.append((text, ids[0]))
            out[letter] = seen
        return out

    def render(self, messages: list[Message]) -> str:
        """The prompt text: the chat template when the tokenizer has one."""
        if getattr(self.tokenizer, "chat_template", None):
            text = self.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=True
            )
            return str(text)
        turns = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        return "\n\n".join([*turns, "Assistant:"])

    # -- batching -----------------------------------------------------------
    async def complete(self, messages: list[Message], kind: CallKind) -> Completion:
        if self._queue is None:
            self._queue = asyncio.Queue()
            self._worker = asyncio.create_task(self._serve())
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        await self._queue.put(_Job(self.render(messages), kind, offered_letters(messages), future))
        return await future

    async def _serve(self) -> None:
        assert self._queue is not None
        while True:
            jobs = [await self._queue.get()]
            await asyncio.sleep(0)  # let concurrent conversations add theirs
            while not self._queue.empty() and len(jobs) < self.settings.batch_size:
                jobs.append(self._queue.get_nowait())
            for kind in ("answer", "reason"):
                group = [j for j in jobs if j.kind == kind]
                if not group:
                    continue
                try:
                    results = await asyncio.to_thread(self._run, group)
                except Exception as exc:  # handed to the waiting conversation
                    for job in group:
                        if not job.future.done():
                            job.future.set_exception(exc)
                    continue
                for job, result in zip(group, results, strict=True):
                    if not job.future.done():
                        job.future.set_result(result)

    def _run(self, jobs: list[_Job]) -> list[Completion]:
        if jobs[0].kind == "reason":
            return self.generate([j.prompt for j in jobs])
        if self.settings.mode == "loglik":
            return [self.score_options(j.prompt, j.options) for j in jobs]
        return self.letter_replies([j.prompt for j in jobs], [j.options for j in jobs])

    # -- model computations (synchronous; also used directly by tests) -------
    def encode(self, prompts: list[str]) -> dict[str, Any]:
        batch = self.tokenizer(
            prompts, return_tensors="pt", padding=True, add_special_tokens=False
        ).to(self.device)
        mask = batch["attention_mask"]
        batch["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
        return dict(batch)

    def next_token_logprobs(self, prompts: list[str]) -> Any:
        """log-softmax of the next-token logits, shape (len(prompts), vocab)."""
        torch = self.torch
        with torch.inference_mode():
            batch = self.encode(prompts)
            logits = self.lm(**batch).logits[:, -1, :].float()
            return torch.log_softmax(logits, dim=-1).cpu()

    def letter_replies(
        self, prompts: list[str], options: list[list[tuple[str, str]]]
    ) -> list[Completion]:
        logprobs = self.next_token_logprobs(prompts)
        out = []
        for row, offered, prompt in zip(logprobs, options, prompts, strict=True):
            valid = [letter for letter, _ in offered] or ALL_LETTERS
            top: dict[str, float] = {}
            merged: dict[str, float] = {}
            for letter in valid:
                total = 0.0
                for text, token_id in self._letter_ids[letter]:
                    lp = float(row[token_id])
                    top[text] = lp
                    total += math.exp(lp)
                merged[letter] = total
            best = max(valid, key=lambda letter: merged[letter])
            n_in = len(self.tokenizer.encode(prompt, add_special_tokens=False))
            out.append(Completion(best, [best], [top], n_in, 1, None, 0.0))
        return out

    def score_options(self, prompt: str, offered: list[tuple[str, str]]) -> Completion:
        """Total log-likelihood of each "X. option" continuation; the reply is
        the likeliest, and its letter log-probs are the normalised scores."""
        torch = self.torch
        if not offered:
            return Completion("", None, None, 0, 0, None, 0.0)
        continuations = [f"{letter}. {text}" for letter, text in offered]
        prompt_ids = self.tokenizer.encode(prompt, add_special_tokens=False)
        scores = []
        with torch.inference_mode():
            for cont in continuations:
                cont_ids = self.tokenizer.encode(cont, add_special_tokens=False)
                ids = torch.tensor([prompt_ids + cont_ids], device=self.device)
                logits = self.lm(input_ids=ids).logits[0].float()
                logp = torch.log_softmax(logits[:-1], dim=-1)
                targets = ids[0, 1:]
                picked = logp.gather(1, targets[:, None])[:, 0]
                scores.append(float(picked[len(prompt_ids) - 1 :].sum()))
        norm = math.log(sum(math.exp(s - max(scores)) for s in scores)) + max(scores)
        top = {letter: s - norm for (letter, _), s in zip(offered, scores, strict=True)}
        best = max(top, key=lambda k: top[k])
        return Completion(best, [best], [top], len(prompt_ids), 0, None, 0.0)

    def generate(self, prompts: list[str]) -> list[Completion]:
        torch = self.torch
        with torch.inference_mode():
            batch = self.encode(prompts)
            batch.pop("position_ids")  # generate derives them from the mask
            output = self.lm.generate(
                **batch,
                max_new_tokens=self.settings.max_new_tokens,
                do_sample=False,
                pad_token_id=self.tokenizer.pad_token_id,
            )
        width = batch["input_ids"].shape[1]
        out = []
        for i, row in enumerate(output):
            new = row[width:]
            new = new[new != self.tokenizer.pad_token_id]
            text = str(self.tokenizer.decode(new, skip_special_tokens=True))
            n_in = int(batch["attention_mask"][i].sum())
            out.append(Completion(text, None, None, n_in, int(new.numel()), None, 0.0))
        return out

    async def aclose(self) -> None:
        if self._worker is not None:
            self._worker.cancel()
            self._worker = None
            self._queue = None
