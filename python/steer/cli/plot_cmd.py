"""`steer plot KIND RUNS… -o FILE`: one figure as PNG, SVG or PDF."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from matplotlib.figure import Figure

from steer.cli._app import CliError
from steer.cli._grade_options import response_options, rubric_option, setup

if TYPE_CHECKING:
    import pyarrow as pa

    from steer.rubric import LoadedRubric
    from steer.score._load import Loaded

#: The fits file's figures (`steer fit --format json|parquet`): one fits file, not runs.
FIT_KINDS = ("discounting", "estimates", "value-function", "weighting")
KINDS = (
    "calibration", "compare", "dependency-graph", "grade-curve", "heatmap", "robustness",
    "rounds", *FIT_KINDS,
)  # fmt: skip


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


def _rubric_responses(
    runs: list[Path], loaded: LoadedRubric, bank: Path | None, dedupe: str | None
) -> Loaded | pa.Table:
    """The responses the rubric grades (its filters and sections, as `steer
    compare --rubric` applies them): the loaded runs when no row is filtered
    out (so scoring errors still name their file), else the filtered table."""
    from steer.rubric._grade import _all_selected, filter_responses
    from steer.score import load_responses
    from steer.taxonomy import load_taxonomy

    responses = load_responses(runs, bank=bank, dedupe="latest" if dedupe == "latest" else None)
    taxonomy = load_taxonomy()
    elements = sorted({e for s in loaded.rubric.section for e in _all_selected(s, taxonomy)})
    table = filter_responses(responses.table, loaded.rubric.filters, elements)
    return responses if table is responses.table else table


def _compare(
    runs: list[Path], rubric: str | None, bank: Path | None, dedupe: str | None, bootstrap: int
) -> Figure:
    from steer.bank import file_sha256
    from steer.rubric._grade import bank_hashes
    from steer.view import compare_of

    s = setup(rubric, [], [])
    responses = _rubric_responses(runs, s.loaded, bank, dedupe)
    banks = bank_hashes(runs) or ([file_sha256(bank)] if bank is not None else [])
    # As `steer compare`: the rubric's regression options.
    spec = s.loaded.rubric
    return compare_of(responses, spec.metric, regression=spec.rules.regression, banks=banks,
                      bootstrap=bootstrap)  # fmt: skip


def _robustness(
    runs: list[Path], rubric: str | None, bank: Path | None, dedupe: str | None, bootstrap: int
) -> Figure:
    from steer.view import robustness_of

    s = setup(rubric, [], [])
    responses = _rubric_responses(runs, s.loaded, bank, dedupe)
    return robustness_of(responses, s.loaded.rubric.metric, bootstrap=bootstrap)


def _pick_models(titles: list[str], model: str | None) -> list[str]:
    """The card titles `--model` names: the title itself, else every title
    containing it (all of them without --model)."""
    if model is None or model in titles:
        return titles if model is None else [model]
    found = [t for t in titles if model in t]
    if not found:
        raise CliError(f"--model {model!r} names none of the models: {', '.join(titles)}")
    return found


def _calibration(
    runs: list[Path], bank: Path | None, dedupe: str | None, model: str | None
) -> Figure:
    from steer.score import load_responses
    from steer.view import calibration_figure, calibration_series

    loaded = load_responses(runs, bank=bank, dedupe="latest" if dedupe == "latest" else None)
    series = calibration_series(loaded)
    wanted = set(_pick_models([s.name for s in series], model))
    return calibration_figure([s for s in series if s.name in wanted])


def _dependency_graph(
    runs: list[Path], rubric: str | None, bank: Path | None, dedupe: str | None,
    model: str | None,
) -> Figure:  # fmt: skip
    from steer.rubric import grade
    from steer.taxonomy import load_taxonomy
    from steer.view import dependency_graph_of, message_figure

    s = setup(rubric, [], [])
    result = grade(runs, s.loaded, selection=s.selection, bank=bank,
                   dedupe="latest" if dedupe == "latest" else None)  # fmt: skip
    if not result.cards:
        return message_figure("nothing to plot: no model in these runs")
    chosen = _pick_models([c.title for c in result.cards], model)
    if model is not None and len(chosen) > 1:
        raise CliError(f"--model {model!r} names {len(chosen)} models ({', '.join(chosen)}); "
                       "the dependency graph draws one")  # fmt: skip
    card = next(c for c in result.cards if c.title == chosen[0])
    return dependency_graph_of(card, result.metric, load_taxonomy())


def _rounds(runs: list[Path]) -> Figure:
    from steer.play import read_game_run
    from steer.play._plots import round_figure

    if len(runs) != 1:
        raise CliError("steer plot rounds draws one game run; give one directory")
    _, game, moves = read_game_run(runs[0])
    return round_figure(game, moves)


def _fits(kind: str, paths: list[Path]) -> Figure:
    from steer.fit._plots import FIGURES
    from steer.fit._report import fits_table

    if len(paths) != 1 or paths[0].is_dir():
        raise CliError(f"steer plot {kind} draws one fits file (steer fit … --format json|parquet)")
    return FIGURES[kind](fits_table(paths[0]))


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
    help="grade-curve, compare, robustness: bootstrap resamples for the intervals (0: none).",
)
@click.option(
    "--model",
    metavar="NAME",
    help="calibration, dependency-graph: draw only this model (its title as `steer grade` "
    "shows it, or a part of it); dependency-graph draws the first model without it.",
)
@response_options
def plot_cmd(
    kind: str, runs: tuple[Path, ...], out: Path, rubric: str | None, bootstrap: int,
    bank: Path | None, dedupe: str | None, model: str | None = None,
) -> None:  # fmt: skip
    """Draw the figure KIND of RUNS into a file.

    Kinds: heatmap (element × model, coloured by the rubric's metric, of any
    runs), grade-curve (the rubric's metric by grade level per model, with
    bootstrap intervals), compare (a bar per model with its bootstrap interval,
    and each model's paired difference from the best with its interval and
    p-value, the test and correction of `steer compare` under the rubric's
    regression options), robustness (the metric by domain, question type and
    perspective per model, with bootstrap intervals and n per category),
    calibration (per model, a reliability diagram of the top option's
    probability against accuracy in `steer score`'s ECE bins, with Wilson
    intervals, answers per bin and the ECE), dependency-graph (the taxonomy's
    prerequisite graph of the graded elements, coloured by one model's score
    on each; graphviz `dot` lays it out when installed),
    rounds (a game run's actions and payoffs per round and player,
    `steer play GAME`). compare and robustness grade what the rubric grades
    (its filters and sections). From one fits file (`steer fit … --format
    json|parquet`): value-function, weighting, discounting (fitted curves
    with their 95% bands beside the human references) and estimates (every
    parameter with its interval).
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
    elif kind == "compare":
        figure = _compare(list(runs), rubric, bank, dedupe, bootstrap)
    elif kind == "robustness":
        figure = _robustness(list(runs), rubric, bank, dedupe, bootstrap)
    elif kind == "calibration":
        figure = _calibration(list(runs), bank, dedupe, model)
    elif kind == "dependency-graph":
        figure = _dependency_graph(list(runs), rubric, bank, dedupe, model)
    elif kind in FIT_KINDS:
        figure = _fits(kind, list(runs))
    else:
        figure = _rounds(list(runs))
    save_figure(figure, out)
    click.echo(f"wrote {out}")
