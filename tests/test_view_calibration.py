"""The reliability diagram (`steer plot calibration`): laid out at 1 and 20
models; the bins, counts, intervals and ECE it draws are those of a plain
reference computed here and of `steer score --metric ece`; free-text runs
say they have no probabilities; deterministic files; bad input exits 2."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from statsmodels.stats.proportion import proportion_confint

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.cli import cli
from steer.cli.plot_cmd import _calibration
from steer.generate import generate_bank
from steer.run import run_bank
from steer.schema import Adaptation
from steer.view import CalibrationSeries, calibration_figure, save_figure

LONG = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning;order=shuffle:3/2"
BINS = 10


def _series(count: int, empty: tuple[int, ...] = ()) -> list[CalibrationSeries]:
    rng = np.random.default_rng(5)
    out = []
    for i in range(count):
        n = rng.integers(0, 50, BINS) * (i not in empty)
        conf = (np.arange(BINS) + rng.uniform(0, 1, BINS)) / BINS * n
        right = rng.binomial(n, np.linspace(0.1, 0.9, BINS))
        out.append(CalibrationSeries(f"{LONG}#{i}", n.tolist(), conf.tolist(), right.tolist()))
    return out


def _panels(fig: Figure) -> list[tuple[Axes, Axes]]:
    """(reliability axes, histogram axes) per series, in order."""
    axes = fig.axes
    return list(zip(axes[::2], axes[1::2], strict=True))


@pytest.mark.parametrize("n_models", [1, 20])
def test_laid_out_with_a_panel_and_an_ece_per_model(n_models: int) -> None:
    series = _series(n_models, empty=(3,))
    fig = calibration_figure(series)
    assert_laid_out(fig)
    panels = _panels(fig)
    assert len(panels) == n_models
    for s, (ax, hist) in zip(series, panels, strict=True):
        # Wrapped (at spaces, `;` …), never cut short.
        assert "".join(ax.get_title().split()) == "".join(s.name.split())
        assert ax.get_ylabel() == "accuracy" and hist.get_xlabel() == "confidence"
        legend = ax.get_legend()
        if s.total:
            assert legend is not None
            (text,) = legend.get_texts()
            assert text.get_text() == f"ECE = {s.ece:.3f}, n = {s.total}"
        else:
            assert legend is None
            assert any("no option probabilities" in t.get_text() for t in ax.texts)
    # The diagonal is the dashed grey reference in every panel.
    diagonal = panels[0][0].lines[0]
    assert diagonal.get_linestyle() == "--" and np.asarray(diagonal.get_xdata()).tolist() == [0, 1]


def _reference(run: Path) -> dict[str, np.ndarray]:
    """Per bin from the responses themselves: answers, mean confidence and
    accuracy, where confidence is the top option's renormalised probability
    and an answer is right when that option (first of ties) is the key."""
    rows = pq.read_table(run / "responses.parquet").to_pylist()
    n = np.zeros(BINS)
    conf = np.zeros(BINS)
    right = np.zeros(BINS)
    for r in rows:
        probs = r["option_probs"]
        if probs is None or r["correct_index"] is None or r["chosen_index"] == -1:
            continue
        p = np.asarray(probs) / sum(probs)
        b = min(int(p.max() * BINS), BINS - 1)
        n[b] += 1
        conf[b] += p.max()
        right[b] += int(np.argmax(p)) == r["correct_index"]
    return {"n": n, "conf": conf, "right": right}


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("calibration")
    bank = root / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b", "A.3"], per_cell=4, seed=7), bank)
    out = {"bank": bank}
    for name, model in (("human", "agent:human"), ("random", "agent:random")):
        out[name] = root / name
        run_bank(bank, model, out[name])
    out["free"] = root / "free"
    run_bank(bank, "agent:random", out["free"], adaptation=Adaptation(format="free"))
    return out


def test_drawn_bins_counts_intervals_and_ece_match_plain_references(
    runs: dict[str, Path],
) -> None:
    fig = _calibration([runs["human"], runs["random"]], None, None, None)
    assert_laid_out(fig)
    panels = _panels(fig)
    assert len(panels) == 2
    scored = CliRunner().invoke(
        cli, ["score", str(runs["human"]), str(runs["random"]), "--by", "model",
              "--metric", "ece", "--format", "json"],
    )  # fmt: skip
    assert scored.exit_code == 0, scored.output
    ece = {r["model"]: r["ece"] for r in json.loads(scored.output)}
    for (ax, hist), name in zip(panels, ("human", "random"), strict=True):
        ref = _reference(runs[name])
        assert ref["n"].sum() > 20  # enough answers to mean something
        # Counts: one bar per bin, its height the answers in the bin.
        assert [p.get_height() for p in hist.patches if isinstance(p, Rectangle)] == ref[
            "n"
        ].tolist()
        assert len(hist.patches) == BINS
        shown = ref["n"] > 0
        (points,) = [line for line in ax.lines if (line.get_gid() or "").startswith("accuracy")]
        x, y = np.asarray(points.get_xdata()), np.asarray(points.get_ydata())
        np.testing.assert_allclose(x, ref["conf"][shown] / ref["n"][shown])
        np.testing.assert_allclose(y, ref["right"][shown] / ref["n"][shown])
        # Intervals: Wilson's, as statsmodels computes them.
        (bars,) = [c for c in ax.collections if isinstance(c, LineCollection)]
        lo, hi = proportion_confint(ref["right"][shown], ref["n"][shown], 0.05, "wilson")
        ends = np.array([[seg[:, 1].min(), seg[:, 1].max()] for seg in bars.get_segments()])
        np.testing.assert_allclose(ends[:, 0], lo, atol=1e-9)
        np.testing.assert_allclose(ends[:, 1], hi, atol=1e-9)
        # The ECE shown is `steer score`'s and the reference's.
        model = f"agent:{name}"
        legend = ax.get_legend()
        assert legend is not None
        found = re.search(r"ECE = ([0-9.]+)", legend.texts[0].get_text())
        assert found is not None
        shown_ece = float(found[1])
        assert shown_ece == pytest.approx(ece[model], abs=5e-4)
        plain = np.abs(ref["right"] - ref["conf"]).sum() / ref["n"].sum()
        assert ece[model] == pytest.approx(plain, abs=1e-12)


def test_free_text_runs_say_they_have_no_probabilities(runs: dict[str, Path]) -> None:
    mixed = _calibration([runs["free"], runs["random"]], None, None, None)
    assert_laid_out(mixed)
    (free, _), (mc, _) = _panels(mixed)
    assert "free" in free.get_title()
    assert any("no option probabilities" in t.get_text() for t in free.texts)
    assert mc.get_legend() is not None
    alone = _calibration([runs["free"]], None, None, None)
    (message,) = alone.texts
    assert "no answer carries option probabilities" in message.get_text()
    assert not alone.axes


def test_model_selection(runs: dict[str, Path]) -> None:
    fig = _calibration([runs["human"], runs["random"]], None, None, "agent:random")
    ((ax, _),) = _panels(fig)
    assert ax.get_title().startswith("agent:random")


def test_files_are_deterministic(tmp_path: Path) -> None:
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        save_figure(calibration_figure(_series(3, empty=(1,))), first)
        save_figure(calibration_figure(_series(3, empty=(1,))), second)
        assert first.read_bytes() == second.read_bytes()


def test_bins_must_agree() -> None:
    with pytest.raises(ValueError, match="one entry per bin"):
        CalibrationSeries("m", [1, 2], [0.5], [1, 1])
    with pytest.raises(ValueError, match="same number of bins"):
        calibration_figure([CalibrationSeries("a", [1], [0.5], [1]),
                            CalibrationSeries("b", [1, 1], [0.1, 0.6], [0, 1])])  # fmt: skip


def _steer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "steer", *args], capture_output=True,
                          text=True, timeout=120)  # fmt: skip


def test_steer_plot_calibration_end_to_end(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "c.svg"
    done = _steer("plot", "calibration", str(runs["human"]), str(runs["random"]), "-o", str(out))
    assert done.returncode == 0, done.stderr
    text = out.read_text()
    assert text.startswith("<?xml") and "accuracy-1" in text
    not_a_run = tmp_path / "empty"
    not_a_run.mkdir()
    cases = [
        (["plot", "calibration", str(not_a_run), "-o", str(tmp_path / "x.svg")],
         f"{not_a_run}: not a run directory"),
        (["plot", "calibration", str(runs["human"]), "--model", "nobody", "-o",
          str(tmp_path / "x.svg")], "--model 'nobody' names none of the models"),
    ]  # fmt: skip
    for args, message in cases:
        bad = _steer(*args)
        assert bad.returncode == 2 and message in bad.stderr, bad.stderr
        assert len(bad.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "x.svg").exists()
