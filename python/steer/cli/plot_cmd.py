"""`steer plot KIND RUNS… -o FILE`: one figure as PNG, SVG or PDF."""

from __future__ import annotations

from pathlib import Path

import click
from matplotlib.figure import Figure

from steer.cli._app import CliError
from steer.cli._grade_options import response_options, rubric_option, setup

KINDS = ("grade-curve", "heatmap", "rounds")


def _heatmap(runs: list[Path], rubric: str | None, bank: Path | None, dedupe: str | None) -> Figure:
    from steer.rubric import grade
    from steer.taxonomy import element_order
    from steer.view import heatmap_figure

    s = setup(rubric, [], [])
    result = grade(runs, s.loaded, selection=s.selection, bank=bank,
                   dedupe="latest" if dedupe == "latest" else None)  # fmt: skip
    models = [c.title for c in result.cards]
    elements = sorted({e for c in result.cards for e in c.elements}, key=element_order)
    values = {
        (c.title, e): c.elements[e].value(result.metric) for c in result.cards for e in c.elements
    }
    return heatmap_figure(models, elements, values, metric=result.metric)


def _grade_curve(
    runs: list[Path], rubric: str | None, bank: Path | None, dedupe: str | None, bootstrap: int
) -> Figure:
    import pyarrow as pa

    from steer.score import load_responses, score
    from steer.view import grade_curve_figure

    s = setup(rubric, [], [])
    metric = s.loaded.rubric.metric
    loaded = load_responses(runs, bank=bank, dedupe="latest" if dedupe == "latest" else None)
    scored = score(loaded, by=["model", "adaptation", "grade"], metrics=[metric],
                   bootstrap=bootstrap, seed=0)  # fmt: skip
    t = scored.to_pydict()
    table = pa.table(
        {
            "series": [f"{m} · {a}" if a else m for m, a in
                       zip(t["model"], t["adaptation"], strict=True)],
            "grade": t["grade"],
            "value": t[metric],
            "lo": t.get(f"{metric}_lo", [None] * scored.num_rows),
            "hi": t.get(f"{metric}_hi", [None] * scored.num_rows),
            "n": t["n_units"],
        }
    )  # fmt: skip
    return grade_curve_figure(table, metric)


def _rounds(runs: list[Path]) -> Figure:
    from steer.play import read_game_run
    from steer.play._plots import round_figure

    if len(runs) != 1:
        raise CliError("steer plot rounds draws one game run; give one directory")
    _, game, moves = read_game_run(runs[0])
    return round_figure(game, moves)


@click.command("plot")
@click.argument("kind")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--out",
    "-o",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The figure file: .png, .svg or .pdf (SVG and PDF are byte-identical for the same data).",
)
@rubric_option()
@click.option(
    "--bootstrap",
    type=click.IntRange(0, 100_000),
    default=1000,
    show_default=True,
    help="grade-curve: bootstrap resamples for the intervals (0: none).",
)
@response_options
def plot_cmd(
    kind: str, runs: tuple[Path, ...], out: Path, rubric: str | None, bootstrap: int,
    bank: Path | None, dedupe: str | None,
) -> None:  # fmt: skip
    """Draw the figure KIND of RUNS into a file.

    Kinds: heatmap (element × model, coloured by the rubric's metric, of any
    runs), grade-curve (the rubric's metric by grade level per model, with
    bootstrap intervals), rounds (a game run's actions and payoffs per round and player,
    `steer play GAME`).
    """
    from steer._suggest import did_you_mean
    from steer.view import save_figure

    if kind not in KINDS:
        hint = did_you_mean(kind, KINDS)
        also = f" — did you mean {', '.join(map(repr, hint))}?" if hint else ""
        raise CliError(f"unknown figure kind {kind!r}{also} (kinds: {', '.join(KINDS)})")
    if out.suffix.lower() not in (".png", ".svg", ".pdf"):
        raise CliError(f"{out}: a figure is written as .png, .svg or .pdf")
    if kind == "heatmap":
        figure = _heatmap(list(runs), rubric, bank, dedupe)
    elif kind == "grade-curve":
        figure = _grade_curve(list(runs), rubric, bank, dedupe, bootstrap)
    else:
        figure = _rounds(list(runs))
    save_figure(figure, out)
    click.echo(f"wrote {out}")
