"""`steer play`: an experiment played by a model, or a game between models and
strategies, durably and resumably."""

from __future__ import annotations

import shlex
import sys
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


@click.command("play")
@click.argument("experiment")
@click.option(
    "--players",
    "-p",
    metavar="SPEC[,SPEC…]",
    help="A game's seats, one spec each (commas inside parentheses belong to the spec; "
    "SPEC*4 fills four seats): openai:MODEL, hf:PATH, vllm:NAME, or a strategy: "
    "agent:always-defect, agent:always-cooperate, agent:tit-for-tat, agent:truthful, "
    "agent:level-k(k=…), agent:free-rider, agent:conditional-cooperator, agent:random.",
)
@click.option(
    "--rounds",
    type=click.IntRange(1, 100_000),
    help="A game's rounds (a cap on the length of an indefinitely repeated game) "
    "[default: the game file's].",
)
@click.option(
    "--wording",
    type=click.Choice(["v1", "v2"]),
    default="v1",
    show_default=True,
    help="A game's prompt wording: v1 rules, history, question; v2 question first, the "
    "payoffs as compact lines (steer score averages a game played under both into 'fin').",
)
@click.option(
    "--model",
    "-m",
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
    type=click.IntRange(1, 10_000),
    help="Times each trial is asked, or each game played (each a separate request; use "
    "temperature > 0 for a model, or a noisy agent) [default: 10 for an experiment, 1 for "
    "a game].",
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
    metavar="SPEC",
    help="Adaptation as in steer run: mc, shown (chain of thought shown), hidden, free; "
    "order=shuffle:K asks under K option orders [default: mc; a game played with numbers: "
    "free].",
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
@click.option(
    "--max-cost", type=click.FloatRange(0), metavar="USD",
    help="Budget (USD) for the directory across invocations: an experiment's run, or a game's "
    "paid seats together (the game stops after the round in progress; re-run to go on).",
)  # fmt: skip
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Share the response cache between runs [default: the run directory].",
)
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr.")
def play_cmd(
    experiment: str, players: str | None, rounds: int | None, wording: str,
    model: str | None, out: Path,
    samples: int | None, intervention: str, grid: Path | None, adapt: str | None, seed: int,
    base_url: str | None,
    api_key_env: str | None, concurrency: int | None, backend_opt: tuple[str, ...],
    max_cost: float | None, cache_dir: Path | None, progress: bool,
) -> None:  # fmt: skip
    """Play EXPERIMENT with a model (--model), or a GAME between players
    (--players), and keep every choice.

    Experiments: ultimatum-proposer, ultimatum-responder, dictator, gambling,
    mixed-gamble, waiting, discounting, mm-triangle, budget. Fit the choices
    with `steer fit OUT`. Games: second-price-auction, beauty-contest,
    prisoners-dilemma, repeated-prisoners-dilemma, public-goods,
    repeated-public-goods, infinitely-repeated-prisoners-dilemma,
    battle-of-the-sexes, stag-hunt, minimum-effort, the gama:* games, or a game
    file (.toml); score them with `steer score OUT`. Exit status as for steer
    run: 0 when every move is answered, 1 when some are recorded as errors,
    forfeited or --max-cost stopped the run, 2 on bad input, 130 when
    interrupted (re-run to resume).
    """
    from steer.play import play_experiment
    from steer.play._games import shipped_games

    options = _backend_options(
        backend_opt, base_url=base_url, api_key_env=api_key_env, concurrency=concurrency
    )
    if experiment in shipped_games() or experiment.endswith(".toml") or players is not None:
        if model is not None:
            raise CliError(f"{experiment} is a game: name its seats with --players, not --model")
        if players is None:
            raise CliError(f"{experiment} is a game: name its seats with --players SPEC[,SPEC…]")
        for name, value in (("--intervention", intervention != "baseline"), ("--grid", grid)):
            if value:
                raise CliError(f"{name} applies to experiments, not to the game {experiment}")
        _play_game(
            experiment, players, out, rounds=rounds, samples=samples or 1, seed=seed,
            adapt=adapt, options=options, cache_dir=cache_dir, progress=progress,
            wording=wording, max_cost=max_cost,
        )  # fmt: skip
        return
    if model is None:
        raise CliError(f"{experiment}: give the model that plays it with --model SPEC")
    if rounds is not None or wording != "v1":
        raise CliError("--rounds and --wording apply to games, not to experiments")
    samples = samples or 10
    adapt = adapt or "mc"
    try:
        played = play_experiment(
            experiment, model, out, samples=samples, seed=seed, intervention=intervention,
            grid=grid, adaptation=parse_adaptation(adapt), backend_options=options,
            max_cost=max_cost, cache_dir=cache_dir, progress=progress,
        )  # fmt: skip
    except KeyboardInterrupt:
        exit_interrupted(out, "choices")
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


def _play_game(
    game: str, players: str, out: Path, *, rounds: int | None, samples: int, seed: int,
    adapt: str | None, options: dict[str, object], cache_dir: Path | None, progress: bool,
    wording: str = "v1", max_cost: float | None = None,
) -> None:  # fmt: skip
    from steer.play import play_game

    def on_round(done: int, total: int) -> None:
        if progress:
            click.echo(f"\r{game}: round {done}/{total}", err=True, nl=done == total)

    try:
        result = play_game(
            game, players, out, rounds=rounds, samples=samples, seed=seed,
            adaptation=parse_adaptation(adapt) if adapt else None,
            backend_options=options or None, cache_dir=cache_dir, on_round=on_round,
            wording=wording, max_cost=max_cost,
        )  # fmt: skip
    except KeyboardInterrupt:
        exit_interrupted(out, "moves")
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    if result.stopped == "max-cost":
        click.echo(
            f"--max-cost {max_cost:g} reached (${result.spent_usd:.4f} spent on {out}) after "
            f"{result.rounds_played} complete rounds; the moves asked so far are kept: re-run "
            "with a larger --max-cost to go on",
            err=True,
        )
        sys.exit(EXIT_INCOMPLETE)
    click.echo(
        f"{result.game.name}: {result.n_new} new moves, {result.moves.num_rows} in {out} "
        f"({samples} samples, {len(result.record.players)} seats); score them with: "
        f"steer score {shlex.quote(str(out))}"
    )
    if result.n_forfeits:
        click.echo(
            f"{result.n_forfeits} moves forfeited (no valid move after asking again, or the "
            "request failed); each is recorded with its reason in moves.parquet and scores "
            "as the least rational move in the graded metrics",
            err=True,
        )
        sys.exit(EXIT_INCOMPLETE)
