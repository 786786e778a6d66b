"""`steer generate --llm`: a model writes questions from a template's example,
steer parses them, proves their keys with the template's solver and records
where they came from. The model is a real HTTP server on loopback speaking the
OpenAI chat-completions protocol, reached through the real `openai` client."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from llm_fixtures import FAKE_KEY, Reply
from openai_server import FakeOpenAI
from steer.cli import cli
from steer.errors import InputError
from steer.generate import SOLVERS
from steer.generate._registry import Instance
from steer.generate.llm import LLMOptions, generate_llm_bank
from steer.generate.llm._parse import parse_reply
from steer.generate.llm._reject import Rejected
from steer.generate.llm._select import select_templates
from steer.generate.llm._verify import _Blank, key_pattern

# --- scripted model replies ------------------------------------------------------

_counter = itertools.count()


def example_of(messages: list[dict[str, str]]) -> dict[str, Any]:
    """The gold example embedded in the generation prompt."""
    user = messages[1]["content"]
    start = user.index("{", user.index("Here is "))
    end = user.index("\n\nWrite ONE new question")
    return dict(json.loads(user[start:end]))


def is_retry(messages: list[dict[str, str]]) -> bool:
    return any(m["role"] == "assistant" for m in messages)


def echo(messages: list[dict[str, str]], **change: Any) -> str:
    """The example's problem and options under a new wording (a valid question)."""
    q = example_of(messages)
    q["question_text"] = f"[variant {next(_counter)}] {q['question_text']}"
    q.update(change)
    return json.dumps({k: v for k, v in q.items() if v is not None})


def valid(messages: list[dict[str, str]]) -> str:
    return echo(messages)


def wrong_key(messages: list[dict[str, str]]) -> str:
    q = example_of(messages)
    if "parts" in q:  # a consistency-graded question has no key to move
        return echo(messages)
    return echo(messages, correct_index=(q["correct_index"] + 1) % len(q["options"]))


def fresh_lottery(messages: list[dict[str, str]]) -> str:
    """A new expected-value question with its own numbers and a correct key."""
    n = next(_counter)
    values, probs = [10.0 + n, 50.0 + 2 * n], [0.25, 0.75]
    ev = values[0] * probs[0] + values[1] * probs[1]
    options = [f"${ev:.2f}", f"${sum(values):.2f}", f"${values[1]:.2f}", f"${ev * 0.5:.2f}"]
    return json.dumps(
        {
            "question_text": f"A raffle ticket (#{n}) pays ${values[0]:g} with probability "
            f"25% and ${values[1]:g} with probability 75%. What is its expected value?",
            "options": options,
            "correct_index": 0,
            "explanation": f"0.25 × {values[0]:g} + 0.75 × {values[1]:g} = {ev:.2f}.",
            "payload": {"values": values, "probs": probs},
        }
    )


def run(url: str, reply: Reply, state: FakeOpenAI, **kw: Any) -> tuple[Any, Any]:
    state.reply = reply
    options = {"base_url": url, "attempts": 2, "max_retries": 0, **kw.pop("options", {})}
    kw.setdefault("grades", (3, 3))
    kw.setdefault("domains", ["games of chance"])
    return generate_llm_bank(
        "openai:test-model", kw.pop("elements", ["1.1.c"]), options=options, **kw
    )


def provenance(row: dict[str, Any]) -> dict[str, Any]:
    (tag,) = [t for t in row["tags"] if t.startswith("provenance:")]
    return dict(json.loads(tag.removeprefix("provenance:")))


def chats(state: FakeOpenAI) -> list[dict[str, Any]]:
    return [e for e in state.log if e["path"] == "/v1/chat/completions"]


# --- (a) valid questions whose payloads verify ---------------------------------------


def test_valid_questions_are_verified_and_traced(fake: Any) -> None:
    state, url = fake
    table, summary = run(url, fresh_lottery, state, per_cell=3)
    rows = table.to_pylist()
    assert (summary.accepted, summary.verified, summary.requested) == (3, 3, 3)
    assert not summary.rejected and summary.failed == 0 and summary.requests == 3
    for row in rows:
        assert row["source"] == "llm:openai:test-model"
        assert row["template_id"] == "ce.fair-wheel" and row["element"] == "steer.1.1.c"
        assert row["option_tags"][row["correct_index"]] == "key"
        prov = provenance(row)
        assert prov["model"] == "test-model" and prov["attempts"] == 1 and prov["verified"]
        assert prov["base_url_host"] == url.split("/")[2]
        assert prov["response_id"].startswith("chatcmpl-") and len(prov["prompt_sha256"]) == 64
        # The stored payload re-proves the key on its own.
        solved = SOLVERS["expected_value"].solve(Instance(json.loads(row["payload"]), _Blank()))
        assert row["answer_value"] == pytest.approx(round(solved.value or 0, 2))
        assert row["options"][row["correct_index"]] == f"${solved.value:.2f}"
    prompt = chats(state)[0]["last_user"]
    assert "Skill under test: Compute Expectations (1.1.c)" in prompt
    assert "Grade level: 3" in prompt and "- forgot_probability: " in prompt
    assert '"payload": the problem in the same structure' in prompt
    # The key went to the server and nowhere else.
    assert {e["auth"] for e in chats(state)} == {f"Bearer {FAKE_KEY}"}
    assert FAKE_KEY not in json.dumps(rows)


@pytest.mark.parametrize(
    "selector", ["1.1.c", "steer.1.3.*", "3.1.b", "3.1.c", "4.2.a", "steer.4.4.*"]
)
def test_every_answer_kind_verifies_through_the_solver(fake: Any, selector: str) -> None:
    """Numeric, choice and text answers: a correct question passes, a shifted key fails."""
    state, url = fake
    table, summary = run(url, valid, state, elements=[selector], domains=None, grades=None)
    assert summary.accepted == summary.requested == summary.verified > 0, summary.lines()
    assert table.num_rows == summary.accepted
    _, bad = run(url, wrong_key, state, elements=[selector], domains=None, grades=None)
    assert bad.accepted == 0 and bad.failed == bad.requested
    assert set(bad.rejected) <= {"wrong_key", "options_too_close"}, bad.lines()
    assert bad.rejected["wrong_key"] > 0


def reordered(messages: list[dict[str, str]], shift: int = 0) -> str:
    """The example with its options reversed and its key following them
    (moved `shift` more places: a wrong key)."""
    q = example_of(messages)
    n = len(q["options"])
    key = n - 1 - q["correct_index"]
    return echo(messages, options=q["options"][::-1], correct_index=(key + shift) % n)


@pytest.mark.parametrize("selector", ["1.1.c", "3.1.b", "3.1.c", "3.2.b", "4.2.a", "4.2.b"])
def test_options_in_another_order_verify_and_a_moved_key_does_not(fake: Any, selector: str) -> None:
    """Numbers, text keys and named choices (actions, candidates) identify the
    key by content: a correct question verifies in any option order."""
    state, url = fake
    kw = {"elements": [selector], "domains": None, "grades": None}
    table, summary = run(url, reordered, state, **kw)
    assert summary.accepted == summary.requested == summary.verified > 0, summary.lines()
    for row in table.to_pylist():
        assert row["option_tags"][row["correct_index"]] == "key"
    _, bad = run(url, lambda m: reordered(m, shift=1), state, **kw)
    assert bad.accepted == 0 and bad.rejected["wrong_key"] > 0, bad.lines()


def test_the_example_is_shown_in_its_payloads_order(fake: Any) -> None:
    """Generated banks show options in a seeded order, but the model is asked
    for options that follow its payload: the example it sees does so."""
    state, url = fake
    run(url, valid, state, elements=["steer.3.1.c"], domains=None, grades=None)
    shown = []
    for entry in chats(state):
        user = entry["last_user"]
        start = user.index("{", user.index("Here is "))
        example = json.loads(user[start : user.index("\n\nWrite ONE new question")])
        payload = example["payload"]
        actions = payload["row_actions" if payload["player"] == 0 else "col_actions"]
        assert example["options"] == actions
        shown.append(example["correct_index"])
    assert len(set(shown)) > 1  # the key's position varies with the problem


def test_every_shipped_template_round_trips(fake: Any) -> None:
    """Each template's own verified example, re-asked as a model reply, verifies from its
    payload alone; with the key moved to another option it never does."""
    state, url = fake
    kw = {"elements": None, "suite": "steer", "domains": None, "grades": None}
    table, summary = run(url, valid, state, options={"attempts": 1}, **kw)
    assert summary.accepted == summary.verified == summary.requested > 100, summary.lines()
    multipart = [r for r in table.to_pylist() if r["grading"] == "consistency"]
    # One row per part: a consistency unit of k parts adds k - 1 rows.
    extra = len(multipart) - len({r["base_id"] for r in multipart})
    assert multipart and table.num_rows == summary.accepted + extra
    _, bad = run(url, wrong_key, state, options={"attempts": 1}, **kw)
    # Consistency-graded questions have no key to move (see test_generate_llm_consistency).
    n_multipart = len({r["base_id"] for r in multipart})
    assert bad.accepted == n_multipart
    assert bad.rejected == {"wrong_key": bad.requested - n_multipart}, bad.lines()


def test_names_in_text_keys_are_wildcards_used_consistently() -> None:
    blank = _Blank()
    pattern = key_pattern(
        f"{blank['leader']}: Enter; {blank['follower']}: Fight after {blank['leader']}"
    )
    assert pattern.fullmatch("Acme: Enter; Beta: Fight after Acme")
    assert not pattern.fullmatch("Acme: Enter; Beta: Fight after Gamma")
    assert not pattern.fullmatch("Acme: Stay out; Beta: Fight after Acme")
    # A name is a name: it cannot swallow a clause of the profile.
    assert not pattern.fullmatch("Acme: Enter; Beta: Fight after Acme; Beta: Fight after Acme")


# --- (b) malformed JSON, (c) a wrong key, (d) missing fields ---------------------------


def test_malformed_json_is_rejected_then_retried(fake: Any) -> None:
    state, url = fake
    table, summary = run(
        url, lambda m: valid(m) if is_retry(m) else '{"question_text": "oops", ', state, per_cell=2
    )
    assert summary.accepted == 2 and summary.rejected == {"bad_json": 2}
    assert {provenance(r)["attempts"] for r in table.to_pylist()} == {2}
    # The retry told the model why its reply was turned down.
    retries = [e["last_user"] for e in chats(state) if "rejected (bad_json" in e["last_user"]]
    assert len(retries) == 2 and summary.requests == 4


def test_wrong_key_is_rejected_by_the_solver(fake: Any) -> None:
    state, url = fake
    table, summary = run(url, wrong_key, state, per_cell=2)
    assert table.num_rows == 0 and summary.accepted == 0 and summary.failed == 2
    assert summary.rejected == {"wrong_key": 4}  # 2 questions × 2 attempts
    assert "the solver gives" in summary.details["wrong_key"]
    assert any("rejected 4 × wrong_key" in line for line in summary.lines())


def test_missing_fields_are_rejected(fake: Any) -> None:
    state, url = fake
    _, summary = run(url, lambda m: echo(m, explanation=None, payload=None), state)
    assert summary.accepted == 0 and summary.rejected == {"missing_fields": 2}
    assert summary.details["missing_fields"] == "explanation"


def test_mixed_replies_counted_by_reason(fake: Any) -> None:
    state, url = fake
    script = itertools.cycle(["valid", "bad_json", "wrong_key", "missing"])

    def reply(messages: list[dict[str, str]]) -> str:
        kind = next(script)
        if kind == "bad_json":
            return "Sure! Here is your question: {"
        if kind == "wrong_key":
            return wrong_key(messages)
        if kind == "missing":
            return json.dumps({"question_text": "What?", "options": ["a", "b", "c", "d"]})
        return valid(messages)

    table, summary = run(url, reply, state, per_cell=4, options={"concurrency": 1, "attempts": 1})
    assert summary.accepted == table.num_rows == 1 and summary.failed == 3
    assert summary.rejected == {"bad_json": 1, "wrong_key": 1, "missing_fields": 1}


def test_payload_shape_uniqueness_and_optional_payload(fake: Any) -> None:
    state, url = fake
    _, bad = run(url, lambda m: echo(m, payload={"values": [1, 2]}), state)
    assert bad.rejected == {"bad_payload": 2} and "lacks probs" in bad.details["bad_payload"]
    _, size = run(url, lambda m: echo(m, payload={"values": [1, 2, 3], "probs": [0.2] * 3}), state)
    assert size.rejected == {"bad_payload": 2} and "grade 3 uses 2" in size.details["bad_payload"]
    _, copied = run(url, lambda m: json.dumps(example_of(m)), state)
    assert copied.rejected == {"copied_example": 2}
    plain, summary = run(url, lambda m: echo(m, payload=None), state)
    assert summary.accepted == 1 and summary.verified == 0
    row = plain.to_pylist()[0]
    assert row["payload"] is None and "unverified" in row["tags"]
    _, strict = run(url, lambda m: echo(m, payload=None), state,
                    options={"require_payload": True})  # fmt: skip
    assert strict.rejected == {"no_payload": 2}


def test_the_template_formula_is_never_taken_from_the_model(fake: Any) -> None:
    """`formula` templates keep their own answer expression whatever the payload says."""
    state, url = fake

    def reply(messages: list[dict[str, str]]) -> str:
        q = example_of(messages)
        return echo(messages, payload={**q["payload"], "answer": "0"})

    table, summary = run(url, reply, state, elements=["1.1.a"], domains=["retail"], grades=None)
    assert summary.accepted == summary.verified == summary.requested > 0, summary.lines()
    for row in table.to_pylist():
        assert json.loads(row["payload"])["answer"] == "start + delivered - sold"

    def cheat(messages: list[dict[str, str]]) -> str:
        q = example_of(messages)
        # Key the "0" option and claim the formula is 0: the template's formula still rules.
        options = [*q["options"][:-1], "0"]
        return echo(messages, options=options, correct_index=len(options) - 1,
                    payload={**q["payload"], "answer": "0"})  # fmt: skip

    _, cheated = run(url, cheat, state, elements=["1.1.a"], domains=["retail"], grades=None)
    assert cheated.accepted == 0 and set(cheated.rejected) == {"wrong_key"}


# --- the parser on its own ---------------------------------------------------------------


def good(**change: Any) -> str:
    q = {"question_text": "Q?", "options": ["1", "2", "3", "4"], "correct_index": 1,
         "explanation": "Because."}  # fmt: skip
    q.update(change)
    return json.dumps({k: v for k, v in q.items() if v is not None})


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("not json", "bad_json"),
        ("[1, 2]", "bad_json"),
        (good(options=None), "missing_fields"),
        (good(correct_index=4), "index_out_of_range"),
        (good(correct_index=-1), "index_out_of_range"),
        (good(options=["1", "2", "2 ", "4"]), "duplicate_options"),
        (good(options=["1", "2", "3"]), "wrong_option_count"),
        (good(correct_index="1"), "bad_fields"),
        (good(extra="x"), "bad_fields"),
    ],
)
def test_parser_rejects_with_a_reason(reply: str, reason: str) -> None:
    with pytest.raises(Rejected) as info:
        parse_reply(reply, 4)
    assert info.value.reason == reason


def test_parser_accepts_fenced_json() -> None:
    q = parse_reply("```json\n" + good() + "\n```", 4)
    assert q.correct_index == 1 and q.payload is None


# --- transport, keys and the command line --------------------------------------------------


def invoke(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_cli_writes_a_bank_without_the_key(fake: Any, tmp_path: Path) -> None:
    state, url = fake
    state.reply = fresh_lottery
    bank = tmp_path / "bank.parquet"
    result = invoke("generate", "--llm", "openai:test-model", "--base-url", url,
                    "--elements", "1.1.c", "--grades", "3", "--per-cell", "2",
                    "--seed", "7", "-o", str(bank))  # fmt: skip
    assert result.exit_code == 0, result.output
    # Two questions per 1.1.c template (one per domain) with a grade 3.
    n = 2 * len(select_templates(["1.1.c"], grades=(3, 3)))
    assert n >= 6
    assert f"{n} of {n} questions accepted" in result.output
    assert f"wrote {n} questions" in result.output
    rows = pq.read_table(bank).to_pylist()
    assert len(rows) == n and {r["source"] for r in rows} == {"llm:openai:test-model"}
    assert FAKE_KEY.encode() not in bank.read_bytes()
    assert FAKE_KEY not in result.output


def test_cli_bad_input_exits_2_on_one_line(fake: Any, tmp_path: Path, monkeypatch: Any) -> None:
    state, url = fake
    out = tmp_path / "b.parquet"
    cases = [
        (["--llm", "hf:gpt2", "--base-url", url], "openai:MODEL"),
        (["--base-url", url], "--base-url only applies with --llm"),
        (["--llm", "openai:m", "--base-url", url, "--elements", "best_respons"], "did you mean"),
    ]
    for args, needle in cases:
        result = invoke("generate", *args, "-o", str(out))
        assert result.exit_code == 2, result.output
        assert needle in result.output and len(result.output.strip().splitlines()) <= 2
    # A rejected key stops the run with one line that does not repeat the key.
    state.faults.append("401")
    state.reply = valid
    result = invoke("generate", "--llm", "openai:m", "--base-url", url, "--elements", "1.1.c",
                    "--domains", "games of chance", "--grades", "3", "--per-cell", "1",
                    "-o", str(out))  # fmt: skip
    assert result.exit_code == 2 and "HTTP 401" in result.output
    assert FAKE_KEY not in result.output and FAKE_KEY[-12:] not in result.output
    # No key and no local server: say which variable to set.
    monkeypatch.delenv("OPENAI_API_KEY")
    result = invoke("generate", "--llm", "openai:m", "--elements", "1.1.c", "-o", str(out))
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.output
    assert not out.exists()


def test_cli_nothing_accepted_exits_1(fake: Any, tmp_path: Path) -> None:
    state, url = fake
    state.reply = wrong_key
    out = tmp_path / "b.parquet"
    result = invoke("generate", "--llm", "openai:m", "--base-url", url, "--elements", "1.1.c",
                    "--grades", "3", "--per-cell", "1", "--llm-attempts", "1",
                    "-o", str(out))  # fmt: skip
    assert result.exit_code == 1 and "wrong_key" in result.output and not out.exists()


def test_server_errors_count_as_failed_requests(fake: Any) -> None:
    state, url = fake
    state.faults.extend(["500", "malformed"])
    _, summary = run(url, fresh_lottery, state, options={"attempts": 3})
    assert summary.accepted == 1 and summary.rejected == {"request_failed": 2}
    assert summary.requests == 3 and "HTTP 500" in summary.details["request_failed"]
    with pytest.raises(InputError, match="openai:MODEL"):
        generate_llm_bank("vllm:x", ["1.1.c"], options=LLMOptions(base_url=url))
