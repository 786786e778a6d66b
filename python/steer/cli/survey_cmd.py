"""`steer survey INSTRUMENT --model SPEC`: a questionnaire, answered and scored."""

from __future__ import annotations

from pathlib import Path

import click

from steer.cli._app import CliError
from steer.cli._limits import SEED
from steer.cli.run_cmd import (
    EXIT_INCOMPLETE,
    RUN_DIRECTORY,
    _backend_options,
    exit_interrupted,
    parse_adaptation,
)


@click.command("survey")
@click.argument("instrument")
@click.option("--model", "-m", required=True, metavar="SPEC", help="openai:MODEL, hf:PATH, …")
@RUN_DIRECTORY
@click.option(
    "--samples",
    "-n",
    default=1,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Times each item is asked (each its own request; use temperature > 0).",
)
@click.option("--adapt", default="mc", show_default=True, metavar="SPEC", help="As in steer run.")
@click.option(
    "--compare",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Published per-item answers laid out like Rationality Check's survey_result.csv: "
    "the distance of the model's answers from each published model's.",
)
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1.")
@click.option("--api-key-env", help="Environment variable holding the API key.")
@click.option("--concurrency", "-j", type=click.IntRange(1), help="Requests in flight.")
@click.option("--backend-opt", "backend_opt", multiple=True, metavar="KEY=VALUE")
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr.")
def survey_cmd(
    instrument: str, model: str, out: Path, samples: int, adapt: str, compare: Path | None,
    seed: int, base_url: str | None, api_key_env: str | None, concurrency: int | None,
    backend_opt: tuple[str, ...], progress: bool,
) -> None:  # fmt: skip
    """Ask a model every item of INSTRUMENT and score its subscales.

    INSTRUMENT is a shipped instrument (decision-style) or an instrument file
    (.toml; the format is in steer/survey/_instrument.py and the README).
    Re-running the same command resumes.
    """
    from steer.report import fmt, render_table
    from steer.survey import compare_published, read_published, run_survey, subscale_scores

    options = _backend_options(
        backend_opt, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency
    )
    try:
        done = run_survey(
            instrument, model, out, samples=samples, seed=seed,
            adaptation=parse_adaptation(adapt), backend_options=options or None,
            progress=progress,
        )  # fmt: skip
    except KeyboardInterrupt:
        exit_interrupted(out, "answers")
    for problem in done.run.problems:
        click.echo(f"warning: {problem}", err=True)
    responses = done.run.responses
    scores = subscale_scores(done.instrument, responses, seed=seed)
    rows = []
    for r in scores.to_pylist():
        lo, hi = r["score_lo"], r["score_hi"]
        interval = f" [{fmt(lo)}, {fmt(hi)}]" if lo is not None else ""
        rows.append([r["model"], r["subscale"], fmt(r["score"]) + interval, str(r["n_answers"])])
    click.echo(render_table(["model", "subscale", "score", "answers"], rows, "llrr"))
    if compare is not None:
        name = done.instrument.published
        if name is None:
            raise CliError(
                f"instrument {done.instrument.name!r} names no published scale "
                '(add `published = "<scale name>"` to its file)'
            )
        table = compare_published(done.instrument, responses, read_published(compare, name))
        lines = [
            [r["published_model"], str(r["items"]), fmt(r["mean_abs_diff"]),
             "—" if r["correlation"] is None else fmt(r["correlation"])]
            for r in table.to_pylist()
        ]  # fmt: skip
        click.echo(f"\nclosest published answers ({name}):")
        click.echo(render_table(["published model", "items", "mean |diff|", "r"], lines, "lrrr"))
    if done.run.n_errors_left:
        click.echo(f"{done.run.n_errors_left} items recorded as errors; re-run to ask them again",
                   err=True)  # fmt: skip
        raise SystemExit(EXIT_INCOMPLETE)
