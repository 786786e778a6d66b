"""The openai backend against a real HTTP server on loopback, through the
real `openai` client: log-probs, 429 + Retry-After, 5xx, malformed JSON,
slow replies, rejected requests, pricing, the cache and the Batch API."""

from __future__ import annotations

import asyncio
import json
import math
import re
from pathlib import Path
from typing import Any

import pytest

from bank_factory import write_test_bank
from openai_server import FakeOpenAI
from steer.backends import BackendError, resolve_backend
from steer.backends._openai import OpenAIBackend, public_url
from steer.backends._pricing import load_pricing, price_for
from steer.errors import FileFormatError, InputError
from steer.run import estimate_run, run_bank
from steer.schema import Adaptation


@pytest.fixture
def fake(server: tuple[FakeOpenAI, str]) -> tuple[FakeOpenAI, str]:
    state, url = server
    state.faults.clear()
    state.log.clear()
    state.reply = None
    state.delay_s = 0.0
    return state, url


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_test_bank(tmp_path / "bank.parquet", 12)


def opts(url: str, **kw: Any) -> dict[str, Any]:
    return {"base_url": url, "retry_base_s": 0.02, "retry_cap_s": 0.1, **kw}


def chat_log(state: FakeOpenAI) -> list[dict[str, Any]]:
    return [e for e in state.log if e["path"] == "/v1/chat/completions"]


def ask(backend: Any, text: str = "Pick.\n\nOptions:\nA. 1\nB. 2\nC. 3\nD. 4") -> Any:
    async def go() -> Any:
        try:
            return await backend.complete([{"role": "user", "content": text}], "answer")
        finally:
            await backend.aclose()

    return asyncio.run(go())


def test_option_probabilities_from_top_logprobs(fake: Any, bank: Path, tmp_path: Path) -> None:
    state, url = fake
    result = run_bank(bank, "openai:gpt-4o-mini", tmp_path / "c", backend_options=opts(url))
    rows = result.responses.to_pylist()
    assert len(rows) == 12 and {r["chosen_index"] for r in rows} == {1}
    # Server: B 0.6, " B" 0.1, A 0.2 (and "The" 0.05, not a letter).
    assert rows[0]["option_probs"] == pytest.approx([0.2 / 0.9, 0.7 / 0.9, 0.0, 0.0])
    mixed = run_bank(
        bank,
        "openai:gpt-4o-mini",
        tmp_path / "m",
        adaptation=Adaptation(prob_mode="mixing"),
        backend_options=opts(url),
    ).responses.to_pylist()
    raw = [0.9 * 0.2 + 0.025, 0.9 * 0.7 + 0.025, 0.025, 0.025]
    assert mixed[0]["option_probs"] == pytest.approx([r / sum(raw) for r in raw])
    body = chat_log(state)
    assert len(body) == 24


def test_429_honours_retry_after_and_halves_the_window(fake: Any) -> None:
    state, url = fake
    state.faults[:] = ["429"]
    backend = resolve_backend("openai:m", options=opts(url, concurrency=8, retry_base_s=0))
    done = ask(backend)
    assert done.text == "B"
    first, second = chat_log(state)
    assert (first["status"], second["status"]) == (429, 200)
    assert second["t"] - first["t"] >= 0.2  # Retry-After: 0.2
    assert backend._limiter is not None and backend._limiter.window < 8


@pytest.mark.parametrize("fault", ["500", "malformed", "slow"])
def test_transient_failures_are_retried(fake: Any, fault: str) -> None:
    state, url = fake
    state.faults[:] = [fault, fault]
    backend = resolve_backend("openai:m", options=opts(url, timeout_s=0.5))
    assert ask(backend).text == "B"
    assert len(chat_log(state)) == 3


def test_giving_up_is_recorded_and_only_retry_errors_asks_again(
    fake: Any, bank: Path, tmp_path: Path
) -> None:
    state, url = fake
    state.faults[:] = ["500"] * 3
    o = opts(url, max_retries=2, concurrency=1)
    first = run_bank(bank, "openai:m", tmp_path / "r", backend_options=o)
    assert first.n_failed == 1 and first.responses.num_rows == 12
    problem = first.problems[0]
    assert "gave up after 3 attempts (no retries left for this question" in problem
    assert problem.count("last") == 1 and "last error: HTTP 500" in problem
    errored = [r for r in first.responses.to_pylist() if r["error"]]
    assert len(errored) == 1 and errored[0]["chosen_index"] == -1
    second = run_bank(bank, "openai:m", tmp_path / "r", backend_options=o)
    assert second.n_new == 0 and second.n_errors_kept == 1 and len(chat_log(state)) == 14
    third = run_bank(bank, "openai:m", tmp_path / "r", backend_options=o, retry_errors=True)
    assert third.n_new == 1 and third.responses.num_rows == 12
    assert not any(r["error"] for r in third.responses.to_pylist())
    with pytest.raises(BackendError):
        state.faults[:] = ["500"] * 3
        ask(resolve_backend("openai:m", options=o))


def test_a_rejected_request_is_journaled_with_its_error(
    fake: Any, bank: Path, tmp_path: Path
) -> None:
    state, url = fake
    state.faults[:] = ["400"]
    result = run_bank(bank, "openai:m", tmp_path / "r", backend_options=opts(url, concurrency=1))
    errors = [r for r in result.responses.to_pylist() if r["error"]]
    assert len(errors) == 1 and errors[0]["error"].startswith("HTTP 400")
    assert errors[0]["chosen_index"] == -1
    assert len(chat_log(state)) == 12  # not retried


def test_pricing_file_overrides_and_costs_add_up(fake: Any, bank: Path, tmp_path: Path) -> None:
    _, url = fake
    pricing = tmp_path / "prices.toml"
    pricing.write_text("[my-model]\ninput = 1000.0\noutput = 2000.0\n")
    o = opts(url, pricing_file=str(pricing))
    rows = run_bank(bank, "openai:my-model", tmp_path / "r", backend_options=o).responses
    for r in rows.to_pylist():
        assert r["cost_usd"] == pytest.approx(
            (r["tokens_in"] * 1000 + r["tokens_out"] * 2000) / 1e6
        )
    assert price_for(load_pricing(None), "gpt-4o-2024-08-06") == load_pricing(None)["gpt-4o"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"m": {"input": 1}}')
    with pytest.raises(FileFormatError, match="exactly 'input' and 'output'"):
        load_pricing(bad)


def test_max_cost_is_a_budget_across_invocations_never_overshot(
    fake: Any, bank: Path, tmp_path: Path
) -> None:
    _, url = fake
    pricing = tmp_path / "prices.json"
    pricing.write_text(json.dumps({"pricey": {"input": 1e5, "output": 1e5}}))
    out = tmp_path / "r"
    for concurrency in (1, 4):
        o = opts(url, pricing_file=str(pricing), concurrency=concurrency)
        result = run_bank(bank, "openai:pricey", out, backend_options=o, max_cost=60.0)
        assert result.stopped == "max-cost" and 0 < result.responses.num_rows < 12
        spent = json.loads((out / "manifest.json").read_text())["spent_usd"]
        paid = sum(r["cost_usd"] for r in result.responses.to_pylist())
        assert spent == pytest.approx(paid) and spent <= 60.0
        # Spent so far counts: the same budget buys at most what it has left.
        again = run_bank(bank, "openai:pricey", out, backend_options=o, max_cost=60.0)
        total = json.loads((out / "manifest.json").read_text())["spent_usd"]
        assert again.stopped == "max-cost" and spent <= total <= 60.0
        assert total == pytest.approx(sum(r["cost_usd"] for r in again.responses.to_pylist()))
        more = run_bank(bank, "openai:pricey", out, backend_options=o, max_cost=1e6)
        assert more.responses.num_rows == 12 and more.stopped is None
        out = tmp_path / "r4"
    with pytest.raises(InputError, match="needs a price"):
        run_bank(bank, "openai:unpriced", tmp_path / "u", backend_options=opts(url), max_cost=1)


def test_the_cache_is_shared_and_keyed_by_parameters(fake: Any, bank: Path, tmp_path: Path) -> None:
    state, url = fake
    cache = tmp_path / "cache"
    run_bank(bank, "openai:m", tmp_path / "a", backend_options=opts(url), cache_dir=cache)
    assert len(chat_log(state)) == 12
    again = run_bank(bank, "openai:m", tmp_path / "b", backend_options=opts(url), cache_dir=cache)
    assert len(chat_log(state)) == 12 and again.cache_hits == 12 and again.requests == 0
    warmer = opts(url, temperature=0.5)
    run_bank(bank, "openai:m", tmp_path / "c", backend_options=warmer, cache_dir=cache)
    assert len(chat_log(state)) == 24  # other parameters, other replies
    run_bank(bank, "openai:other", tmp_path / "d", backend_options=opts(url), cache_dir=cache)
    assert len(chat_log(state)) == 36  # another model never reuses a reply


def test_api_key_is_used_but_never_written(
    fake: Any, bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: Any
) -> None:
    state, url = fake
    secret = "sk-test-DO-NOT-LEAK-4f8a1c"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    out, cache = tmp_path / "run", tmp_path / "cache"
    userinfo_url = url.replace("http://", "http://user:pw-DO-NOT-LEAK@")
    assert public_url(userinfo_url) == url
    state.faults[:] = ["400", "500"]
    run_bank(
        bank, "openai:gpt-4o", out, backend_options=opts(url), cache_dir=cache, progress=True,
        adaptation=Adaptation(format="together"),
    )  # fmt: skip
    assert all(e["auth"] == f"Bearer {secret}" for e in chat_log(state))
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {p.name for p in written} >= {"manifest.json", "journal.jsonl", "cache.jsonl"}
    for path in written:
        assert secret.encode() not in path.read_bytes(), path
        assert b"DO-NOT-LEAK" not in path.read_bytes(), path
    captured = capfd.readouterr()
    assert secret not in captured.out + captured.err


def test_missing_key_without_base_url_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    backend = resolve_backend("openai:gpt-4o")
    with pytest.raises(InputError, match="set OPENAI_API_KEY"):
        ask(backend)
    with pytest.raises(InputError, match="option 'concurrency'"):
        resolve_backend("openai:gpt-4o", options={"concurrency": 0})
    with pytest.raises(InputError, match="option 'colour'"):
        resolve_backend("openai:gpt-4o", options={"colour": 1})


def test_dry_run_estimates_without_sending(fake: Any, bank: Path, tmp_path: Path) -> None:
    state, url = fake
    est = estimate_run(bank, "openai:gpt-4o", backend_options=opts(url))
    assert est.requests == 12 and est.tokens_out == 12 and est.tokens_in > 12 * 20
    price = load_pricing(None)["gpt-4o"]
    assert est.cost_usd == pytest.approx(price.cost(est.tokens_in, est.tokens_out))
    two = estimate_run(bank, "openai:gpt-4o", adaptation=Adaptation(format="hidden", shots=2))
    assert two.requests == 24 and two.tokens_in > est.tokens_in
    assert state.log == []


def test_batch_api(fake: Any, bank: Path, tmp_path: Path) -> None:
    state, url = fake
    o = opts(url, batch_api=True, batch_poll_s=0.01)
    result = run_bank(bank, "openai:gpt-4o", tmp_path / "b", backend_options=o)
    rows = result.responses.to_pylist()
    assert len(rows) == 12 and {r["chosen_index"] for r in rows} == {1}
    paths = [e["path"] for e in state.log]
    assert paths.count("/v1/batches") == 1 and "/v1/chat/completions" not in paths
    assert paths.count("/v1/batches#request") == 12
    price = load_pricing(None)["gpt-4o"]
    r = rows[0]
    assert r["cost_usd"] == pytest.approx(price.cost(r["tokens_in"], r["tokens_out"]) / 2)
    assert math.isclose(sum(r["option_probs"]), 1.0)
    # Two-turn formats run as two rounds of batches.
    state.log.clear()
    run_bank(
        bank, "openai:gpt-4o", tmp_path / "h", backend_options=o,
        adaptation=Adaptation(format="hidden"),
    )  # fmt: skip
    assert [e["path"] for e in state.log].count("/v1/batches") == 2


def test_batch_recorded_before_a_kill_is_harvested_not_resubmitted(
    fake: Any, bank: Path, tmp_path: Path
) -> None:
    state, url = fake
    o = opts(url, batch_api=True, batch_poll_s=0.01)
    out = tmp_path / "b"
    run_bank(bank, "openai:gpt-4o", out, backend_options=o)
    # As if killed after submitting: the batch is recorded, nothing harvested
    # into the cache or the journal.
    batches = (out / "batches.jsonl").read_text().splitlines()
    (out / "batches.jsonl").write_text(batches[0] + "\n")
    (out / "cache.jsonl").unlink()
    (out / "journal.jsonl").unlink()
    state.log.clear()
    result = run_bank(bank, "openai:gpt-4o", out, backend_options=o)
    assert result.responses.num_rows == 12
    paths = [e["path"] for e in state.log]
    assert "/v1/batches" not in paths and "/v1/batches#request" not in paths
    assert any(p.startswith("/v1/batches/") for p in paths)  # re-attached and polled


def test_openai_backend_identity_has_no_secrets(fake: Any) -> None:
    _, url = fake
    backend = resolve_backend("openai:gpt-4o", options=opts(url))
    assert isinstance(backend, OpenAIBackend)
    assert backend.identity()["base_url"] == url
    assert "api_key" not in json.dumps(backend.generation_params())


def test_a_bad_key_stops_the_run_and_is_never_echoed(
    fake: Any, bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    state, url = fake
    secret = "sk-test-wrong-key-7Qz9"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    state.faults[:] = ["401"] * 12
    out = tmp_path / "r"
    with pytest.raises(InputError, match="HTTP 401") as info:
        run_bank(bank, "openai:gpt-4o", out, backend_options=opts(url, concurrency=2))
    assert secret not in str(info.value) and "7Qz9" not in str(info.value)
    assert len(chat_log(state)) <= 2  # stopped at once, not once per question
    for path in out.rglob("*"):
        if path.is_file():
            assert b"7Qz9" not in path.read_bytes()
    with pytest.raises(InputError, match="cannot stop a Batch API run"):
        run_bank(bank, "openai:gpt-4o", out, backend_options=opts(url, batch_api=True), max_cost=1)


def test_retries_are_a_budget_per_question_not_per_request(fake: Any, tmp_path: Path) -> None:
    state, url = fake
    one = write_test_bank(tmp_path / "one.parquet", 1)
    state.faults[:] = ["500", "ok", "500"]  # reasoning fails then works; the answer fails
    o = opts(url, max_retries=1, concurrency=1)
    result = run_bank(one, "openai:m", tmp_path / "r", adaptation=Adaptation(format="shown"),
                      backend_options=o)  # fmt: skip
    (row,) = result.responses.to_pylist()
    assert row["error"] is not None and "no retries left for this question" in row["error"]
    assert len(chat_log(state)) == 3  # reason (fail, ok), answer (fail): 1 retry in all


def test_give_up_reasons_say_last_once_with_readable_timings(fake: Any) -> None:
    state, url = fake
    state.faults[:] = ["slow"] * 50
    backend = resolve_backend(
        "openai:m", options=opts(url, timeout_s=0.05, retry_budget_s=0.4, max_retries=50)
    )
    with pytest.raises(BackendError) as info:
        ask(backend)
    text = str(info.value)
    assert text.count("last") == 1, text
    assert "retry budget of 0.4 s spent" in text and "(timed out)" in text
    # Seconds with two significant digits at most ("0.045 s", "1.5 s"), never
    # "0.234822 s"; whole seconds from 10 s up.
    for number in re.findall(r"(\d+(?:\.\d+)?) s\b", text):
        digits = number.replace(".", "").lstrip("0")
        assert len(digits) <= 2 or (float(number) >= 10 and "." not in number), text


def test_a_truncated_reply_is_reported_as_truncated(fake: Any) -> None:
    state, url = fake
    state.faults[:] = ["short"]
    backend = resolve_backend("openai:m", options=opts(url, timeout_s=5, max_retries=0))
    with pytest.raises(BackendError) as info:
        ask(backend)
    text = str(info.value)
    assert "truncated reply" in text and "timed out" not in text, text
    assert "complete message body" in text
