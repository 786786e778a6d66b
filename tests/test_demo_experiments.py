"""`steer demo --experiments`: every experiment played by the reference agents,
fitted, graded and reported, offline."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from steer.experiments import EXPERIMENTS
from steer.rubric import read_fits


def test_demo_plays_fits_grades_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "demo", "--experiments", "--samples", "2", "-o", str(out)],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    fits = json.loads((out / "fits.json").read_text())["fits"]
    experiments = {f["experiment"] for f in fits}
    # Every experiment reports at least its competence; PT pools two of them.
    assert set(EXPERIMENTS) <= experiments | {"gambling", "mixed-gamble"}
    assert {"agent:human-panel"} <= {f["model"] for f in fits}
    assert any(f["family"] == "prospect-theory" and f["parameter"] == "lambda" for f in fits)
    read_fits(out / "fits.json")  # the fits file steer grade --fits reads
    report = (out / "report.html").read_text()
    assert report.count("<svg") >= 4 and "http://" not in report
    assert len(list((out / "figures").glob("*.png"))) == 4
    assert "fits in" in done.stdout
    for experiment in EXPERIMENTS:
        assert (out / "runs" / "player0" / experiment / "responses.parquet").is_file()


def test_demo_without_out_leaves_nothing_behind(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "steer", "demo", "--experiments", "--samples", "1", "--json"],
        capture_output=True, text=True, timeout=600, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["fits"]
    assert list(tmp_path.iterdir()) == []
