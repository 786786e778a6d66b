"""`steer run` with the `hf:` backend beside the loop a user would otherwise
write with transformers alone (one prompt at a time: a forward pass, then the
likeliest option letter; for chain-of-thought, one `generate` per prompt).

Nothing can be downloaded, so the model is a randomly initialised Llama with
a byte-level BPE tokenizer trained here on the bank's own text. Its answers
are noise; the work per token is a real model's.

Sizes (STEER_BENCH_HF): `tiny` (default; 2 layers, for a CPU) or `medium`
(about 150M parameters, 12 layers; for a GPU). The device is whatever torch
sees (`device="auto"`: bfloat16 on a GPU, float32 on the CPU).

Run: python -m pytest benches/bench_hf.py --benchmark-enable -s
 (or: STEER_BENCH_HF=medium python benches/bench_hf.py)

Reported: questions per second of both, letters mode and hidden
chain-of-thought (32 new tokens), and the ratio steer/bare; how many letters
the two agree on (they see the same prompts, so all of them, up to ties
within bfloat16 rounding). Nothing asserts a time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

SIZES = {
    # name: (questions, hidden, layers, heads, intermediate, vocab, batch)
    "tiny": (48, 64, 2, 4, 128, 1000, 8),
    "medium": (512, 1024, 12, 16, 2816, 8000, 64),
}
NEW_TOKENS = 32


def build_model(path: Path, texts: list[str], size: str) -> None:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    _, hidden, layers, heads, inter, vocab, _ = SIZES[size]
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(texts, trainer)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    tok.chat_template = (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>{% endif %}"
    )
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=hidden, intermediate_size=inter,
        num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=heads,
        max_position_embeddings=4096, pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )  # fmt: skip
    LlamaForCausalLM(config).save_pretrained(path)
    tok.save_pretrained(path)


def make_bank(tmp: Path, n: int) -> Path:
    full = tmp / "full.parquet"
    cmd = [sys.executable, "-m", "steer", "generate", "--suite", "steer",
           "--per-cell", str(1 + n // 300), "--workers", "1", "-o", str(full)]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"steer generate failed: {done.stderr.strip()}")
    table = pq.read_table(full)
    # Single-part, answer-graded questions, so both sides ask the same thing.
    base = table["base_id"].to_pylist()
    parts = Counter(base)
    keep = [
        i for i, (b, grading) in enumerate(zip(base, table["grading"].to_pylist(), strict=True))
        if parts[b] == 1 and grading == "answer"
    ][:n]  # fmt: skip
    bank = tmp / "bank.parquet"
    pq.write_table(table.take(pa.array(keep)), bank)
    return bank


def prompts_of(bank: Path, backend: Any, fmt: str) -> list[tuple[str, int]]:
    from steer.adapt import opening
    from steer.adapt._prompts import LETTER_ONLY, REASON_FIRST, with_options
    from steer.schema import Adaptation

    head = opening([], Adaptation(format=fmt))  # type: ignore[arg-type]
    ask = REASON_FIRST if fmt == "hidden" else LETTER_ONLY
    out = []
    for q in pq.read_table(bank).to_pylist():
        messages = [*head, {"role": "user", "content": with_options(q, ask)}]
        out.append((backend.render(messages), len(q["options"])))
    return out


def bare_letters(backend: Any, prompts: list[tuple[str, int]]) -> list[str]:
    """One prompt at a time: a forward pass, then the likeliest letter."""
    import torch

    tok, lm = backend.tokenizer, backend.lm
    spell = {c: [tok.encode(s, add_special_tokens=False) for s in (c, " " + c)] for c in "ABCDEFGH"}
    out = []
    with torch.inference_mode():
        for prompt, k in prompts:
            ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
            probs = lm(input_ids=ids.to(lm.device)).logits[0, -1].float().softmax(-1)
            mass = {
                c: sum(float(probs[s[0]]) for s in spell[c] if len(s) == 1) for c in "ABCDEFGH"[:k]
            }
            out.append(max(mass, key=lambda c: mass[c]))
    return out


def bare_generate(backend: Any, prompts: list[tuple[str, int]]) -> None:
    import torch

    tok, lm = backend.tokenizer, backend.lm
    with torch.inference_mode():
        for prompt, _ in prompts:
            ids = tok(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
            lm.generate(
                input_ids=ids.to(lm.device), attention_mask=torch.ones_like(ids).to(lm.device),
                max_new_tokens=NEW_TOKENS, do_sample=False, pad_token_id=tok.pad_token_id,
            )  # fmt: skip


def measure() -> str:
    import torch

    from steer.backends import resolve_backend
    from steer.run import run_bank
    from steer.schema import Adaptation

    size = os.environ.get("STEER_BENCH_HF", "tiny")
    n, *_, batch = SIZES[size]
    with tempfile.TemporaryDirectory() as tmp_s:
        tmp = Path(tmp_s)
        bank = make_bank(tmp, n)
        texts = pq.read_table(bank)["question_text"].to_pylist()
        build_model(tmp / "model", texts * 4, size)
        options = {"batch_size": batch, "concurrency": 2 * batch, "max_new_tokens": NEW_TOKENS}
        backend = resolve_backend(f"hf:{tmp / 'model'}", options=options)
        device = f"{backend.device} ({backend.lm.dtype}), {torch.get_num_threads()} CPU threads"
        letter_prompts = prompts_of(bank, backend, "mc")
        bare_letters(backend, letter_prompts[:4])  # warm up kernels

        t0 = time.perf_counter()
        ours = run_bank(bank, backend, tmp / "letters", batch_size=2 * batch)
        steer_letters = time.perf_counter() - t0
        t0 = time.perf_counter()
        theirs = bare_letters(backend, letter_prompts)
        bare_l = time.perf_counter() - t0
        chosen = ours.responses["chosen_index"].to_pylist()
        agree = sum("ABCDEFGH"[c] == t for c, t in zip(chosen, theirs, strict=True))

        m = max(8, n // 4)  # generation is the slow path: a quarter of the bank
        small = tmp / "small.parquet"
        pq.write_table(pq.read_table(bank).slice(0, m), small)
        t0 = time.perf_counter()
        run_bank(small, backend, tmp / "hidden", adaptation=Adaptation(format="hidden"),
                 batch_size=2 * batch)  # fmt: skip
        steer_cot = time.perf_counter() - t0
        t0 = time.perf_counter()
        bare_generate(backend, prompts_of(small, backend, "hidden"))
        bare_cot = time.perf_counter() - t0
    params = sum(p.numel() for p in backend.lm.parameters()) / 1e6
    return "\n".join([
        f"hf: {size} Llama, {params:.1f}M parameters, on {device}",
        f"letters, {n} questions : steer {n / steer_letters:8.1f} q/s   bare loop "
        f"{n / bare_l:8.1f} q/s   ratio {bare_l / steer_letters:5.2f}x   same letter {agree}/{n}",
        f"hidden CoT, {m} questions, {NEW_TOKENS} new tokens (steer: + answer turn) : steer "
        f"{m / steer_cot:7.1f} q/s   bare loop {m / bare_cot:7.1f} q/s   "
        f"ratio {bare_cot / steer_cot:5.2f}x",
    ])  # fmt: skip


def test_bench_hf(benchmark: Any) -> None:
    import pytest

    pytest.importorskip("torch", reason="the hf extra (torch) is not installed")
    report: list[str] = []
    benchmark.pedantic(lambda: report.append(measure()), rounds=1, iterations=1)
    print("\n" + report[-1])


if __name__ == "__main__":
    print(measure())
