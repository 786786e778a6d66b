"""`steer grade` through a real subprocess: exit codes, config discovery,
baselines, fits, rule selection and the GitHub job summary."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grade_helpers import OTHER_BANK, make_runs, steer, write_run

RUBRIC = """\
name = "cli"

[[section]]
name = "Everything"
select = ["steer.1", "steer.2", "steer.3"]
"""


@pytest.fixture
def work(tmp_path: Path) -> Path:
    make_runs(tmp_path)
    (tmp_path / "cli.toml").write_text(RUBRIC, encoding="utf-8")
    return tmp_path


def grade(work: Path, *args: str, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return steer("grade", "runs/model-a", "runs/model-b", *args, cwd=work, env=env)


def test_exit_1_when_an_error_level_check_fails(work: Path) -> None:
    result = grade(work, "-r", "cli.toml")
    assert result.returncode == 1
    assert "RAT001 [model-b]" in result.stdout


def test_exit_0_when_only_the_passing_model_is_graded(work: Path) -> None:
    result = steer("grade", "runs/model-a", "-r", "cli.toml", cwd=work)
    assert result.returncode == 0, result.stdout
    assert "Found" in result.stdout and "error" not in result.stdout.split("Found")[-1]


def test_exit_zero_and_ignore(work: Path) -> None:
    assert grade(work, "-r", "cli.toml", "--exit-zero").returncode == 0
    assert grade(work, "-r", "cli.toml", "--ignore", "RAT001").returncode == 0
    assert grade(work, "-r", "cli.toml", "--select", "RAT004").returncode == 0


def test_per_model_ignores_in_the_rubric(work: Path) -> None:
    (work / "pm.toml").write_text(
        RUBRIC.replace(
            'name = "cli"', 'name = "pm"\nper_model_ignores = { "model-*" = ["RAT00"] }'
        ),
        encoding="utf-8",
    )
    result = grade(work, "-r", "pm.toml")
    assert result.returncode == 0
    assert "RAT00" not in result.stdout


def test_usage_errors_exit_2(work: Path) -> None:
    for args in (
        ["-r", "cli.toml", "--format", "yaml"],
        ["-r", "no-such-rubric"],
        ["-r", "cli.toml", "--select", "RAT999"],
    ):
        result = grade(work, *args)
        assert result.returncode == 2, args
        assert result.stdout == ""
    result = grade(work, "-r", "whole-benchmrk")
    assert "did you mean 'whole-benchmark'" in result.stderr
    missing = steer("grade", "runs/nope", "-r", "cli.toml", cwd=work)
    assert missing.returncode == 2
    assert len(missing.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("steer.toml", 'rubric = "cli.toml"\nignore = ["RAT001"]\n'),
        (".steer.toml", 'rubric = "cli.toml"\nignore = ["RAT001"]\n'),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n[tool.steer]\nrubric = "cli.toml"\nignore = ["RAT001"]\n',
        ),
    ],
)
def test_config_is_found_walking_up(work: Path, name: str, text: str) -> None:
    (work / name).write_text(text, encoding="utf-8")
    sub = work / "deep" / "er"
    sub.mkdir(parents=True)
    result = steer("grade", "../../runs/model-a", "../../runs/model-b", cwd=sub)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "rubric cli (" in result.stdout


def test_config_unknown_key_exits_2(work: Path) -> None:
    (work / "steer.toml").write_text('rubric = "cli.toml"\nignroe = ["RAT001"]\n', encoding="utf-8")
    result = grade(work)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        'error: steer.toml:2:1: RUB002 unknown key "ignroe" — did you mean "ignore"?'
    )


def test_pyproject_without_tool_steer_is_skipped(work: Path) -> None:
    (work / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    result = grade(work, "-r", "cli.toml", "--exit-zero")
    assert result.returncode == 0


def test_baseline_round_trip_and_regression(work: Path) -> None:
    assert (
        grade(work, "-r", "cli.toml", "--exit-zero", "--write-baseline", "base.json").returncode
        == 0
    )
    doc = json.loads((work / "base.json").read_text())
    assert doc["banks"] == ["b" * 64]
    same = grade(work, "-r", "cli.toml", "--baseline", "base.json", "--select", "RAT007")
    assert same.returncode == 0
    # model-b gets worse on steer.1.1.c: its baseline answered every question right.
    (card,) = [c for c in doc["cards"] if c["model"] == "model-b"]
    questions = card["questions"]
    for i, element in enumerate(questions["element"]):
        if element == "steer.1.1.c":
            for metric in ("exact_match", "normalized_accuracy", "normalized_accuracy_strict"):
                questions[metric][i] = 1.0
    (work / "base2.json").write_text(json.dumps(doc))
    worse = grade(work, "-r", "cli.toml", "--baseline", "base2.json", "--select", "RAT007")
    assert worse.returncode == 1
    assert "RAT007 [model-b" in worse.stdout and "`steer.1.1.c` regressed" in worse.stdout
    assert "Holm-adjusted p" in worse.stdout


def test_baseline_from_another_bank_is_a_warning(work: Path) -> None:
    grade(work, "-r", "cli.toml", "--exit-zero", "--write-baseline", "base.json")
    write_run(work / "other", "model-a", bank=OTHER_BANK)
    result = steer("grade", "other/model-a", "-r", "cli.toml", "--baseline", "base.json", cwd=work)
    assert result.returncode == 0, result.stderr
    assert "RAT010" in result.stdout and "question bank bbbbbbbbbbbb" in result.stdout
    assert "RAT007" not in result.stdout and "All checks passed" not in result.stdout


def test_bad_fits_and_baseline_files_exit_2(work: Path) -> None:
    (work / "fits.json").write_text('{"fits": [{"model": "m"}]}')
    (work / "base.json").write_text("{not json")
    for args in (["--fits", "fits.json"], ["--baseline", "base.json"]):
        result = grade(work, "-r", "cli.toml", *args)
        assert result.returncode == 2, args
        assert len(result.stderr.strip().splitlines()) == 1


def test_github_format_appends_the_job_summary(work: Path) -> None:
    summary = work / "summary.md"
    summary.write_text("previous step\n")
    result = grade(
        work, "-r", "cli.toml", "--format", "github", env={"GITHUB_STEP_SUMMARY": str(summary)}
    )
    assert result.returncode == 1
    assert result.stdout.startswith("::")
    assert "::error file=cli.toml,line=5,col=22,title=RAT001::" in result.stdout
    text = summary.read_text()
    assert text.startswith("previous step\n# steer report card — cli")


def test_rules_lists_and_documents(work: Path) -> None:
    listing = steer("rules", cwd=work)
    assert listing.returncode == 0
    for code in ("RAT001", "RAT002", "RAT003", "RAT004", "RAT005", "RAT006", "RAT007", "RUB002"):
        assert code in listing.stdout
    doc = steer("rules", "domain-fragility", cwd=work)
    assert doc.returncode == 0 and "What:" in doc.stdout and "Example:" in doc.stdout
    assert steer("rules", "RAT0O3", cwd=work).returncode == 2


def test_bootstrap_intervals_on_request(work: Path) -> None:
    result = grade(work, "-r", "cli.toml", "--bootstrap", "200", "--format", "json")
    assert result.returncode == 1
    doc = json.loads(result.stdout)
    element = doc["models"][0]["elements"][0]
    lo, hi = element["intervals"]["normalized_accuracy"]
    assert lo <= element["metrics"]["normalized_accuracy"] <= hi
    assert grade(work, "-r", "cli.toml", "--bootstrap", "-1").returncode == 2


def test_output_file(work: Path) -> None:
    result = grade(work, "-r", "cli.toml", "--format", "junit", "-o", "out/grade.xml")
    assert result.returncode == 1 and result.stdout == ""
    assert (work / "out" / "grade.xml").read_text().startswith("<?xml")
