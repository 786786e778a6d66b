"""The robustness figure (`steer plot robustness`): the metric by domain,
question type and perspective per model with bootstrap intervals and n per
category; laid out at 1 and 20 models, few and many categories; categories
without data left out; the numbers drawn are the data's; deterministic files."""

from __future__ import annotations

import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from matplotlib.axes import Axes
from matplotlib.container import ErrorbarContainer

from figure_checks import assert_laid_out
from steer.bank import write_bank
from steer.generate import generate_bank
from steer.run import run_bank
from steer.view import robustness_figure, save_figure

LONG = "openai:gpt-4o-2024-08-06 · mc;shots=0;cot=none;prob=conditioning;order=shuffle:3/2"


def _table(n_series: int, n_domains: int, n_types: int = 2, n_perspectives: int = 3) -> pa.Table:
    rng = np.random.default_rng(n_series * 1000 + n_domains)
    rows = []
    sizes = {"domain": n_domains, "type": n_types, "perspective": n_perspectives}
    for dim, count in sizes.items():
        for c in range(count):
            for i in range(n_series):
                v = float(rng.uniform(-0.4, 1.0))
                rows.append({"dimension": dim, "category": f"{dim} category {c:02d}",
                             "series": f"{LONG}#{i}", "value": v, "lo": v - 0.1,
                             "hi": v + 0.07, "n": 30 + i})  # fmt: skip
    return pa.Table.from_pylist(rows)


def _drawn(ax: Axes) -> dict[tuple[str, str], tuple[float, float, float]]:
    """(category as labelled, series) → (value, lo, hi) as drawn in a panel."""
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    out = {}
    for c in ax.containers:
        if not isinstance(c, ErrorbarContainer):
            continue
        xs = np.asarray(c.lines[0].get_xdata(), dtype=float)
        ys = np.asarray(c.lines[0].get_ydata(), dtype=float)
        segments = c.lines[2][0].get_segments()
        for x, y, seg in zip(xs, ys, segments, strict=True):
            category = ticks[round(float(y))].rsplit(" (n = ", 1)[0]
            out[(category, str(c.get_label()))] = (float(x), float(seg[0][0]), float(seg[1][0]))
    return out


@pytest.mark.parametrize(
    ("n_series", "n_domains", "n_types"), [(1, 3, 2), (1, 45, 12), (20, 3, 2), (20, 45, 12)]
)
def test_laid_out_at_1_and_20_models_few_and_many_categories(
    n_series: int, n_domains: int, n_types: int
) -> None:
    fig = robustness_figure(_table(n_series, n_domains, n_types), "normalized_accuracy_strict")
    assert_laid_out(fig)
    assert [ax.get_title() for ax in fig.axes] == [
        f"by domain ({n_domains} categories)",
        f"by question type ({n_types} categories)",
        "by perspective (3 categories)",
    ]
    assert "normalized accuracy" in fig.axes[-1].get_xlabel()
    assert "95% bootstrap interval" in fig.axes[-1].get_xlabel()
    assert len(fig.legends[0].get_texts()) == n_series
    n = "n = 30" if n_series == 1 else f"n = 30–{29 + n_series}"
    assert all(t.get_text().endswith(f"({n})") for t in fig.axes[0].get_yticklabels())


def test_the_numbers_drawn_are_the_tables_and_worst_comes_first() -> None:
    table = _table(3, 5)
    fig = robustness_figure(table, "exact_match")
    rows = table.to_pylist()
    for ax, dim in zip(fig.axes, ("domain", "type", "perspective"), strict=True):
        mine = [r for r in rows if r["dimension"] == dim]
        expected = {(r["category"], r["series"]): (r["value"], r["lo"], r["hi"]) for r in mine}
        drawn = _drawn(ax)
        assert drawn.keys() == expected.keys()
        for key, values in expected.items():
            assert drawn[key] == pytest.approx(values), key
        means: dict[str, list[float]] = defaultdict(list)
        for r in mine:
            means[r["category"]].append(r["value"])
        top_down = [t.get_text().rsplit(" (n = ", 1)[0] for t in ax.get_yticklabels()]
        assert top_down == sorted(means, key=lambda c: float(np.mean(means[c])))


def test_categories_without_data_are_left_out() -> None:
    rows: list[dict[str, Any]] = _table(2, 3).to_pylist()
    rows += [
        {"dimension": "domain", "category": "nothing asked", "series": f"{LONG}#0",
         "value": None, "lo": None, "hi": None, "n": 0},
        {"dimension": "domain", "category": "", "series": f"{LONG}#0",
         "value": 0.5, "lo": 0.4, "hi": 0.6, "n": 4},
    ]  # fmt: skip
    rows = [r for r in rows if r["dimension"] != "perspective"]  # a dimension with no data
    fig = robustness_figure(pa.Table.from_pylist(rows), "normalized_accuracy")
    assert_laid_out(fig)
    assert len(fig.axes) == 2
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert len(labels) == 3 and not any("nothing asked" in t or t.startswith(" (") for t in labels)
    empty = pa.Table.from_pylist(rows).slice(0, 0)
    assert "nothing to plot" in robustness_figure(empty, "gap").texts[0].get_text()


def test_files_are_deterministic(tmp_path: Path) -> None:
    table = _table(4, 6)
    for suffix in ("svg", "pdf"):
        first, second = tmp_path / f"1.{suffix}", tmp_path / f"2.{suffix}"
        save_figure(robustness_figure(table, "exact_match"), first)
        save_figure(robustness_figure(table, "exact_match"), second)
        assert first.read_bytes() == second.read_bytes()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("robustness")
    bank = root / "bank.parquet"
    write_bank(generate_bank(["1.1.c", "3.1.b", "1.1.a"], per_cell=4, seed=7), bank)
    for agent in ("oracle", "human", "random"):
        run_bank(bank, f"agent:{agent}", root / agent)
    return [root / a for a in ("oracle", "human", "random")]


def _plot(paths: list[Path], out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", "plot", "robustness", *map(str, paths), "-o", str(out),
         *extra],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_steer_plot_robustness_draws_the_means_and_scored_intervals(
    runs: list[Path], tmp_path: Path
) -> None:
    from steer.cli.plot_cmd import _robustness
    from steer.score import load_responses, score

    out = tmp_path / "r.svg"
    done = _plot(runs, out, "--bootstrap", "200")
    assert done.returncode == 0, done.stderr
    texts = re.findall(r"<!-- (.*?) -->", out.read_text(encoding="utf-8"))
    assert any(t.startswith("by domain (") for t in texts)
    assert "agent:random · mc;shots=0;cot=none;prob=conditioning" in texts

    fig = _robustness(runs, None, None, None, 200)
    assert [ax.get_title().split(" (")[0] for ax in fig.axes] == [
        "by domain", "by question type", "by perspective",
    ]  # fmt: skip
    scored = {
        dim: score(load_responses(runs), by=["model", "adaptation", dim],
                   metrics=["normalized_accuracy_strict"], bootstrap=200, seed=0).to_pylist()
        for dim in ("domain", "type", "perspective")
    }  # fmt: skip
    for ax, dim in zip(fig.axes, ("domain", "type", "perspective"), strict=True):
        # Strict normalized accuracy and n straight from the responses.
        total: dict[tuple[str, str], float] = defaultdict(float)
        count: dict[tuple[str, str], int] = defaultdict(int)
        for run in runs:
            t = pq.read_table(run / "responses.parquet").to_pydict()
            columns = ("model", dim, "chosen_index", "correct_index", "n_options")
            for m, c, chosen, key, k in zip(*(t[name] for name in columns), strict=True):
                total[(c, m)] += 1.0 if chosen == key else -1.0 / (k - 1)
                count[(c, m)] += 1
        drawn = _drawn(ax)
        assert {(c, m.split(" · ")[0]) for c, m in drawn} == set(total)
        for (c, series), (value, lo, hi) in drawn.items():
            model = series.split(" · ")[0]
            assert value == pytest.approx(total[(c, model)] / count[(c, model)])
            (row,) = [r for r in scored[dim] if r["model"] == model and r[dim] == c]
            assert (lo, hi) == pytest.approx(
                (row["normalized_accuracy_strict_lo"], row["normalized_accuracy_strict_hi"])
            )
        for label in ax.get_yticklabels():
            c, n = label.get_text().rsplit(" (n = ", 1)
            assert n == f"{count[(c, 'agent:oracle')]})"  # every run asked the same questions


def test_one_model_and_a_worst_group_rubric(runs: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "one.png"
    # domain_robustness is a minimum over domains: the figure draws what it is
    # the minimum of, strict normalized accuracy.
    done = _plot(runs[:1], out, "--rubric", "domain-robustness", "--bootstrap", "0")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_directory_that_is_not_a_run_is_one_line_exit_2(runs: list[Path], tmp_path: Path) -> None:
    bogus = tmp_path / "empty"
    bogus.mkdir()
    out = tmp_path / "x.svg"
    done = _plot([runs[0], bogus], out)
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1
    assert str(bogus) in done.stderr and "not a run directory" in done.stderr
    assert not out.exists()
