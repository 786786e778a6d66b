"""Experiment grids as data: the shipped grids, their designs' numbers, and
bad grid files (file, row and field named; exit 2; nothing written)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.experiments import (
    EXPERIMENTS,
    build_trials,
    check_experiment,
    intervention_text,
    ladder,
    load_grid,
    mixed_gains,
)

NAMES = (
    "ultimatum-proposer", "ultimatum-responder", "dictator", "gambling", "mixed-gamble",
    "waiting", "discounting", "mm-triangle", "budget",
)  # fmt: skip


def test_every_named_experiment_is_registered() -> None:
    assert set(EXPERIMENTS) == set(NAMES)
    with pytest.raises(UnknownNameError, match="did you mean 'gambling'"):
        check_experiment("gamblng")


@pytest.mark.parametrize("name", NAMES)
def test_shipped_grid_builds_trials(name: str) -> None:
    grid = load_grid(name)
    questions, trials = build_trials(grid, samples=2)
    assert questions.num_rows == trials.num_rows > 0
    assert questions["question_id"].to_pylist() == trials["question_id"].to_pylist()
    assert len(set(questions["question_id"].to_pylist())) == questions.num_rows
    assert set(trials["sample"].to_pylist()) == {0, 1}
    # Every payload lists one structured outcome per shown option.
    for q in questions.to_pylist():
        payload = json.loads(q["payload"])
        assert len(payload["options"]) == len(q["options"])
        assert q["grading"] == "elicit" and q["correct_index"] is None


def test_design_sizes_match_the_papers() -> None:
    assert len(load_grid("gambling").rows) == 56  # TK 1992: 28 gains, 28 mirrored losses
    waiting = load_grid("waiting")
    assert sum(len(r.immediate) for r in waiting.rows) == 217
    assert len(load_grid("mixed-gamble").rows) == 20
    assert [r.pool for r in load_grid("ultimatum-proposer").rows] == list(range(2, 11))


def test_sure_option_ladder_is_the_published_rule() -> None:
    # x1 + (x2 - x1)(10^(i/6) - 1)/9, rounded to cents: 0 to 50 gives these.
    assert sorted(ladder(0, 50), reverse=True) == [50.0, 32.29, 20.23, 12.01, 6.41, 2.6, 0.0]
    gains = mixed_gains(-50, 0.25)
    assert gains[0] == pytest.approx(0.75 * 50 / 3, abs=0.01)
    assert gains[-1] == pytest.approx(1.75 * 50 / 3, abs=0.01)


def test_interventions() -> None:
    assert intervention_text("baseline") == ""
    assert "risk neutral" in intervention_text("bias:risk-neutral")
    assert "a cautious retiree" in intervention_text("persona:a cautious retiree")
    with pytest.raises(InputError, match="did you mean"):
        intervention_text("bias:risk-netural")


def _grid(tmp_path: Path, name: str, rows: list[object], **head: object) -> Path:
    path = tmp_path / f"{name}.json"
    body = {"experiment": name, "grid_version": 1, "design": "test", "rows": rows, **head}
    path.write_text(json.dumps(body))
    return path


@pytest.mark.parametrize(
    ("name", "rows", "where", "field", "problem"),
    [
        ("gambling", [{"id": "a", "x1": 0, "p1": 0.5, "x2": 10, "p2": 0.6}], "row 0", "row",
         "p1 + p2 must be 1"),
        ("gambling", [{"id": "a", "x1": 0, "p1": 1.5, "x2": 10, "p2": -0.5}], "row 0", "p1",
         "not a probability"),
        ("gambling", [{"id": "a", "x1": -5, "p1": 0.5, "x2": 10, "p2": 0.5}], "row 0", "row",
         "sign"),
        ("mixed-gamble", [{"id": "a", "loss": -5, "p_loss": 0.5},
                          {"id": "b", "loss": 5, "p_loss": 0.5}], "row 1", "loss", "less than"),
        ("waiting", [{"id": "a", "amount": 100, "delay": "1 year", "years": 1,
                      "immediate": [1, 1]}], "row 0", "immediate", "repeat"),
        ("ultimatum-responder", [{"id": "a", "pool": 10, "offer": 11}], "row 0", "row",
         "exceeds the pool"),
        ("dictator", [{"id": "a", "kind": "allocation", "a": [1, 2]}], "row 0", "row",
         "needs options a and b"),
        ("budget", [{"id": "a", "income": 100, "p1": 0, "p2": 1}], "row 0", "p1",
         "greater than"),
        ("gambling", [{"id": "a", "x1": 0, "p1": 0.5, "x2": 10, "p2": 0.5, "eval": "1"}],
         "row 0", "eval", "Extra inputs"),
        ("budget", [{"id": "a", "income": 100, "p1": 1, "p2": 1},
                    {"id": "a", "income": 100, "p1": 1, "p2": 2}], "row 1", "id", "duplicate"),
    ],
)  # fmt: skip
def test_bad_grid_rows_name_file_row_and_field(
    tmp_path: Path, name: str, rows: list[object], where: str, field: str, problem: str
) -> None:
    path = _grid(tmp_path, name, rows)
    with pytest.raises(FileFormatError) as err:
        load_grid(name, path)
    assert err.value.source == str(path)
    assert err.value.where == where
    assert err.value.field == field
    assert problem in str(err.value)


def test_bad_grid_files(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    path.write_text('{"experiment": "gambling", "grid_version": 1, "rows": [NaN]}')
    with pytest.raises(FileFormatError, match="not a JSON number"):
        load_grid("gambling", path)
    path.write_text("{not json")
    with pytest.raises(FileFormatError, match=r"g.json:1:2: invalid JSON"):
        load_grid("gambling", path)
    other = _grid(tmp_path, "waiting", [])
    with pytest.raises(FileFormatError, match="expected 'gambling'"):
        load_grid("gambling", other)
    empty = _grid(tmp_path, "gambling", [])
    with pytest.raises(FileFormatError, match="non-empty list"):
        load_grid("gambling", empty)
    with pytest.raises(FileFormatError, match="unknown key 'code'"):
        load_grid("gambling", _grid(tmp_path, "gambling", [{}], code="print(1)"))
    with pytest.raises(InputError, match="no such grid file"):
        load_grid("gambling", tmp_path / "missing.json")


def test_cli_bad_grid_is_one_line_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    path = _grid(tmp_path, "gambling", [{"id": "a", "x1": 0, "p1": 0.5, "x2": 10, "p2": 0.7}])
    out = tmp_path / "run"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "play", "gambling", "-m", "agent:pt", "-o", str(out),
         "--grid", str(path), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1
    assert str(path) in lines[0] and "row 0" in lines[0] and "p1 + p2" in lines[0]
    assert not out.exists()
