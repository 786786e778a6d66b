"""`steer score --format markdown|html`: the terminal table's rows for a paper
or a pull request, every metric with its interval (bootstrap on by default
here), the intervals equal to the scored table's own bounds."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from grade_helpers import steer
from html_cells import HtmlCells


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("formats")
    made = steer("generate", "--elements", "1.1.a,3.1.a", "--per-cell", "3", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    ran = steer("run", "bank.parquet", "--model", "agent:random", "-o", "runs/r", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    return folder / "runs" / "r"


def scored_json(run: Path, *extra: str) -> list[dict[str, object]]:
    result = steer("score", str(run), "--format", "json", *extra, cwd=run.parent)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_markdown_rows_carry_every_metric_with_its_bootstrap_interval(run: Path) -> None:
    result = steer("score", str(run), "--format", "markdown", "--metric",
                   "exact_match,normalized_accuracy,ece", cwd=run.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "| model | element | n | exact_match | normalized_accuracy | ece |"
    assert lines[1] == "|:--|:--|--:|--:|--:|--:|"
    rows = [line for line in lines[2:] if line.startswith("| agent:random")]
    assert len(rows) == 2
    # The same numbers as the scored table with the same (default) bootstrap.
    reference = scored_json(run, "--metric", "exact_match,normalized_accuracy,ece",
                            "--bootstrap", "1000")  # fmt: skip
    for line, ref in zip(rows, reference, strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[1] == ref["element"] and int(cells[2]) == ref["n_units"]
        for text, metric in zip(cells[3:], ("exact_match", "normalized_accuracy", "ece"),
                                strict=True):  # fmt: skip
            value, lo, hi = map(float, re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", text).groups())
            assert value == pytest.approx(ref[metric], abs=5e-4)
            assert lo == pytest.approx(ref[f"{metric}_lo"], abs=5e-4)
            assert hi == pytest.approx(ref[f"{metric}_hi"], abs=5e-4)
    assert "percentile bootstrap over questions (1000 resamples, seed 0)" in result.stdout


def test_an_explicit_bootstrap_0_is_kept_and_said(run: Path) -> None:
    result = steer("score", str(run), "--format", "markdown", "--bootstrap", "0",
                   "--metric", "exact_match,normalized_accuracy", cwd=run.parent)  # fmt: skip
    assert result.returncode == 0, result.stderr
    row = next(line for line in result.stdout.splitlines() if line.startswith("| agent:random"))
    exact, normalized = [c.strip() for c in row.strip("|").split("|")][3:]
    assert re.fullmatch(r"\S+ \[\S+, \S+\]", exact)  # Wilson needs no resampling
    assert "[" not in normalized
    assert "none for the other metrics (--bootstrap 0)" in result.stdout


def test_html_is_a_table_fragment_with_the_same_rows(run: Path) -> None:
    md = steer("score", str(run), "--format", "markdown", cwd=run.parent).stdout
    html = steer("score", str(run), "--format", "html", cwd=run.parent).stdout
    assert html.startswith('<table class="steer-score">') and "<script" not in html
    parser = HtmlCells()
    parser.feed(html)
    md_rows = [[c.strip() for c in line.strip("|").split("|")]
               for line in md.splitlines() if line.startswith("| ")]  # fmt: skip
    assert parser.rows == [md_rows[0], *md_rows[1:]]
