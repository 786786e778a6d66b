"""`steer templates check`: load and render every template many times, and
read what it renders with the language checker."""

from __future__ import annotations

from pathlib import Path

import click

from steer._limits import MAX_PER_CELL
from steer.cli._app import EXIT_BAD_INPUT, SteerGroup
from steer.cli._limits import SEED
from steer.errors import InputError
from steer.templates import Template, load_template_file, template_files

EXIT_FINDINGS = 1  # language slips only, like a linter's findings


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


def check_templates(
    paths: tuple[Path, ...], renders: int, seed: int
) -> tuple[int, list[str], list[str]]:
    """(templates checked, one message per failure, one per language slip),
    each message naming file and line."""
    from steer._toml import read_toml_text
    from steer.generate import generate_questions
    from steer.templates._lint import lint_rendered

    failures: list[str] = []
    slips: list[str] = []
    checked = 0
    for file, label in _files(paths):
        try:
            templates: list[Template] = load_template_file(file, label=label)  # type: ignore[arg-type]
        except InputError as exc:
            failures.append(str(exc))
            continue
        text = read_toml_text(file, label)  # type: ignore[arg-type]
        for template in templates:
            checked += 1
            try:
                table = generate_questions([template], per_cell=renders, seed=seed)
            except InputError as exc:
                failures.append(str(exc))
                continue
            slips.extend(lint_rendered(template, table, text))
    return checked, failures, slips


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
    """Load every template (default: the shipped ones), render each grade many
    times and read every rendered text with the language checker (verb
    agreement, pronoun case, a/an, counts and plurals, possessives, unrendered
    placeholders). Each problem names its file and line. Exit 2 when a
    template cannot be loaded or rendered, 1 when only language slips are
    found, like a linter."""
    checked, failures, slips = check_templates(paths, renders, seed)
    for message in failures:
        click.echo(f"error: {message}", err=True)
    for message in slips:
        click.echo(f"language: {message}", err=True)
    if failures:
        click.echo(f"{len(failures)} problem(s) in {checked} template(s)", err=True)
    if slips:
        click.echo(f"{len(slips)} language slip(s) in {checked} template(s)", err=True)
    if failures or slips:
        raise SystemExit(EXIT_BAD_INPUT if failures else EXIT_FINDINGS)
    click.echo(f"ok: {checked} templates, every grade rendered {renders} times, no language slips")
