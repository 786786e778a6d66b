"""The element × model heatmap (`steer plot heatmap`): laid out without
clipping at 1 and 20 models, 3 and 122 elements; deterministic files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.generate import generate_bank
from steer.run import run_bank
from steer.view import heatmap_figure, save_figure

MODEL = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning;order=shuffle:3/2"


def _values(models: list[str], elements: list[str]) -> dict[tuple[str, str], float | None]:
    rng = np.random.default_rng(0)
    return {
        (m, e): (float(rng.uniform(-0.3, 1.0)) if rng.random() > 0.1 else None)
        for m in models
        for e in elements
    }


@pytest.mark.parametrize(("n_models", "n_elements"), [(1, 3), (1, 122), (20, 3), (20, 122)])
def test_every_label_is_inside_and_no_tick_labels_overlap(n_models: int, n_elements: int) -> None:
    models = [f"{MODEL}#{i}" for i in range(n_models)]
    elements = [f"steer-me.{i // 20 + 1}.{i % 20 + 1}.a" for i in range(n_elements)]
    fig = heatmap_figure(models, elements, _values(models, elements))
    assert_laid_out(fig)
    heat, bar = fig.axes
    assert heat.get_xlabel().startswith(f"element ({n_elements})")
    assert heat.get_ylabel() == f"model ({n_models})"
    assert "normalized accuracy" in bar.get_xlabel()  # the colour scale says what it shows


def test_files_are_deterministic(tmp_path: Path) -> None:
    models, elements = ["a", "b"], ["steer.1.1.a", "steer.1.2.a"]
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        save_figure(heatmap_figure(models, elements, _values(models, elements)), first)
        save_figure(heatmap_figure(models, elements, _values(models, elements)), second)
        assert first.read_bytes() == second.read_bytes()


def test_steer_plot_heatmap_of_runs(tmp_path: Path) -> None:
    bank_path = tmp_path / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b"], per_cell=3, seed=7), bank_path)
    run_bank(bank_path, "agent:random", tmp_path / "r1")
    run_bank(bank_path, "agent:oracle", tmp_path / "r2")
    out = tmp_path / "h.png"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "plot", "heatmap", str(tmp_path / "r1"),
         str(tmp_path / "r2"), "-o", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = subprocess.run(
        [sys.executable, "-m", "steer", "plot", "heatmap", str(tmp_path / "r1"), "-o",
         str(tmp_path / "h.gif")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and ".png, .svg or .pdf" in bad.stderr


def test_plot_and_score_bad_input_is_one_line(tmp_path: Path) -> None:
    bank_path = tmp_path / "bank.parquet"
    write_bank(generate_bank(["1.1.c"], per_cell=2, seed=7), bank_path)
    run_bank(bank_path, "agent:random", tmp_path / "r")
    cases = [
        (["plot", "heatmp", str(tmp_path / "r"), "-o", str(tmp_path / "x.png")],
         "did you mean 'heatmap'"),
        (["plot", "rounds", str(tmp_path / "r"), "-o", str(tmp_path / "x.png")],
         "not a game run"),
        (["score", str(tmp_path / "r"), "--published", str(tmp_path / "none.csv")],
         "--published compares game runs"),
    ]  # fmt: skip
    for args, message in cases:
        done = subprocess.run([sys.executable, "-m", "steer", *args], capture_output=True,
                              text=True, timeout=120)  # fmt: skip
        assert done.returncode == 2 and message in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.png").exists()
