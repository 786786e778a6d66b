"""Bad templates name file, line and problem — at load time, and through
`steer templates check` / `steer generate --templates` with exit status 2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from steer.cli import cli
from steer.errors import FileFormatError
from steer.templates import load_template_file

GOOD = """\
element = "steer.2.2.a"

[[template]]
id = "t.sunk"
domain = "business"
structure = "scenario"
solver = "max_expected_value"
unit = "$"
vars = { sunk = { low = 10, high = 90 }, cost = { low = 10, high = 90 }, revenue = [20, 50, 80] }
derive = { margin = "revenue - cost" }
require = ["abs(margin) >= 5"]
choices = [
    { text = "Continue", values = ["margin"], error = "sunk_cost_included" },
    { text = "Stop", values = ["0"], error = "sunk_cost_included" },
]
phrasings = ["Spent {sunk}; finishing costs {cost} and earns {revenue}. Continue?"]

[template.grade.7]
size = 2
"""


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def load_error(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        load_template_file(path)
    return str(info.value).replace(str(path), "FILE")


def test_good_template_loads(tmp_path: Path) -> None:
    (template,) = load_template_file(write(tmp_path, GOOD))
    assert template.spec.derive == {"margin": "revenue - cost"}


@pytest.mark.parametrize(
    ("old", "new", "line", "problem"),
    [
        # an unknown variable in a derived value, with a suggestion
        ('"revenue - cost"', '"revenu - cost"', 10, "unknown variable 'revenu'"),
        # an unknown variable in a constraint
        ('"abs(margin) >= 5"', '"abs(profit) >= 5"', 11, "unknown variable 'profit'"),
        # an expression error
        ('"abs(margin) >= 5"', '"abs(margin >= 5"', 11, "bad expression"),
        ('"revenue - cost"', '"revenue -- * cost"', 10, "bad expression"),
        ('values = ["margin"]', 'values = ["margin +"]', 13, "bad expression"),
        # an unknown solver, with a suggestion
        ('"max_expected_value"', '"max_expected_valu"', 7, "unknown solver 'max_expected_valu'"),
        # a placeholder naming no variable
        ("earns {revenue}", "earns {revenu}", 16, "unknown variable {revenu}"),
        # a constraint that can never be met
        ('"abs(margin) >= 5"', '"margin > 500"', 11, "can never"),
        # a grade outside the element's levels
        ("[template.grade.7]", "[template.grade.3]", 18, "outside steer.2.2.a's grade levels 7-7"),
    ],
)
def test_bad_template_names_file_line_and_problem(
    tmp_path: Path, old: str, new: str, line: int, problem: str
) -> None:
    assert old in GOOD
    message = load_error(tmp_path, GOOD.replace(old, new, 1))
    assert message.startswith(f"FILE:{line}: "), message
    assert problem in message


def test_suggestions(tmp_path: Path) -> None:
    message = load_error(tmp_path, GOOD.replace('"revenue - cost"', '"revenu - cost"'))
    assert "did you mean 'revenue'?" in message
    message = load_error(tmp_path, GOOD.replace('"max_expected_value"', '"max_expected_valu"'))
    assert "did you mean 'max_expected_value'?" in message


def test_check_cli_ok_and_failure(tmp_path: Path) -> None:
    runner = CliRunner()
    good = write(tmp_path, GOOD, "good.toml")
    # One template in one domain: only the language checker is asked here.
    result = runner.invoke(
        cli, ["templates", "check", str(good), "--renders", "5", "--language-only"]
    )
    assert result.exit_code == 0, result.output
    assert "ok: 1 templates" in result.output
    bad_dir = tmp_path / "bad"
    bad_dir.mkdir()
    write(bad_dir, GOOD.replace('"margin > 0"', "x"), "fine.toml")
    bad = write(bad_dir, GOOD.replace('"revenue - cost"', '"revenue - costs"'), "broken.toml")
    result = runner.invoke(cli, ["templates", "check", str(bad_dir), "--renders", "5"])
    assert result.exit_code == 2
    assert f"error: {bad}:10: " in result.output
    assert "unknown variable 'costs'" in result.output
    assert "1 problem(s) in 1 template(s)" in result.output


def test_generate_cli_with_bad_template_exits_2(tmp_path: Path) -> None:
    bad = write(tmp_path, GOOD.replace('"abs(margin) >= 5"', '"margin > 500"'))
    result = CliRunner().invoke(
        cli, ["generate", "--templates", str(bad), "--per-cell", "1", "-o", str(tmp_path / "b.pq")]
    )
    assert result.exit_code == 2
    assert f"{bad}:11: " in result.output and "can never" in result.output


def test_check_shipped_templates_in_a_subprocess() -> None:
    done = subprocess.run(
        # The coverage checks on the shipped templates are the quality gate's
        # (tests/test_quality_gate.py); this one loads and renders them all.
        [sys.executable, "-m", "steer", "templates", "check", "--renders", "5", "--language-only"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: ")


def test_unknown_perspective_and_format(tmp_path: Path) -> None:
    text = GOOD.replace('unit = "$"', 'unit = "$"\nperspectives = ["third"]')
    assert "unknown perspective 'third'" in load_error(tmp_path, text)
    text = GOOD.replace('unit = "$"', 'unit = "$"\nformats = { sunk = "euros" }')
    assert "'euros' is not one of" in load_error(tmp_path, text)


def test_signaling_game_needs_room_for_distinct_payoffs(tmp_path: Path) -> None:
    text = """\
element = "steer.3.5.b"

[[template]]
id = "t.signal"
domain = "labour"
structure = "signaling_game"
solver = "sequential_equilibrium"
phrasings = ["{game}"]

[template.grade.14]
size = 3
low = 0
high = 4
"""
    problem = load_error(tmp_path, text)
    assert problem.startswith("FILE:") and "at least 6 values for 3 responses" in problem
