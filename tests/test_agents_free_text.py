"""Reference agents answer in free text under --adapt free (issue 21, Done
when): the oracle writes the key in the forms models use and scores 100% on
every generated STEER-ME question; the random agent writes a random option's
value and scores near chance. Both go through `steer run` and `steer score`."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.adapt._free import extract_number, key_in_form, numbers_match, read_free_reply
from steer.backends._agents import _numeric_forms, free_reply
from steer.cli import cli as main
from steer.schema import NO_ANSWER, OFF_OPTIONS


def _invoke(*args: str) -> str:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("free_agents")
    bank = root / "bank.parquet"
    _invoke("generate", "--suite", "steer-me", "--per-cell", "2", "--seed", "11", "-o", str(bank))
    out = {"bank": bank}
    for agent in ("oracle", "random"):
        out[agent] = root / agent
        _invoke("run", str(bank), "--model", f"agent:{agent}", "--adapt", "free",
                "-o", str(out[agent]))  # fmt: skip
    return out


def _scored(run: Path, by: str = "model,answer_kind") -> list[dict]:
    text = _invoke("score", str(run), "--by", by, "--format", "json",
                   "--metric", "exact_match,no_answer_rate,error_rate")  # fmt: skip
    return json.loads(text)


def test_the_oracle_scores_everything_in_free_text(runs: dict[str, Path]) -> None:
    bank = pq.read_table(runs["bank"])
    elements = set(bank["element"].to_pylist())
    assert len(elements) >= 50  # the whole generated STEER-ME suite
    rows = _scored(runs["oracle"])
    kinds = {r["answer_kind"]: r for r in rows}
    assert set(kinds) == {"numeric", "categorical"}
    assert sum(r["n_units"] for r in rows) == bank.num_rows
    for r in rows:
        assert r["exact_match"] == 1.0 and r["no_answer_rate"] == 0.0, r["answer_kind"]
        assert not any(k.startswith("n_error:") and v for k, v in r.items())
    # Every numeric reply was read and equals the key in the question's form.
    responses = pq.read_table(runs["oracle"] / "responses.parquet")
    assert pc.sum(pc.is_valid(responses["answer_read"])).as_py() == kinds["numeric"]["n_units"]


def test_the_oracle_writes_the_forms_models_use(runs: dict[str, Path]) -> None:
    texts = pq.read_table(runs["oracle"] / "responses.parquet")["response_text"].to_pylist()
    joined = "\n".join(texts)
    for marker in ("\\boxed{", "ANSWER:", "$", "e+", "e-", "**", " units", " dollars", "/", ","):
        assert marker in joined, marker
    assert len(set(t.split()[0] for t in texts if t)) >= 5


def test_free_text_runs_are_reproducible(runs: dict[str, Path], tmp_path: Path) -> None:
    again = tmp_path / "again"
    _invoke("run", str(runs["bank"]), "--model", "agent:oracle", "--adapt", "free", "-o",
            str(again))  # fmt: skip
    a = pq.read_table(runs["oracle"] / "responses.parquet").sort_by("question_id")
    b = pq.read_table(again / "responses.parquet").sort_by("question_id")
    assert a["response_text"].to_pylist() == b["response_text"].to_pylist()


def test_the_random_agent_scores_near_chance(runs: dict[str, Path]) -> None:
    responses = pq.read_table(runs["random"] / "responses.parquet")
    n_options = responses["n_options"].to_numpy()
    expected = float(np.sum(1.0 / n_options))
    sd = math.sqrt(float(np.sum((1.0 / n_options) * (1 - 1.0 / n_options))))
    (row,) = _scored(runs["random"], by="model")
    right = row["exact_match"] * row["n_units"]
    assert abs(right - expected) <= 4 * sd, (right, expected, sd)
    assert row["no_answer_rate"] == 0.0
    # Its wrong answers are the distractors it wrote, by their tags.
    wrong = sum(v for k, v in row.items() if k.startswith("n_error:"))
    assert wrong == row["n_units"] - round(right)
    assert row.get("n_error:off_options", 0) == 0
    # The recorded error types are the chosen options' tags.
    chosen = responses["chosen_index"].to_numpy()
    assert (chosen >= 0).all()


def test_mc_runs_are_unchanged_by_free_text(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "mc"
    _invoke("run", str(runs["bank"]), "--model", "agent:oracle", "-o", str(out))
    responses = pq.read_table(out / "responses.parquet")
    assert responses["response_text"].to_pylist()[0] in "ABCDEFGH"
    assert responses["answer_read"].null_count == responses.num_rows


# --- the writer, form by form ----------------------------------------------------------

values = st.one_of(
    st.floats(-1e7, 1e7, allow_nan=False).filter(lambda x: abs(x) > 1e-4),
    st.sampled_from([0.25, 0.75, 1.5, 1234.5, 1e6, -3.2, 0.0004, 12.3456, 3 / 8]),
)


@settings(max_examples=200, deadline=None)
@given(values, st.sampled_from(["number", "money", "percent"]))
def test_every_written_form_reads_back_to_the_value(value: float, form: str) -> None:
    target = key_in_form(value, form)
    for text in _numeric_forms(value, form):
        read = extract_number(text, form)
        assert read is not None and numbers_match(read, target), (text, read, target)


def test_written_fractions_and_percentages() -> None:
    assert "ANSWER: 3/4" in _numeric_forms(0.75, "number")
    assert "25%" in _numeric_forms(0.25, "percent")
    assert "$1,234.50" in _numeric_forms(1234.5, "money")
    assert any("\u2212" in t for t in _numeric_forms(-2.5, "number"))


def test_free_replies_name_the_chosen_option() -> None:
    rng = np.random.default_rng(0)
    numeric = {
        "question_id": "q", "options": ["25%", "20%", "30%"], "correct_index": 0,
        "answer_value": 0.25, "answer_form": "percent",
    }  # fmt: skip
    words = {
        "question_id": "w", "options": ["substitutes", "complements", "neither"],
        "correct_index": 1, "answer_value": None,
    }  # fmt: skip
    for _ in range(30):
        for q in (numeric, words):
            for choice in range(3):
                text = free_reply(q, choice, rng)
                assert read_free_reply(text, q)[0] == choice, text
    assert read_free_reply("nothing here", numeric)[0] == NO_ANSWER


def test_analyze_counts_off_options_answers_as_errors(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from steer.analyze import analyze

    t = pq.read_table(runs["random"] / "responses.parquet")
    chosen = t["chosen_index"].to_numpy().copy()
    wrong = np.flatnonzero(chosen != t["correct_index"].to_numpy())[:10]
    chosen[wrong] = OFF_OPTIONS
    t = t.set_column(t.schema.get_field_index("chosen_index"), "chosen_index",
                     pa.array(chosen, pa.int32()))  # fmt: skip
    path = tmp_path / "off.parquet"
    pq.write_table(t, path)
    (model,) = analyze([path], bank=runs["bank"]).models
    assert model.no_answers == 0
    counts = {e.tag: e.count for e in model.errors}
    assert counts["off_options"] == 10
    assert sum(counts.values()) == int((chosen != t["correct_index"].to_numpy()).sum())
