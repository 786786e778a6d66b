"""`steer report --format markdown`: the report for a paper's appendix or a
pull request. One Markdown file, and beside it a folder (`NAME_files/`) with
every figure as SVG and the scored cells behind them as CSV and Parquet, so
each number in a figure can be traced to a row.

The folder is written whole to a temporary sibling and swapped in, then the
Markdown file is replaced atomically: an interrupted write leaves the last
complete report, never a half-written one.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from matplotlib.figure import Figure

from steer._atomic import atomic_path
from steer.report._metadata import build_info, coverage, run_metadata
from steer.report.formats._markdown import render_markdown
from steer.rubric import GradeResult

if TYPE_CHECKING:
    from steer.play import RCTable


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|")


def metadata_markdown(result: GradeResult) -> list[str]:
    version, commit = build_info()
    out = [
        "## What produced these numbers",
        "",
        f"Report written by steer {version} (commit `{commit}`).",
        "",
    ]
    runs = run_metadata(result.runs, result.responses)
    if runs:
        out += [
            "| run | model | backend | adaptation | bank (sha256) | seeds bank / run | answers "
            "| answered (UTC) | tokens in / out | cost | steer |",
            "|---|---|---|---|---|---|--:|---|--:|--:|---|",
        ]
        for m in runs:
            revision = f" (rev {m.revision})" if m.revision else ""
            cost = "—" if m.cost_usd is None else f"${m.cost_usd:,.4f}"
            out.append(
                f"| {_cell(m.run_id)} | {_cell(m.model + revision)} | {_cell(m.backend)} | "
                f"{_cell(m.adaptation)} | {_cell(m.bank)} (`{m.bank_sha256}`) | "
                f"{m.generation_seed} / {m.seed} | {m.answers:,} | {m.first} → {m.last} | "
                f"{m.tokens_in:,} / {m.tokens_out:,} | {cost} | {_cell(m.steer_version)} |"
            )
    else:
        out.append("No run manifest among the inputs (response files only).")
    covered = coverage(result.responses)
    if covered:
        out += ["", *(f"- {name}s {_cell(text)}" for name, text in covered.items())]
    return out


def games_markdown(result: GradeResult, published: RCTable | None = None) -> list[str]:
    """Each game's players beside the published human baseline, and with
    `published` (Rationality Check's game table) beside the published models."""
    from steer.report._games import games_section

    found = games_section(result.runs, published)
    if not found.tables and not found.skipped:
        return []

    def table(header: list[str], rows: list[list[str]], left: int) -> list[str]:
        return [
            "| " + " | ".join(map(_cell, header)) + " |",
            "|" + "|".join(["---"] * left + ["--:"] * (len(header) - left)) + "|",
            *("| " + " | ".join(map(_cell, r)) + " |" for r in rows),
        ]

    out = ["## Games", ""]
    if published is not None:
        out += [
            "Each player's metrics, averaged over samples with 95% bootstrap intervals, beside "
            "the human baseline and the published models of Rationality Check (their `fin` "
            "values: min · median · max, and the models nearest each player).",
            "",
        ]
    for t in found.tables:
        extra = [r for r in (t.human, t.published) if r is not None]
        out += [f"### {t.game}", "", *table(t.header, [*t.rows, *extra], 2)]
        out += ["", *(f"- {_cell(n)}" for n in t.notes), ""]
    out += [f"- {_cell(s)}" for s in found.skipped]
    if found.domains is not None:
        d = found.domains
        if found.skipped:
            out.append("")
        out += ["### Rationality Check domain scores", "", _cell(d.note), ""]
        out += [*table(d.header, d.rows, 2), ""]
    return out


def scored_cells(result: GradeResult, bootstrap: int = 1000) -> pa.Table | None:
    """The rubric's metric per card and element with its interval: the
    numbers the heatmap and the element tables show."""
    from steer.score import score

    table = result.responses
    if table is None or not table.num_rows:
        return None
    by = ["model", "adaptation", "element"] if "adaptation" in table.column_names else [
        "model", "element"
    ]  # fmt: skip
    return score(table, by=by, metrics=[result.metric], bootstrap=bootstrap, seed=0)


def write_markdown_report(
    result: GradeResult,
    out: Path,
    figures: Mapping[str, Figure],
    *,
    bootstrap: int = 1000,
    published: RCTable | None = None,
) -> list[Path]:
    """Write `out` (Markdown) and `out`'s `_files` folder; returns what was
    written. `published`: Rationality Check's game table, whose models the
    games section shows beside the players."""
    from steer.view import save_figure

    folder = out.with_name(f"{out.stem}_files")
    cells = scored_cells(result, bootstrap)
    with tempfile.TemporaryDirectory(dir=out.parent, prefix=f".{out.stem}_files.") as tmp:
        staging = Path(tmp) / "files"
        staging.mkdir()
        for name, fig in figures.items():
            save_figure(fig, staging / f"{name}.svg")
        if cells is not None:
            pq.write_table(cells, staging / "cells.parquet")
            pacsv.write_csv(cells, staging / "cells.csv")
        # Swap the folder in: the old one (if any) goes only once the new is whole.
        old = Path(tmp) / "old"
        if folder.exists():
            folder.rename(old)
        staging.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    lines = [render_markdown(result).rstrip("\n"), "", *metadata_markdown(result), ""]
    lines += games_markdown(result, published)
    if figures:
        lines += ["## Figures", ""]
        titles = {c.title: i for i, c in enumerate(result.cards, 1)}
        graphs = {f"dependency-graph-{i}": t for t, i in titles.items()}
        for name in figures:
            caption = name.replace("-", " ")
            if name in graphs:
                caption = f"dependency graph, {graphs[name]}"
            elif name == "dependency-graph" and result.cards:
                caption = f"dependency graph, {result.cards[0].title}"
            lines += [f"**{_cell(caption)}**", "", f"![{name}]({folder.name}/{name}.svg)", ""]
    if cells is not None:
        lines += [
            "## Scored cells",
            "",
            f"The rubric's metric ({result.metric}) per model and element with its 95% "
            f"bootstrap interval ({bootstrap} resamples, seed 0): "
            f"[{folder.name}/cells.csv]({folder.name}/cells.csv), "
            f"[{folder.name}/cells.parquet]({folder.name}/cells.parquet).",
            "",
        ]
    with atomic_path(out) as tmp_file:
        tmp_file.write_text("\n".join(lines), encoding="utf-8")
    written = [out, *(folder / f"{n}.svg" for n in figures)]
    if cells is not None:
        written += [folder / "cells.csv", folder / "cells.parquet"]
    return written
