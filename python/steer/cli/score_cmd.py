"""`steer score`: metrics over response tables, without re-running models."""

from __future__ import annotations

import io
import json
from pathlib import Path

import click
import pyarrow as pa
import pyarrow.csv as pacsv

from steer._atomic import atomic_path
from steer.cli._app import CliError
from steer.report import fmt, render_table
from steer.run import read_responses
from steer.score import score


@click.command("score")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--by",
    default="model,element",
    show_default=True,
    help="Comma-separated grouping columns (model, element, module, setting, "
    "domain, type, perspective, grade, adaptation, …).",
)
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file instead of standard output.",
)
def score_cmd(paths: tuple[Path, ...], by: str, fmt_: str, out: Path | None) -> None:
    """Score response tables or run directories grouped by columns."""
    tables = []
    for path in paths:
        table, problems = read_responses(path)
        for problem in problems:
            click.echo(f"warning: {problem}", err=True)
        tables.append(table)
    groups = [b.strip() for b in by.split(",") if b.strip()]
    if not groups:
        raise CliError("--by needs at least one column")
    scored = score(pa.concat_tables(tables), by=groups)
    if fmt_ == "json":
        text = json.dumps(scored.to_pylist(), indent=2, default=float) + "\n"
    elif fmt_ == "csv":
        buf = io.BytesIO()
        pacsv.write_csv(scored, buf)
        text = buf.getvalue().decode()
    else:
        rows = [
            [str(r[g]) for g in groups]
            + [str(r["n_rows"]), fmt(r["exact_match"]), fmt(r["normalized_accuracy"])]
            for r in scored.to_pylist()
        ]
        text = render_table([*groups, "n", "exact", "norm"], rows, "l" * len(groups) + "rrr") + "\n"
    if out:
        with atomic_path(out) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
