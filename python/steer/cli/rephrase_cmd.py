"""`steer rephrase BANK --llm openai:MODEL -o OUT`: new wordings, same problems."""

from __future__ import annotations

from pathlib import Path

import click

from steer.bank import read_bank, read_bank_metadata, write_bank


@click.command("rephrase")
@click.argument("bank", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--llm",
    "llm",
    required=True,
    metavar="openai:MODEL",
    help="The model that rewrites the wordings (an OpenAI-compatible server).",
)
@click.option(
    "--base-url",
    help="OpenAI-compatible server (key from --api-key-env; none needed locally).",
)
@click.option(
    "--api-key-env",
    default="OPENAI_API_KEY",
    show_default=True,
    help="Environment variable holding the API key (never written anywhere).",
)
@click.option(
    "--style",
    default=None,
    help="The style to write in, in words (default: plain, natural English by another author).",
)
@click.option(
    "--attempts",
    default=3,
    show_default=True,
    type=click.IntRange(1, 20),
    help="Requests per question before its original wording is kept.",
)
@click.option(
    "-j", "--concurrency", default=8, show_default=True, type=click.IntRange(1, 1024),
    help="Requests in flight.",
)  # fmt: skip
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Parquet bank to write (replaced atomically).",
)
def rephrase_cmd(
    bank: Path,
    llm: str,
    base_url: str | None,
    api_key_env: str,
    style: str | None,
    attempts: int,
    concurrency: int,
    out: Path,
) -> None:
    """Reword BANK's questions with an LLM, every number, option and key fixed.

    A rewrite is accepted only when it states exactly the numbers of the
    original (so the problem the solver proved is unchanged), differs from
    it, and adds no option's wording; options, keys, payloads and distractor
    tags are copied as they are. A refreshed bank guards against a model that
    memorised the published wordings. Exit 0 when some question was
    rephrased, 1 when none could be, 2 on bad input.
    """
    from steer.generate.llm import LLMOptions
    from steer.generate.llm._rephrase import DEFAULT_STYLE, rephrase_bank

    table = read_bank(bank)
    options = LLMOptions(
        base_url=base_url, api_key_env=api_key_env, attempts=attempts, concurrency=concurrency
    )
    new, summary = rephrase_bank(table, llm, style=style or DEFAULT_STYLE, options=options)
    for line in summary.lines():
        click.echo(line, err=True)
    if summary.rephrased == 0:
        click.echo(f"error: {llm} rephrased no question; nothing written", err=True)
        raise SystemExit(1)
    metadata = read_bank_metadata(bank)
    if metadata is not None:
        metadata = metadata.model_copy(
            update={"sources": [*metadata.sources, str(bank), f"rephrase:{llm}"]}
        )
    write_bank(new, out, metadata)
    click.echo(f"wrote {new.num_rows} rows ({summary.rephrased} rephrased) to {out}")
