"""`steer plot KIND RUNS… -o FILE`: one figure as PNG, SVG or PDF."""

from __future__ import annotations

from pathlib import Path

import click

from steer.cli._app import CliError

KINDS = ("rounds",)


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
def plot_cmd(kind: str, runs: tuple[Path, ...], out: Path) -> None:
    """Draw the figure KIND of RUNS into a file.

    Kinds: rounds (a game run's actions and payoffs per round and player,
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
    from steer.play import read_game_run
    from steer.play._plots import round_figure

    if len(runs) != 1:
        raise CliError("steer plot rounds draws one game run; give one directory")
    _, game, moves = read_game_run(runs[0])
    save_figure(round_figure(game, moves), out)
    click.echo(f"wrote {out}")
