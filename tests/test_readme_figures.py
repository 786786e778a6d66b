"""The README's figures are what `steer plot` makes: regenerating them from
the same seeded runs (docs/figures/make.py) gives the committed bytes."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest

FIGURES = Path(__file__).resolve().parent.parent / "docs" / "figures"


@pytest.mark.slow
def test_committed_figures_are_steer_plots_output(tmp_path: Path) -> None:
    make = runpy.run_path(str(FIGURES / "make.py"))
    made = make["make"](tmp_path)
    assert {p.name for p in made} == {p.name for p in FIGURES.glob("*.svg")}
    readme = (FIGURES.parent.parent / "README.md").read_text(encoding="utf-8")
    for path in made:
        assert f"docs/figures/{path.name}" in readme, f"README does not show {path.name}"
        committed = (FIGURES / path.name).read_bytes()
        assert path.read_bytes() == committed, (
            f"docs/figures/{path.name} differs from what steer plot makes now: "
            "run `python docs/figures/make.py` and commit the result"
        )
