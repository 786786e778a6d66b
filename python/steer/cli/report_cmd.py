"""`steer report`: one self-contained HTML file for runs under a rubric."""

from __future__ import annotations

from pathlib import Path

import click

from steer._atomic import atomic_path
from steer.cli._grade_options import response_options, rubric_option, setup
from steer.rubric import grade


@click.command("report")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@rubric_option()
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write (replaced atomically).",
)
@click.option(
    "--fits",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Fitted utility parameters (steer fit --format json|parquet): their figures and "
    "table join the report, and the rubric's parameter checks use them.",
)
@response_options
def report_cmd(
    runs: tuple[Path, ...],
    rubric: str | None,
    out: Path,
    fits: Path | None,
    bank: Path | None,
    dedupe: str | None,
) -> None:
    """Write an HTML report: drill-down, heatmap, accuracy by grade level,
    domain fragility, dependency graph and diagnostics, and with --fits the
    utility parameters and their figures. No network needed to view it
    (inline CSS, JS and SVG)."""
    from steer.report.html import build_report
    from steer.rubric import read_fits

    s = setup(rubric, [], [])
    result = grade(
        list(runs),
        s.loaded,
        selection=s.selection,
        bank=bank,
        dedupe="latest" if dedupe == "latest" else None,
        fits=read_fits(fits) if fits else None,
    )
    extra = ""
    if fits:
        from steer.fit._report import fit_sections_html, fits_table

        extra = fit_sections_html(fits_table(fits), level=3)
    with atomic_path(out) as tmp:
        tmp.write_text(build_report(result, fits_html=extra), encoding="utf-8")
    # With -o - the report itself is on stdout: the summary goes to stderr.
    summary = f"wrote {out} ({len(result.cards)} cards, {len(result.diagnostics)} diagnostics)"
    click.echo(summary, err=str(out) == "-")
