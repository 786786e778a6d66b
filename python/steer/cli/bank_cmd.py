"""`steer bank`: import and summarise question banks."""

from __future__ import annotations

from pathlib import Path

import click

from steer import __version__
from steer._json import dumps
from steer.bank import bank_info, import_steer_bench, read_bank, read_bank_metadata, write_bank
from steer.bank._order import DEFAULT_ORDER_SEED
from steer.cli._app import SteerGroup, json_option
from steer.cli._limits import SEED
from steer.cli.audit_cmd import audit_cmd
from steer.report import render_table
from steer.schema import BankMetadata


def _parse_map(entries: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for entry in entries:
        name, sep, target = entry.partition("=")
        if not sep or not name or not target:
            raise click.BadParameter(
                f"{entry!r} must look like NAME=ELEMENT_ID", param_hint="--element-map"
            )
        out[name] = target
    return out


@click.group("bank", cls=SteerGroup)
def bank_cmd() -> None:
    """Import, inspect and convert question banks."""


@bank_cmd.command("import")
@click.argument("sources", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Parquet file to write (replaced atomically).",
)
@click.option(
    "--element-map",
    "element_map",
    multiple=True,
    metavar="NAME=ID",
    help="Map a dataset's element name to a taxonomy id (repeatable).",
)
@click.option(
    "--keep-order",
    is_flag=True,
    help="Keep the source's option order (by default each question's options "
    "are put in a seeded order, recorded in the bank).",
)
@click.option(
    "--order-seed",
    type=SEED,
    default=DEFAULT_ORDER_SEED,
    show_default=True,
    help="Seed of the option permutation.",
)
def import_cmd(
    sources: tuple[Path, ...],
    out: Path,
    element_map: tuple[str, ...],
    keep_order: bool,
    order_seed: int,
) -> None:
    """Import steer-bench question files (Parquet or JSONL) into a bank.

    The authors' option order leaks the key (the key is always last in their
    expectation questions), so each question's options are permuted with a
    seeded permutation recorded in its `option_order` column; the parts of
    one question and the questions of one consistency group share one.
    """
    table = import_steer_bench(
        list(sources),
        element_map=_parse_map(element_map),
        keep_order=keep_order,
        order_seed=order_seed,
    )
    metadata = BankMetadata(
        steer_version=__version__,
        origin="import",
        n_questions=table.num_rows,
        elements=sorted(set(table["element"].to_pylist())),
        sources=[str(s) for s in sources],
        option_order="kept" if keep_order else "permuted",
        order_seed=None if keep_order else order_seed,
    )
    write_bank(table, out, metadata)
    # With -o - the bank itself is on stdout: the summary goes to stderr.
    click.echo(f"wrote {table.num_rows} questions to {out}", err=str(out) == "-")


@bank_cmd.command("info")
@click.argument("bank", type=click.Path(dir_okay=False, path_type=Path))
@json_option()
def info_cmd(bank: Path, as_json: bool) -> None:
    """Summarise BANK: counts by element × domain × grade."""
    info = bank_info(read_bank(bank))
    metadata = read_bank_metadata(bank)
    if as_json:
        data = info.to_dict()
        data["metadata"] = metadata.model_dump() if metadata else None
        click.echo(dumps(data, indent=2))
        return
    click.echo(
        f"{bank}: {info.n_questions} questions ({info.n_base_questions} base), "
        f"{info.n_elements} element{'s' if info.n_elements != 1 else ''}"
    )
    if metadata:
        how = {
            "generate": f"generated with seed {metadata.seed}, {metadata.per_cell} per cell",
            "import": "imported from " + ", ".join(metadata.sources),
        }.get(metadata.origin, metadata.origin)
        click.echo(f"  {how}; steer {metadata.steer_version}, {metadata.created_at}")
        if metadata.option_order == "permuted":
            click.echo(f"  options permuted with seed {metadata.order_seed} (column option_order)")
        elif metadata.option_order == "kept":
            click.echo("  options in the source's order (imported with --keep-order)")
    opts = ", ".join(f"{k} options: {v}" for k, v in info.options.items())
    click.echo(f"  {opts}; " + ", ".join(f"{k}: {v}" for k, v in info.gradings.items()))
    rows = [
        [
            r["element"],
            r["domain"] or "—",
            "—" if r["grade"] is None else str(r["grade"]),
            str(r["n"]),
        ]
        for r in info.cells.to_pylist()
    ]
    click.echo("")
    click.echo(render_table(["element", "domain", "grade", "n"], rows, "llrr"))
    for warning in info.warnings:
        click.echo(f"warning: {warning}", err=True)


bank_cmd.add_command(audit_cmd)
