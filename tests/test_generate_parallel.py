"""Generation across worker processes gives the same bank as one process."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer import _forkserver
from steer.errors import FileFormatError
from steer.generate import _parallel, generate_bank, generate_questions
from steer.templates import load_template_file, load_templates


@pytest.fixture
def always_parallel(monkeypatch: pytest.MonkeyPatch) -> None:
    # Small banks normally stay in one process; force the pool.
    monkeypatch.setattr(_parallel, "MIN_PARALLEL", 0)
    monkeypatch.setattr(_forkserver, "MIN_PARALLEL", 0)


def test_workers_do_not_change_the_bank(always_parallel: None) -> None:
    selectors = ["1.1.a", "3.1.f", "4.1.b", "1.5.b", "3.3.a"]
    one = generate_bank(selectors, per_cell=3, seed=11, workers=1)
    two = generate_bank(selectors, per_cell=3, seed=11, workers=2)
    assert two.num_rows == one.num_rows > 0
    assert two.equals(one)


def test_a_failing_template_in_a_worker_names_its_file(
    always_parallel: None, tmp_path: Path
) -> None:
    path = tmp_path / "never.toml"
    path.write_text(
        'element = "steer.1.1.a"\n\n'
        "[[template]]\n"
        'id = "never.met"\n'
        'domain = "test"\n'
        'type = "positive"\n'
        'structure = "scenario"\n'
        'solver = "formula"\n'
        'answer = "a"\n'
        "decimals = 0\n"
        "nonnegative = true\n"
        "vars = { a = [-1, -2] }\n"
        'phrasings = ["What is {a}?"]\n\n'
        "[template.grade.1]\n"
        "size = 1\n"
        # Nine options, none negative, a whole unit apart and within three
        # units of an answer of -1 or -2 do not exist (a negative answer's
        # digit slips stay negative): every draw fails, inside the worker.
        "options = 9\n",
        encoding="utf-8",
    )
    shipped = [t for t in load_templates() if t.element == "steer.1.1.a"]
    with pytest.raises(FileFormatError) as failed:
        generate_questions([*shipped, *load_template_file(path)], per_cell=2, workers=2)
    assert "never.toml" in str(failed.value) and "never.met" in str(failed.value)


@pytest.mark.parametrize("suite", ["steer", "steer-me", None])
def test_grade_tables_count_the_cells_before_loading(suite: str | None) -> None:
    # The warm-up decision reads the files' text; it must agree with loading them.
    from steer._resources import grade_tables

    cells = sum(
        len(t.spec.grade)
        for t in load_templates()
        if suite is None or t.element.startswith(f"{suite}.")
    )
    assert grade_tables(suite) == cells


def test_a_warm_fork_server_gives_the_same_bank(
    always_parallel: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A whole suite starts the fork server before loading the templates and
    # then hands every job to the workers (no held-back jobs).
    monkeypatch.setattr(_forkserver, "_warmed", False)
    one = generate_bank(suite="steer", per_cell=1, seed=5, workers=1)
    assert not _forkserver._warmed
    two = generate_bank(suite="steer", per_cell=1, seed=5, workers=2)
    assert _forkserver._warmed
    assert two.equals(one)
