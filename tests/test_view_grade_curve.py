"""The grade curve (`steer plot grade-curve`): the rubric's metric by grade
level with bootstrap intervals; laid out without clipping at 1 and 20 models."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.generate import generate_bank
from steer.run import run_bank
from steer.view import grade_curve_figure

LONG = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning"


def _table(n_series: int) -> pa.Table:
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n_series):
        for grade in range(15):
            v = float(rng.uniform(-0.2, 1))
            rows.append({"series": f"{LONG}#{i}", "grade": grade, "value": v,
                         "lo": v - 0.1, "hi": v + 0.1, "n": 40})  # fmt: skip
    return pa.Table.from_pylist(rows)


@pytest.mark.parametrize("n_series", [1, 20])
def test_laid_out_with_axis_labels_units_and_a_legend(n_series: int) -> None:
    fig = grade_curve_figure(_table(n_series), "normalized_accuracy")
    assert_laid_out(fig)
    (ax,) = fig.axes
    assert "grade level" in ax.get_xlabel() and "n = 40" in ax.get_xlabel()
    assert "normalized accuracy" in ax.get_ylabel()
    assert len(fig.legends[0].get_texts()) == n_series


def test_steer_plot_grade_curve_draws_the_scored_intervals(tmp_path: Path) -> None:
    from steer.score import load_responses, score

    bank = tmp_path / "bank.parquet"
    write_bank(generate_bank(["1.1.a", "2.1.a"], per_cell=3, seed=3), bank)
    run_bank(bank, "agent:human", tmp_path / "h")
    out = tmp_path / "g.svg"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "plot", "grade-curve", str(tmp_path / "h"), "-o",
         str(out), "--bootstrap", "200"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("<?xml")
    # The intervals are the scorer's (the same call the command makes).
    scored = score(load_responses([tmp_path / "h"]), by=["model", "adaptation", "grade"],
                   metrics=["normalized_accuracy_strict"], bootstrap=200, seed=0)  # fmt: skip
    lo, hi = scored["normalized_accuracy_strict_lo"], scored["normalized_accuracy_strict_hi"]
    assert all(a is not None and b is not None and a <= b
               for a, b in zip(lo.to_pylist(), hi.to_pylist(), strict=True))  # fmt: skip
