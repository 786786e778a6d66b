"""Every shipped rubric grades a demo run (sections the run does not cover
are reported, never a crash), with every output format."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest

from steer.bank import write_bank
from steer.cli.demo_cmd import DEMO_AGENTS, DEMO_ELEMENTS
from steer.generate import generate_bank
from steer.report.formats import render_json, render_junit, render_sarif, render_text
from steer.report.html import build_report
from steer.rubric import grade, load_rubric, shipped_rubrics
from steer.run import run_bank


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("demo")
    bank = write_bank(generate_bank(list(DEMO_ELEMENTS), per_cell=2, seed=0), root / "bank.parquet")
    runs = []
    for agent in DEMO_AGENTS:
        run_bank(bank, agent, root / agent.replace(":", "-"), seed=0)
        runs.append(root / agent.replace(":", "-"))
    return runs


def test_all_expected_rubrics_ship() -> None:
    assert {
        "whole-benchmark",
        "grades-0-5",
        "grades-6-8",
        "grades-9-12",
        "grades-13-14",
        "cognitive-biases",
        "domain-robustness",
        "dependency-robustness",
        "medical-single-agent",
        "multi-agent",
        "homo-economicus",
        "human-like",
        "steer-me",
    } <= set(shipped_rubrics())


@pytest.mark.parametrize("name", sorted(shipped_rubrics()))
def test_shipped_rubric_grades_a_demo_run(name: str, demo_runs: list[Path]) -> None:
    result = grade(demo_runs, load_rubric(name))
    assert [c.model for c in result.cards] == sorted(DEMO_AGENTS)
    for render in (render_text, render_json, render_junit):
        assert render(result)
    assert render_sarif(result, "0")
    assert "<svg" in build_report(result)
    graded = {e for c in result.cards for e in c.elements}
    ungraded = [d for d in result.diagnostics if d.code == "RAT009"]
    assert graded or ungraded  # either something graded, or it says what was not


def test_in_memory_table_grades(demo_runs: list[Path]) -> None:
    from steer.score import load_responses

    table: pa.Table = load_responses(demo_runs).table
    result = grade([table], load_rubric("multi-agent"))
    assert result.cards and result.banks == []
