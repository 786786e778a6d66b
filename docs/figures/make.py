"""The README's figures, made by `steer plot` from reference agents' runs.

    python docs/figures/make.py [OUT_DIR]      (default: docs/figures)

A seeded bank of the demo's three elements plus two cognitive-bias elements,
answered by the oracle, the random agent and the stylised human; then one
`steer plot` per kind. Same seeds, same bytes (tests/test_readme_figures.py
checks the committed files against a fresh make)."""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

ELEMENTS = "1.1.c,2.4.b,3.1.b,2.2.a,2.5.a"
AGENTS = ("oracle", "random", "human")
#: file name → steer plot arguments after the kind
FIGURES = {
    "heatmap.svg": ("heatmap",),
    "grade-curve.svg": ("grade-curve",),
    "compare.svg": ("compare",),
    "robustness.svg": ("robustness",),
    "calibration.svg": ("calibration",),
    "dependency-graph.svg": ("dependency-graph", "--model", "agent:human"),
}


def steer(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "steer", *args], cwd=cwd, check=True,
                   capture_output=True)  # fmt: skip


def make(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        steer("generate", "--elements", ELEMENTS, "--per-cell", "6", "--seed", "7",
              "-o", "bank.parquet", cwd=work)  # fmt: skip
        runs = [f"runs/{a}" for a in AGENTS]
        for agent, run in zip(AGENTS, runs, strict=True):
            steer("run", "bank.parquet", "--model", f"agent:{agent}", "-o", run, cwd=work)
        made = []
        for name, (kind, *extra) in FIGURES.items():
            steer("plot", kind, *runs, *extra, "-o", str((out / name).resolve()), cwd=work)
            made.append(out / name)
    return made


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent
    for path in make(target):
        print(path)
