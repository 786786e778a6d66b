"""`steer compare A B`: is B worse than A, question by question?

Exit status, like a linter: 0 when no cell of B is significantly below A,
1 when some is (a regression at `--level` after correction), 2 on bad input.
"""

from __future__ import annotations

import csv
import io
import json
import math
from pathlib import Path
from typing import Any

import click
import pyarrow as pa

from steer._atomic import atomic_path
from steer._json import json_safe
from steer.report import render_table
from steer.score._outcomes import OUTCOME_METRICS
from steer.stats import CORRECTIONS, compare_sides, side_outcomes, significant_drops

EXIT_REGRESSED = 1
FORMATS = ("table", "json", "csv")


def _number(x: float | None, digits: int = 3, sign: bool = False) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    text = f"{x:+.{digits}f}" if sign else f"{x:.{digits}f}"
    return text.replace("-0.000", "+0.000" if sign else "0.000")  # never print −0


def _p(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:.2g}" if x < 0.001 else f"{x:.3f}"


def _plain(value: Any) -> Any:
    """JSON-safe: no NaN or infinity, no negative zero."""
    if isinstance(value, float):
        return None if not math.isfinite(value) else value + 0.0
    return value


def _rows(table: pa.Table, level: float) -> list[dict[str, Any]]:
    drops = {
        (r["model_b"], r["adaptation_b"], r["cell"])
        for r in significant_drops(table, level).to_pylist()
    }
    out = []
    for row in table.to_pylist():
        row = {k: _plain(v) for k, v in row.items()}
        row["regressed"] = (row["model_b"], row["adaptation_b"], row["cell"]) in drops
        out.append(row)
    return out


def _table(rows: list[dict[str, Any]], metric: str, a: str, b: str, level: float) -> str:
    header = ["cell", "n", "A", "B", "B − A", "interval", "p", "p adj", "test", ""]
    blocks = []
    cards = sorted(
        {(r["model_a"], r["adaptation_a"], r["model_b"], r["adaptation_b"]) for r in rows}
    )
    for card in cards:
        mine = [
            r
            for r in rows
            if (r["model_a"], r["adaptation_a"], r["model_b"], r["adaptation_b"]) == card
        ]
        body = [
            [
                r["cell"],
                str(r["n"]),
                _number(r["a"]),
                _number(r["b"]),
                _number(r["diff"], sign=True),
                f"[{_number(r['lo'], sign=True)}, {_number(r['hi'], sign=True)}]",
                _p(r["p"]),
                _p(r["p_adjusted"]),
                r["test"],
                "REGRESSED" if r["regressed"] else "",
            ]
            for r in mine
        ]
        title = f"A = {card[0]} · {card[1]} ({a})\nB = {card[2]} · {card[3]} ({b})"
        blocks.append(f"{title}\n\n{render_table(header, body, 'lrrrrlrrll')}\n")
    n = sum(r["regressed"] for r in rows)
    verdict = (
        f"{n} cell{'s' if n != 1 else ''} of B significantly below A"
        if n
        else "no cell of B significantly below A"
    )
    head = f"steer compare — {metric}, paired over questions asked of both, level {level:g}\n\n"
    return head + "\n".join(blocks) + f"\n{verdict}.\n"


def _csv(rows: list[dict[str, Any]]) -> str:
    buffer = io.StringIO()
    if rows:
        writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return buffer.getvalue()


@click.command("compare")
@click.argument("a", type=click.Path(path_type=Path))
@click.argument("b", type=click.Path(path_type=Path))
@click.option(
    "--bank",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The question bank of response tables without a run manifest (its fingerprint).",
)
@click.option(
    "--rubric",
    "-r",
    metavar="FILE|NAME",
    help="Apply this rubric's filters and elements, and default to its metric, level "
    "and correction.",
)
@click.option(
    "--metric",
    type=click.Choice(OUTCOME_METRICS),
    default=None,
    help="Per-question metric (default: the rubric's, else exact_match: McNemar's test).",
)
@click.option(
    "--by",
    type=click.Choice(["element", "all"]),
    default="element",
    show_default=True,
    help="Cells: one per element, or one for everything.",
)
@click.option(
    "--level",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="Significance level after correction (default: the rubric's, else 0.05).",
)
@click.option(
    "--correction",
    type=click.Choice(CORRECTIONS),
    default=None,
    help="Multiple-comparison control across cells (default: the rubric's, else holm).",
)
@click.option(
    "--resamples",
    type=click.IntRange(100, 100_000),
    default=None,
    help="Paired-bootstrap resamples (default: the rubric's, else 2000).",
)
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=None, help="Bootstrap seed.")
@click.option("--format", "fmt_", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to this file instead of standard output.",
)
def compare_cmd(
    a: Path,
    b: Path,
    bank: Path | None,
    rubric: str | None,
    metric: str | None,
    by: str,
    level: float | None,
    correction: str | None,
    resamples: int | None,
    seed: int | None,
    fmt_: str,
    output: Path | None,
) -> None:
    """Compare B against A question by question (run directories or response tables).

    Per cell: the paired difference B − A over the questions asked of both
    (a no-answer counts as wrong), its interval, the raw p-value (McNemar's
    exact test for exact match, the paired bootstrap otherwise) and the
    p-value adjusted across the cells. Exit status: 0 when no cell of B is
    significantly below A, 1 when some is, 2 on bad input.
    """
    loaded = None
    options = None
    if rubric is not None:
        from steer.rubric import RubricError, load_rubric

        loaded = load_rubric(rubric)
        if loaded.warnings:
            raise RubricError(loaded.warnings)
        options = loaded.rubric.rules.regression
    if metric is None:
        chosen = loaded.rubric.metric if loaded is not None else "exact_match"
        metric = chosen if chosen in OUTCOME_METRICS else "exact_match"
    level = level if level is not None else (options.level if options else 0.05)
    correction = correction or (options.correction if options else "holm")
    resamples = resamples or (options.resamples if options else 2000)
    seed = seed if seed is not None else (options.seed if options else 0)

    side_a = side_outcomes(a, bank=bank, rubric=loaded)
    side_b = side_outcomes(b, bank=bank, rubric=loaded)
    table = compare_sides(
        side_a,
        side_b,
        metric,
        by=by,
        level=level,
        correction=correction,  # type: ignore[arg-type]
        resamples=resamples,
        seed=seed,
        names=(str(a), str(b)),
    )
    rows = _rows(table, level)
    if fmt_ == "json":
        doc = {
            "a": str(a),
            "b": str(b),
            "metric": metric,
            "level": level,
            "correction": correction,
            "cells": rows,
        }
        text = json.dumps(json_safe(doc), indent=2, allow_nan=False) + "\n"
    elif fmt_ == "csv":
        text = _csv(rows)
    else:
        text = _table(rows, metric, str(a), str(b), level)
    if output:
        with atomic_path(output) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
    if any(r["regressed"] for r in rows):
        click.get_current_context().exit(EXIT_REGRESSED)
