"""`steer templates check`: load and render every template many times, and
read what it renders with the language checker."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import click

from steer._limits import MAX_PER_CELL
from steer.cli._app import EXIT_BAD_INPUT, SteerGroup
from steer.cli._limits import SEED
from steer.errors import InputError
from steer.templates import Template, load_template_file, template_files

if TYPE_CHECKING:
    import pyarrow as pa

    from steer.templates._variety import Variety

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


@dataclass
class TemplateCheck:
    """What `run_checks` found: templates checked, load/render failures,
    language slips, coverage findings (TPL codes, see
    `steer.templates._coverage`) and, with `variety`, the bank it generated."""

    checked: int = 0
    failures: list[str] = field(default_factory=list)
    slips: list[str] = field(default_factory=list)
    coverage: list[str] = field(default_factory=list)
    variety: Variety | None = None


def run_checks(
    paths: tuple[Path, ...],
    renders: int,
    seed: int,
    *,
    coverage: bool = True,
    variety: bool = False,
    workers: int = 1,
) -> TemplateCheck:
    """Load and render every template under `paths` (default: the shipped
    ones), read the renders with the language checker and, with `coverage`,
    check perspectives, phrasings and domains (and, with `variety`, how many
    distinct questions each element yields). Every message names a file and
    line."""
    from steer._toml import read_toml_text
    from steer.generate import generate_questions
    from steer.templates._coverage import declared_findings, domain_findings
    from steer.templates._lint import lint_rendered
    from steer.templates._percent_check import percent_findings
    from steer.templates._perspective_check import perspective_findings
    from steer.templates._variety import variety_bank, variety_findings

    out = TemplateCheck()
    loaded: list[Template] = []
    texts: dict[str, str] = {}
    for file, label in _files(paths):
        try:
            templates: list[Template] = load_template_file(file, label=label)  # type: ignore[arg-type]
        except InputError as exc:
            out.failures.append(str(exc))
            continue
        text = read_toml_text(file, label)  # type: ignore[arg-type]
        texts[label] = text
        for template in templates:
            out.checked += 1
            try:
                table = generate_questions([template], per_cell=renders, seed=seed)
            except InputError as exc:
                out.failures.append(str(exc))
                continue
            loaded.append(template)
            out.slips.extend(lint_rendered(template, table, text))
            if coverage:
                out.coverage.extend(declared_findings(template, text))
                out.coverage.extend(perspective_findings(template, table, text))
                out.coverage.extend(percent_findings(template, table, text))
    if coverage:
        out.coverage.extend(domain_findings(loaded, texts))
    if variety and loaded:
        out.variety = variety_bank(loaded, seed=seed, workers=workers)
        out.failures.extend(out.variety.failures)
        out.coverage.extend(variety_findings(out.variety, loaded, texts))
        out.coverage.extend(bank_findings(out.variety.table, loaded, texts))
    return out


def bank_findings(table: pa.Table, templates: list[Template], texts: dict[str, str]) -> list[str]:
    """The audit's BAL findings (distractors tagged `other`, perspective
    balance, two-option items) over a generated bank, each at the `element`
    line of the element's first template file."""
    from steer.audit import build_frame
    from steer.audit._audit import balance_findings
    from steer.audit._balance import balance
    from steer.templates._coverage import line_of

    if table.num_rows == 0:
        return []
    frame = build_frame(table)
    first: dict[str, Template] = {}
    for t in templates:
        first.setdefault(t.element, t)
    out = []
    for element, b in zip(frame.elements, balance(frame), strict=True):
        t = first.get(element)
        where = f"{t.source}:{line_of(texts.get(t.source, ''), 'element') or 1}" if t else ""
        for message in balance_findings(
            element,
            None if b.other_share != b.other_share else b.other_share,
            None if b.perspective_spread != b.perspective_spread else b.perspective_spread,
            b.perspectives,
            None if b.two_option_share != b.two_option_share else b.two_option_share,
        ):
            out.append(f"{where}: {message}" if where else message)
    return sorted(out)


def check_templates(
    paths: tuple[Path, ...], renders: int, seed: int
) -> tuple[int, list[str], list[str]]:
    """(templates checked, one message per failure, one per language slip),
    each message naming file and line."""
    found = run_checks(paths, renders, seed, coverage=False)
    return found.checked, found.failures, found.slips


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
@click.option(
    "--language-only",
    is_flag=True,
    help="Only the language checker: skip the coverage checks (TPL001-TPL004, TPL006).",
)
@click.option(
    "--variety",
    is_flag=True,
    help="Also generate up to 1,000 questions per element and count the distinct ones "
    "(TPL005: every element must yield at least 1,000), and check that bank's tags, "
    "perspectives and option counts (BAL001-BAL003); slower.",
)
@click.option(
    "--workers",
    type=click.IntRange(1),
    default=None,
    help="Processes for --variety's generation (default: one per CPU).",
)
def check_cmd(
    paths: tuple[Path, ...],
    renders: int,
    seed: int,
    language_only: bool,
    variety: bool,
    workers: int | None,
) -> None:
    """Load every template (default: the shipped ones), render each grade many
    times and read every rendered text with the language checker (verb
    agreement, pronoun case, a/an, counts and plurals, possessives, unrendered
    placeholders).

    Then the coverage checks (issue 20 §4), each finding with a stable code:
    TPL001 a template does not declare all five perspectives (first, second,
    woman, man, anonymous); TPL002 a rendered perspective does not show its
    person (I/my, you/your, a woman's name or she/her, a man's name or he/his;
    anonymous: none of these); TPL003 fewer than 4 phrasings; TPL004 an element
    spans fewer than 4 domains; TPL006 a phrasing asks for a percentage while
    the answer's form is not `percent` (store it as a fraction with formats =
    { <answer var> = "percent" }); with --variety, TPL005 an element yields fewer
    than 1,000 distinct questions, and over the bank it generated the audit's
    BAL001-BAL003 (distractors tagged `other` under 10%, each perspective within
    ±20% of a fifth, at most 10% two-option items where the element offers
    more). CI runs all of them (tests/test_quality_gate.py).

    Each problem names its file and line. Exit 2 when a template cannot be
    loaded or rendered, 1 when only language slips or coverage findings are
    found, like a linter."""
    import os

    found = run_checks(
        paths,
        renders,
        seed,
        coverage=not language_only,
        variety=variety,
        workers=workers or os.cpu_count() or 1,
    )
    checked = found.checked
    for message in found.failures:
        click.echo(f"error: {message}", err=True)
    for message in found.slips:
        click.echo(f"language: {message}", err=True)
    for message in found.coverage:
        click.echo(f"coverage: {message}", err=True)
    if found.failures:
        click.echo(f"{len(found.failures)} problem(s) in {checked} template(s)", err=True)
    if found.slips:
        click.echo(f"{len(found.slips)} language slip(s) in {checked} template(s)", err=True)
    if found.coverage:
        click.echo(f"{len(found.coverage)} coverage finding(s) in {checked} template(s)", err=True)
    if found.failures or found.slips or found.coverage:
        raise SystemExit(EXIT_BAD_INPUT if found.failures else EXIT_FINDINGS)
    done = "no language slips" + ("" if language_only else ", no coverage findings")
    click.echo(f"ok: {checked} templates, every grade rendered {renders} times, {done}")
