"""A rubric that grades none of the questions a run asked is never a pass.

A run whose elements lie outside a rubric's sections (or which the rubric's
filters drop) leaves the card with nothing graded: "grade —, answered 0/0
asked". That card exits 1 with RAT012 naming the run's questions and the
rubric's selection, under every shipped rubric; a failed run never exits 0.
Real subprocesses (`python -m steer`) on a small bank of steer.1.1.c and
steer.3.1.b, elements outside several shipped rubrics.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from grade_helpers import steer
from steer.bank import write_bank
from steer.generate import generate_bank
from steer.rubric import shipped_rubrics
from steer.run import run_bank

ELEMENTS = ["steer.1.1.c", "steer.3.1.b"]
# Shipped rubrics that select neither element (or filter them all out).
MISSING = (
    "cognitive-biases",
    "grades-6-8",
    "grades-9-12",
    "grades-13-14",
    "medical-single-agent",
)


def _failed(table: pa.Table, share: float) -> pa.Table:
    """`table` with the first `share` of its rows errored (no usable answer)."""
    n = table.num_rows
    bad = [i < round(share * n) for i in range(n)]
    chosen = [-1 if b else c for b, c in zip(bad, table["chosen_index"].to_pylist(), strict=True)]
    errors = ["HTTP 500 from server" if b else None for b in bad]
    table = table.set_column(
        table.schema.get_field_index("chosen_index"), "chosen_index", pa.array(chosen, pa.int32())
    )
    return table.set_column(table.schema.get_field_index("error"), "error", pa.array(errors))


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("misses")
    write_bank(generate_bank(ELEMENTS, per_cell=3, seed=0), root / "bank.parquet")
    run_bank(root / "bank.parquet", "agent:oracle", root / "run")
    table = pq.read_table(root / "run" / "responses.parquet")
    pq.write_table(_failed(table, 1.0), root / "failed.parquet")
    pq.write_table(_failed(table, 0.9), root / "failed90.parquet")
    return root


def _asked(work: Path) -> int:
    return pq.read_table(work / "bank.parquet").num_rows


@pytest.mark.parametrize("name", sorted(shipped_rubrics()))
@pytest.mark.parametrize("table", ["failed.parquet", "failed90.parquet"])
def test_a_failed_run_never_passes_under_any_shipped_rubric(
    work: Path, name: str, table: str
) -> None:
    result = steer("grade", table, "--bank", "bank.parquet", "-r", name, cwd=work)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "RAT012" in result.stdout or "RAT013" in result.stdout
    if "answered 0/0 asked" in result.stdout:
        assert f"grades none of the {_asked(work)} questions the run asked" in result.stdout


@pytest.mark.parametrize("name", MISSING)
def test_a_rubric_that_grades_none_of_the_run_says_so(work: Path, name: str) -> None:
    result = steer("grade", "failed.parquet", "--bank", "bank.parquet", "-r", name, cwd=work)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "grade —" in result.stdout and "answered 0/0 asked" in result.stdout
    # The finding itself (indented under its rule's header line).
    (line,) = [x for x in result.stdout.splitlines() if "RAT012" in x and x.startswith("  ")]
    assert f"the rubric grades none of the {_asked(work)} questions the run asked" in line
    assert "elements steer.1.1.c, steer.3.1.b" in line  # the run's elements
    assert "it selects element" in line  # the rubric's selection
    assert "steer rubric list" in line  # the fix


def test_a_good_run_outside_the_rubric_is_not_a_pass(work: Path) -> None:
    # Every answer right, graded from the run directory: still nothing graded.
    result = steer("grade", "run", "-r", "cognitive-biases", cwd=work)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "grades none of the" in result.stdout
    # Without a manifest or --bank the run's rows say what it asked.
    bare = steer("grade", "run/responses.parquet", "-r", "grades-6-8", cwd=work)
    assert bare.returncode == 1, bare.stdout + bare.stderr
    assert f"grades none of the {_asked(work)} questions" in bare.stdout
    assert "filtered to grades 6–8" in bare.stdout


def test_a_rubric_that_grades_the_run_does_not_say_so(work: Path) -> None:
    result = steer("grade", "run", "-r", "whole-benchmark", cwd=work)
    assert "grades none of the" not in result.stdout
