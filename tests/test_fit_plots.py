"""Figures and the HTML report of `steer fit` parameters tables.

Layout is checked with matplotlib's own text extents after an Agg draw: every
drawn text lies on the canvas and no two drawn texts overlap (tick labels,
axis labels, titles, legend entries), for one model and for 20 models × 2
conditions.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest
from matplotlib.axis import Axis
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox

from steer.fit._plots import (
    FIGURES,
    discount_figure,
    estimates_figure,
    save_figure,
    value_function_figure,
    weighting_figure,
)
from steer.fit._report import fit_report_html, write_figures
from steer.fit._runs import FIT_SCHEMA

Row = dict[str, Any]


def _row(model: str, condition: str, experiment: str, family: str, parameter: str,
         estimate: float | None, width: float, n: int) -> Row:  # fmt: skip
    ok = estimate is not None
    return {
        "model": model,
        "condition": condition,
        "experiment": experiment,
        "family": family,
        "parameter": parameter,
        "estimate": estimate,
        "ci_lo": None if estimate is None else estimate - width,
        "ci_hi": None if estimate is None else estimate + width,
        "n": n,
        "identified": ok,
        "reason": None if ok else "the choices never switch",
        "r2": 0.91 if ok else None,
        "ssr": None,
        "aic": None,
        "bic": None,
    }


def _cell(model: str, condition: str, rng: random.Random, hidden: set[str]) -> list[Row]:
    """Every family's rows of one (model, condition); `hidden` names the
    family.parameter rows left unidentified."""
    out: list[Row] = []

    def add(experiment: str, family: str, parameter: str, value: float, width: float,
            n: int) -> None:  # fmt: skip
        est = None if f"{family}.{parameter}" in hidden else value * rng.uniform(0.75, 1.25)
        out.append(_row(model, condition, experiment, family, parameter, est, width, n))

    for parameter, value, width in [("alpha", 0.88, 0.08), ("beta", 0.9, 0.1),
                                    ("lambda", 2.0, 0.4), ("gamma", 0.6, 0.08),
                                    ("delta", 0.7, 0.1), ("sigma", 3.0, 1.0)]:  # fmt: skip
        add("gambling", "prospect-theory", parameter, value, width, 240)
    for experiment in ("waiting", "discounting"):
        add(experiment, "hyperbolic", "k", 0.5, 0.2, 90)
        add(experiment, "exponential", "delta", 0.75, 0.05, 90)
        add(experiment, "quasi-hyperbolic", "beta", 0.8, 0.1, 90)
        add(experiment, "quasi-hyperbolic", "delta", 0.78, 0.02, 90)
    add("ultimatum-responder", "fehr-schmidt", "alpha", 0.6, 0.2, 50)
    add("ultimatum-proposer", "fehr-schmidt", "beta_offer", 0.3, 0.1, 50)
    for parameter in ("S_time", "S_risk", "altruism", "fairness"):
        add("econbench", "econbench", parameter, 50.0, 10.0, 30)
    add("gambling", "competence", "gambling", 0.8, 0.05, 60)
    return out


def fits(models: list[str], conditions: list[str], hidden: set[str] | None = None) -> pa.Table:
    rng = random.Random(7)
    rows = [r for m in models for c in conditions for r in _cell(m, c, rng, hidden or set())]
    return pa.Table.from_pylist(rows, schema=FIT_SCHEMA)


ONE = fits(["gpt-4o"], ["baseline"], hidden={"prospect-theory.delta", "fehr-schmidt.alpha"})
MANY = fits([f"provider/model-number-{i}" for i in range(20)], ["baseline", "persona:a banker"])
EMPTY = FIT_SCHEMA.empty_table()


def _edge() -> pa.Table:
    """Awkward tables: long names, one side of the value function, an estimate
    without interval, NaN, values over eight decades (log axis), huge values."""
    long = "organisation-with-a-long-name/Some-Very-Long-Model-Name-70B-Instruct-v0.3"
    persona = "persona:a very cautious retired banker from Zurich"
    rows = [
        _row(long, persona, "gambling", "prospect-theory", "alpha", 0.5, 0.1, 10),
        _row(long, persona, "gambling", "prospect-theory", "gamma", 0.2, 0.15, 10),
        _row("m2", "baseline", "gambling", "prospect-theory", "beta", 1.2, 0.5, 10),
        _row("m2", "baseline", "gambling", "prospect-theory", "lambda", 8.0, 5.0, 10),
        _row("m2", "baseline", "waiting", "hyperbolic", "k", 1e-3, 0.0, 10),
        _row(long, "baseline", "waiting", "hyperbolic", "k", 5e4, 1e4, 10),
        _row("m3", "baseline", "waiting", "hyperbolic", "k", float("nan"), 0.0, 10),
        _row("m3", "baseline", "waiting", "exponential", "delta", 1.3, 0.2, 10),
        _row("m3", "baseline", "waiting", "quasi-hyperbolic", "beta", 0.4, 0.3, 10),
        _row("m3", "baseline", "waiting", "quasi-hyperbolic", "delta", 0.99, 0.3, 10),
        _row("m3", "baseline", "econbench", "econbench", "S_time", -5e6, 1e6, 10),
        _row("m3", "baseline", "budget", "revealed-preference", "ccei", None, 0.0, 10),
        _row(
            "m3", "baseline", "budget", "revealed-preference", "a_long_parameter_name_x", 0.9, 0, 9
        ),
    ]
    rows[3]["ci_lo"] = None  # identified, without an interval
    return pa.Table.from_pylist(rows, schema=FIT_SCHEMA)


EDGE = _edge()
# Fewer panels, for the tests that save files (saving is the slow part).
SMALL = ONE.filter(pc.is_in(ONE["family"], pa.array(["prospect-theory", "hyperbolic"])))

_CACHE: dict[tuple[str, str], Figure] = {}


def figure(name: str, table: str) -> Figure:
    """Each figure built and drawn once per session (drawing 40 series is slow)."""
    key = (name, table)
    if key not in _CACHE:
        fig = FIGURES[name]({"one": ONE, "many": MANY, "edge": EDGE}[table])
        fig.canvas.draw()
        _CACHE[key] = fig
    return _CACHE[key]


# --- layout, measured with matplotlib's text extents --------------------------


def _drawn_ticks(axis: Axis) -> Iterator[Text]:
    """Tick labels drawn on `axis`: visible, not empty, within the view."""
    lo, hi = sorted(axis.get_view_interval())
    slack = 1e-9 * max(1.0, abs(lo), abs(hi))
    for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
        if not lo - slack <= tick.get_loc() <= hi + slack:
            continue
        for label in (tick.label1, tick.label2):
            if label.get_visible() and label.get_text():
                yield label


def _shown(text: Text) -> bool:
    if not text.get_visible() or not text.get_text().strip():
        return False
    return text.axes is None or text.axes.get_visible()


def drawn_texts(fig: Figure) -> tuple[list[Text], dict[int, list[Text]]]:
    """Every drawn text of `fig`, and the drawn tick labels of each axis."""
    ticks: dict[int, list[Text]] = {}
    tick_ids: set[int] = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                tick_ids |= {id(tick.label1), id(tick.label2)}
            if ax.get_visible():
                ticks[id(axis)] = list(_drawn_ticks(axis))
    others = [t for t in fig.findobj(Text) if id(t) not in tick_ids and _shown(t)]
    return [*others, *(t for labels in ticks.values() for t in labels)], ticks


def _boxes(fig: Figure, texts: list[Text]) -> list[Bbox]:
    canvas = fig.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    return [t.get_window_extent(renderer) for t in texts]


def _overlap(a: Bbox, b: Bbox, tolerance: float = 0.5) -> bool:
    width = min(a.x1, b.x1) - max(a.x0, b.x0)
    height = min(a.y1, b.y1) - max(a.y0, b.y0)
    return bool(width > tolerance and height > tolerance)


CASES = [(name, table) for table in ("one", "many", "edge") for name in FIGURES]


@pytest.mark.parametrize(("name", "table"), CASES)
def test_every_text_is_on_the_canvas(name: str, table: str) -> None:
    fig = figure(name, table)
    texts, _ = drawn_texts(fig)
    assert len(texts) > 10
    canvas = fig.bbox
    for text, box in zip(texts, _boxes(fig, texts), strict=True):
        inside = (
            box.x0 >= canvas.x0 - 1
            and box.y0 >= canvas.y0 - 1
            and box.x1 <= canvas.x1 + 1
            and box.y1 <= canvas.y1 + 1
        )
        assert inside, f"{name}/{table}: {text.get_text()!r} at {box} is off {canvas}"


@pytest.mark.parametrize(("name", "table"), CASES)
def test_tick_labels_of_one_axis_never_overlap(name: str, table: str) -> None:
    fig = figure(name, table)
    _, ticks = drawn_texts(fig)
    assert any(len(labels) > 1 for labels in ticks.values())
    for labels in ticks.values():
        boxes = _boxes(fig, labels)
        for (ta, a), (tb, b) in combinations(zip(labels, boxes, strict=True), 2):
            assert not _overlap(a, b), f"{name}/{table}: {ta.get_text()!r} {tb.get_text()!r}"


@pytest.mark.parametrize(("name", "table"), CASES)
def test_no_two_texts_overlap(name: str, table: str) -> None:
    """Titles, axis labels, legend entries and tick labels all apart (a legend
    and a suptitle sharing the top margin is the kind of clash this finds)."""
    fig = figure(name, table)
    texts, _ = drawn_texts(fig)
    boxes = np.array([[b.x0, b.y0, b.x1, b.y1] for b in _boxes(fig, texts)])
    # All pairs at once: the 20-model forest plot draws hundreds of texts.
    w = np.minimum(boxes[:, None, 2], boxes[None, :, 2]) - np.maximum(
        boxes[:, None, 0], boxes[None, :, 0]
    )
    h = np.minimum(boxes[:, None, 3], boxes[None, :, 3]) - np.maximum(
        boxes[:, None, 1], boxes[None, :, 1]
    )
    clash = np.triu((w > 0.5) & (h > 0.5), k=1)
    pairs = [(texts[i].get_text(), texts[j].get_text()) for i, j in np.argwhere(clash)]
    assert not pairs, f"{name}/{table}: overlapping texts {pairs[:5]}"


UNITS = {
    "value-function": ("($)", "v(x)"),
    "weighting": ("probability", "probability"),
    "discounting": ("(years)", "discount factor"),
}


@pytest.mark.parametrize(("name", "table"), CASES)
def test_axis_labels_name_units(name: str, table: str) -> None:
    fig = figure(name, table)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert shown
    for ax in shown:
        assert ax.get_xlabel(), f"{name}: an axes without an x label"
    if name == "estimates":
        for ax in shown:
            assert re.fullmatch(r"estimate \(.+\)", ax.get_xlabel()), ax.get_xlabel()
        labels = {ax.get_xlabel() for ax in shown}
        assert {"estimate (per year)", "estimate (score 0–100)"} <= labels
        return
    x_unit, y_unit = UNITS[name]
    assert all(x_unit in ax.get_xlabel() for ax in shown)
    assert y_unit in shown[0].get_ylabel()


def _legend_texts(fig: Figure) -> list[str]:
    return [t.get_text() for legend in fig.legends for t in legend.get_texts()]


def test_legends_name_series_sample_sizes_and_bands() -> None:
    for name in ("value-function", "weighting", "discounting"):
        texts = "\n".join(_legend_texts(figure(name, "many")))
        assert "provider/model-number-19 · persona:a banker" in texts
        assert "(n=240)" in texts or "(n=90)" in texts
        assert "95% interval" in texts
    assert "human median" in "\n".join(_legend_texts(figure("value-function", "one")))
    discount = "\n".join(_legend_texts(figure("discounting", "one")))
    assert "exact" in discount and "percentile" in discount
    # Two experiments of one model and condition are told apart.
    assert "gpt-4o · baseline · waiting (n=90)" in discount


def test_figure_height_grows_with_the_rows() -> None:
    one = figure("estimates", "one").get_size_inches()[1]
    many = figure("estimates", "many").get_size_inches()[1]
    assert many > 4 * one


def test_estimates_mark_unidentified_parameters_and_skip_noise() -> None:
    fig = figure("estimates", "one")
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert not any("sigma" in t for t in titles)
    notes = [t for ax in fig.axes for t in ax.texts if t.get_text() == "not identified"]
    assert len(notes) == 2  # prospect-theory.delta and fehr-schmidt.alpha
    only = estimates_figure(ONE, families=["econbench"])
    assert sum(ax.get_visible() for ax in only.axes) == 4


def _message(fig: Figure) -> str:
    return " ".join(t.get_text() for t in fig.texts)


@pytest.mark.parametrize("make", list(FIGURES.values()))
def test_nothing_to_plot_gives_a_message(make: Any) -> None:
    fig = make(EMPTY)
    assert not fig.axes
    assert "No " in _message(fig) and "to plot" in _message(fig)
    fig.canvas.draw()


def test_unidentified_curves_give_a_message() -> None:
    hidden = {f"prospect-theory.{p}" for p in ("alpha", "beta", "lambda", "gamma", "delta")}
    hidden |= {"hyperbolic.k", "exponential.delta", "quasi-hyperbolic.beta"}
    table = fits(["m"], ["baseline"], hidden=hidden)
    assert "value function" in _message(value_function_figure(table))
    assert "weighting" in _message(weighting_figure(table))
    assert "discounting" in _message(discount_figure(table))
    assert "No " in _message(estimates_figure(table, families=["no-such-family"]))


# --- files ------------------------------------------------------------------


def test_every_format_writes(tmp_path: Path) -> None:
    fig = value_function_figure(ONE)
    magic = {"png": b"\x89PNG", "svg": b"<?xml", "pdf": b"%PDF"}
    for fmt, head in magic.items():
        path = save_figure(fig, tmp_path / f"v.{fmt}")
        assert path.read_bytes().startswith(head)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["v.pdf", "v.png", "v.svg"]
    with pytest.raises(ValueError, match=r"\.png, \.svg or \.pdf"):
        save_figure(fig, tmp_path / "v.jpg")


@pytest.mark.parametrize("fmt", ["svg", "pdf"])
def test_same_data_gives_the_same_bytes(tmp_path: Path, fmt: str) -> None:
    for make in (weighting_figure, estimates_figure):
        first = save_figure(make(SMALL), tmp_path / f"a.{fmt}").read_bytes()
        second = save_figure(make(SMALL), tmp_path / f"b.{fmt}").read_bytes()
        assert first == second


def test_write_figures(tmp_path: Path) -> None:
    paths = write_figures(SMALL, tmp_path / "figs")
    names = sorted(p.name for p in paths)
    assert names == sorted(f"{n}.{f}" for n in FIGURES for f in ("png", "svg"))
    assert all(p.stat().st_size > 1000 for p in paths)
    with pytest.raises(ValueError, match="jpg"):
        write_figures(ONE, tmp_path, formats=("jpg",))


def test_html_report_is_offline_escaped_and_complete(tmp_path: Path) -> None:
    rows = ONE.to_pylist()
    for r in rows[:6]:
        r["model"] = "<script>alert(1)</script>"
    table = pa.Table.from_pylist(rows, schema=FIT_SCHEMA)
    path = fit_report_html(
        table,
        tmp_path / "report.html",
        title="Fits & <friends>",
        notes=["rubric: prospect-theory.lambda@baseline < 3 failed", "<b>bold</b>"],
    )
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>")
    assert "http://" not in html and "https://" not in html
    # Only references inside the page: href="#…" and url(#…).
    assert all(v.startswith("#") for v in re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', html))
    assert not re.search(r"url\((?!#)", html)
    assert "<link" not in html and "@import" not in html
    assert html.count("<svg") == len(FIGURES)
    assert "<script" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Fits &amp; &lt;friends&gt;" in html and "&lt;b&gt;bold&lt;/b&gt;" in html
    assert "prospect-theory.lambda@baseline &lt; 3 failed" in html
    # Ids stay unique across the inline figures (their references must not cross).
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids))
    # The table: every estimate and interval, and the reasons of unidentified rows.
    for r in ONE.to_pylist():
        if r["identified"]:
            assert f'<td class="num">{r["estimate"]:.4g}</td>' in html
            assert f"[{r['ci_lo']:.4g}, {r['ci_hi']:.4g}]" in html
    assert "no: the choices never switch" in html
    assert html.count("<tr>") == ONE.num_rows + 1


def test_html_report_of_an_empty_table(tmp_path: Path) -> None:
    html = fit_report_html(EMPTY, tmp_path / "r.html", title="nothing").read_text()
    assert html.count("<svg") == len(FIGURES)
    assert "<tbody></tbody>" in html


def test_steer_plot_draws_a_fits_files_figures_like_write_figures(tmp_path: Path) -> None:
    """`steer plot value-function|weighting|discounting|estimates FITS` gives
    the bytes `write_figures` gives for the same fits file."""
    import subprocess
    import sys

    import pyarrow.parquet as pq

    fits_file = tmp_path / "fits.parquet"
    pq.write_table(SMALL, fits_file)
    from steer.fit._report import fits_table

    expected = write_figures(fits_table(fits_file), tmp_path / "ref", formats=("svg",))
    for path in expected:
        out = tmp_path / f"cli-{path.name}"
        done = subprocess.run(
            [sys.executable, "-m", "steer", "plot", path.stem, str(fits_file), "-o", str(out)],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        assert out.read_bytes() == path.read_bytes()
    bad = subprocess.run(
        [sys.executable, "-m", "steer", "plot", "weighting", str(tmp_path), "-o", "x.svg"],
        capture_output=True, text=True, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert bad.returncode == 2 and "draws one fits file" in bad.stderr
    assert not (tmp_path / "x.svg").exists()
