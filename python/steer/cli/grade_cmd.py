"""`steer grade`: a report card under a rubric, failing like a linter."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from steer._atomic import atomic_path
from steer._limits import MAX_BOOTSTRAP
from steer.cli._grade_options import response_options, rubric_option, setup, split_codes
from steer.report.formats import (
    FORMATS,
    render_github,
    render_json,
    render_junit,
    render_markdown,
    render_sarif,
    render_text,
)
from steer.rubric import GradeResult, grade, read_fits
from steer.rubric import write_baseline as record_baseline
from steer.rubric._baseline import load_baseline
from steer.rubric._fits import Fits, fits_from_records

EXIT_FAILED = 1


@click.command("grade")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@rubric_option()
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(FORMATS),
    default=None,
    help="Output format (default: the config's, else text).",
)
@click.option("--statistics", is_flag=True, help="Count the diagnostics per code.")
@click.option(
    "--baseline",
    type=click.Path(path_type=Path),
    help="Compare with this baseline file, or with run directories / response tables "
    "graded under the same rubric (RAT007: paired test per element).",
)
@click.option(
    "--write-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Record each card's summary and question outcomes as a baseline file.",
)
@click.option(
    "--fits",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Fitted utility parameters (JSON or Parquet) for parameter checks.",
)
@click.option("--select", multiple=True, metavar="CODES", help="Only these codes or prefixes.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these codes or prefixes.")
@click.option(
    "--bootstrap",
    type=click.IntRange(0, MAX_BOOTSTRAP),
    default=None,
    metavar="N",
    help="Bootstrap resamples for the intervals (overrides the rubric; 0: Wilson).",
)
@response_options
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when error-level checks fail.")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to this file instead of standard output.",
)
def grade_cmd(
    runs: tuple[Path, ...],
    rubric: str | None,
    fmt_: str | None,
    statistics: bool,
    baseline: Path | None,
    write_baseline: Path | None,
    fits: Path | None,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    bootstrap: int | None,
    bank: Path | None,
    dedupe: str | None,
    exit_zero: bool,
    output: Path | None,
) -> None:
    """Grade run directories (or response files) under a rubric.

    Prints a report card per model and adaptation, with its coverage, and the
    diagnostics of the rubric's checks and the built-in rules (`steer rules`).
    Every question a run was asked counts: unanswered ones are no-answers
    (give --bank for bare response tables). Exit status: 0 when no
    error-level diagnostic, 1 when some, 2 on bad input or usage.
    """
    s = setup(rubric, split_codes(select), split_codes(ignore))
    if bootstrap is not None:
        s.loaded.rubric = s.loaded.rubric.model_copy(update={"bootstrap": bootstrap})
    config = s.config.config
    fmt_ = fmt_ or config.format or "text"
    baseline = baseline or (Path(config.baseline) if config.baseline else None)
    fits = fits or (Path(config.fits) if config.fits else None)
    base = load_baseline(baseline, s.loaded, bank=bank) if baseline else None
    result = grade(
        list(runs),
        s.loaded,
        selection=s.selection,
        baseline=base,
        fits=_fits(fits, list(runs)),
        bank=bank,
        dedupe="latest" if dedupe == "latest" else None,
    )
    if write_baseline:
        record_baseline(result, write_baseline)
    regression = s.loaded.rubric.rules.regression
    text = render(result, fmt_, statistics, list(runs), regression=regression)
    if output:
        with atomic_path(output) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt_ == "github" and summary_file:
        with Path(summary_file).open("a", encoding="utf-8") as fh:
            fh.write(render_markdown(result))
    if result.failed() and not exit_zero:
        click.get_current_context().exit(EXIT_FAILED)


def render(
    result: GradeResult, fmt_: str, statistics: bool, runs: list[Path], *, regression: Any = None
) -> str:
    """The card in `fmt_` (see FORMATS); `regression`: the rubric's paired-test
    options, for the HTML page's model comparison."""
    from steer import __version__

    if fmt_ == "json":
        return render_json(result)
    if fmt_ == "markdown":
        return render_markdown(result)
    if fmt_ == "github":
        return render_github(result)
    if fmt_ == "junit":
        return render_junit(result)
    if fmt_ == "sarif":
        return render_sarif(result, __version__)
    if fmt_ == "html":
        from steer.report.html import build_report

        return build_report(result, regression=regression)
    return render_text(result, statistics)


def _fits(path: Path | None, runs: list[Path]) -> Fits | None:
    """The fits file's records, and the records of every game, collective and
    survey run among `runs` (`steer.rubric._records`: game metrics, crowd
    gain, subscale scores), which parameter checks grade like fitted
    parameters (`parameter = "GAME.METRIC"`) and metric checks as run metrics
    (`metric = "%NE"`, `"crowd_gain"`, `"subscale"` over what a check
    selects): one path for all."""
    from steer.rubric._records import run_records

    records = list(read_fits(path).records) if path else []
    found, sources = run_records(runs)
    records += found
    if not records and path is None:
        return None
    source = ", ".join([str(path)] if path else sources)
    return fits_from_records(records, source)
