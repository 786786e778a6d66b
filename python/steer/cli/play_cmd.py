"""`steer play`: an experiment played by a model, durably and resumably."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from steer.cli._limits import SEED
from steer.cli.run_cmd import (
    EXIT_INCOMPLETE,
    EXIT_INTERRUPTED,
    RUN_DIRECTORY,
    _backend_options,
    parse_adaptation,
)


@click.command("play")
@click.argument("experiment")
@click.option(
    "--model",
    "-m",
    required=True,
    metavar="SPEC",
    help="openai:MODEL, hf:PATH, vllm:NAME, or a reference agent with known preferences: "
    "agent:pt(alpha=…,beta=…,lambda=…,gamma=…,delta=…,noise=…), agent:hyperbolic(k=…), "
    "agent:exponential(delta=…), agent:quasi-hyperbolic(beta=…,delta=…), "
    "agent:fs(alpha=…,beta=…), agent:garp(noise=…), agent:human-panel.",
)
@RUN_DIRECTORY
@click.option(
    "--samples",
    "-n",
    default=10,
    show_default=True,
    type=click.IntRange(1, 10_000),
    help="Times each trial is asked (each a separate request; use temperature > 0 for "
    "a model, or a noisy agent).",
)
@click.option(
    "--intervention",
    default="baseline",
    show_default=True,
    metavar="TEXT",
    help="baseline, advice, persona:<description>, or bias:risk-neutral|patient|"
    "selfish|fair (a direct prompt).",
)
@click.option(
    "--grid",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Your own grid file (JSON, the shape of the shipped one) instead of the shipped grid.",
)
@click.option(
    "--adapt",
    default="mc",
    show_default=True,
    metavar="SPEC",
    help="Adaptation as in steer run: mc, shown (chain of thought shown), hidden, free; "
    "order=shuffle:K asks under K option orders.",
)
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1.")
@click.option("--api-key-env", help="Environment variable holding the API key.")
@click.option("--concurrency", "-j", type=click.IntRange(1), help="Requests in flight.")
@click.option(
    "--backend-opt",
    "backend_opt",
    multiple=True,
    metavar="KEY=VALUE",
    help="Any other backend setting (repeatable), e.g. temperature=1.",
)
@click.option("--max-cost", type=click.FloatRange(0), metavar="USD", help="Budget for the run.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Share the response cache between runs [default: the run directory].",
)
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr.")
def play_cmd(
    experiment: str, model: str, out: Path, samples: int, intervention: str,
    grid: Path | None, adapt: str, seed: int, base_url: str | None,
    api_key_env: str | None, concurrency: int | None, backend_opt: tuple[str, ...],
    max_cost: float | None, cache_dir: Path | None, progress: bool,
) -> None:  # fmt: skip
    """Play EXPERIMENT with a model and keep every choice.

    Experiments: ultimatum-proposer, ultimatum-responder, dictator, gambling,
    mixed-gamble, waiting, discounting, mm-triangle, budget. Fit the choices
    with `steer fit OUT`. Exit status as for steer run: 0 when every trial is
    answered, 1 when some are recorded as errors or --max-cost stopped the
    run, 2 on bad input, 130 when interrupted (re-run to resume).
    """
    from steer.play import play_experiment

    options = _backend_options(
        backend_opt, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency
    )
    try:
        played = play_experiment(
            experiment, model, out, samples=samples, seed=seed, intervention=intervention,
            grid=grid, adaptation=parse_adaptation(adapt), backend_options=options,
            max_cost=max_cost, cache_dir=cache_dir, progress=progress,
        )  # fmt: skip
    except KeyboardInterrupt:
        resume = shlex.join(["steer", *sys.argv[1:]])
        click.echo(f"\ninterrupted; choices so far are kept in {out}. Resume with:", err=True)
        click.echo(f"  {resume}", err=True)
        sys.exit(EXIT_INTERRUPTED)
    result = played.run
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(
        f"{experiment}: {result.n_new} new choices, {result.responses.num_rows} in {out} "
        f"({samples} samples of {played.trials.num_rows // samples} trials); "
        f"fit them with: steer fit {shlex.quote(str(out))}"
    )
    import pyarrow.compute as pc

    table = result.responses
    unparsable = int(
        pc.sum(pc.and_(pc.equal(table["chosen_index"], -1), pc.is_null(table["error"]))).as_py()
        or 0
    )
    if unparsable:
        click.echo(
            f"{unparsable} choices named no option even after being asked again; they count "
            "as unanswered rungs (see competence in steer fit)",
            err=True,
        )
    if result.n_errors_left:
        click.echo(
            f"{result.n_errors_left} trials recorded as errors (unparsable or failed after "
            "retries); they count as unanswered rungs; re-run with the same command to resume",
            err=True,
        )
    if result.stopped or result.n_failed or result.n_errors_left:
        sys.exit(EXIT_INCOMPLETE)
