"""`steer rubric`: the rubric format's JSON Schema, checking files, listing
the shipped rubrics."""

from __future__ import annotations

import json
from pathlib import Path

import click

from steer.report import render_table


@click.group("rubric")
def rubric_cmd() -> None:
    """Rubric files: schema, check, list."""


@rubric_cmd.command("schema")
def schema_cmd() -> None:
    """Print the rubric format as JSON Schema."""
    from steer.rubric import Rubric

    click.echo(json.dumps(Rubric.model_json_schema(), indent=2))


@rubric_cmd.command("check")
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
def check_cmd(files: tuple[Path, ...]) -> None:
    """Validate rubric files, printing ruff-style `file:line:col: CODE message`.

    Exit status: 0 when clean, 1 when any error or warning, 2 when a file
    cannot be read.
    """
    from steer.rubric import check_rubric, resolve_rubric

    found = []
    for file in files:
        path = file if file.exists() else resolve_rubric(str(file))
        found += check_rubric(path)
    for d in found:
        click.echo(d.line())
    if found:
        errors = sum(d.severity == "error" for d in found)
        warnings = len(found) - errors
        parts = [
            f"{n} {word}{'' if n == 1 else 's'}"
            for n, word in ((errors, "error"), (warnings, "warning"))
            if n
        ]
        click.echo(f"Found {' and '.join(parts)}.")
        click.get_current_context().exit(1)
    click.echo("All checks passed.")


@rubric_cmd.command("list")
def list_cmd() -> None:
    """The shipped rubrics (use them by name with --rubric)."""
    from steer.rubric import load_rubric, shipped_rubrics

    rows = []
    for name in shipped_rubrics():
        rows.append([name, load_rubric(name).rubric.description])
    click.echo(render_table(["name", "description"], rows, "ll"))
