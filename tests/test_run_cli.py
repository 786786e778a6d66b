"""`steer run` through a real subprocess: adaptations, dry runs, --max-cost,
exit codes; the reference agents and the optional backends' errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bank_factory import make_questions, write_test_bank
from openai_server import FakeOpenAI, serving
from steer.backends import HumanAgent, resolve_backend
from steer.backends._budget import worst_prompt_tokens
from steer.backends._pricing import Price
from steer.cli.run_cmd import parse_adaptation
from steer.errors import InputError, UnknownNameError
from steer.run import run_bank
from steer.schema import Adaptation


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving(FakeOpenAI()) as url:
        yield url


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_test_bank(tmp_path / "bank.parquet", 10, multipart_every=3)


def steer(*args: str, key: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    if key:
        env["OPENAI_API_KEY"] = key
    return subprocess.run(
        [sys.executable, "-m", "steer", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_parse_adaptation() -> None:
    assert parse_adaptation("mc") == Adaptation()
    assert parse_adaptation("hidden;shots=3;prob=mixing") == Adaptation(
        format="hidden", shots=3, prob_mode="mixing"
    )
    label = Adaptation(format="none", shots=2).label()
    assert parse_adaptation(label) == Adaptation(format="none", shots=2)
    for bad, match in [("mc;shots=9", "shots"), ("nope", "format"), ("mc;x=1", "unknown key")]:
        with pytest.raises(InputError, match=match):
            parse_adaptation(bad)


def test_run_with_an_adaptation_and_resume(bank: Path, tmp_path: Path, url: str) -> None:
    out = tmp_path / "run"
    args = ["run", str(bank), "-m", "openai:gpt-4o-mini", "--base-url", url, "-o", str(out),
            "--adapt", "shown;shots=2", "--no-progress"]  # fmt: skip
    first = steer(*args, "--limit", "5")
    assert first.returncode == 0, first.stderr
    assert "5 new responses" in first.stdout
    second = steer(*args)
    assert second.returncode == 0 and "9 new responses, 14 in" in second.stdout
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["adaptation"]["format"] == "shown" and manifest["adaptation"]["shots"] == 2
    assert manifest["generation"]["answer"]["top_logprobs"] == 20
    different = steer(*[a if a != "shown;shots=2" else "mc" for a in args])
    assert different.returncode == 2 and "holds a different run" in different.stderr


def test_dry_run_sends_nothing_and_needs_no_key(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "dry"
    done = steer("run", str(bank), "-m", "openai:gpt-4o", "-o", str(out), "--dry-run",
                 "--adapt", "hidden")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "requests:  28" in done.stdout and "cost:      $" in done.stdout
    assert not out.exists()


def test_max_cost_exit_status(bank: Path, tmp_path: Path, url: str) -> None:
    prices = tmp_path / "p.toml"
    prices.write_text('["pricey"]\ninput = 100000\noutput = 100000\n')
    done = steer("run", str(bank), "-m", "openai:pricey", "--base-url", url, "-o",
                 str(tmp_path / "r"), "--pricing", str(prices), "--max-cost", "5", "-j", "1",
                 "--no-progress")  # fmt: skip
    assert done.returncode == 1 and "--max-cost 5 reached" in done.stderr
    missing = steer("run", str(bank), "-m", "openai:gpt-4o", "-o", str(tmp_path / "k"))
    assert missing.returncode == 2 and "set OPENAI_API_KEY" in missing.stderr


def test_agents_still_run_and_ignore_backend_options(bank: Path, tmp_path: Path) -> None:
    result = run_bank(bank, "agent:human", tmp_path / "h", seed=2)
    assert result.responses.num_rows == 14
    with pytest.raises(InputError, match="takes no options"):
        resolve_backend("agent:oracle", options={"concurrency": 2})
    with pytest.raises(UnknownNameError, match="did you mean 'openai'"):
        resolve_backend("opneai:gpt-4o")


def test_human_agent_errs_towards_the_bias_on_bias_elements() -> None:
    agent = HumanAgent(spec="agent:human", family="agent", model="human", seed=0)
    qs = [q.model_dump() for q in make_questions(600)]
    answers = agent.answer(qs)
    bias = [
        (q, a) for q, a in zip(qs, answers, strict=True) if q["element"].startswith("steer.2.2")
    ]
    other = [(q, a) for q, a in zip(qs, answers, strict=True) if q not in [b[0] for b in bias]]
    # Every distractor of the test bank is tagged as a bias, so a human-like
    # agent is wrong about bias_rate of the time everywhere they are tagged.
    wrong = sum(a.chosen_index != q["correct_index"] for q, a in bias) / len(bias)
    assert abs(wrong - agent.bias_rate) < 0.1
    plain = [dict(q, option_tags=None) for q, _ in other]
    acc = sum(
        a.chosen_index == q["correct_index"]
        for q, a in zip(plain, agent.answer(plain), strict=True)
    ) / len(plain)
    assert abs(acc - agent.accuracy) < 0.07
    assert agent.answer(qs[:5]) == answers[:5]  # deterministic


def test_vllm_missing_is_a_clear_error() -> None:
    try:
        import vllm  # noqa: F401
    except ImportError:
        with pytest.raises(InputError, match=r"pip install 'steer\[vllm\]'"):
            resolve_backend("vllm:meta-llama/Llama-3.1-8B-Instruct")
    else:  # pragma: no cover
        pytest.skip("vLLM is installed; the missing-extra message cannot be shown")


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--max-cost", "nan", "--max-cost must be a number of USD >= 0"),
        ("--timeout", "nan", "option 'timeout_s'"),
        ("--max-retry-wait", "nan", "option 'max_retry_wait_s'"),
        ("--retry-budget", "inf", "--retry-budget"),
    ],
)
def test_nan_and_infinite_limits_are_refused(
    bank: Path, tmp_path: Path, url: str, option: str, value: str, message: str
) -> None:
    pricing = tmp_path / "p.toml"
    pricing.write_text("[m]\ninput = 1\noutput = 1\n")
    out = tmp_path / "run"
    result = steer(
        "run", str(bank), "-m", "openai:m", "--base-url", url, "-o", str(out),
        "--pricing", str(pricing), option, value,
    )  # fmt: skip
    assert result.returncode == 2 and message in result.stderr
    assert not (out / "journal.jsonl").exists()
    if not result.stderr.startswith("Usage:"):  # click's own usage errors have a header
        assert result.stderr.count("\n") == 1, result.stderr


@pytest.mark.parametrize("jobs", ["1", "4"])
def test_max_cost_spends_up_to_one_request_short_of_the_budget(
    tmp_path: Path, url: str, jobs: str
) -> None:
    # The loopback server reports usage (prompt characters / 4 tokens); the
    # worst case reserved per request is about characters / 2 plus max_tokens.
    bank = write_test_bank(tmp_path / "bank.parquet", 40)
    prices = tmp_path / "p.toml"
    prices.write_text('["pricey"]\ninput = 10000\noutput = 10000\n')
    out, budget = tmp_path / "r", 10.0
    done = steer("run", str(bank), "-m", "openai:pricey", "--base-url", url, "-o", str(out),
                 "--pricing", str(prices), "--max-cost", str(budget), "-j", jobs,
                 "--no-progress", key="sk-test")  # fmt: skip
    assert done.returncode == 1, done.stderr
    spent = json.loads((out / "manifest.json").read_text())["spent_usd"]
    lines = [json.loads(line) for line in (out / "transcripts.jsonl").read_text().splitlines()]
    exchanges = [e for line in lines for e in line["exchanges"]]
    paid = sum(e["cost_usd"] or 0 for e in exchanges)
    assert spent == pytest.approx(paid) and spent > 0
    price = Price(10000, 10000)
    worst = max(
        price.cost(worst_prompt_tokens(e["messages"]), e["params"]["max_tokens"]) for e in exchanges
    )
    assert budget - worst <= spent <= budget, (spent, worst)
    # The stop message reports the real spend, not the spend before the run.
    assert f"--max-cost 10 reached (${spent:.4f} spent on this directory)" in done.stderr
    assert len(exchanges) > 5  # -j 4 no longer stops after one request


def test_a_huge_limit_is_a_usage_error(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "rr"
    done = steer("run", str(bank), "-m", "agent:oracle", "-o", str(out),
                 "--limit", "99999999999999999999999")  # fmt: skip
    assert done.returncode == 2 and "--limit" in done.stderr, done.stderr
    assert "internal error" not in done.stderr and not out.exists()
    with pytest.raises(InputError, match="--limit must be an integer from 0 to"):
        run_bank(bank, "agent:oracle", out, limit=2**64)
    assert not out.exists()


@pytest.mark.parametrize(
    ("option", "field"),
    [
        ("temperature=nan", "temperature"),
        ("temperature=Infinity", "temperature"),
        ("temperature=-1", "temperature"),
        ("seed=100000000000000000000000000", "seed"),
        ("batch_poll_s=Infinity", "batch_poll_s"),
    ],
)
def test_bad_backend_options_leave_nothing_behind(
    bank: Path, tmp_path: Path, url: str, option: str, field: str
) -> None:
    out = tmp_path / "rr2"
    done = steer("run", str(bank), "-m", "openai:m", "--base-url", url, "-o", str(out),
                 "--backend-opt", option, "--no-progress", key="sk-test")  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and f"option '{field}'" in done.stderr, done.stderr
    assert "internal error" not in done.stderr
    assert not out.exists()  # no manifest, cache or lock


def test_a_different_run_names_the_setting_that_differs(
    bank: Path, tmp_path: Path, url: str
) -> None:
    out = tmp_path / "r"
    base = ["run", str(bank), "-m", "openai:m", "--base-url", url, "-o", str(out), "--no-progress"]
    assert steer(*base, key="sk-test").returncode == 0
    other = steer(*base, "--backend-opt", "temperature=0.7", key="sk-test")
    assert other.returncode == 2 and other.stderr.count("\n") == 1, other.stderr
    assert "generation.answer.temperature was 0.0, now 0.7" in other.stderr, other.stderr
    assert len(other.stderr) < 300, other.stderr
