"""`steer score` on question runs and game runs together: one table, the
question rows' metrics and the game rows' metrics (intervals over samples)
under shared group columns, in every format; and rubric checks on game
metrics as ordinary metric checks (`metric = "%NE"`), through the same
records `steer grade` reads for parameter checks."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from grade_helpers import steer
from html_cells import HtmlCells
from steer.play import play_game


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("mixed")
    made = steer("generate", "--elements", "1.1.a,3.1.a", "--per-cell", "2", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    ran = steer("run", "bank.parquet", "--model", "agent:random", "-o", "q", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    play_game("prisoners-dilemma", "agent:always-defect,agent:always-cooperate", folder / "pd",
              samples=3)  # fmt: skip
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect",
              folder / "rpd", samples=2, rounds=3)  # fmt: skip
    return folder


def score(folder: Path, *args: str) -> str:
    done = steer("score", *args, cwd=folder)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_json_concatenates_question_rows_and_game_rows(runs: Path) -> None:
    mixed = json.loads(score(runs, "q", "pd", "rpd", "--format", "json"))
    alone_q = json.loads(score(runs, "q", "--format", "json"))
    alone_g = json.loads(score(runs, "pd", "rpd", "--format", "json"))
    questions = [r for r in mixed if r["game"] is None]
    games = [r for r in mixed if r["game"] is not None]
    assert len(questions) == len(alone_q) == 2 and len(games) == len(alone_g) == 4
    assert mixed[: len(questions)] == questions  # question rows first, in their order
    for mine, ref in zip(questions, alone_q, strict=True):
        assert mine["wording"] is None and mine["defection_rate"] is None
        assert {k: mine[k] for k in ref} == ref  # the question run's own numbers
    for mine, ref in zip(games, alone_g, strict=True):
        assert mine["model"] == ref["model"] and mine["element"] == f"game.{ref['game']}"
        assert mine["n_units"] == ref["n_samples"] and mine["exact_match"] is None
        assert {k: mine[k] for k in ref} == ref  # the game run's own numbers and intervals
    defect = next(r for r in games if r["model"] == "agent:always-cooperate")
    assert defect["defection_rate"] == 0.0 and defect["%NE_lo"] == 0.0


def test_every_format_holds_both_kinds_of_rows(runs: Path) -> None:
    args = ("q", "pd", "--by", "model", "--metric", "exact_match,%NE")
    asked = json.loads(score(runs, "q", "--by", "model", "--format", "json"))[0]["n_units"]
    table = score(runs, *args)
    lines = table.splitlines()
    assert lines[0].split() == ["model", "game", "n", "exact_match", "%NE"]
    assert re.search(rf"^agent:random\s+—\s+{asked}\s+\S+ \[", table, re.M)
    assert re.search(r"^agent:always-defect\s+prisoners-dilemma\s+3\s+—\s+1\.000 \[", table, re.M)
    assert "human baseline (Rationality Check) %NE = 0.790" in table
    md = score(runs, *args, "--format", "markdown")
    rows = [[c.strip() for c in x.strip("|").split("|")] for x in md.splitlines()
            if x.startswith("| ")]  # fmt: skip
    assert rows[0] == ["model", "game", "n", "exact_match", "%NE"]
    assert [r[:3] for r in rows[1:]] == [
        ["agent:random", "—", str(asked)],
        ["agent:always-defect", "prisoners-dilemma", "3"],
        ["agent:always-cooperate", "prisoners-dilemma", "3"],
    ]
    assert rows[3][4].startswith("0.000 [") and re.fullmatch(r"\S+ \[\S+, \S+\]", rows[1][3])
    assert "bootstrap over questions (1000 resamples" in md
    assert "bootstrap over samples (2000 resamples, seed 0); n: samples played" in md
    html = score(runs, *args, "--format", "html")
    cells = HtmlCells()
    cells.feed(html)
    assert cells.rows == rows
    text = score(runs, *args, "--format", "csv")
    got = list(csv.DictReader(io.StringIO(text)))
    assert [r["model"] for r in got] == ["agent:random", "agent:always-defect",
                                         "agent:always-cooperate"]  # fmt: skip
    assert got[1]["%NE"] == "1" and got[0]["%NE"] == "" and got[0]["game"] == ""
    done = steer("score", *args, "--format", "parquet", "-o", "m.parquet", cwd=runs)
    assert done.returncode == 0, done.stderr
    table_ = pq.read_table(runs / "m.parquet")
    assert table_.column_names[:4] == ["model", "game", "wording", "n_units"]
    assert table_["game"].to_pylist() == [None, "prisoners-dilemma", "prisoners-dilemma"]


def test_a_metric_neither_kind_has_is_refused_in_one_line(runs: Path) -> None:
    done = steer("score", "q", "pd", "--metric", "exact_match,defection", cwd=runs)
    assert done.returncode == 2
    assert "did you mean 'defection_rate'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_single_kind_calls_keep_their_own_layout(runs: Path) -> None:
    questions = score(runs, "q", "--format", "json")
    assert "game" not in json.loads(questions)[0]
    games = score(runs, "pd")
    assert games.splitlines()[0].split()[:4] == ["game", "model", "wording", "n"]


# --- rubric checks on game metrics ----------------------------------------------

RUBRIC = """
name = "games-as-metrics"
extends = "rationality-check"
select = ["GM", "RAT008"]

[[check]]
code = "GM001"
metric = "defection_rate"
min = 0.8
message = "defects in every dilemma"

[[check]]
code = "GM002"
metric = "%NE"
select = ["repeated-*"]
aggregate = "mean"
min = 0.95

[[check]]
code = "GM003"
metric = "Eff"
select = ["game.prisoners-dilemma"]
max = 0.5
"""


def test_a_rubric_checks_game_metrics_like_any_metric(runs: Path) -> None:
    (runs / "games.toml").write_text(RUBRIC, encoding="utf-8")
    lint = steer("rubric", "check", "games.toml", cwd=runs)
    assert lint.returncode == 0 and "RUB004" not in lint.stdout + lint.stderr, lint.stdout
    done = steer("grade", "q", "pd", "rpd", "--rubric", "games.toml", "--format", "json",
                 cwd=runs)  # fmt: skip
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)["diagnostics"]
    failed = {(d["code"], d["model"], d.get("element")) for d in found if d["severity"] == "error"}
    assert failed == {
        # always cooperating: defection rate 0 in the one-shot dilemma
        ("GM001", "agent:always-cooperate", "game.prisoners-dilemma"),
        # tit for tat defects in 2 of its 3 rounds against always-defect
        ("GM001", "agent:tit-for-tat", "game.repeated-prisoners-dilemma"),
        ("GM002", "agent:tit-for-tat", None),
    }
    tft = next(d for d in found if d["code"] == "GM001" and d["model"] == "agent:tit-for-tat")
    assert "defection_rate 0.667" in tft["message"] and "defects in every dilemma" in tft["message"]
    # GM003 holds: efficiency in the one-shot dilemma is 0.5 at most for these pairs.
    # A model with no selected game (the question run's) is reported, never passed.
    unchecked = {(d["model"], d["message"].split(":")[0]) for d in found if d["code"] == "RAT008"}
    assert ("agent:random", "check GM001") in unchecked
    assert ("agent:always-defect", "check GM001") not in unchecked
    # The same check without game runs among the inputs checks nothing.
    alone = steer("grade", "q", "--rubric", "games.toml", "--format", "json", cwd=runs)
    assert alone.returncode == 0, alone.stderr
    codes = {d["code"] for d in json.loads(alone.stdout)["diagnostics"]}
    assert codes == {"RAT008"}


def test_every_game_metric_is_one_a_check_may_name(tmp_path: Path) -> None:
    """The rubric's list of game metrics covers what every shipped game reports."""
    from steer.play import game_metrics, read_game_run
    from steer.play._game_metrics import metric_names
    from steer.play._games import load_game, shipped_games
    from steer.rubric._model import GAME_METRICS

    seen: set[str] = set()
    for name in shipped_games():
        out = tmp_path / name.replace(":", "-")
        play_game(name, f"agent:random*{load_game(name).players}", out, samples=1)
        _, game, moves = read_game_run(out)
        seen |= set(metric_names(game_metrics(game, moves)))
    assert seen - GAME_METRICS == set()
    assert {"%NE", "defection_rate", "ActDev", "Eff"} <= seen
