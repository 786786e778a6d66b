"""`steer compare A B` through a real subprocess on real runs of a reference
agent: exit codes, formats, response tables with `--bank`, bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bank_factory import biased_agent, paired_runs, write_test_bank
from grade_helpers import steer
from steer.run import run_bank
from steer.stats import compare_sides, side_outcomes


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("compare")
    paired_runs(root)  # base, rerun, worse
    other = write_test_bank(root / "other.parquet", 120)
    run_bank(other, biased_agent(1, 0.1), root / "elsewhere", seed=1)
    # Bare response tables without a bank fingerprint, rows shuffled.
    for name in ("base", "worse"):
        table = pq.read_table(root / name / "responses.parquet").drop_columns(["bank_sha256"])
        pq.write_table(table.take(list(range(table.num_rows))[::-1]), root / f"{name}.parquet")
    return root


def compare(work: Path, *args: str):  # type: ignore[no-untyped-def]
    return steer("compare", *args, cwd=work)


def test_a_regression_exits_1_with_paired_cells(work: Path) -> None:
    result = compare(work, "base", "worse")
    assert result.returncode == 1, result.stderr
    lines = [line for line in result.stdout.splitlines() if line.startswith("steer.")]
    assert len(lines) == 3 and all(line.endswith("REGRESSED") for line in lines)
    assert all(" mcnemar " in line and " 80 " in line for line in lines)
    assert "3 cells of B significantly below A." in result.stdout


def test_a_rerun_with_a_new_seed_exits_0(work: Path) -> None:
    result = compare(work, "base", "rerun")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "REGRESSED" not in result.stdout
    assert result.stdout.rstrip().endswith("no cell of B significantly below A.")
    # An improvement is not a regression either.
    assert compare(work, "worse", "base").returncode == 0


def test_json_matches_the_python_api_and_is_strict_json(work: Path) -> None:
    result = compare(work, "base", "worse", "--format", "json", "--metric", "normalized_accuracy")
    assert result.returncode == 1
    doc = json.loads(result.stdout, parse_constant=lambda c: pytest.fail(f"JSON has {c}"))
    assert (doc["metric"], doc["correction"], doc["level"]) == ("normalized_accuracy", "holm", 0.05)
    api = compare_sides(
        side_outcomes(work / "base"), side_outcomes(work / "worse"), "normalized_accuracy"
    ).to_pylist()
    assert len(doc["cells"]) == len(api) == 3
    for got, want in zip(doc["cells"], api, strict=True):
        assert got["test"] == "bootstrap" and got["regressed"] is True
        for key in ("cell", "n", "diff", "lo", "hi", "p", "p_adjusted"):
            assert got[key] == pytest.approx(want[key]), key
        assert got["lo"] <= got["diff"] <= got["hi"] < 0


def test_csv_and_output_file_and_one_cell(work: Path) -> None:
    result = compare(work, "base", "rerun", "--format", "csv", "--by", "all", "-o", "out.csv")
    assert result.returncode == 0 and result.stdout == ""
    rows = list(csv.DictReader(io.StringIO((work / "out.csv").read_text())))
    assert len(rows) == 1 and rows[0]["cell"] == "all" and rows[0]["n"] == "240"
    assert rows[0]["regressed"] == "False"


def test_response_tables_pair_like_run_directories(work: Path) -> None:
    runs = compare(work, "base", "worse", "--format", "json")
    tables = compare(
        work, "base.parquet", "worse.parquet", "--bank", "bank.parquet", "--format", "json"
    )
    assert tables.returncode == runs.returncode == 1
    one, two = json.loads(runs.stdout), json.loads(tables.stdout)
    assert one["cells"] == two["cells"]  # reversed rows, no fingerprint column: same cells
    # A table and a run directory of the same bank pair too.
    mixed = compare(work, "base", "worse.parquet", "--bank", "bank.parquet", "--format", "json")
    assert json.loads(mixed.stdout)["cells"] == one["cells"]


def test_rubric_supplies_metric_level_and_correction(work: Path) -> None:
    (work / "strict.toml").write_text(
        'name = "strict"\nmetric = "gap"\n[rules.regression]\nlevel = 0.01\ncorrection = "bh"\n'
        '[[section]]\nname = "Arithmetic"\nselect = ["steer.1.1"]\n',
        encoding="utf-8",
    )
    result = compare(work, "base", "worse", "-r", "strict.toml", "--format", "json")
    doc = json.loads(result.stdout)
    assert (doc["metric"], doc["correction"], doc["level"]) == ("gap", "bh", 0.01)
    # The rubric selects module 1.1 only.
    assert [c["cell"] for c in doc["cells"]] == ["steer.1.1.a", "steer.1.1.c"]


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["base", "nowhere"], "nowhere: no such run directory or response table"),
        (["base", "elsewhere"], "share no question to pair"),
        (["base", "worse", "--level", "1.5"], "--level"),
        (["base", "worse", "--correction", "bonferroni"], "--correction"),
        (["base", "worse", "-r", "no-such-rubric"], "no-such-rubric"),
    ],
)
def test_bad_input_exits_2(work: Path, args: list[str], says: str) -> None:
    result = compare(work, *args)
    assert result.returncode == 2, result.stdout
    assert result.stdout == ""
    assert says in result.stderr


def test_help_documents_the_exit_status(work: Path) -> None:
    result = compare(work, "--help")
    assert result.returncode == 0
    assert "0 when no cell of B is" in result.stdout and "2 on bad input" in result.stdout


def test_missing_answers_count_as_wrong_on_their_side(work: Path) -> None:
    """B lost every right answer of one element: those asked questions are
    no-answers (wrong), not dropped from the pairing."""
    table = pq.read_table(work / "base" / "responses.parquet")
    right = pc.and_(
        pc.equal(table["element"], "steer.1.1.a"),
        pc.equal(table["chosen_index"], table["correct_index"]),
    )
    pq.write_table(table.filter(pc.invert(right)), work / "partial.parquet")
    result = compare(work, "base", "partial.parquet", "--bank", "bank.parquet", "--format", "json")
    assert result.returncode == 1, result.stderr
    cells = {c["cell"]: c for c in json.loads(result.stdout)["cells"]}
    assert {c["n"] for c in cells.values()} == {80}
    lost = cells["steer.1.1.a"]
    assert lost["b"] == 0.0 and lost["regressed"] and lost["b_only"] == 0
    assert not cells["steer.1.1.c"]["regressed"] and cells["steer.1.1.c"]["diff"] == 0.0
