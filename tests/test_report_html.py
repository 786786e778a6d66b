"""`steer report`: one self-contained HTML file, loaded in a real headless
Chromium (Debian's `chromium`, installed by .ci/run): the DOM has every
section and a screenshot is a non-empty PNG."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grade_helpers import make_runs, steer

SECTIONS = (
    "summary",
    "drilldown",
    "heatmap",
    "by-grade",
    "compare",
    "fragility",
    "calibration",
    "dependency-graph",
    "diagnostics",
    "metadata",
    "answers",
)
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"
)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions"]


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    make_runs(folder)
    result = steer(
        "report",
        "runs/model-a",
        "runs/model-b",
        "-r",
        "whole-benchmark",
        "-o",
        "r.html",
        cwd=folder,
    )
    assert result.returncode == 0, result.stderr
    return folder / "r.html"


def test_report_is_self_contained(report: Path) -> None:
    html = report.read_text(encoding="utf-8")
    # Nothing is fetched at view time: no external scripts, styles, images or fonts.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    # url(…) only within the page (matplotlib's SVG clip paths: url(#id)).
    assert "@import" not in html and not re.search(r"url\((?!#)", html)
    for section in SECTIONS:
        assert f'id="{section}"' in html
    assert html.count("<svg") >= 5


def _chromium(*args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [CHROMIUM, *FLAGS, *args], capture_output=True, text=True, timeout=120, check=False
    )


@needs_chromium
def test_chromium_dom_has_every_section(report: Path) -> None:
    result = _chromium("--dump-dom", report.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    for section in SECTIONS:
        assert re.search(rf'<section id="{section}"', dom), section
    assert "model-a" in dom and "model-b" in dom
    # The script ran: graphs of models not picked are hidden.
    assert re.search(
        # One graph per card, named by its title (model · adaptation).
        r'class="dependency-graph" data-model="model-b · [^"]*"[^>]*style="display: none;',
        dom,
    )
    # The grade curve is the rubric's metric with its bootstrap intervals.
    assert "95% bootstrap interval" in dom and "by grade level" in dom


@needs_chromium
def test_chromium_screenshot_is_a_png(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    result = _chromium(f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri())
    assert result.returncode == 0, result.stderr[-2000:]
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) > 10_000


def test_grade_html_format_is_the_same_page(report: Path) -> None:
    folder = report.parent
    result = steer(
        "grade",
        "runs/model-a",
        "runs/model-b",
        "-r",
        "whole-benchmark",
        "--format",
        "html",
        cwd=folder,
    )
    assert result.returncode == 1  # model-b is below random guessing
    assert result.stdout == report.read_text(encoding="utf-8")
