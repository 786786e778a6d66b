"""`steer fit`: utility parameters and scores of play runs, with intervals."""

from __future__ import annotations

import json
import math
from pathlib import Path

import click
import pyarrow as pa

from steer.cli._limits import SEED

FORMATS = ("table", "csv", "json", "parquet")

# Human reference values printed beside the fits (REFERENCES.md).
HUMAN = {
    ("prospect-theory", "alpha"): "0.88",
    ("prospect-theory", "beta"): "0.88",
    ("prospect-theory", "lambda"): "2.25",
    ("prospect-theory", "gamma"): "0.61",
    ("prospect-theory", "delta"): "0.69",
    ("fehr-schmidt", "alpha"): "0.85 (mean)",
    ("fehr-schmidt", "beta"): "0.315 (mean)",
}


def _number(x: object) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "—"
    return f"{x:.4g}" if isinstance(x, float) else str(x)


def render_table(table: pa.Table) -> str:
    """The parameters, one line each, with the interval and the human value."""
    head = ("model", "condition", "experiment", "family", "parameter", "estimate",
            "95% interval", "n", "human", "note")  # fmt: skip
    lines = [head]
    for r in table.to_pylist():
        ci = f"[{_number(r['ci_lo'])}, {_number(r['ci_hi'])}]" if r["ci_lo"] is not None else "—"
        note = r["reason"] or ""
        if r["r2"] is not None:
            note = f"R²={r['r2']:.3f}" + (f"; {note}" if note else "")
        lines.append(
            (
                r["model"], r["condition"], r["experiment"], r["family"], r["parameter"],
                _number(r["estimate"]) if r["identified"] else "not identified", ci,
                str(r["n"]), HUMAN.get((r["family"], r["parameter"]), ""), note,
            )
        )  # fmt: skip
    widths = [max(len(str(line[i])) for line in lines) for i in range(len(head))]
    return "\n".join(
        "  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()
        for line in lines
    )


@click.command("fit")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--bootstrap", "-b", default=1000, show_default=True, type=click.IntRange(0, 100_000))
@click.option("--seed", default=0, show_default=True, type=SEED, help="Bootstrap seed.")
@click.option(
    "--method",
    type=click.Choice(["mle", "lm"]),
    default="mle",
    show_default=True,
    help="Prospect theory: interval-censored maximum likelihood (mle) or bounded "
    "Levenberg-Marquardt on interval midpoints (lm, the LLM economicus method).",
)
@click.option(
    "--include-incompetent",
    is_flag=True,
    help="Fit every ladder, also those with more than one switching point.",
)
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--compare",
    nargs=2,
    metavar="A B",
    help="Report each parameter's shift from condition A to condition B (e.g. baseline "
    "persona:a-banker) with both intervals.",
)
def fit_cmd(
    runs: tuple[Path, ...], bootstrap: int, seed: int, method: str, include_incompetent: bool,
    fmt: str, output: Path | None, compare: tuple[str, str] | None,
) -> None:  # fmt: skip
    """Fit utility parameters to the choices of play RUNS (directories of steer play).

    One row per (model, condition, experiment, family, parameter) with the
    estimate, its percentile-bootstrap interval, n, whether it is identified
    (and why not), R² and SSR. The JSON and Parquet output is the fits file
    `steer grade --fits` reads.
    """
    from steer._atomic import atomic_path, atomic_text
    from steer.fit import compare_conditions, fit_runs

    table = fit_runs(
        list(runs), bootstrap=bootstrap, seed=seed, include_incompetent=include_incompetent,
        method=method,
    )  # fmt: skip
    if compare:
        table = compare_conditions(table, *compare)
    if fmt == "parquet":
        if output is None:
            raise click.UsageError("--format parquet needs --output FILE")
        import pyarrow.parquet as pq

        with atomic_path(output) as tmp:
            pq.write_table(table, tmp)
        click.echo(f"wrote {table.num_rows} parameters to {output}")
        return
    if fmt == "json":
        text = json.dumps({"fits_version": 1, "fits": table.to_pylist()}, indent=2) + "\n"
    elif fmt == "csv":
        import io

        import pyarrow.csv as pacsv

        buf = io.BytesIO()
        pacsv.write_csv(table, buf)
        text = buf.getvalue().decode()
    else:
        text = render_table(table) + "\n"
    if output is None:
        click.echo(text, nl=False)
        return
    with atomic_text(output) as fh:
        fh.write(text)
    click.echo(f"wrote {table.num_rows} parameters to {output}")
