"""The data behind the figures of graded responses: `steer plot` (after
loading the runs) and `steer report` (from the grade) call these, so both
draw the same numbers.

Each takes the responses already loaded and filtered (a `Loaded` where no
row was filtered out, so that scoring errors still name the user's file, or
the table itself) and returns the figure. The engine is imported inside the
functions: `import steer.view` stays light.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

from matplotlib.figure import Figure

from steer.view._calibration import CalibrationSeries, calibration_figure
from steer.view._compare import compare_figure
from steer.view._dependency_graph import dependency_graph_figure
from steer.view._figure import message_figure
from steer.view._robustness import robustness_figure

if TYPE_CHECKING:
    import pyarrow as pa

    from steer.rubric import ModelCard
    from steer.rubric._model import RegressionOptions
    from steer.score._load import Loaded
    from steer.taxonomy import Taxonomy

    Responses: TypeAlias = Loaded | pa.Table


def series_name(model: str, adaptation: str | None) -> str:
    """A card's name as `steer grade` titles it: the model, then its adaptation."""
    return f"{model} · {adaptation}" if adaptation else model


def _table(responses: Responses) -> pa.Table:
    import pyarrow as pa

    return responses if isinstance(responses, pa.Table) else responses.table


def _card_by(table: pa.Table) -> list[str]:
    # Adaptations of a model are never pooled; old tables may lack the column.
    return ["model", "adaptation"] if "adaptation" in table.column_names else ["model"]


def compare_of(
    responses: Responses,
    metric: str,
    *,
    regression: RegressionOptions | None = None,
    banks: Sequence[str] = (),
    bootstrap: int = 1000,
) -> Figure:
    """A bar per card with its bootstrap interval, and each card's paired
    difference from the best (as `steer compare`: the test, level, correction
    and resamples of the rubric's `regression` options, default the rubric
    defaults). `banks`: the question banks' sha256, to key questions of rows
    without one (used when there is exactly one)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from steer.rubric._model import RegressionOptions
    from steer.score import score
    from steer.score._outcomes import OUTCOME_METRICS, question_outcomes
    from steer.stats import adjust, compare

    options = regression or RegressionOptions()
    # Exact match when the metric has no per-question value (robustness metrics).
    paired_metric = metric if metric in OUTCOME_METRICS else "exact_match"
    table = _table(responses)
    if table.num_rows == 0:
        return message_figure("nothing to plot: no response in these runs that the rubric grades")
    by = _card_by(table)
    scored = score(responses, by=by, metrics=[metric], bootstrap=bootstrap,
                   seed=0).to_pylist()  # fmt: skip
    cards = [r for r in scored if r[metric] is not None and r[metric] == r[metric]]
    for r in cards:
        r.setdefault("adaptation", None)
    # Best first: it is the reference every other card is paired against.
    cards.sort(key=lambda r: (-r[metric], series_name(r["model"], r["adaptation"])))
    bars = pa.table(
        {
            "series": [series_name(r["model"], r["adaptation"]) for r in cards],
            "value": [r[metric] for r in cards],
            "lo": [r.get(f"{metric}_lo") for r in cards],
            "hi": [r.get(f"{metric}_hi") for r in cards],
            "n": [r["n_units"] for r in cards],
        },
        schema=pa.schema([("series", pa.string()), ("value", pa.float64()), ("lo", pa.float64()),
                          ("hi", pa.float64()), ("n", pa.int64())]),
    )  # fmt: skip
    if len(cards) < 2:
        return compare_figure(bars, None, metric, paired_metric=paired_metric)
    outcomes = question_outcomes(table, bank=banks[0] if len(banks) == 1 else None)

    def card(r: dict[str, Any]) -> pa.Table:
        # Outcomes label a missing adaptation "" (never null, which matches nothing).
        mask = pc.and_(pc.equal(outcomes["model"], r["model"]),
                       pc.equal(outcomes["adaptation"], r["adaptation"] or ""))  # fmt: skip
        return outcomes.filter(mask)

    reference = card(cards[0])
    paired = []
    for r in cards[1:]:
        # One cell ("all") per card; the correction runs across the cards below.
        cell = compare(reference, card(r), paired_metric, by="all", level=options.level,
                       correction="none", resamples=options.resamples,
                       seed=options.seed).to_pylist()  # fmt: skip
        empty = {"n": 0, "diff": None, "lo": None, "hi": None, "p": None, "test": ""}
        paired.append({**(cell[0] if cell else empty),
                       "series": series_name(r["model"], r["adaptation"])})  # fmt: skip
    p_adjusted = adjust([float("nan") if x["p"] is None else x["p"] for x in paired],
                        options.correction)  # fmt: skip
    table_paired = pa.table(
        {
            "series": [x["series"] for x in paired],
            "n": pa.array([x["n"] for x in paired], pa.int64()),
            **{k: pa.array([x[k] for x in paired], pa.float64()) for k in ("diff", "lo", "hi")},
            "p": pa.array([x["p"] for x in paired], pa.float64()),
            "p_adjusted": pa.array(p_adjusted, pa.float64(), from_pandas=True),
            "test": pa.array([x["test"] for x in paired], pa.string()),
        }
    )
    return compare_figure(bars, table_paired, metric, paired_metric=paired_metric,
                          correction=options.correction, level=options.level)  # fmt: skip


def robustness_of(responses: Responses, metric: str, *, bootstrap: int = 1000) -> Figure:
    """The metric by domain, question type and perspective per card, with
    bootstrap intervals. A worst-group metric (`domain_robustness`, …) is a
    minimum over these categories: the figure draws what it takes the
    minimum of instead."""
    import pyarrow as pa

    from steer.score import METRICS, score
    from steer.score._robustness import WORST_OF

    metric = metric if METRICS[metric].kind == "cell" else WORST_OF
    table = _table(responses)
    by = _card_by(table)
    columns: dict[str, list[object]] = {
        k: [] for k in ("dimension", "category", "series", "value", "lo", "hi", "n")
    }
    for dim in ("domain", "type", "perspective"):
        if table.num_rows == 0 or dim not in table.column_names:
            continue
        scored = score(responses, by=[*by, dim], metrics=[metric], bootstrap=bootstrap,
                       seed=0).to_pydict()  # fmt: skip
        n = len(scored["model"])
        columns["dimension"] += [dim] * n
        columns["category"] += scored[dim]
        columns["series"] += [series_name(m, a) for m, a in
                              zip(scored["model"], scored.get("adaptation", [None] * n),
                                  strict=True)]  # fmt: skip
        columns["value"] += scored[metric]
        columns["lo"] += scored.get(f"{metric}_lo", [None] * n)
        columns["hi"] += scored.get(f"{metric}_hi", [None] * n)
        columns["n"] += scored["n_units"]
    types = {"value": pa.float64(), "lo": pa.float64(), "hi": pa.float64(), "n": pa.int64()}
    return robustness_figure(
        pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in columns.items()}), metric
    )


def calibration_series(responses: Responses) -> list[CalibrationSeries]:
    """Per card, the top option's probability against accuracy in `score`'s
    own ECE bins (its default count, as `steer score`), so a panel's ECE is
    the `ece` metric of the same answers."""
    from steer.score import score

    table = _table(responses)
    if table.num_rows == 0:
        return []
    scored = score(responses, by=_card_by(table), metrics=["ece"], ci=None)
    t = scored.to_pydict()
    bins = range(sum(c.startswith("ece_n_") for c in scored.column_names))
    adaptations = t.get("adaptation", [None] * scored.num_rows)
    return [
        CalibrationSeries(
            series_name(m, a),
            [t[f"ece_n_{b}"][i] for b in bins],
            [t[f"ece_conf_{b}"][i] for b in bins],
            [t[f"ece_acc_{b}"][i] for b in bins],
        )
        for i, (m, a) in enumerate(zip(t["model"], adaptations, strict=True))
    ]


def calibration_of(responses: Responses, *, models: Collection[str] | None = None) -> Figure:
    """A reliability diagram per card; `models`: the card names to draw (all
    without it)."""
    series = calibration_series(responses)
    return calibration_figure([s for s in series if models is None or s.name in models])


def dependency_graph_of(
    card: ModelCard,
    metric: str,
    taxonomy: Taxonomy,
    *,
    graded: Collection[str] | None = None,
    urls: Mapping[str, str] | None = None,
) -> Figure:
    """The prerequisite graph of `graded` (default: the card's graded
    elements) and everything they build on, coloured by the card's `metric`
    (ungraded: grey). Pass the same `graded` for several cards to draw them on
    one layout. `urls`: a link per element."""
    from steer.taxonomy import element_order

    wanted = card.elements if graded is None else graded
    roots = [e for e in wanted if e in taxonomy]
    nodes = sorted({n for e in roots for n in taxonomy.prerequisites(e).nodes},
                   key=element_order)  # fmt: skip
    edges = [(r, n) for n in nodes for r in taxonomy.elements[n].requires]
    values = {e: card.elements[e].value(metric) for e in nodes if e in card.elements}
    return dependency_graph_figure(nodes, edges, values, metric=metric, title=card.title,
                                   urls=urls)  # fmt: skip
