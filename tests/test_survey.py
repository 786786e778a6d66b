"""Questionnaires (`steer survey`): the instrument format, answering through
steer run, subscale scoring against a plain reference, and the comparison with
published per-item answers."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openai_server import FakeOpenAI
from steer.adapt import Answer
from steer.backends import Backend
from steer.errors import FileFormatError, UnknownNameError
from steer.survey import (
    compare_published,
    load_instrument,
    read_published,
    run_survey,
    subscale_scores,
)
from steer.survey._survey import build_rows

INSTRUMENT = """
name = "mini"
version = 1
source = "test"
license = "test"
instructions = "Rate each statement."
{published}
[scale]
min = 1
max = 5
labels = ["1", "2", "3", "4", "5"]

[scoring]
rule = "{rule}"
"""


def _instrument(tmp_path: Path, items: Sequence[tuple[str, bool, str]], *, rule: str = "mean",
                published: str = "") -> Path:  # fmt: skip
    text = INSTRUMENT.format(rule=rule, published=published)
    for item_id, reverse, subscale in items:
        text += (
            f'\n[[item]]\nid = "{item_id}"\ntext = "Statement {item_id}."\n'
            f'reverse = {str(reverse).lower()}\nsubscale = "{subscale}"\n'
        )
    path = tmp_path / "mini.toml"
    path.write_text(text)
    return path


@dataclass
class Scripted(Backend):
    """Answers item i with `answers[i]` (a scale value) in every sample."""

    answers: dict[str, int] | None = None

    def answer(self, questions: Sequence[dict[str, Any]]) -> list[Answer]:
        assert self.answers is not None
        out = []
        for q in questions:
            item = q["question_id"].split("/")[1][1:].rpartition(".s")[0]
            out.append(Answer(chosen_index=self.answers[item] - 1, response_text="x"))
        return out


def test_the_shipped_instrument_loads_and_bad_files_name_the_field(tmp_path: Path) -> None:
    shipped = load_instrument("decision-style")
    assert shipped.subscales == ["deliberation", "consistency"]
    assert sum(i.reverse for i in shipped.item) == 4
    with pytest.raises(UnknownNameError, match="did you mean 'decision-style'"):
        load_instrument("decision-styl")
    good = _instrument(tmp_path, [("1", False, "a")]).read_text()
    cases = [
        (good.replace('labels = ["1", "2", "3", "4", "5"]', 'labels = ["1", "2"]'), "scale",
         "needs 5 labels"),
        (good + '\n[[item]]\nid = "1"\ntext = "Again."\n', "item[1].id", "repeats"),
        (good.replace('rule = "mean"', 'rule = "median"'), "scoring.rule", "'mean' or 'sum'"),
        (good.replace("version = 1", "version = 1\ncolour = 1"), "colour", "unknown key"),
        (good + "\ncolour = 1\n", "item.0.colour", "unknown key"),
        (good.replace("reverse = false", 'reverse = "maybe"'), "item.0.reverse", "boolean"),
    ]  # fmt: skip
    for i, (text, field, message) in enumerate(cases):
        path = tmp_path / f"bad{i}.toml"
        path.write_text(text)
        with pytest.raises(FileFormatError) as err:
            load_instrument(path)
        assert err.value.field == field and message in str(err.value), str(err.value)


def _reference(items: Sequence[tuple[str, bool, str]], answers: dict[str, int], rule: str
               ) -> dict[str, float]:  # fmt: skip
    by: dict[str, list[int]] = {}
    for item_id, reverse, subscale in items:
        value = answers[item_id]
        by.setdefault(subscale, []).append(6 - value if reverse else value)
    return {s: (sum(v) / len(v) if rule == "mean" else float(sum(v))) for s, v in by.items()}


@settings(max_examples=15, deadline=None)
@given(
    spec=st.lists(st.tuples(st.booleans(), st.sampled_from(["a", "b"]), st.integers(1, 5)),
                  min_size=1, max_size=8),
    rule=st.sampled_from(["mean", "sum"]),
)  # fmt: skip
def test_subscale_scores_match_a_plain_reference(
    tmp_path_factory: pytest.TempPathFactory, spec: list[tuple[bool, str, int]], rule: str
) -> None:
    tmp = tmp_path_factory.mktemp("s")
    items = [(str(i + 1), reverse, sub) for i, (reverse, sub, _) in enumerate(spec)]
    answers = {str(i + 1): value for i, (_, _, value) in enumerate(spec)}
    path = _instrument(tmp, items, rule=rule)
    backend = Scripted(spec="agent:scripted", family="agent", model="scripted", answers=answers)
    done = run_survey(path, backend, tmp / "run", samples=2)  # type: ignore[arg-type]
    got = {r["subscale"]: r for r in subscale_scores(done.instrument, done.run.responses)
           .to_pylist()}  # fmt: skip
    for subscale, value in _reference(items, answers, rule).items():
        assert got[subscale]["score"] == pytest.approx(value)
        assert got[subscale]["n_samples"] == 2
        # The same answers in every sample: the interval is the point.
        assert got[subscale]["score_lo"] == pytest.approx(value)


def test_a_model_answers_over_http_and_a_rerun_asks_nothing(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake  # the server answers "B": 2 on a 1-5 scale
    done = run_survey("decision-style", "openai:gpt-x", tmp_path / "s", samples=3,
                      backend_options={"base_url": url})  # fmt: skip
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(chat) == 8 * 3 and done.run.responses.num_rows == 24
    scores = {r["subscale"]: r["score"] for r in
              subscale_scores(done.instrument, done.run.responses).to_pylist()}  # fmt: skip
    # Two items of each subscale are reverse-keyed: (2 + 4 + 2 + 4) / 4 = 3.
    assert scores == {"deliberation": 3.0, "consistency": 3.0}
    assert "Strongly disagree" in chat[0]["last_user"] and "1 = " in chat[0]["last_user"]
    state.log.clear()
    again = run_survey("decision-style", "openai:gpt-x", tmp_path / "s", samples=3,
                       backend_options={"base_url": url})  # fmt: skip
    assert again.run.n_new == 0 and not state.log


def test_comparison_with_published_answers(shared_fixtures: Path, tmp_path: Path) -> None:
    table = shared_fixtures / "rationality_check" / "survey_result.csv"
    published = read_published(table, "Need for Cognition")
    assert len(published["gpt-4"]) == 18 and published["gpt-4"]["1"] == 4.0
    items = [(str(i), False, "total") for i in range(1, 19)]
    path = _instrument(tmp_path, items, published='published = "Need for Cognition"')
    # A model that answers exactly as gpt-4 did is closest to gpt-4.
    answers = {k: int(v) for k, v in published["gpt-4"].items()}
    backend = Scripted(spec="agent:like-gpt-4", family="agent", model="x", answers=answers)
    done = run_survey(path, backend, tmp_path / "run")  # type: ignore[arg-type]
    compared = compare_published(done.instrument, done.run.responses, published).to_pylist()
    assert compared[0]["published_model"] == "gpt-4" and compared[0]["mean_abs_diff"] == 0.0
    assert compared[0]["correlation"] == pytest.approx(1.0)
    assert len(compared) == len(published)


def test_published_tables_with_bad_cells_name_the_line(tmp_path: Path) -> None:
    bad = tmp_path / "t.csv"
    bad.write_text("scale name,id,m1\nMini,1,4\n,2,four\n")
    with pytest.raises(FileFormatError) as err:
        read_published(bad, "Mini")
    assert err.value.where == "line 3" and err.value.field == "m1"


def test_rows_are_keyless_elicitation_items() -> None:
    rows = build_rows(load_instrument("decision-style"), 2).to_pylist()
    assert len(rows) == 16 and {r["grading"] for r in rows} == {"elicit"}
    assert rows[0]["element"] == "survey.decision-style"
    assert rows[0]["options"][0] == "1 = Strongly disagree"


def test_cli_scores_and_refuses_bad_input(tmp_path: Path) -> None:
    out = tmp_path / "s"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "survey", "decision-style", "-m", "agent:random",
         "-n", "3", "-o", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "deliberation" in done.stdout and "consistency" in done.stdout
    for args, message in [
        (["decision-styl"], "did you mean 'decision-style'"),
        (["decision-style", "--compare", str(tmp_path / "x.csv")], "names no published scale"),
    ]:
        bad = subprocess.run(
            [sys.executable, "-m", "steer", "survey", *args, "-m", "agent:random", "-o",
             str(tmp_path / "b"), "--no-progress"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
