"""Rubric files: positions of keys, and every bad input as one clear
diagnostic at file:line:col (`steer rubric check` exits 1, `steer grade` 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grade_helpers import make_runs, steer
from steer.rubric import check_rubric, load_rubric, shipped_rubrics
from steer.rubric._locate import locate_keys

GOOD = """\
name = "good"

[[section]]
name = "Games"
select = ["steer.3.1"]
"""


def test_locate_keys_follows_tables_arrays_and_items() -> None:
    text = (
        'name = "x"\n'
        "[[section]]\n"
        'name = "a"\n'
        "  select = [\n"
        '    "steer.1",\n'
        '    "steer.2"]\n'
        "[[section.section]]\n"
        "weight = 2\n"
        "[[section]]\n"
        'select = ["p", "q"]\n'
        "[rules.miscalibration]\n"
        "max_ece = 0.1\n"
    )
    pos = locate_keys(text)
    assert pos[("name",)] == (1, 1)
    assert pos[("section", 0, "select")] == (4, 3)
    assert pos[("section", 0, "select", 1)] == (6, 5)
    assert pos[("section", 0, "section", 0, "weight")] == (8, 1)
    assert pos[("section", 1, "select", 1)] == (10, 16)
    assert pos[("rules", "miscalibration", "max_ece")] == (12, 1)


def write(tmp_path: Path, text: str, name: str = "x.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


BAD = [
    pytest.param(
        'name = "x"\n[[section]\nname = "a"\n', "x.toml:2:", "RUB001 invalid TOML", id="toml"
    ),
    pytest.param(
        GOOD + "wieght = 2\n",
        "x.toml:6:1: RUB002",
        'unknown key "wieght" — did you mean "weight"?',
        id="unknown-key",
    ),
    pytest.param(
        GOOD.replace('"steer.3.1"', '"steer.3.1", "steer.9.9"'),
        "x.toml:5:24: RUB004",
        "selector `steer.9.9` matches no element",
        id="selector",
    ),
    pytest.param(
        GOOD + "weight = 0\n",
        "x.toml:6:1: RUB003",
        "`section.0.weight`: Input should be greater than 0 (got 0)",
        id="weight",
    ),
    pytest.param(
        GOOD + "weight = -1.5\n", "x.toml:6:1: RUB003", "greater than 0 (got -1.5)", id="neg-weight"
    ),
    pytest.param(
        'name = "x"\n[scale]\nA = 0.9\nB = 0.95\nC = 0.7\nD = 0.6\n' + GOOD.split("\n", 1)[1],
        "x.toml:4:1: RUB006",
        "letter thresholds overlap: B starts at 0.95, not below A at 0.9",
        id="thresholds",
    ),
    pytest.param(
        'name = "x"\nextends = "x.toml"\n' + GOOD.split("\n", 1)[1],
        "x.toml:2:1: RUB005",
        "`extends` cycle",
        id="cycle",
    ),
    pytest.param(
        'name = "x"\nignore = ["RAT0099"]\n' + GOOD.split("\n", 1)[1],
        "x.toml:2:11: RUB007",
        "`RAT0099` is not a known code or prefix",
        id="unknown-code",
    ),
    pytest.param(
        GOOD + '[[check]]\ncode = "RAT100"\nmetric = "ece"\nmax = 0.1\n',
        "x.toml:7:1: RUB003",
        "reserved",
        id="reserved-code",
    ),
    pytest.param('name = "x"\n', "x.toml:1:1: RUB008", "no [[section]]", id="no-sections"),
    pytest.param(
        GOOD + '[[check]]\ncode = "X001"\nmetric = "ece"\n',
        "x.toml:6:1: RUB003",
        "give `min`, `max` or both",
        id="check-bounds",
    ),
]


@pytest.mark.parametrize(("text", "where", "message"), BAD)
def test_bad_rubric_is_one_clear_diagnostic(
    tmp_path: Path, text: str, where: str, message: str
) -> None:
    path = write(tmp_path, text)
    found = [d.line() for d in check_rubric(path)]
    assert found, "expected a diagnostic"
    line = found[0].replace(str(tmp_path) + "/", "")
    assert line.startswith(where), line
    assert message in line


@pytest.mark.parametrize(("text", "where", "message"), BAD)
def test_bad_rubric_exits_2_from_grade(tmp_path: Path, text: str, where: str, message: str) -> None:
    write(tmp_path, text)
    runs = make_runs(tmp_path)
    result = steer("grade", *map(str, runs), "--rubric", "x.toml", cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: {where}")
    assert message in lines[0]


def test_rubric_check_exit_codes(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "good.toml")
    write(tmp_path, GOOD + "wieght = 1\n", "bad.toml")
    ok = steer("rubric", "check", "good.toml", cwd=tmp_path)
    assert ok.returncode == 0 and "All checks passed." in ok.stdout
    bad = steer("rubric", "check", "bad.toml", cwd=tmp_path)
    assert bad.returncode == 1
    assert bad.stdout.startswith(
        'bad.toml:6:1: RUB002 unknown key "wieght" — did you mean "weight"?'
    )
    missing = steer("rubric", "check", "nope.toml", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error: ")


def test_selector_hint_suggests_a_close_id(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('"steer.3.1"', '"steer.3.1.bb"'))
    (d,) = check_rubric(path)
    assert d.severity == "warning"
    assert d.hint is not None and "steer.3.1.b" in d.hint


def test_schema_is_json_schema() -> None:
    result = steer("rubric", "schema", cwd=Path.cwd())
    assert result.returncode == 0
    schema = json.loads(result.stdout)
    assert schema["additionalProperties"] is False
    assert {"name", "section", "check", "filters", "scale"} <= set(schema["properties"])


def test_extends_merges_checks_and_rules(tmp_path: Path) -> None:
    write(
        tmp_path,
        GOOD + '[rules.miscalibration]\nmax_ece = 0.2\n[[check]]\ncode = "P001"\n'
        'metric = "ece"\nmax = 0.3\n',
        "parent.toml",
    )
    child = write(
        tmp_path,
        'name = "child"\nextends = "parent.toml"\n[rules.domain_fragility]\nmax_gap = 0.1\n'
        '[[check]]\ncode = "C001"\nmetric = "ece"\nmax = 0.2\n',
        "child.toml",
    )
    rubric = load_rubric(child).rubric
    assert rubric.name == "child"
    assert [c.code for c in rubric.check] == ["P001", "C001"]
    assert rubric.rules.miscalibration.max_ece == 0.2
    assert rubric.rules.domain_fragility.max_gap == 0.1
    assert [s.name for s in rubric.section] == ["Games"]


@pytest.mark.parametrize("name", sorted(shipped_rubrics()))
def test_shipped_rubrics_are_clean(name: str) -> None:
    assert check_rubric(shipped_rubrics()[name]) == []


def test_check_reports_every_problem_at_once(tmp_path: Path) -> None:
    path = write(tmp_path, GOOD.replace('"steer.3.1"', '"steer.3.1.bb"') + "wieght = 2\n")
    codes = [d.code for d in check_rubric(path)]
    assert codes == ["RUB004", "RUB002"]
