"""`vllm:NAME` — vLLM's offline engine (extra `vllm`), for models that need
several GPUs: tensor and pipeline parallelism, Ray for multi-node.

Not exercised by steer's test suite (no GPU, and vLLM is not installed
there): the code follows vLLM's documented `LLM.chat` API.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from steer.adapt import CallKind, Completion, Message
from steer.backends._chat import ChatBackend
from steer.errors import InputError


def require_vllm() -> None:
    try:
        import vllm  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        raise InputError(
            "the vllm backend needs vLLM (Linux with CUDA GPUs): pip install 'steer[vllm]'"
        ) from None


class VLLMOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")

    revision: str | None = None
    tensor_parallel_size: int = Field(default=1, ge=1)
    pipeline_parallel_size: int = Field(default=1, ge=1)
    distributed_executor_backend: Literal["mp", "ray"] | None = None  # "ray" for multi-node
    dtype: str = "auto"
    max_model_len: int | None = None
    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1, allow_inf_nan=False)
    batch_size: int = Field(default=256, ge=1)
    concurrency: int = Field(default=256, ge=1)
    max_tokens_answer: int = Field(default=16, ge=1)
    max_tokens_reason: int = Field(default=1024, ge=1)
    top_logprobs: int = Field(default=20, ge=0, le=20)
    temperature: float = Field(default=0.0, ge=0, allow_inf_nan=False)


@dataclass
class VLLMBackend(ChatBackend):
    settings: VLLMOptions = field(default_factory=VLLMOptions)

    def __post_init__(self) -> None:
        from vllm import LLM  # type: ignore[import-not-found, unused-ignore]

        s = self.settings
        self.revision = s.revision
        self.price = None
        self.engine = LLM(
            model=self.model,
            revision=s.revision,
            tensor_parallel_size=s.tensor_parallel_size,
            pipeline_parallel_size=s.pipeline_parallel_size,
            distributed_executor_backend=s.distributed_executor_backend,
            dtype=s.dtype,
            max_model_len=s.max_model_len,
            gpu_memory_utilization=s.gpu_memory_utilization,
        )
        self._queue: list[tuple[list[Message], CallKind, asyncio.Future[Completion]]] = []
        self._flusher: asyncio.Task[None] | None = None

    def request_params(self, kind: CallKind) -> dict[str, Any]:
        s = self.settings
        return {
            "temperature": s.temperature,
            "max_tokens": s.max_tokens_answer if kind == "answer" else s.max_tokens_reason,
            "logprobs": s.top_logprobs,
        }

    async def complete(self, messages: list[Message], kind: CallKind) -> Completion:
        future: asyncio.Future[Completion] = asyncio.get_running_loop().create_future()
        self._queue.append((messages, kind, future))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return await future

    async def _flush(self) -> None:
        await asyncio.sleep(0.01)  # gather what concurrent conversations ask
        while self._queue:
            jobs = self._queue[: self.settings.batch_size]
            del self._queue[: self.settings.batch_size]
            for kind in ("answer", "reason"):
                group = [j for j in jobs if j[1] == kind]
                if group:
                    try:
                        results = await asyncio.to_thread(self._run, [j[0] for j in group], kind)
                    except Exception as exc:
                        for _, _, fut in group:
                            fut.set_exception(exc)
                        continue
                    for (_, _, fut), result in zip(group, results, strict=True):
                        fut.set_result(result)

    def _run(self, conversations: list[list[Message]], kind: CallKind) -> list[Completion]:
        from vllm import SamplingParams  # type: ignore[import-not-found, unused-ignore]

        params = SamplingParams(**self.request_params(kind))
        outputs = self.engine.chat(conversations, params, use_tqdm=False)
        out = []
        for o in outputs:
            gen = o.outputs[0]
            tokens, tops = [], []
            for token_id, alternatives in zip(gen.token_ids, gen.logprobs or [], strict=False):
                chosen = alternatives.get(token_id)
                tokens.append(chosen.decoded_token if chosen else "")
                tops.append({lp.decoded_token: lp.logprob for lp in alternatives.values()})
            out.append(
                Completion(
                    gen.text,
                    tokens or None,
                    tops or None,
                    len(o.prompt_token_ids or []),
                    len(gen.token_ids),
                    None,
                    0.0,
                )
            )
        return out
