"""`steer generate --suite`: one benchmark's templates, or both with `all`."""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from steer.cli import cli
from steer.errors import InputError
from steer.generate import generate_bank
from steer.templates import load_templates


def _elements(suite: str) -> set[str]:
    return {t.element for t in load_templates() if t.element.startswith(f"{suite}.")}


def test_each_suite_keeps_its_benchmark_and_all_keeps_both(tmp_path: Path) -> None:
    if not _elements("steer-me"):
        pytest.skip("no STEER-ME templates in this checkout")
    seen = {}
    for suite in ("steer", "steer-me", "all"):
        out = tmp_path / f"{suite}.parquet"
        result = CliRunner().invoke(
            cli,
            ["generate", "--suite", suite, "--per-cell", "1", "--grades", "9-11", "-o", str(out)],
        )
        assert result.exit_code == 0, result.output
        seen[suite] = set(pc.unique(pq.read_table(out, columns=["element"])["element"]).to_pylist())
    assert seen["steer"] and all(e.startswith("steer.") for e in seen["steer"])
    assert seen["steer-me"] and all(e.startswith("steer-me.") for e in seen["steer-me"])
    assert seen["all"] == seen["steer"] | seen["steer-me"]


def test_an_unknown_suite_is_bad_input() -> None:
    result = CliRunner().invoke(cli, ["generate", "--suite", "steer_me", "-o", "x.parquet"])
    assert result.exit_code == 2
    with pytest.raises(InputError, match="no templates for suite"):
        generate_bank(suite="nothing", per_cell=1)
