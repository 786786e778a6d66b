"""`steer report --format markdown`: a Markdown file with the card, the run
metadata and every figure, and beside it the figures (SVG) and the scored
cells (CSV, Parquet) whose numbers equal `steer score`'s."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from grade_helpers import steer


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("md")
    made = steer("generate", "--elements", "1.1.a,3.1.a", "--per-cell", "3", "-o", "bank.parquet",
                 cwd=folder)  # fmt: skip
    assert made.returncode == 0, made.stderr
    for agent in ("oracle", "random"):
        ran = steer("run", "bank.parquet", "--model", f"agent:{agent}", "-o", f"runs/{agent}",
                    cwd=folder)  # fmt: skip
        assert ran.returncode == 0, ran.stderr
    done = steer("report", "runs/oracle", "runs/random", "-o", "rep.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    return folder


def test_the_file_links_every_figure_and_the_cells(folder: Path) -> None:
    text = (folder / "rep.md").read_text(encoding="utf-8")
    files = folder / "rep_files"
    figures = sorted(p.name for p in files.glob("*.svg"))
    assert {"heatmap.svg", "grade-curve.svg", "compare.svg", "robustness.svg",
            "calibration.svg"} <= set(figures)  # fmt: skip
    assert {"dependency-graph-1.svg", "dependency-graph-2.svg"} <= set(figures)
    for name in figures:
        assert f"](rep_files/{name})" in text
        assert (files / name).read_text().lstrip().startswith("<?xml")
    assert "## What produced these numbers" in text and "agent:oracle" in text
    assert "[rep_files/cells.csv](rep_files/cells.csv)" in text
    assert not list(folder.glob(".rep_files.*"))  # no staging folder left behind


def test_cells_hold_steer_scores_numbers(folder: Path) -> None:
    with (folder / "rep_files" / "cells.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    scored = steer("score", "runs/oracle", "runs/random", "--by", "model,adaptation,element",
                   "--metric", "normalized_accuracy_strict", "--bootstrap", "1000", "--format",
                   "json", cwd=folder)  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    expected = {(r["model"], r["element"]): r for r in json.loads(scored.stdout)}
    assert len(rows) == len(expected) == 4
    for row in rows:
        ref = expected[(row["model"], row["element"])]
        for column in ("normalized_accuracy_strict", "normalized_accuracy_strict_lo",
                       "normalized_accuracy_strict_hi"):  # fmt: skip
            assert float(row[column]) == pytest.approx(ref[column])


def test_a_second_report_replaces_the_folder_whole(folder: Path) -> None:
    stale = folder / "rep_files" / "stale.svg"
    stale.write_text("old")
    done = steer("report", "runs/oracle", "-o", "rep.md", cwd=folder)
    assert done.returncode == 0, done.stderr
    assert not stale.exists()
    assert not (folder / "rep_files" / "dependency-graph-2.svg").exists()  # one card now
    assert (folder / "rep_files" / "dependency-graph.svg").exists()


def test_markdown_needs_a_file(folder: Path) -> None:
    done = steer("report", "runs/oracle", "--format", "markdown", "-o", "-", cwd=folder)
    assert done.returncode == 2 and "give -o FILE.md" in done.stderr
