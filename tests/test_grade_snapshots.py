"""Snapshots of every `steer grade` output format on fixed runs and a fixed
rubric (STEER_UPDATE_SNAPSHOTS=1 rewrites them), plus the SARIF 2.1.0 shape."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grade_helpers import make_runs, steer
from steer import __version__

SNAPSHOTS = Path(__file__).parent / "snapshots"
RUBRIC = """\
name = "snapshot"
description = "A fixed rubric for the output snapshots"

[rules.too_few_samples]
max_ci_width = 0.3

[[section]]
name = "Foundations"
weight = 2

[[section.section]]
name = "Arithmetic"
select = ["steer.1.1"]

[[section.section]]
name = "Optimization"
select = ["steer.1.2"]

[[section]]
name = "Expected utility"
select = ["steer.2.4"]

[[section]]
name = "Games"
select = ["steer.3.1.b"]

[[check]]
code = "SN001"
select = ["steer.2.4"]
metric = "normalized_accuracy"
min = 0.5
message = "expected utility must be mostly right"

[[check]]
code = "SN002"
parameter = "lambda"
min = 0.9
max = 1.1
severity = "warning"
"""
FITS = {
    "fits_version": 1,
    "fits": [
        {"model": "model-a", "parameter": "lambda", "estimate": 1.02, "ci_lo": 0.95, "ci_hi": 1.1},
        {"model": "model-b", "parameter": "lambda", "estimate": 2.3, "ci_lo": 1.9, "ci_hi": 2.7},
    ],
}


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("snap")
    make_runs(folder)
    (folder / "card.toml").write_text(RUBRIC, encoding="utf-8")
    (folder / "fits.json").write_text(json.dumps(FITS), encoding="utf-8")
    return folder


def grade_output(workdir: Path, fmt: str, *extra: str) -> str:
    args = ["grade", "runs/model-a", "runs/model-b", "-r", "card.toml", "--fits", "fits.json"]
    result = steer(*args, "--format", fmt, *extra, cwd=workdir)
    assert result.returncode == 1, result.stderr  # SN001 fails for model-b
    assert result.stderr == ""
    return result.stdout.replace(__version__, "VERSION")


def check_snapshot(name: str, text: str) -> None:
    path = SNAPSHOTS / name
    if os.environ.get("STEER_UPDATE_SNAPSHOTS") or not path.exists():
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("fmt", "name"),
    [
        ("text", "grade.txt"),
        ("json", "grade.json"),
        ("junit", "grade.junit.xml"),
        ("sarif", "grade.sarif"),
        ("github", "grade.github.txt"),
        ("markdown", "grade.md"),
    ],
)
def test_output_snapshot(workdir: Path, fmt: str, name: str) -> None:
    check_snapshot(name, grade_output(workdir, fmt))


def test_text_statistics_snapshot(workdir: Path) -> None:
    check_snapshot("grade.statistics.txt", grade_output(workdir, "text", "--statistics"))


def _require(obj: dict[str, object], key: str, kind: type) -> object:
    assert key in obj, f"SARIF: missing {key!r} in {sorted(obj)}"
    assert isinstance(obj[key], kind), f"SARIF: {key!r} should be {kind.__name__}"
    return obj[key]


def test_sarif_has_the_2_1_0_shape(workdir: Path) -> None:
    """The parts of the SARIF 2.1.0 schema that code-scanning consumers need."""
    doc = json.loads(grade_output(workdir, "sarif"))
    assert doc["version"] == "2.1.0"
    assert str(doc["$schema"]).endswith("sarif-2.1.0.json")
    runs = _require(doc, "runs", list)
    assert isinstance(runs, list) and len(runs) == 1
    run = runs[0]
    driver = _require(_require(run, "tool", dict), "driver", dict)  # type: ignore[arg-type]
    assert isinstance(driver, dict)
    _require(driver, "name", str)
    rules = _require(driver, "rules", list)
    assert isinstance(rules, list)
    ids = []
    for rule in rules:
        ids.append(_require(rule, "id", str))
        _require(_require(rule, "shortDescription", dict), "text", str)  # type: ignore[arg-type]
        level = rule["defaultConfiguration"]["level"]
        assert level in {"none", "note", "warning", "error"}
    assert len(set(ids)) == len(ids)
    results = _require(run, "results", list)
    assert isinstance(results, list) and results
    for res in results:
        assert res["ruleId"] in ids
        assert ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in {"none", "note", "warning", "error"}
        _require(_require(res, "message", dict), "text", str)  # type: ignore[arg-type]
        for loc in _require(res, "locations", list):  # type: ignore[union-attr]
            physical = loc["physicalLocation"]
            assert physical["artifactLocation"]["uri"] == "card.toml"
            region = physical["region"]
            assert isinstance(region["startLine"], int) and region["startLine"] >= 1
            assert isinstance(region["startColumn"], int) and region["startColumn"] >= 1
    assert {"SN001", "SN002", "RAT001"} <= {r["ruleId"] for r in results}
