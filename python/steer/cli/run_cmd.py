"""`steer run`: answer a bank with a model, durably and resumably."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from steer.cli._limits import SEED
from steer.errors import InputError
from steer.run import estimate_run, run_bank
from steer.schema import Adaptation

EXIT_INCOMPLETE = 1
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def parse_adaptation(text: str) -> Adaptation:
    """`FORMAT[;shots=K][;cot=none|shown|hidden][;prob=conditioning|mixing]
    [;order=shuffle:K][;collective=majority:N]` (the same text as
    `Adaptation.label()`; `,` also separates)."""
    fields: dict[str, Any] = {}
    names = {
        "shots": "shots",
        "cot": "cot",
        "prob": "prob_mode",
        "prob_mode": "prob_mode",
        "order": "order",
        "collective": "collective",
    }
    for i, item in enumerate(p.strip() for p in text.replace(",", ";").split(";")):
        if not item:
            continue
        key, sep, value = item.partition("=")
        if not sep:
            if i:
                raise InputError(f"--adapt {text!r}: expected KEY=VALUE, got {item!r}")
            fields["format"] = key
        elif key in ("format", *names):
            fields[names.get(key, key)] = value
        else:
            raise InputError(
                f"--adapt {text!r}: unknown key {key!r} "
                "(format, shots, cot, prob, order, collective)"
            )
    try:
        return Adaptation(**fields)
    except ValueError as exc:
        first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": (), "msg": str(exc)}
        where = ".".join(str(x) for x in first["loc"])
        raise InputError(f"--adapt {text!r}: {where}: {first['msg']}") from None


def _backend_options(pairs: tuple[str, ...], **named: Any) -> dict[str, Any]:
    options = {k: v for k, v in named.items() if v is not None}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise InputError(f"--backend-opt {pair!r}: expected KEY=VALUE")
        try:
            options[key] = json.loads(value)
        except (ValueError, RecursionError):  # not JSON (or absurdly deep): a string
            options[key] = value
    return options


def exit_interrupted(out: Path, what: str) -> NoReturn:
    """Ctrl-C: say what is kept and the command that resumes, exit 130."""
    resume = shlex.join(["steer", *sys.argv[1:]])
    click.echo(f"\ninterrupted; {what} so far are kept in {out}. Resume with:", err=True)
    click.echo(f"  {resume}", err=True)
    sys.exit(EXIT_INTERRUPTED)


# The run directory of `steer run` and `steer play`.
RUN_DIRECTORY = click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Run directory (re-running the same command resumes it).",
)


@click.command("run")
@click.argument("bank", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--model",
    "-m",
    required=True,
    metavar="SPEC",
    help="agent:oracle|random|human, openai:MODEL, hf:PATH_OR_NAME or vllm:NAME.",
)
@RUN_DIRECTORY
@click.option(
    "--adapt",
    "adapt",
    default="mc",
    show_default=True,
    metavar="SPEC",
    help="FORMAT[;shots=K][;prob=conditioning|mixing][;order=shuffle:K]; formats: mc, "
    "shown, hidden, together, separate, free, none. order=shuffle:K asks every question "
    "under K seeded permutations of its options (see position_robustness).",
)
@click.option("--limit", type=click.IntRange(0, 2**63 - 1), help="Only the first N questions.")
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option("--base-url", help="OpenAI-compatible server, e.g. http://localhost:8000/v1.")
@click.option(
    "--api-key-env", help="Environment variable holding the API key [default: OPENAI_API_KEY]."
)
@click.option("--concurrency", "-j", type=click.IntRange(1), help="Requests in flight.")
@click.option(
    "--timeout",
    "timeout_s",
    type=click.FloatRange(0, 3600, min_open=True),
    help="Seconds to wait for one reply [default: 30].",
)
@click.option(
    "--max-retry-wait",
    "max_retry_wait_s",
    type=click.FloatRange(0, 86400),
    metavar="SECONDS",
    help="Longest pause a server's Retry-After is honoured for [default: 60].",
)
@click.option(
    "--retry-budget",
    "retry_budget_s",
    type=click.FloatRange(0, 86400, min_open=True),
    metavar="SECONDS",
    help="Time one question may take, retries included, before it is recorded as an "
    "error [default: 300].",
)
@click.option(
    "--retry-errors",
    is_flag=True,
    help="Ask again the questions recorded as errors (the new answers replace them).",
)
@click.option(
    "--pricing",
    "pricing_file",
    type=click.Path(dir_okay=False, exists=True),
    help="TOML/JSON of model = {input, output} USD per 1M tokens.",
)
@click.option("--batch-api", is_flag=True, default=None, help="Use the OpenAI Batch API.")
@click.option(
    "--backend-opt",
    "backend_opt",
    multiple=True,
    metavar="KEY=VALUE",
    help="Any other backend setting (repeatable), e.g. temperature=0.7.",
)
@click.option(
    "--max-cost",
    type=click.FloatRange(0),
    metavar="USD",
    help="Budget for the run directory across invocations: no request is sent that "
    "could take the total past it.",
)
@click.option("--dry-run", is_flag=True, help="Estimate tokens and cost; send nothing.")
@click.option(
    "--cache-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Share the response cache between runs [default: the run directory].",
)
@click.option(
    "--shots-pool",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Bank to draw few-shot examples from [default: BANK].",
)
@click.option(
    "--collective",
    metavar="majority:N|debate:N,R",
    help="Answer with a collective of N members (N samples of the model, each its own "
    "request; use temperature > 0; or N personas, --personas) and record their plurality "
    "answer as the adaptation collective=majority:N beside every member's answer; "
    "debate:N,R first lets the members see each other's answers and reasons for R rounds.",
)
@click.option(
    "--personas",
    metavar="default|FILE",
    help="With --collective: member i answers as the i-th persona of a persona file (TOML "
    "[[persona]] tables with id and text; 'default' is steer's own set of 10); the text "
    "opens the member's conversations and its id joins the member's adaptation "
    "(…;persona=ID).",
)
@click.option("--progress/--no-progress", default=True, help="Progress bar on stderr.")
def run_cmd(
    bank: Path, model: str, out: Path, adapt: str, limit: int | None, seed: int,
    base_url: str | None, api_key_env: str | None, concurrency: int | None,
    timeout_s: float | None, max_retry_wait_s: float | None, retry_budget_s: float | None,
    retry_errors: bool, pricing_file: str | None, batch_api: bool | None,
    backend_opt: tuple[str, ...], max_cost: float | None, dry_run: bool,
    cache_dir: Path | None, shots_pool: Path | None, collective: str | None,
    personas: str | None, progress: bool,
) -> None:  # fmt: skip
    """Answer every question of BANK with a model and keep the responses.

    Exit status: 0 when every question is answered, 1 when the run stopped
    early (--max-cost) or the directory still holds questions recorded as
    errors, from this or an earlier invocation (re-run with --retry-errors to
    ask them again), 2 on bad input (or when another steer run holds the
    directory), 130 when interrupted (Ctrl-C; re-run to resume).
    """
    adaptation = parse_adaptation(adapt)
    options = _backend_options(
        backend_opt,
        base_url=base_url,
        api_key_env=api_key_env,
        concurrency=concurrency,
        timeout_s=timeout_s,
        max_retry_wait_s=max_retry_wait_s,
        retry_budget_s=retry_budget_s,
        pricing_file=pricing_file,
        batch_api=batch_api,
    )
    if collective is not None:
        _run_collective(bank, model, out, collective, adaptation, limit=limit, seed=seed,
                        options=options, cache_dir=cache_dir, progress=progress,
                        retry_errors=retry_errors, dry_run=dry_run, max_cost=max_cost,
                        shots_pool=shots_pool, personas=personas)  # fmt: skip
        return
    if personas is not None:
        raise InputError("--personas gives a collective's members their personas; add --collective")
    if dry_run:
        estimate = estimate_run(
            bank, model, adaptation=adaptation, limit=limit, seed=seed,
            backend_options=options, shots_pool=shots_pool,
        )  # fmt: skip
        for line in estimate.lines():
            click.echo(line)
        return
    try:
        result = run_bank(
            bank, model, out, adaptation=adaptation, limit=limit, seed=seed,
            backend_options=options, max_cost=max_cost, cache_dir=cache_dir,
            shots_pool=shots_pool, progress=progress, retry_errors=retry_errors,
        )  # fmt: skip
    except KeyboardInterrupt:
        # The journal is flushed by the time the interrupt reaches us.
        exit_interrupted(out, "answers")
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    click.echo(f"{result.n_new} new responses, {result.responses.num_rows} in {out}")
    if result.stopped == "max-cost":
        click.echo(
            f"stopped: --max-cost {max_cost:g} reached (${result.manifest.spent_usd:.4f} "
            "spent on this directory); re-run with a higher limit to continue",
            err=True,
        )
    if result.n_failed:
        click.echo(
            f"{_questions(result.n_failed)} recorded as errors after retries; "
            "re-run with --retry-errors to ask them again",
            err=True,
        )
    elif result.n_errors_left:
        click.echo(
            f"recorded errors stand for {_questions(result.n_errors_left)} in {out}; "
            "--retry-errors asks them again",
            err=True,
        )
    if result.stopped or result.n_failed or result.n_errors_left:
        sys.exit(EXIT_INCOMPLETE)


def _questions(n: int) -> str:
    return f"{n} question" if n == 1 else f"{n} questions"


def _run_collective(
    bank: Path, model: str, out: Path, collective: str, adaptation: Adaptation, *,
    limit: int | None, seed: int, options: dict[str, Any], cache_dir: Path | None,
    progress: bool, retry_errors: bool, dry_run: bool, max_cost: float | None,
    shots_pool: Path | None, personas: str | None = None,
) -> None:  # fmt: skip
    from steer.report import fmt
    from steer.run import run_collective

    for name, given in (("--dry-run", dry_run), ("--max-cost", max_cost is not None),
                        ("--shots-pool", shots_pool is not None)):  # fmt: skip
        if given:
            raise InputError(f"{name} is not supported with --collective yet")
    try:
        result = run_collective(
            bank, model, out, collective, adaptation=adaptation, seed=seed, limit=limit,
            backend_options=options, cache_dir=cache_dir, progress=progress,
            retry_errors=retry_errors, personas=personas,
        )  # fmt: skip
    except KeyboardInterrupt:
        exit_interrupted(out, "answers")
    for problem in result.problems:
        click.echo(f"warning: {problem}", err=True)
    g = result.gain
    click.echo(
        f"{collective}: {result.n_new} new member responses; {result.vote.num_rows} "
        f"collective answers in {out}"
    )
    if g["gain"] is not None:
        interval = f" [{fmt(g['lo'])}, {fmt(g['hi'])}]" if g["lo"] is not None else ""
        click.echo(
            f"accuracy: collective {fmt(g['collective'])}, members {fmt(g['members'])} "
            f"(mean); gain {g['gain']:+.3f}{interval} over {g['n']} question parts"
        )
    left = sum(m.n_errors_left for m in result.members)
    if left:
        click.echo(
            f"recorded errors stand for {_questions(left)} across the members; "
            "--retry-errors asks them again",
            err=True,
        )
        sys.exit(EXIT_INCOMPLETE)
