"""`steer run`: answer a bank with a model, durably and resumably."""

from __future__ import annotations

from pathlib import Path

import click

from steer.run import run_bank


@click.command("run")
@click.argument("bank", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--model",
    "-m",
    required=True,
    metavar="SPEC",
    help="Model spec, e.g. agent:oracle or agent:random.",
)
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (re-running resumes it).",
)
@click.option("--limit", type=click.IntRange(0), help="Only the first N questions.")
@click.option("--seed", default=0, show_default=True, type=int)
def run_cmd(bank: Path, model: str, out: Path, limit: int | None, seed: int) -> None:
    """Answer every question of BANK with a model and keep the responses."""
    result = run_bank(bank, model, out, limit=limit, seed=seed)
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"{result.n_new} new responses, {result.responses.num_rows} in {out}")
