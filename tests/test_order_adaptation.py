"""The `order=shuffle:K` adaptation and the position metrics (issue 20 §5).

Each question is asked under K seeded permutations of its options; the
permutation index is part of the adaptation (so the K answers are distinct
responses), the chosen letter is mapped back to the bank's option order, and
`position_agreement` / `position_robustness` read how the answers move. A
plain-Python reference of both metrics is checked against the vectorised one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank_factory import write_test_bank
from steer.adapt._order import (
    order_passes,
    parse_order,
    shown_order,
    shuffle_question,
    to_bank_order,
)
from steer.backends._base import Answer, Backend
from steer.errors import InputError
from steer.run import run_bank
from steer.run._transcripts import TRANSCRIPTS
from steer.schema import RESPONSE_SCHEMA, Adaptation
from steer.score import load_responses, score
from steer.score._position import question_values

# --- the order spec -----------------------------------------------------------------------


def test_order_spec_and_passes() -> None:
    assert parse_order("shuffle:4") == (4, None)
    assert parse_order("shuffle:4/3") == (4, 3)
    assert order_passes(None) == [None]
    assert order_passes("shuffle:3") == ["shuffle:3/0", "shuffle:3/1", "shuffle:3/2"]
    assert order_passes("shuffle:3/1") == ["shuffle:3/1"]
    for bad in ("shuffle", "shuffle:0", "shuffle:4/4", "rotate:2", "shuffle:-1", "shuffle:65"):
        with pytest.raises(ValueError):
            parse_order(bad)
    a = Adaptation(order="shuffle:4/1")
    assert a.label() == "mc;shots=0;cot=none;prob=conditioning;order=shuffle:4/1"
    # Without an order the label reads as before.
    assert Adaptation().label() == "mc;shots=0;cot=none;prob=conditioning"
    with pytest.raises(ValueError):
        Adaptation(order="shuffle:x")


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=20), st.integers(1, 8), st.integers(0, 2**32), st.data())
def test_permutations_map_answers_back(qid: str, n: int, seed: int, data: st.DataObject) -> None:
    k = data.draw(st.integers(1, 12))
    orders = [shown_order(qid, n, seed, i) for i in range(k)]
    assert orders == [shown_order(qid, n, seed, i) for i in range(k)]  # deterministic
    for order in orders:
        assert sorted(order) == list(range(n))
    # Rotations of one base: for K ≤ n the first option shown differs every time.
    firsts = [o[0] for o in orders[: min(k, n)]]
    assert len(set(firsts)) == len(firsts)
    key = data.draw(st.integers(0, n - 1))
    q = {
        "question_id": qid,
        "options": [f"opt{i}" for i in range(n)],
        "option_tags": ["key" if i == key else f"d{i}" for i in range(n)],
        "correct_index": key,
    }
    order = orders[-1]
    shown = shuffle_question(q, order)
    assert shown["options"][shown["correct_index"]] == f"opt{key}"
    assert shown["option_tags"][shown["correct_index"]] == "key"
    chosen = data.draw(st.integers(-1, n - 1))
    probs = data.draw(st.lists(st.floats(0, 1), min_size=n, max_size=n))
    back, correct, mapped = to_bank_order(shown, chosen, probs)
    # Reference: the option text the reply named, found in the bank's order.
    assert back == (-1 if chosen < 0 else q["options"].index(shown["options"][chosen]))
    assert correct == key
    assert mapped is not None
    for shown_pos, p in enumerate(probs):
        assert mapped[q["options"].index(shown["options"][shown_pos])] == p


# --- reference agents that read positions, not content -----------------------------------


@dataclass
class FirstLetterAgent(Backend):
    """Always answers the first option shown (a pure position bias)."""

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        n = [len(q["options"]) for q in questions]
        return [Answer(chosen_index=0, option_probs=[1.0] + [0.0] * (k - 1)) for k in n]


def first_letter() -> FirstLetterAgent:
    return FirstLetterAgent("agent:first", "agent", "first")


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # 40 four-option questions, every 5th with a second part; keys spread over positions.
    return write_test_bank(tmp_path_factory.mktemp("bank") / "bank.parquet", 40, multipart_every=5)


def shuffled(k: int) -> Adaptation:
    return Adaptation(order=f"shuffle:{k}")


def test_shuffle_run_asks_k_distinct_permutations(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = run_bank(bank, first_letter(), out, adaptation=shuffled(4))
    table = result.responses
    n_parts = pa.parquet.read_table(bank).num_rows
    assert table.num_rows == 4 * n_parts and result.n_new == 4 * n_parts
    orders = Counter(a["order"] for a in table["adaptation"].to_pylist())
    assert orders == {f"shuffle:4/{i}": n_parts for i in range(4)}
    # The manifest keeps the run's adaptation; answers are in the bank's order.
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["adaptation"]["order"] == "shuffle:4"
    by_question: dict[str, set[int]] = defaultdict(set)
    for row in table.to_pylist():
        by_question[row["question_id"]].add(row["chosen_index"])
    # Four rotations of four options: "always A" picks a different option each time.
    assert all(len(chosen) == 4 for chosen in by_question.values())
    # The transcripts keep what the agent saw: the pass, the permuted options, letter A.
    lines = [json.loads(x) for x in (out / TRANSCRIPTS).read_text().splitlines()]
    assert Counter(t["adaptation"]["order"] for t in lines) == orders
    assert {a["chosen_index"] for t in lines for a in t["answers"]} == {0}
    shown = {(t["given"][0]["question_id"], tuple(t["given"][0]["options"])) for t in lines}
    assert len(shown) == 4 * n_parts  # four different orders of every question
    # Resuming asks nothing again; the K answers are distinct keys (no duplicate error).
    again = run_bank(bank, first_letter(), out, adaptation=shuffled(4))
    assert again.n_new == 0 and again.responses.num_rows == table.num_rows
    loaded = load_responses([out])
    assert loaded.table.num_rows == table.num_rows


def test_position_metrics_expose_a_position_bias(bank: Path, tmp_path: Path) -> None:
    run_bank(bank, first_letter(), tmp_path / "first", adaptation=shuffled(4))
    run_bank(bank, "agent:oracle", tmp_path / "oracle", adaptation=shuffled(4))
    metrics = ["position_agreement", "position_robustness", "exact_match"]
    scored = score(
        [tmp_path / "first", tmp_path / "oracle"],
        by=["model", "adaptation"],
        metrics=metrics,
        bootstrap=200,
    ).to_pylist()
    assert len(scored) == 8  # 2 models × 4 permutations
    for row in scored:
        if row["model"] == "agent:first":
            assert row["position_agreement"] == 0.0
            assert row["position_robustness"] == 0.0
            assert row["position_robustness_hi"] <= 0.05
        else:
            assert row["position_agreement"] == row["position_robustness"] == 1.0
            assert row["position_robustness_lo"] == 1.0
        assert row["adaptation"].startswith("mc;shots=0;cot=none;prob=conditioning;order=")
    # One value per run: the K permutation cards of a model agree.
    for model in ("agent:first", "agent:oracle"):
        assert len({r["position_agreement"] for r in scored if r["model"] == model}) == 1
    # A run without permutations has no position metrics (null, never a fake 1.0).
    run_bank(bank, "agent:oracle", tmp_path / "plain")
    plain = score([tmp_path / "plain"], by=["model"], metrics=metrics).to_pylist()
    assert plain[0]["position_agreement"] is None and plain[0]["exact_match"] == 1.0


def test_chat_backend_answers_are_mapped_back(bank: Path, tmp_path: Path, fake: Any) -> None:
    """The fake server always answers B: under shuffle:2 the two answers of a
    question name two different options of the bank."""
    _, url = fake
    options = {"base_url": url, "retry_base_s": 0.02, "retry_cap_s": 0.1}
    result = run_bank(
        bank, "openai:gpt-4o-mini", tmp_path / "chat", adaptation=shuffled(2),
        backend_options=options,
    )  # fmt: skip
    rows = result.responses.to_pylist()
    chosen: dict[str, list[int]] = defaultdict(list)
    for row in rows:
        chosen[row["question_id"]].append(row["chosen_index"])
        # Probabilities follow the options: the top one is the chosen option.
        probs = row["option_probs"]
        assert probs is not None and probs.index(max(probs)) == row["chosen_index"]
    assert all(len(c) == 2 and c[0] != c[1] for c in chosen.values())
    scored = score([tmp_path / "chat"], by=["model"], metrics=["position_agreement"])
    assert scored["position_agreement"].to_pylist() == [0.0]


def test_cli_run_and_score_with_order(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli"

    def steer(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "steer", *args], capture_output=True, text=True, check=False
        )

    done = steer(
        "run", str(bank), "-m", "agent:oracle", "-o", str(out), "--adapt", "mc;order=shuffle:2"
    )
    assert done.returncode == 0, done.stderr
    shown = steer("score", str(out), "--by", "model", "--metric", "position_robustness")
    assert shown.returncode == 0, shown.stderr
    assert "position_robustness" in shown.stdout and "1.000" in shown.stdout
    bad = steer("run", str(bank), "-m", "agent:oracle", "-o", str(out), "--adapt", "mc;order=rot")
    assert bad.returncode == 2 and "shuffle:K" in bad.stderr


def test_bad_order_is_refused() -> None:
    with pytest.raises(InputError):
        from steer.cli.run_cmd import parse_adaptation

        parse_adaptation("mc;order=shuffle:0")


# --- the metrics against a plain reference -----------------------------------------------


def reference(rows: list[dict[str, Any]]) -> tuple[float, float]:
    """(agreement, worst-permutation accuracy) over questions asked ≥ 2 times."""
    by_q: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_q[r["question_id"]].append(r)
    agree, worst = [], []
    for answers in by_q.values():
        m = len(answers)
        if m < 2:
            continue
        counts = Counter(a["chosen_index"] for a in answers if a["chosen_index"] >= 0)
        agree.append(sum(c * (c - 1) for c in counts.values()) / (m * (m - 1)))
        if answers[0]["correct_index"] is not None:
            worst.append(float(all(a["chosen_index"] == a["correct_index"] for a in answers)))
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return mean(agree), mean(worst)


@st.composite
def response_tables(draw: st.DrawFn) -> list[dict[str, Any]]:
    k = draw(st.integers(1, 4))
    rows = []
    for q in range(draw(st.integers(1, 8))):
        n = draw(st.integers(2, 4))
        graded = draw(st.booleans())
        key = draw(st.integers(0, n - 1)) if graded else None
        asked = draw(st.lists(st.integers(0, k - 1), min_size=1, max_size=k, unique=True))
        for i in asked:
            rows.append(
                {
                    "run_id": "r",
                    "model": "m",
                    "backend": "agent",
                    "adaptation": {**Adaptation(order=f"shuffle:{k}/{i}").model_dump()},
                    "question_id": f"e/q{q}/0",
                    "base_id": f"q{q}",
                    "part": 0,
                    "element": "steer.1.1.c",
                    "n_options": n,
                    "chosen_index": draw(st.integers(-1, n - 1)),
                    "correct_index": key,
                    "grading": "answer",
                }
            )
    return rows


@settings(max_examples=80, deadline=None)
@given(response_tables())
def test_question_values_match_the_reference(rows: list[dict[str, Any]]) -> None:
    table = pa.Table.from_pylist(
        rows,
        schema=pa.schema([RESPONSE_SCHEMA.field(n) for n in rows[0] if n in RESPONSE_SCHEMA.names]),
    )
    group, agreement, worst, strings = question_values(table, ["model"])
    want_agree, want_worst = reference(rows)
    got_agree = float(agreement.mean()) if len(agreement) else float("nan")
    graded = worst[~(worst != worst)]
    got_worst = float(graded.mean()) if len(graded) else float("nan")
    assert got_agree == pytest.approx(want_agree, nan_ok=True)
    assert got_worst == pytest.approx(want_worst, nan_ok=True)
    assert set(group.tolist()) <= set(range(len(strings)))


def test_a_rubric_check_bounds_position_robustness(bank: Path, tmp_path: Path) -> None:
    rubric = tmp_path / "position.toml"
    rubric.write_text(
        'name = "position"\nextends = "whole-benchmark"\n\n[[check]]\ncode = "POS001"\n'
        'metric = "position_robustness"\nmin = 0.8\nseverity = "error"\n'
        'message = "answers must not depend on the option order"\n',
        encoding="utf-8",
    )
    run_bank(bank, first_letter(), tmp_path / "first", adaptation=shuffled(4))
    run_bank(bank, "agent:oracle", tmp_path / "oracle", adaptation=shuffled(4))

    def grade(run: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "steer", "grade", str(run), "--rubric", str(rubric)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip

    biased = grade(tmp_path / "first")
    assert "POS001" in biased.stdout and "position_robustness 0.000" in biased.stdout
    assert biased.returncode == 1
    assert "POS001" not in grade(tmp_path / "oracle").stdout


def test_dry_run_counts_every_pass(bank: Path, fake: Any) -> None:
    from steer.run import estimate_run

    _, url = fake
    options = {"base_url": url}
    n = pa.parquet.read_table(bank).num_rows
    assert estimate_run(bank, "agent:oracle", adaptation=shuffled(3)).questions == 3 * n
    once = estimate_run(bank, "openai:gpt-4o-mini", backend_options=options)
    thrice = estimate_run(
        bank, "openai:gpt-4o-mini", adaptation=shuffled(3), backend_options=options
    )
    assert thrice.requests == 3 * once.requests and thrice.tokens_in == 3 * once.tokens_in


@settings(max_examples=25, deadline=None)
@given(st.floats(0.1, 0.9), st.integers(0, 2**32))
def test_bootstrap_interval_matches_the_normal_approximation(p: float, seed: int) -> None:
    from steer.score._position import _bootstrap

    rng = np.random.default_rng(seed)
    values = (rng.random(3000) < p).astype(float)
    lo, hi = _bootstrap(values, 2000, seed, "group", 0.95)
    mean = values.mean()
    half = 1.96 * (mean * (1 - mean) / len(values)) ** 0.5
    assert lo <= mean <= hi
    assert abs((hi - lo) - 2 * half) < 0.35 * 2 * half
    assert (lo, hi) == _bootstrap(values, 2000, seed, "group", 0.95)  # seeded by the key
