"""`steer score`: metrics over response tables, without re-running models."""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from pathlib import Path

import click
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from steer._atomic import atomic_path
from steer._json import dumps
from steer._limits import MAX_BINS, MAX_BOOTSTRAP
from steer.cli._app import CliError
from steer.cli._grade_options import response_options
from steer.cli._limits import SEED
from steer.report import fmt, render_table
from steer.score import METRICS, load_responses, resolve_metrics, score


def _split(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def _cells(scored: pa.Table, by: list[str], metrics: list[str]) -> list[list[str]]:
    """Each group's row as text: its keys, n, and every metric with its interval."""
    rows = []
    for r in scored.to_pylist():
        cells = ["—" if r[k] is None else str(r[k]) for k in by] + [str(r["n_units"])]
        for m in metrics:
            text = fmt(r.get(m))
            lo, hi = r.get(f"{m}_lo"), r.get(f"{m}_hi")
            if m == "exact_match" and lo is None:
                lo, hi = r.get("exact_match_wilson_lo"), r.get("exact_match_wilson_hi")
            if lo is not None and hi is not None and not math.isnan(lo):
                text += f" [{fmt(lo)}, {fmt(hi)}]"
            if m.endswith("_robustness") and r.get(f"{m}_argmin") is not None:
                text += f" ({r[f'{m}_argmin']})"
            cells.append(text)
        rows.append(cells)
    return rows


def _terminal_table(scored: pa.Table, by: list[str], metrics: list[str]) -> str:
    header = [*by, "n", *metrics]
    rows = _cells(scored, by, metrics)
    return render_table(header, rows, "l" * len(by) + "r" * (1 + len(metrics))) + "\n"


def _markdown_table(scored: pa.Table, by: list[str], metrics: list[str], note: str) -> str:
    """GitHub-flavoured Markdown: keys left, numbers right, intervals in brackets."""

    def cell(text: str) -> str:
        return text.replace("|", "\\|")

    header = [*by, "n", *metrics]
    lines = [
        "| " + " | ".join(map(cell, header)) + " |",
        "|" + "|".join([":--"] * len(by) + ["--:"] * (1 + len(metrics))) + "|",
    ]
    lines += ["| " + " | ".join(map(cell, r)) + " |" for r in _cells(scored, by, metrics)]
    return "\n".join(lines) + f"\n\n{note}\n"


def _html_table(scored: pa.Table, by: list[str], metrics: list[str], note: str) -> str:
    """A `<table>` fragment to paste into a page (no scripts or styles)."""
    from html import escape

    head = "".join(f"<th>{escape(h)}</th>" for h in [*by, "n", *metrics])
    body = "".join(
        "<tr>"
        + "".join(
            f'<td style="text-align:{"left" if i < len(by) else "right"}">{escape(c)}</td>'
            for i, c in enumerate(r)
        )
        + "</tr>"
        for r in _cells(scored, by, metrics)
    )
    return (
        f'<table class="steer-score"><caption>{escape(note)}</caption>'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>\n"
    )


@click.command("score")
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--by",
    default="model,element",
    show_default=True,
    help="Comma-separated grouping columns (model, element, module, setting, "
    "domain, type, perspective, grade, adaptation, …).",
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="NAME",
    help=f"Metric to report (repeatable or comma-separated): {', '.join(METRICS)}.",
)
@click.option(
    "--ci",
    type=float,
    default=0.95,
    show_default=True,
    help="Confidence level of the intervals (Wilson for exact match).",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(0, MAX_BOOTSTRAP),
    default=0,
    show_default=True,
    help="Percentile-bootstrap resamples over questions (0: none).",
)
@click.option("--seed", type=SEED, default=0, show_default=True, help="Bootstrap seed.")
@click.option(
    "--bins", type=click.IntRange(1, MAX_BINS), default=10, show_default=True, help="ECE bins."
)
@click.option(
    "--format",
    "fmt_",
    type=click.Choice(["table", "markdown", "html", "csv", "json", "parquet"]),
    default="table",
    show_default=True,
    help="table: for a terminal; markdown / html: the same rows, every metric with its "
    "interval (bootstrap 1000 unless --bootstrap says otherwise), for a paper or a PR; "
    "csv / json / parquet: the additive cells.",
)
@click.option(
    "--out",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write to this file (replaced atomically) instead of standard output.",
)
@click.option(
    "--published",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Game runs: the published Rationality Check game table (game_results.csv); "
    "prints the normalised domain scores of the runs' models beside the human baseline "
    "and the published models.",
)
@response_options
def score_cmd(
    paths: tuple[Path, ...],
    by: str,
    metrics: tuple[str, ...],
    ci: float,
    bootstrap: int,
    seed: int,
    bins: int,
    fmt_: str,
    out: Path | None,
    published: Path | None,
    bank: Path | None,
    dedupe: str | None,
) -> None:
    """Score response tables or run directories (finished or in progress).

    Prints one row per group. Every question a run was asked counts (give
    --bank for bare response tables): an unanswered one is a no-answer. The
    table written with --format csv/json/parquet holds additive cells
    (counts, sums, ECE bins) that merge by adding. Game runs (steer play
    GAME) give one row per player and wording with the game's metrics and
    intervals over samples; given with question runs, their rows follow the
    question rows in the same table (game rows: element game.NAME, n the
    samples; --metric may name metrics of both). A collective run (steer run
    --collective) is its members' and its vote's rows; the table is followed
    by its crowd gain, as steer run printed it.
    """
    groups = _split(by)
    if not groups:
        raise CliError("--by needs at least one column")
    from steer.play import GAME_FILE

    played = [p for p in paths if (p / GAME_FILE).is_file()]
    if played and len(played) == len(paths):
        _score_games(played, metrics, ci, seed, fmt_, out, published)
        return
    if published is not None and not played:
        raise CliError("--published compares game runs (steer play GAME); these are not")
    names = [n for m in metrics for n in _split(m)] or None
    games: tuple[pa.Table, list[str]] | None = None
    shown_games: list[str] = []
    question_names = names
    if played:
        # Question runs and game runs together: one table, the game rows after
        # the question rows (`_merged`); each --metric names one or the other.
        games = _game_scored(played, ci, seed)
        asked = [n for n in names or [] if n not in METRICS]
        _check_game_metrics(asked, games[1], [*METRICS, *games[1]])
        shown_games = asked if names else games[1]
        question_names = [n for n in names or [] if n in METRICS] or None
    chosen = [m.name for m in resolve_metrics(question_names)]
    # Only game metrics named: the question rows are scored (default metrics)
    # but show none of them.
    shown_chosen = chosen if not names or question_names else []
    paths = tuple(p for p in paths if p not in played)
    loaded = load_responses(list(paths), bank=bank, dedupe="latest" if dedupe == "latest" else None)
    for problem in loaded.problems:
        click.echo(f"warning: {problem}", err=True)
    if not loaded.table.num_rows:
        # Nothing to score is bad input, never an empty table with exit 0.
        sources = ", ".join(s.name for s in loaded.sources)
        if loaded.coverage and all(c.asked == 0 for c in loaded.coverage.values()):
            raise CliError(f"nothing was asked: {sources} asked 0 questions (a --limit 0 run?)")
        raise CliError(f"no responses in {sources}")
    if fmt_ in ("markdown", "html") and _defaulted("bootstrap"):
        bootstrap = 1000  # every metric of a published table carries its interval
    scored = score(
        loaded,
        by=groups,
        metrics=chosen,
        ci=ci,
        bootstrap=bootstrap,
        seed=seed,
        bins=bins,
    )

    def table_text() -> str:
        # A metric family (error_rate) shows one column per member present.
        shown = [
            c
            for m in shown_chosen
            for c in (
                [n for n in scored.column_names if n.startswith(f"{m}:")]
                if METRICS[m].kind == "errors"
                else [m]
            )
        ]
        if games is not None:
            return _mixed_text(
                merged, games[0], groups, [*shown, *shown_games], note(), published,
                fmt_=fmt_, ci=ci, seed=seed,
            )  # fmt: skip
        if fmt_ == "table":
            return _terminal_table(scored, groups, shown)
        render = _markdown_table if fmt_ == "markdown" else _html_table
        return render(scored, groups, shown, note())

    def note() -> str:
        return (
            f"Intervals: {ci:.0%} percentile bootstrap over questions ({bootstrap} resamples, "
            f"seed {seed})."
            if bootstrap
            else f"Intervals: {ci:.0%} Wilson for exact_match; none for the other metrics "
            "(--bootstrap 0)."
        ) + " n: questions asked."

    merged = scored if games is None else _merged(scored, games[0], groups)
    crowd = _crowd_lines(paths) if fmt_ == "table" else ""
    _emit(merged, fmt_, out, lambda: table_text() + crowd)


def _crowd_lines(paths: tuple[Path, ...]) -> str:
    """The crowd gain `steer run --collective` printed, for each finished
    collective run among `paths` (`steer.run.crowd_gain_of`)."""
    from steer.run._collective import COLLECTIVE_FILE, VOTE_DIR, crowd_gain_of

    lines = []
    for path in paths:
        if not (path / COLLECTIVE_FILE).is_file() or not (path / VOTE_DIR).is_dir():
            continue
        record, _, g = crowd_gain_of(path)
        if g["gain"] is None:
            lines.append(f"{path} ({record.collective}): no answer-graded question part to compare")
            continue
        interval = f" [{fmt(g['lo'])}, {fmt(g['hi'])}]" if g["lo"] is not None else ""
        lines.append(
            f"{path} ({record.collective}): accuracy: collective {fmt(g['collective'])}, members "
            f"{fmt(g['members'])} (mean); gain {g['gain']:+.3f}{interval} over {g['n']} question "
            "parts"
        )
    return "".join(f"{line}\n" for line in lines)


def _defaulted(name: str) -> bool:
    """Whether option `name` was left at its default (not given by the user)."""
    ctx = click.get_current_context()
    return ctx.get_parameter_source(name) == click.core.ParameterSource.DEFAULT


def _score_games(
    paths: list[Path],
    metrics: tuple[str, ...],
    ci: float,
    seed: int,
    fmt_: str,
    out: Path | None,
    published: Path | None = None,
) -> None:
    """A game run's metrics per player (`steer.play.game_metrics`), one row
    per run and player, with bootstrap intervals over samples."""
    scored, names = _game_scored(paths, ci, seed)
    wanted = [n for m in metrics for n in _split(m)]
    _check_game_metrics(wanted, names, names)
    shown = wanted or names

    def table_text() -> str:
        renamed = scored.rename_columns(
            ["n_units" if c == "n_samples" else c for c in scored.column_names]
        )
        text = _terminal_table(renamed, ["game", "model", "wording"], shown)
        text += _equilibrium_lines(renamed)
        if published is not None:
            text += _domain_table(published, scored)
        return text

    _emit(scored, fmt_, out, table_text)


def _game_scored(paths: list[Path], ci: float, seed: int) -> tuple[pa.Table, list[str]]:
    """The game runs' metrics per run, player and wording (a ``fin`` row for a
    game played under both wordings), and the metric names, in order."""
    from steer.play import game_metrics, read_game_run
    from steer.play._game_metrics import combine_wordings, metric_names

    tables = []
    for path in paths:
        record, game, moves = read_game_run(path)
        table = game_metrics(game, moves, ci=ci, seed=seed, wording=record.wording)
        tables.append(table.add_column(0, "run", pa.array([str(path)] * table.num_rows)))
    scored = combine_wordings(pa.concat_tables(tables, promote_options="permissive"))
    return scored, list(dict.fromkeys(n for t in tables for n in metric_names(t)))


def _check_game_metrics(wanted: list[str], names: list[str], known: list[str]) -> None:
    """Refuse a --metric the games do not have, with 'did you mean' over `known`."""
    from steer._suggest import did_you_mean

    for name in wanted:
        if name not in names:
            hint = did_you_mean(name, known)
            also = f" — did you mean {', '.join(map(repr, hint))}?" if hint else ""
            raise CliError(
                f"unknown game metric {name!r}{also} (these games have: {', '.join(names)})"
            )


#: The keys of a game row in a table merged with question rows.
GAME_KEYS = ("game", "wording")


def _merged(questions: pa.Table, games: pa.Table, by: list[str]) -> pa.Table:
    """Question runs' scored rows, then game runs' rows (`_game_scored`), in
    one table: the group columns first (a game row's ``model``, its
    ``element`` ``game.NAME`` as `steer score` reads a game run's rounds, its
    ``run``; null where a game has no such key), then ``game`` and
    ``wording`` (null on question rows), ``n_units`` (a game row's samples),
    then the question rows' columns and the game rows' columns."""
    n = games.num_rows
    columns: dict[str, pa.Array] = {}
    for key in by:
        kind = questions.schema.field(key).type
        if key == "element":
            values = pa.array([f"game.{g}" for g in games["game"].to_pylist()])
        elif key in games.column_names:
            values = games[key].combine_chunks()
        else:
            values = pa.nulls(n)
        columns[key] = values.cast(kind) if values.type != kind else values
    columns["n_units"] = games["n_samples"].combine_chunks().cast(questions["n_units"].type)
    for name in games.column_names:
        if name not in columns:
            columns[name] = games[name].combine_chunks()
    both = pa.concat_tables([questions, pa.table(columns)], promote_options="permissive")
    front = [*by, *GAME_KEYS, "n_units"]
    return both.select([*front, *(c for c in both.column_names if c not in front)])


def _mixed_text(
    merged: pa.Table,
    games: pa.Table,
    by: list[str],
    shown: list[str],
    note: str,
    published: Path | None,
    *,
    fmt_: str,
    ci: float,
    seed: int,
) -> str:
    """The merged table for reading: the group columns, and those a game row
    needs to be told apart (its model, its game unless ``element`` shows it,
    its wording where a game was played under several)."""
    from steer.play._game_metrics import BOOTSTRAP

    keys = [*by]
    if "model" not in by:
        keys.append("model")
    if "element" not in by:
        keys.append("game")
    if set(games["wording"].to_pylist()) - {"v1", None}:
        keys.append("wording")
    lines = _equilibrium_lines(games).splitlines()
    domains = _domain_rows(published, games) if published is not None else None
    if fmt_ == "table":
        text = _terminal_table(merged, keys, shown) + "".join(f"{x}\n" for x in lines)
        return text + (_domain_table(published, games) if published is not None else "")
    note = (
        f"Question rows — {note.removeprefix('Intervals: ')} Game rows — {ci:.0%} percentile "
        f"bootstrap over samples ({BOOTSTRAP} resamples, seed {seed}); n: samples played."
    )
    if fmt_ == "markdown":
        text = _markdown_table(merged, keys, shown, note) + "".join(f"\n- {x}" for x in lines)
        if domains is not None:
            header, rows = domains
            text += "\n\nRationality Check domain scores (normalised, clipped to [0, 1]):\n\n"
            text += (
                "| "
                + " | ".join(header)
                + " |\n|"
                + "|".join([":--"] * 2 + ["--:"] * (len(header) - 2))
                + "|\n"
                + "".join("| " + " | ".join(r) + " |\n" for r in rows)
            )
        return text if text.endswith("\n") else text + "\n"
    from html import escape

    text = _html_table(merged, keys, shown, " ".join([note, *lines]))
    if domains is not None:
        header, rows = domains
        head = "".join(f"<th>{escape(h)}</th>" for h in header)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rows)
        text += (
            '<table class="steer-score"><caption>Rationality Check domain scores (normalised, '
            f"clipped to [0, 1])</caption><thead><tr>{head}</tr></thead><tbody>{body}"
            "</tbody></table>\n"
        )
    return text


def _emit(scored: pa.Table, fmt_: str, out: Path | None, table_text: Callable[[], str]) -> None:
    """Write the scored table in `fmt_` to `out` (atomically) or standard output."""
    if fmt_ == "parquet":
        if out is None:
            raise CliError("--format parquet needs --out FILE")
        with atomic_path(out) as tmp:
            pq.write_table(scored, tmp)
        return
    if fmt_ == "json":
        text = dumps(scored.to_pylist(), indent=2) + "\n"
    elif fmt_ == "csv":
        buf = io.BytesIO()
        pacsv.write_csv(scored, buf)
        text = buf.getvalue().decode()
    else:
        text = table_text()
    if out:
        with atomic_path(out) as tmp:
            tmp.write_text(text, encoding="utf-8")
    else:
        click.echo(text, nl=False)


def _equilibrium_lines(scored: pa.Table) -> str:
    from steer.play._game_metrics import HUMAN_BASELINES, equilibrium_note

    lines: list[str] = []
    for r in scored.to_pylist():
        note = equilibrium_note(r)
        if note is not None and f"{r['game']}: {note}" not in lines:
            lines.append(f"{r['game']}: {note}")
        human = HUMAN_BASELINES.get(r["game"], {})
        for metric, value in human.items():
            line = f"{r['game']}: human baseline (Rationality Check) {metric} = {fmt(value)}"
            if line not in lines:
                lines.append(line)
        if r.get("forfeits"):
            lines.append(
                f"{r['model']}: {r['forfeits']} forfeited moves (scored as the least rational "
                "move in %NE, Dev, ActDev and gama_score; left out of the descriptive columns)"
            )
    return "".join(f"{line}\n" for line in lines)


def _domain_table(published: Path, scored: pa.Table) -> str:
    """The Rationality Check domain scores of the runs' models beside the human
    baseline and the published models' range."""
    header, rows = _domain_rows(published, scored)
    note = (
        "\nRationality Check domain scores (normalised by the published rule, clipped to "
        "[0, 1]; a game not played is left out of its domain's mean):\n"
    )
    return note + render_table(header, rows, "ll" + "r" * (len(header) - 2)) + "\n"


def _domain_rows(published: Path, scored: pa.Table) -> tuple[list[str], list[list[str]]]:
    """The domain table's header and rows (`steer.report._published.domain_scores`)."""
    from steer.report._published import domain_scores, read_published

    found = domain_scores(read_published(published), scored.to_pylist())
    header = ["domain", "type", *found.models, "Human", "published (min–max)"]
    rows = []
    for r in found.rows:
        values = list(r.published.values())
        span = f"{fmt(min(values))}–{fmt(max(values))}" if values else "—"
        rows.append([
            r.domain, r.type, *("—" if v is None else fmt(v) for v in r.mine),
            "—" if r.human is None else fmt(r.human), span,
        ])  # fmt: skip
    return header, rows
