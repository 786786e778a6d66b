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


def test_report_embeds_the_fits(tmp_path: Path) -> None:
    from steer.fit import fit_runs
    from steer.fit._report import fits_table
    from steer.play import play_experiment

    run = tmp_path / "g"
    play_experiment("gambling", "agent:pt(noise=0.05)", run, samples=3)
    fitted = fit_runs([run], bootstrap=50)
    (tmp_path / "fits.json").write_text(json.dumps({"fits": fitted.to_pylist()}))
    # The fits file reads back as the table steer fit wrote.
    again = fits_table(tmp_path / "fits.json")
    assert again.to_pylist() == fitted.to_pylist()
    out = tmp_path / "report.html"
    done = subprocess.run(
        [sys.executable, "-m", "steer", "report", str(run), "--fits", str(tmp_path / "fits.json"),
         "--rubric", "preferences", "-o", str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    html = out.read_text()
    assert 'id="fits"' in html and 'id="fit-value-function"' in html
    assert "prospect-theory" in html
