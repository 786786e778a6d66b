"""`steer templates check`: load and render every template many times."""

from __future__ import annotations

from pathlib import Path

import click

from steer._limits import MAX_PER_CELL
from steer.cli._app import EXIT_BAD_INPUT, SteerGroup
from steer.cli._limits import SEED
from steer.errors import InputError
from steer.templates import Template, load_template_file, template_files


def _files(paths: tuple[Path, ...]) -> list[tuple[Path | object, str]]:
    if not paths:
        from steer._resources import templates_dir

        root = templates_dir()
        return [
            (f, "templates/" + str(f)[len(str(root)) :].lstrip("/")) for f in template_files(root)
        ]
    out: list[tuple[Path | object, str]] = []
    for path in paths:
        found = template_files(path) if path.is_dir() else [path]
        out.extend((f, str(f)) for f in found)
    return out


def check_templates(paths: tuple[Path, ...], renders: int, seed: int) -> tuple[int, list[str]]:
    """(templates checked, one message per failure, each naming file and line)."""
    from steer.generate import generate_questions

    failures: list[str] = []
    checked = 0
    for file, label in _files(paths):
        try:
            templates: list[Template] = load_template_file(file, label=label)  # type: ignore[arg-type]
        except InputError as exc:
            failures.append(str(exc))
            continue
        for template in templates:
            checked += 1
            try:
                generate_questions([template], per_cell=renders, seed=seed)
            except InputError as exc:
                failures.append(str(exc))
    return checked, failures


@click.group("templates", cls=SteerGroup)
def templates_cmd() -> None:
    """Work with question templates."""


@templates_cmd.command("check")
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--renders",
    default=50,
    show_default=True,
    type=click.IntRange(1, MAX_PER_CELL),
    help="Questions rendered per template and grade.",
)
@click.option("--seed", default=0, show_default=True, type=SEED)
def check_cmd(paths: tuple[Path, ...], renders: int, seed: int) -> None:
    """Load every template (default: the shipped ones) and render each grade
    many times; report each failure with its file and line, exit 2 on any."""
    checked, failures = check_templates(paths, renders, seed)
    for message in failures:
        click.echo(f"error: {message}", err=True)
    if failures:
        click.echo(f"{len(failures)} problem(s) in {checked} template(s)", err=True)
        raise SystemExit(EXIT_BAD_INPUT)
    click.echo(f"ok: {checked} templates, every grade rendered {renders} times")
