"""`steer analyze RUNS…`: which factors explain a model's correctness."""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from steer._atomic import atomic_path
from steer._json import json_safe
from steer.analyze import FACTORS, Analysis, ModelAnalysis
from steer.report import render_table

FORMATS = ("table", "markdown", "json", "csv")


def _num(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _p(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "—"
    return f"{x:.2g}" if x < 0.001 else f"{x:.3f}"


def _blocks(m: ModelAnalysis, top: int) -> list[tuple[str, list[str], list[list[str]], str]]:
    """(title, header, rows, alignment) of each table of one model."""
    anova = [
        [
            t.factor,
            str(t.levels),
            str(t.df),
            _num(t.sum_sq),
            _num(t.f, 2),
            _p(t.p),
            _num(t.eta_sq_partial),
            t.note,
        ]
        for t in m.anova.terms
    ]
    anova.append(["residual", "", str(m.anova.df_resid), _num(m.anova.rss), "", "", "", ""])
    logit = [[t.factor, str(t.df), _num(t.chi2, 2), _p(t.p), t.note] for t in m.logit.terms]
    marks = []
    if not m.logit.converged:
        marks.append("did not converge")
    if m.logit.separated:
        marks.append("separation: some cells are all right or all wrong")
    blocks = [
        (
            f"Variance of correctness (Type II ANOVA), R² = {_num(m.anova.r2)}",
            ["factor", "levels", "df", "sum sq", "F", "p", "partial η²", ""],
            anova,
            "lrrrrrrl",
        ),
        (
            f"Logistic regression, likelihood-ratio tests, McFadden R² = {_num(m.logit.pseudo_r2)}"
            + (f" ({'; '.join(marks)})" if marks else ""),
            ["factor", "df", "χ²", "p", ""],
            logit,
            "lrrrl",
        ),
    ]
    if m.tagged:
        wrong = [[e.tag, str(e.count), f"{e.share:.1%}"] for e in m.errors[:top]]
        if len(m.errors) > top:
            rest = m.errors[top:]
            more = f"({len(rest)} more errors)"
            wrong.append(
                [more, str(sum(e.count for e in rest)), f"{sum(e.share for e in rest):.1%}"]
            )
        blocks.append(
            (
                "Wrong answers by the error their option encodes (a named error's digit "
                "slips under it)",
                ["error", "answers", "share"],
                wrong or [["(no tagged wrong answers)", "", ""]],
                "lrr",
            )
        )
    # A notes column only where some row has a note.
    trimmed = []
    for title, header, rows, align in blocks:
        if header[-1] == "" and not any(r[-1] for r in rows):
            header, rows, align = header[:-1], [r[:-1] for r in rows], align[:-1]
        trimmed.append((title, header, rows, align))
    return trimmed


def _head(m: ModelAnalysis) -> str:
    return (
        f"{m.model}: {m.n:,} graded responses, accuracy {m.accuracy:.3f}, "
        f"{m.no_answers:,} no answer{'s' if m.no_answers != 1 else ''} (counted wrong)"
    )


def _text(analysis: Analysis, top: int) -> str:
    out = [f"steer analyze — factors: {', '.join(analysis.factors)}\n"]
    for m in analysis.models:
        out.append(_head(m) + "\n")
        for title, header, rows, align in _blocks(m, top):
            out.append(f"{title}\n\n{render_table(header, rows, align)}\n")
        if not m.tagged:
            out.append("(no option tags: give --bank for the error types of wrong answers)\n")
    return "\n".join(out)


def _markdown(analysis: Analysis, top: int) -> str:
    out = [f"# steer analyze\n\nFactors: {', '.join(analysis.factors)}.\n"]
    for m in analysis.models:
        out.append(f"## {_head(m)}\n")
        for title, header, rows, _ in _blocks(m, top):
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
            out.append(f"**{title}**\n\n" + "\n".join(lines) + "\n")
    return "\n".join(out)


def _flat(analysis: Analysis) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for m in analysis.models:
        for t in m.anova.terms:
            rows.append(
                {"model": m.model, "test": "anova", "term": t.factor, "df": t.df,
                 "statistic": t.f, "p": t.p, "sum_sq": t.sum_sq, "effect": t.eta_sq_partial,
                 "count": None, "note": t.note}
            )  # fmt: skip
        for lt in m.logit.terms:
            rows.append(
                {"model": m.model, "test": "logit_lr", "term": lt.factor, "df": lt.df,
                 "statistic": lt.chi2, "p": lt.p, "sum_sq": None, "effect": None,
                 "count": None, "note": lt.note}
            )  # fmt: skip
        for e in m.errors_full:
            rows.append(
                {"model": m.model, "test": "error_type", "term": e.tag, "df": None,
                 "statistic": None, "p": None, "sum_sq": None, "effect": e.share,
                 "count": e.count, "note": ""}
            )  # fmt: skip
    return rows


@click.command("analyze")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--bank",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The question bank of response tables without a run manifest; its option "
    "tags give the error types of wrong answers.",
)
@click.option(
    "--factors",
    default=",".join(FACTORS),
    show_default=True,
    help="Comma-separated factors of the models.",
)
@click.option(
    "--top",
    type=click.IntRange(1, 10_000),
    default=15,
    show_default=True,
    help="Error types listed per model in table and markdown output (JSON and CSV list all).",
)
@click.option("--format", "fmt_", type=click.Choice(FORMATS), default="table", show_default=True)
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the output to this file instead of standard output.",
)
def analyze_cmd(
    runs: tuple[Path, ...],
    bank: Path | None,
    factors: str,
    top: int,
    fmt_: str,
    output: Path | None,
) -> None:
    """How much of each model's variance in correctness domain, perspective,
    type, element and adaptation explain.

    Per model: a Type II ANOVA of correctness (a no-answer is wrong) on the
    factors, with F, p, partial η² and R² (Type II because generated banks
    are unbalanced); likelihood-ratio tests of the same factors in a logistic
    regression, since correctness is binary; and, from the bank's option
    tags, the wrong answers counted by the error their option encodes.
    """
    from steer.analyze import analyze

    names = [f.strip() for f in factors.split(",") if f.strip()]
    analysis = analyze(list(runs), bank=bank, factors=names)
    if fmt_ == "json":
        doc = {"factors": analysis.factors, "models": [asdict(m) for m in analysis.models]}
        text = json.dumps(json_safe(doc), indent=2, allow_nan=False) + "\n"
    elif fmt_ == "csv":
        buffer = io.StringIO()
        rows = _flat(analysis)
        if rows:
            writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        text = buffer.getvalue()
    elif fmt_ == "markdown":
        text = _markdown(analysis, top)
    else:
        text = _text(analysis, top)
    if output:
        with atomic_path(output) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)
