"""The report's figures from a graded result, shared by the HTML page and
the Markdown export so both show the same drawings of the same numbers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from steer.rubric import GradeResult
from steer.score import score
from steer.taxonomy import Taxonomy, load_taxonomy

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def grade_curve_of(result: GradeResult) -> Figure | None:
    """The rubric's metric by grade level per card, with bootstrap intervals
    (None when no graded question has a grade level)."""
    from steer.view import grade_curve_figure

    table = result.responses
    if table is None or "grade" not in table.column_names or not table.num_rows:
        return None
    # One series per card: adaptations of a model are never pooled.
    by = ["model", "adaptation"] if "adaptation" in table.column_names else ["model"]
    metric = result.metric
    scored = score(table, by=[*by, "grade"], metrics=[metric], bootstrap=1000, seed=0)
    t = scored.to_pydict()
    adaptations = t.get("adaptation", [None] * scored.num_rows)
    series = pa.table(
        {
            "series": [f"{m} · {a}" if a else m for m, a in
                       zip(t["model"], adaptations, strict=True)],
            "grade": t["grade"], "value": t[metric],
            "lo": t.get(f"{metric}_lo", [None] * scored.num_rows),
            "hi": t.get(f"{metric}_hi", [None] * scored.num_rows),
            "n": t["n_units"],
        }
    )  # fmt: skip
    return grade_curve_figure(series.filter(pc.is_valid(series["grade"])), metric)


def heatmap_of(result: GradeResult, urls: dict[tuple[str, str], str] | None = None) -> Figure:
    from steer.taxonomy import element_order
    from steer.view import heatmap_figure

    models = [c.title for c in result.cards]
    elements = sorted({e for c in result.cards for e in c.elements}, key=element_order)
    values = {
        (c.title, e): c.elements[e].value(result.metric) for c in result.cards for e in c.elements
    }
    return heatmap_figure(models, elements, values, metric=result.metric, urls=urls)


def report_figures(
    result: GradeResult, *, regression: Any = None, taxonomy: Taxonomy | None = None
) -> dict[str, Figure]:
    """Every figure of the report, by file name stem: heatmap, grade-curve,
    compare, robustness, calibration, and one dependency graph per card."""
    from steer.view import calibration_of, compare_of, dependency_graph_of, robustness_of

    taxonomy = taxonomy or load_taxonomy()
    out: dict[str, Figure] = {"heatmap": heatmap_of(result)}
    curve = grade_curve_of(result)
    if curve is not None:
        out["grade-curve"] = curve
    table = result.responses
    if table is not None and table.num_rows:
        out["compare"] = compare_of(table, result.metric, regression=regression,
                                    banks=result.banks)  # fmt: skip
        out["robustness"] = robustness_of(table, result.metric)
        out["calibration"] = calibration_of(table)
    graded = {e for c in result.cards for e in c.elements}
    for i, card in enumerate(result.cards, 1):
        name = "dependency-graph" if len(result.cards) == 1 else f"dependency-graph-{i}"
        out[name] = dependency_graph_of(card, result.metric, taxonomy, graded=graded)
    return out
