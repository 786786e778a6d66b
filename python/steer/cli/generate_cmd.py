"""`steer generate`: fresh question banks from the shipped templates.

The generator, pyarrow and pandas are imported inside the command, after it
has started the workers' fork server (see `_warm_up`), so that server's
imports run beside this process's instead of after them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from steer import __version__
from steer._forkserver import warm_up
from steer._limits import MAX_PER_CELL
from steer._resources import grade_tables
from steer.cli._app import grades_option
from steer.cli._limits import SEED
from steer.errors import InputError

if TYPE_CHECKING:
    import pyarrow as pa

    from steer.generate.llm import LLMOptions
    from steer.schema import BankMetadata
    from steer.templates import Template


def _split(value: str | None) -> list[str] | None:
    return [v.strip() for v in value.split(",") if v.strip()] if value else None


def load_paths(paths: tuple[Path, ...]) -> list[Template]:
    """Templates from files and folders (folders are searched for *.toml)."""
    from steer.templates import load_template_file, template_files

    out: list[Template] = []
    for path in paths:
        files = template_files(path) if path.is_dir() else [path]
        for file in files:
            out.extend(load_template_file(file))  # type: ignore[arg-type]
    return out


@click.command("generate")
@click.option(
    "--suite",
    type=click.Choice(["steer", "steer-me", "all"]),
    help="Every element of a benchmark that has templates (`all`: both benchmarks).",
)
@click.option("--elements", help="Comma-separated selectors: 3.1.b, steer.2.4, steer.2.*.b.")
@click.option(
    "--templates",
    "template_paths",
    multiple=True,
    type=click.Path(exists=True, path_type=Path),
    help="Template files or folders to use instead of the shipped ones (repeatable).",
)
@click.option("--domains", help="Comma-separated domains to keep.")
@grades_option()
@click.option(
    "--per-cell",
    default=5,
    show_default=True,
    type=click.IntRange(1, MAX_PER_CELL),
    help="Questions per template × grade.",
)
@click.option("--seed", default=0, show_default=True, type=SEED)
@click.option(
    "--workers",
    default=None,
    type=click.IntRange(1),
    help="Processes to generate with; default one per CPU. The bank is the same for "
    "any number, and small banks stay in one process.",
)
@click.option(
    "--llm",
    "llm",
    metavar="openai:MODEL",
    help="Have a model write the questions from each template's example; "
    "replies are parsed and checked by the template's solver.",
)
@click.option(
    "--base-url",
    help="OpenAI-compatible server for --llm (key from OPENAI_API_KEY; none needed locally).",
)
@click.option(
    "--llm-attempts",
    default=3,
    show_default=True,
    type=click.IntRange(1, 20),
    help="Requests per question before --llm gives it up.",
)
@click.option(
    "--llm-require-payload",
    is_flag=True,
    help="Reject --llm questions that carry no structured problem to verify.",
)
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Parquet file to write (replaced atomically).",
)
def generate_cmd(
    suite: str | None,
    elements: str | None,
    template_paths: tuple[Path, ...],
    domains: str | None,
    grades: tuple[int, int] | None,
    per_cell: int,
    seed: int,
    workers: int | None,
    llm: str | None,
    base_url: str | None,
    llm_attempts: int,
    llm_require_payload: bool,
    out: Path,
) -> None:
    """Generate a question bank whose every answer key is proven by a solver."""
    if llm is None:
        if base_url is not None:
            raise InputError("--base-url only applies with --llm")
    else:
        # Imported here: the template path should not load the LLM client.
        from steer.generate.llm import LLMOptions

        _generate_llm(
            llm,
            LLMOptions(
                base_url=base_url, attempts=llm_attempts, require_payload=llm_require_payload
            ),
            suite=suite,
            elements=elements,
            template_paths=template_paths,
            domains=domains,
            grades=grades,
            per_cell=per_cell,
            seed=seed,
            out=out,
        )
        return
    workers = workers or os.cpu_count() or 1
    if suite is not None and not (elements or template_paths or domains or grades):
        # A whole suite: whether it needs workers is known from the files' text.
        warm_up(workers, per_cell * grade_tables(None if suite == "all" else suite))
    from steer.bank import write_bank
    from steer.generate import generate_bank

    table = generate_bank(
        _split(elements),
        suite=suite,
        templates=load_paths(template_paths) if template_paths else None,
        per_cell=per_cell,
        seed=seed,
        grades=grades,
        domains=_split(domains),
        workers=workers,
    )
    write_bank(table, out, _metadata(table, seed, per_cell, grades, domains))
    _say_written(table, out)
    short = short_cells(table, per_cell)
    if short:
        click.echo(
            f"note: {len(short)} template grade(s) ran out of distinct questions before "
            f"{per_cell}: "
            + ", ".join(f"{t} grade {g} ({n})" for t, g, n in short[:8])
            + (" …" if len(short) > 8 else ""),
            err=True,
        )


def _generate_llm(
    spec: str,
    options: LLMOptions,
    *,
    suite: str | None,
    elements: str | None,
    template_paths: tuple[Path, ...],
    domains: str | None,
    grades: tuple[int, int] | None,
    per_cell: int,
    seed: int,
    out: Path,
) -> None:
    from steer.bank import write_bank
    from steer.generate.llm import generate_llm_bank

    table, summary = generate_llm_bank(
        spec,
        _split(elements),
        suite=suite,
        templates=load_paths(template_paths) if template_paths else None,
        per_cell=per_cell,
        seed=seed,
        grades=grades,
        domains=_split(domains),
        options=options,
    )
    for line in summary.lines():
        click.echo(line, err=True)
    if table.num_rows == 0:
        click.echo(f"error: {spec} wrote no acceptable question; nothing written", err=True)
        raise SystemExit(1)
    # A model writes its options in its own order (often the key first): the
    # bank shows them in a seeded order, recorded in option_order, as template
    # banks and imports do (parts of one question share it; rules restated).
    from steer.bank._import import permuted_rule
    from steer.bank._order import permute_options

    table, _ = permute_options(table, seed, rules=permuted_rule)
    write_bank(table, out, _metadata(table, seed, per_cell, grades, domains, [f"llm:{spec}"]))
    _say_written(table, out)


def _say_written(table: pa.Table, out: Path) -> None:
    """Questions, not rows: a multi-part question is one question."""
    import pyarrow.compute as pc

    questions = pc.sum(pc.equal(table["part"], 0)).as_py() or 0
    rows = f" ({table.num_rows} rows with the parts)" if table.num_rows != questions else ""
    # With -o - the bank itself is on stdout: the summary goes to stderr.
    click.echo(f"wrote {questions} questions{rows} to {out}", err=str(out) == "-")


def _metadata(
    table: pa.Table,
    seed: int,
    per_cell: int,
    grades: tuple[int, int] | None,
    domains: str | None,
    sources: list[str] | None = None,
) -> BankMetadata:
    """Provenance stored in the bank's Parquet footer."""
    import pyarrow.compute as pc

    from steer.schema import BankMetadata

    return BankMetadata(
        steer_version=__version__,
        origin="generate",
        n_questions=table.num_rows,
        elements=sorted(pc.unique(table["element"]).to_pylist()),
        seed=seed,
        per_cell=per_cell,
        grades=grades,
        domains=_split(domains),
        sources=sources or [],
        # Template banks put every question's options in a seeded order drawn
        # from its own stream of `seed` (column option_order).
        **(
            {"option_order": "permuted", "order_seed": seed}
            if "option_order" in table.column_names
            and table["option_order"].null_count < table.num_rows
            else {}
        ),
    )


def short_cells(table: pa.Table, per_cell: int) -> list[tuple[str, int, int]]:
    """(template, grade, questions) for cells with fewer than `per_cell` questions."""
    import pyarrow.compute as pc

    # Only the columns counted: filtering the whole bank copies every text.
    keys = table.select(["template_id", "grade", "part"])
    firsts = keys.filter(pc.equal(keys["part"], 0))
    counts = firsts.group_by(["template_id", "grade"], use_threads=False).aggregate(
        [("part", "count")]
    )
    short = counts.filter(pc.less(counts["part_count"], per_cell)).to_pylist()
    return sorted((r["template_id"], r["grade"], r["part_count"]) for r in short)
