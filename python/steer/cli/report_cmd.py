"""`steer report`: one self-contained HTML file for runs under a rubric."""

from __future__ import annotations

from pathlib import Path

import click

from steer._atomic import atomic_path
from steer.cli._app import CliError
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
    help="The report file to write (replaced atomically): .html, or .md for markdown.",
)
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["html", "markdown"]),
    default=None,
    help="html: one self-contained page; markdown: a .md file for a paper's appendix or a PR, "
    "with the figures (SVG) and the scored cells (CSV, Parquet) in NAME_files/ beside it. "
    "Default: by the --out suffix (.md: markdown), else html.",
)
@click.option(
    "--fits",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Fitted utility parameters (steer fit --format json|parquet): their figures and "
    "table join the report, and the rubric's parameter checks use them.",
)
@click.option(
    "--published",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Game runs: the published Rationality Check game table (game_results.csv); the "
    "games section shows the published models beside the players and the human baseline "
    "(min · median · max of each game's metrics, the nearest published models) and the "
    "domain scores of the runs' models beside theirs.",
)
@response_options
def report_cmd(
    runs: tuple[Path, ...],
    rubric: str | None,
    out: Path,
    fmt_: str | None,
    fits: Path | None,
    published: Path | None,
    bank: Path | None,
    dedupe: str | None,
) -> None:
    """Write a report: cards, what produced the numbers, heatmap, the rubric's
    metric by grade level, model comparison, robustness, calibration,
    dependency graph, diagnostics grouped by rule, and the answers behind every
    cell (prompt and reply); with --fits the utility parameters and their
    figures; with --published the games beside Rationality Check's models.
    HTML needs no network to view (inline CSS, JS and SVG); --format markdown
    writes the figures and scored cells beside the file."""
    from steer.cli.grade_cmd import _fits as game_and_file_fits
    from steer.report.html import build_report

    s = setup(rubric, [], [])
    table = None
    if published is not None:
        from steer.play import GAME_FILE
        from steer.report._published import read_published

        if not any((Path(r) / GAME_FILE).is_file() for r in runs):
            raise CliError("--published compares game runs (steer play GAME); these are not")
        table = read_published(published)  # bad input: one line, exit 2, before grading
    result = grade(
        list(runs),
        s.loaded,
        selection=s.selection,
        bank=bank,
        dedupe="latest" if dedupe == "latest" else None,
        # As `steer grade`: game runs' metrics are checked like fitted parameters.
        fits=game_and_file_fits(fits, list(runs)),
    )
    regression = s.loaded.rubric.rules.regression
    fmt_ = fmt_ or ("markdown" if out.suffix.lower() in (".md", ".markdown") else "html")
    if fmt_ == "markdown":
        from steer.report._figures import report_figures
        from steer.report._markdown_report import write_markdown_report

        if str(out) == "-":
            raise CliError("--format markdown writes files beside the report: give -o FILE.md")
        figures = report_figures(result, regression=regression)
        written = write_markdown_report(result, out, figures, published=table)
        counts = f"{len(result.cards)} cards, {len(result.diagnostics)} diagnostics"
        click.echo(f"wrote {out} and {len(written) - 1} files in {out.stem}_files/ ({counts})")
        return
    extra = ""
    if fits:
        from steer.fit._report import fit_sections_html, fits_table

        extra = fit_sections_html(fits_table(fits), level=3)
    with atomic_path(out) as tmp:
        tmp.write_text(
            build_report(result, fits_html=extra, regression=regression, published=table),
            encoding="utf-8",
        )
    # With -o - the report itself is on stdout: the summary goes to stderr.
    summary = f"wrote {out} ({len(result.cards)} cards, {len(result.diagnostics)} diagnostics)"
    click.echo(summary, err=str(out) == "-")
