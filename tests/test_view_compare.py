"""The model comparison (`steer plot compare`): bars with bootstrap intervals
and the paired test against the best model; laid out at 1, 2 and 20 models
with long names; the numbers drawn are the data's; deterministic files."""

from __future__ import annotations

import itertools
import math
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.axes import Axes
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.generate import generate_bank
from steer.run import run_bank
from steer.view import compare_figure, save_figure
from steer.view._compare import p_text

LONG = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning;order=shuffle:3/2"
RUBRIC_EM = """\
name = "em"
description = "exact match over every element"
metric = "exact_match"

[[section]]
name = "all"
select = ["steer"]
"""


def _tables(n: int) -> tuple[pa.Table, pa.Table]:
    rng = np.random.default_rng(n)
    values = np.sort(rng.uniform(-0.3, 1.0, n))[::-1]
    bars = pa.Table.from_pylist(
        [
            {"series": f"{LONG}#{i}", "value": float(v), "lo": float(v) - 0.08,
             "hi": float(v) + 0.05, "n": 120}
            for i, v in enumerate(values)
        ]
    )  # fmt: skip
    paired = pa.Table.from_pylist(
        [
            {"series": f"{LONG}#{i}", "n": 120, "diff": float(values[i] - values[0]),
             "lo": float(values[i] - values[0]) - 0.1, "hi": float(values[i] - values[0]) + 0.1,
             "p": float(10.0 ** -i), "p_adjusted": min(1.0, float(10.0 ** -i) * (n - 1)),
             "test": "bootstrap"}
            for i in range(1, n)
        ]
    )  # fmt: skip
    return bars, paired


def _no_overlap(fig: Figure) -> None:
    """What `assert_laid_out` does not check: the value labels stay in their
    axes, and the two panels' axis labels do not run into each other."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for ax in fig.axes:
        box = ax.get_window_extent(renderer)
        for t in ax.texts:
            e = t.get_window_extent(renderer)
            assert box.x0 <= e.x0 and e.x1 <= box.x1, f"{t.get_text()!r} leaves its axes"
    labels = [ax.xaxis.label.get_window_extent(renderer) for ax in fig.axes]
    for a, b in itertools.pairwise(labels):
        assert a.x1 <= b.x0, f"the panels' axis labels overlap: {a} {b}"


def _bars(ax: Axes) -> tuple[list[float], list[tuple[float, float]]]:
    """Bar lengths top to bottom, and the error bars' (lo, hi)."""
    (bars,) = [c for c in ax.containers if isinstance(c, BarContainer)]
    (errors,) = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    widths = [p.get_width() for p in sorted(bars.patches, key=lambda p: p.get_y())]
    segments = sorted(errors.lines[2][0].get_segments(), key=lambda s: s[0][1])
    return widths, [(float(s[0][0]), float(s[1][0])) for s in segments]


def _dots(ax: Axes) -> list[tuple[float, float, float]]:
    """The paired panel's (diff, lo, hi) per row, top to bottom."""
    out = []
    for c in ax.containers:
        if isinstance(c, ErrorbarContainer):
            x = float(np.asarray(c.lines[0].get_xdata(), dtype=float)[0])
            ((lo, _), (hi, _)) = c.lines[2][0].get_segments()[0]
            out.append((x, float(lo), float(hi)))
    return out


@pytest.mark.parametrize("n", [1, 2, 20])
def test_laid_out_at_1_2_and_20_models_with_long_names(n: int) -> None:
    bars, paired = _tables(n)
    fig = compare_figure(bars, paired if n > 1 else None, "normalized_accuracy_strict")
    assert_laid_out(fig)
    _no_overlap(fig)
    left = fig.axes[0]
    assert "n = 120 questions per model" in left.get_xlabel()
    assert "normalized accuracy" in left.get_xlabel()
    assert [t.get_text().replace("\n", "") for t in left.get_yticklabels()] == [
        s.replace(" · ", " ·") for s in bars["series"].to_pylist()
    ]
    if n == 1:
        assert len(fig.axes) == 1 and "no paired test" in left.get_title()
    else:
        right = fig.axes[1]
        assert "Holm-adjusted" in right.get_xlabel() or n == 2
        assert "paired bootstrap" in right.get_xlabel()
        assert "paired over n = 120 questions" in right.get_xlabel().replace("\n", " ")
        verdicts = [t.get_text() for t in right.get_yticklabels()]
        assert verdicts[0] == "reference" and len(verdicts) == n


def test_the_numbers_drawn_are_the_tables() -> None:
    bars, paired = _tables(5)
    fig = compare_figure(bars, paired, "exact_match", correction="bh", level=0.01)
    widths, intervals = _bars(fig.axes[0])
    assert widths == pytest.approx(bars["value"].to_pylist())
    np.testing.assert_allclose(intervals, np.column_stack([bars["lo"], bars["hi"]]))
    written = [t.get_text() for t in fig.axes[0].texts]
    assert written == [f"{v:.3f}".replace("-", "−") for v in bars["value"].to_pylist()]
    rows = paired.to_pylist()
    np.testing.assert_allclose(_dots(fig.axes[1]), [(r["diff"], r["lo"], r["hi"]) for r in rows])
    verdicts = [t.get_text() for t in fig.axes[1].get_yticklabels()][1:]
    for r, text in zip(rows, verdicts, strict=True):
        assert f"p = {p_text(r['p'])}, adj. {p_text(r['p_adjusted'])}" in text
        # The star marks exactly the adjusted p-values below the level.
        assert text.endswith(" *") == (r["p_adjusted"] < 0.01), text
    label = fig.axes[1].get_xlabel().replace("\n", " ")
    assert "Benjamini–Hochberg-adjusted across the 4 comparisons" in label
    assert "99% paired-bootstrap interval" in label and "adjusted p < 0.01" in label


def test_a_pair_without_shared_questions_and_empty_input_do_not_fail() -> None:
    bars, paired = _tables(3)
    rows = paired.to_pylist()
    rows[1] |= {"n": 0, "diff": None, "lo": None, "hi": None, "p": None, "p_adjusted": None}
    fig = compare_figure(bars, pa.Table.from_pylist(rows), "gap")
    assert_laid_out(fig)
    assert fig.axes[1].get_yticklabels()[2].get_text() == "no question asked of both"
    empty = bars.slice(0, 0)
    assert "nothing to plot" in compare_figure(empty, None, "gap").texts[0].get_text()


def test_files_are_deterministic(tmp_path: Path) -> None:
    bars, paired = _tables(4)
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        save_figure(compare_figure(bars, paired, "exact_match"), first)
        save_figure(compare_figure(bars, paired, "exact_match"), second)
        assert first.read_bytes() == second.read_bytes()


def _svg_texts(path: Path) -> list[str]:
    """The texts of a matplotlib SVG (drawn as paths, each after a comment)."""
    return re.findall(r"<!-- (.*?) -->", path.read_text(encoding="utf-8"))


def _strict_na(run: Path) -> float:
    """Strict normalized accuracy straight from a run's responses: +1 right,
    −1/(k − 1) otherwise (a no-answer included), over every question."""
    t = pq.read_table(run / "responses.parquet").to_pydict()
    scores = [
        1.0 if c == k else -1.0 / (o - 1)
        for c, k, o in zip(t["chosen_index"], t["correct_index"], t["n_options"], strict=True)
    ]
    return sum(scores) / len(scores)


def _mcnemar(b: int, c: int) -> float:
    n = b + c
    tail = sum(math.comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail) if n else 1.0


def _holm(p: Sequence[float]) -> list[float]:
    order = sorted(range(len(p)), key=lambda i: p[i])
    out, running = [0.0] * len(p), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, p[i] * (len(p) - rank)))
        out[i] = running
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("compare")
    bank = root / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b", "1.1.a"], per_cell=4, seed=7), bank)
    out = {}
    for agent in ("oracle", "human", "random"):
        run_bank(bank, f"agent:{agent}", root / agent)
        out[agent] = root / agent
    return out


def _plot(
    kind: str, paths: Sequence[Path], out: Path, *extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", "plot", kind, *map(str, paths), "-o", str(out), *extra],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_steer_plot_compare_draws_the_means_and_the_paired_test(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    from steer.cli.plot_cmd import _compare
    from steer.score import load_responses, score

    order = [runs["oracle"], runs["human"], runs["random"]]
    out = tmp_path / "c.svg"
    done = _plot("compare", [runs["random"], runs["oracle"], runs["human"]], out,
                 "--bootstrap", "300")  # fmt: skip
    assert done.returncode == 0, done.stderr
    texts = _svg_texts(out)
    # Best first; the value written is the mean over the responses.
    means = [_strict_na(r) for r in order]
    assert means[0] == 1.0 and means[0] > means[1] > means[2]
    assert [t for t in texts if re.fullmatch(r"−?\d\.\d{3}", t)] == [
        f"{m:.3f}".replace("-", "−") for m in means
    ]
    # The default rubric's metric is tested with the paired bootstrap: oracle
    # beats both others in every one of the 2000 resamples, so p is 1/2001,
    # Holm-adjusted ×2 across the two comparisons.
    verdicts = [t for t in texts if "p = " in t]
    assert len(verdicts) == 2
    assert all(v.endswith("p = 0.0005, adj. 0.001 *") for v in verdicts), verdicts
    assert "p: paired bootstrap, Holm-adjusted across the 2 comparisons" in " ".join(texts)

    # The bars are the scorer's values and intervals (the same call, in process).
    fig = _compare(order, None, None, None, 300)
    widths, intervals = _bars(fig.axes[0])
    assert widths == pytest.approx(means)
    scored = score(load_responses(order), by=["model", "adaptation"],
                   metrics=["normalized_accuracy_strict"], bootstrap=300, seed=0)  # fmt: skip
    by_model = {r["model"]: r for r in scored.to_pylist()}
    expected = [by_model[f"agent:{a}"] for a in ("oracle", "human", "random")]
    np.testing.assert_allclose(
        intervals,
        [
            (r["normalized_accuracy_strict_lo"], r["normalized_accuracy_strict_hi"])
            for r in expected
        ],
    )
    # The paired differences are differences of the means (same questions).
    assert [d for d, _, _ in _dots(fig.axes[1])] == pytest.approx(
        [means[1] - means[0], means[2] - means[0]]
    )


def test_exact_match_is_tested_with_mcnemar_and_holm(runs: dict[str, Path], tmp_path: Path) -> None:
    rubric = tmp_path / "em.toml"
    rubric.write_text(RUBRIC_EM, encoding="utf-8")
    out = tmp_path / "c.svg"
    done = _plot("compare", list(runs.values()), out, "--rubric", str(rubric))
    assert done.returncode == 0, done.stderr
    right = {
        a: [c == k for c, k in zip(*pq.read_table(runs[a] / "responses.parquet")
                                   .sort_by("question_id")
                                   .select(["chosen_index", "correct_index"])
                                   .to_pydict().values(), strict=True)]
        for a in runs
    }  # fmt: skip
    p = []
    for other in ("human", "random"):
        only_ref = sum(a and not b for a, b in zip(right["oracle"], right[other], strict=True))
        only_other = sum(b and not a for a, b in zip(right["oracle"], right[other], strict=True))
        p.append(_mcnemar(only_ref, only_other))
    adjusted = _holm(p)
    texts = _svg_texts(out)
    verdicts = [t for t in texts if "p = " in t]
    assert [v.split("  ")[1] for v in verdicts] == [
        f"p = {p_text(a)}, adj. {p_text(b)} *" for a, b in zip(p, adjusted, strict=True)
    ]
    assert "p: McNemar's exact test, Holm-adjusted across the 2" in " ".join(texts)
    assert p[1] < 1e-6  # random is far below the oracle


def test_one_model_says_there_is_no_paired_test(runs: dict[str, Path], tmp_path: Path) -> None:
    out = tmp_path / "one.svg"
    done = _plot("compare", [runs["human"]], out)
    assert done.returncode == 0, done.stderr
    texts = _svg_texts(out)
    assert "one model: no paired test" in texts
    assert not any("p = " in t for t in texts)


def test_a_directory_that_is_not_a_run_is_one_line_exit_2(
    runs: dict[str, Path], tmp_path: Path
) -> None:
    bogus = tmp_path / "notes"
    bogus.mkdir()
    (bogus / "readme.txt").write_text("not a run", encoding="utf-8")
    out = tmp_path / "x.svg"
    done = _plot("compare", [runs["oracle"], bogus], out)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert str(bogus) in done.stderr and "not a run directory" in done.stderr
    assert not out.exists()
