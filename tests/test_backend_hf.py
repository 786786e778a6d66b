"""The hf backend on a tiny randomly initialised Llama and a byte-level BPE
tokenizer trained here (nothing downloaded): batching with left padding,
the chat template, letter probabilities and the log-likelihood mode, all
checked against a direct forward pass of one unpadded prompt."""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="the hf extra (torch) is not installed")
transformers = pytest.importorskip("transformers", reason="the hf extra is not installed")

from bank_factory import write_test_bank  # noqa: E402
from steer.adapt import letter_mass, option_probs, prompts_hash  # noqa: E402
from steer.backends import resolve_backend  # noqa: E402
from steer.backends._hf import HFBackend, offered_letters  # noqa: E402
from steer.run import run_bank  # noqa: E402
from steer.schema import Adaptation  # noqa: E402

# STEER_TEST_DEVICE=cuda runs the same checks on a GPU. They stay in float32
# there, so each comparison keeps its meaning; only the tolerance widens for
# the GPU's kernels (batched and single prompts take different ones).
DEVICE = os.environ.get("STEER_TEST_DEVICE", "cpu")
ATOL = 2e-6 if DEVICE == "cpu" else 1e-4
REL = 1e-5 if DEVICE == "cpu" else 1e-3
if DEVICE != "cpu" and not torch.cuda.is_available():
    pytest.skip(f"STEER_TEST_DEVICE={DEVICE} but torch sees no GPU", allow_module_level=True)

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
WORDS = [
    "the",
    "market",
    "price",
    "demand",
    "supply",
    "utility",
    "option",
    "answer",
    "best",
    "value",
    "choose",
    "which",
    "question",
    "part",
    "food",
    "travel",
    "work",
    "worked",
    "expected",
    "risk",
    "gamble",
    "sure",
    "payoff",
    "player",
    "game",
    "equilibrium",
    "firm",
    "cost",
    "profit",
    "consumer",
    "budget",
    "income",
    "tax",
    "good",
    "bad",
    "more",
    "less",
    "equal",
    "none",
    "other",
    "correct",
    "step",
    "reason",
    "think",
    "explain",
    "letter",
    "reply",
]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    corpus = []
    for i in range(400):
        w = WORDS[i % len(WORDS)]
        letter = "ABCD"[i % 4]
        corpus.append(f"{w} {letter}. {i} option {letter} Options: {WORDS[(i * 7) % len(WORDS)]}")
    bpe = Tokenizer(models.BPE(unk_token=None))
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400,
        special_tokens=["<pad>", "<s>", "</s>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    bpe.train_from_iterator(corpus, trainer)
    tok = PreTrainedTokenizerFast(
        tokenizer_object=bpe, bos_token="<s>", eos_token="</s>", pad_token="<pad>"
    )
    tok.chat_template = CHAT_TEMPLATE
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=2048,
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    model = LlamaForCausalLM(config)
    path = tmp_path_factory.mktemp("tiny-llama")
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


@pytest.fixture(scope="module")
def backend(tiny_model: Path) -> HFBackend:
    b = resolve_backend(
        f"hf:{tiny_model}",
        options={"max_new_tokens": 4, "batch_size": 4, "device": DEVICE, "dtype": "float32"},
    )
    assert isinstance(b, HFBackend)
    return b


def direct_logprobs(b: HFBackend, prompt: str) -> torch.Tensor:
    ids = b.tokenizer(prompt, return_tensors="pt", add_special_tokens=False)["input_ids"]
    ids = ids.to(b.device)
    with torch.inference_mode():
        logits = b.lm(input_ids=ids).logits[0, -1].float()
    return torch.log_softmax(logits, dim=-1).cpu()


def merged(b: HFBackend, row: torch.Tensor, letters: str) -> list[float]:
    out = []
    for letter in letters:
        out.append(sum(math.exp(float(row[i])) for _, i in b._letter_ids[letter]))
    return out


def test_both_spellings_of_a_letter_are_single_tokens(backend: HFBackend) -> None:
    spelled = [text for text, _ in backend._letter_ids["A"]]
    assert spelled == ["A", " A"]


def test_chat_template_is_used(backend: HFBackend) -> None:
    text = backend.render([{"role": "user", "content": "hi"}])
    assert text == "<|user|>hi\n<|assistant|>"


def test_left_padded_batch_matches_single_prompts(backend: HFBackend) -> None:
    prompts = [
        backend.render([{"role": "user", "content": "Which is best?\n\nOptions:\nA. 1\nB. 2"}]),
        backend.render([{"role": "user", "content": "A much longer question " * 6}]),
        backend.render([{"role": "user", "content": "x"}]),
    ]
    batch = backend.encode(prompts)
    lengths = [len(backend.tokenizer.encode(p, add_special_tokens=False)) for p in prompts]
    width = max(lengths)
    for row, n in zip(batch["attention_mask"].tolist(), lengths, strict=True):
        assert row == [0] * (width - n) + [1] * n  # padding on the left
    together = backend.next_token_logprobs(prompts)
    for i, prompt in enumerate(prompts):
        alone = direct_logprobs(backend, prompt)
        assert torch.allclose(together[i], alone, atol=ATOL), (i, (together[i] - alone).abs().max())


def test_letter_probabilities_merge_both_spellings(backend: HFBackend) -> None:
    messages = [{"role": "user", "content": "Pick one.\n\nOptions:\nA. 10\nB. 20\nC. 30\nD. 40"}]
    assert [letter for letter, _ in offered_letters(messages)] == list("ABCD")
    prompt = backend.render(messages)
    (reply,) = backend.letter_replies([prompt], [offered_letters(messages)])
    row = direct_logprobs(backend, prompt)
    expected = merged(backend, row, "ABCD")
    got = letter_mass(reply.top_logprobs[0], 4)
    assert got == pytest.approx(expected, rel=REL)
    assert reply.text == "ABCD"[max(range(4), key=lambda i: expected[i])]


def test_run_on_a_bank_matches_a_direct_forward_pass(backend: HFBackend, tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 6)
    result = run_bank(bank, backend, tmp_path / "run")
    rows = result.responses.to_pylist()
    assert len(rows) == 6 and result.manifest.generation["prompts"] == prompts_hash()
    from bank_factory import make_questions

    q = next(x for x in make_questions(6) if x.question_id == rows[0]["question_id"])
    from steer.adapt import opening
    from steer.adapt._prompts import LETTER_ONLY, with_options

    messages = [
        *opening([], Adaptation()),
        {"role": "user", "content": with_options(q.model_dump(), LETTER_ONLY)},
    ]
    mass = merged(backend, direct_logprobs(backend, backend.render(messages)), "ABCD")
    assert rows[0]["option_probs"] == pytest.approx(option_probs(mass, "conditioning"), rel=REL)
    assert rows[0]["chosen_index"] == max(range(4), key=lambda i: mass[i])
    assert all(abs(sum(r["option_probs"]) - 1) < 1e-9 for r in rows)
    # The transcript holds the exact messages the model was given.
    from steer.schema.transcript import Transcript

    first = (tmp_path / "run" / "transcripts.jsonl").read_text().splitlines()[0]
    assert Transcript.model_validate_json(first).exchanges[0].messages == messages


def test_loglik_mode_scores_each_option_continuation(tiny_model: Path) -> None:
    b = resolve_backend(
        f"hf:{tiny_model}", options={"mode": "loglik", "device": DEVICE, "dtype": "float32"}
    )
    assert isinstance(b, HFBackend)
    messages = [{"role": "user", "content": "Pick one.\n\nOptions:\nA. 10\nB. 20\nC. 30"}]
    prompt = b.render(messages)
    reply = b.score_options(prompt, offered_letters(messages))
    scores = []
    for cont in ("A. 10", "B. 20", "C. 30"):
        ids = b.tokenizer(prompt + cont, add_special_tokens=False)["input_ids"]
        n_prompt = len(b.tokenizer(prompt, add_special_tokens=False)["input_ids"])
        with torch.inference_mode():
            ids_t = torch.tensor([ids], device=b.device)
            logp = torch.log_softmax(b.lm(input_ids=ids_t).logits[0].float(), -1)
        scores.append(sum(float(logp[t - 1, ids[t]]) for t in range(n_prompt, len(ids))))
    total = math.log(sum(math.exp(s) for s in scores))
    assert [reply.top_logprobs[0][x] for x in "ABC"] == pytest.approx(
        [s - total for s in scores], abs=1e-4
    )


def test_reasoning_turns_generate_in_batches(backend: HFBackend, tmp_path: Path) -> None:
    bank = write_test_bank(tmp_path / "bank.parquet", 5, multipart_every=2)
    result = run_bank(bank, backend, tmp_path / "hidden", adaptation=Adaptation(format="hidden"))
    rows = result.responses.to_pylist()
    assert len(rows) == 8
    assert all(r["explanation"] is not None and r["tokens_out"] >= 1 for r in rows)
    assert all(r["option_probs"] is not None for r in rows)


@pytest.mark.skipif(DEVICE == "cpu", reason="bfloat16 on a GPU: run with STEER_TEST_DEVICE=cuda")
def test_gpu_default_is_bfloat16_and_agrees_with_float32(
    tiny_model: Path, backend: HFBackend
) -> None:
    b16 = resolve_backend(f"hf:{tiny_model}", options={"device": DEVICE})
    assert isinstance(b16, HFBackend)
    assert b16.lm.dtype == torch.bfloat16 and b16.device.type == "cuda"
    prompts = [
        backend.render([{"role": "user", "content": "Pick one.\n\nOptions:\nA. 10\nB. 20"}]),
        backend.render([{"role": "user", "content": "A much longer question " * 6}]),
    ]
    p16 = b16.next_token_logprobs(prompts).exp()
    p32 = backend.next_token_logprobs(prompts).exp()
    assert float((p16 - p32).abs().max()) < 2e-2
