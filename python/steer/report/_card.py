"""Report cards: per model, per element scores with a letter grade.

This is the fixed default card used by `steer demo`; rubric files (which
choose elements, weights, metrics and letter scales) build on the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from steer.report._table import fmt, render_table
from steer.taxonomy import Taxonomy, load_taxonomy

# Default letter scale on normalized accuracy (random guessing = 0, perfect = 1).
DEFAULT_SCALE: tuple[tuple[str, float], ...] = (("A", 0.9), ("B", 0.8), ("C", 0.7), ("D", 0.6))


def letter(value: float, scale: tuple[tuple[str, float], ...] = DEFAULT_SCALE) -> str:
    if value != value:
        return "—"
    return next((name for name, bound in scale if value >= bound), "F")


@dataclass
class CardRow:
    element: str
    name: str
    n: int
    exact_match: dict[str, float] = field(default_factory=dict)
    normalized_accuracy: dict[str, float] = field(default_factory=dict)


@dataclass
class ReportCard:
    title: str
    models: list[str]
    rows: list[CardRow]
    overall: CardRow

    def to_dict(self) -> dict[str, object]:
        def row(r: CardRow) -> dict[str, object]:
            return {
                "element": r.element,
                "name": r.name,
                "n": r.n,
                "models": {
                    m: {
                        "exact_match": _nan_none(r.exact_match.get(m)),
                        "normalized_accuracy": _nan_none(r.normalized_accuracy.get(m)),
                        "grade": letter(r.normalized_accuracy.get(m, float("nan"))),
                    }
                    for m in self.models
                },
            }

        return {
            "title": self.title,
            "models": self.models,
            "elements": [row(r) for r in self.rows],
            "overall": row(self.overall),
        }

    def render_text(self) -> str:
        header = ["element", "n"]
        for m in self.models:
            header += [f"{m} exact", "norm", "grade"]
        body = []
        for r in [*self.rows, self.overall]:
            cells = [f"{r.element} {r.name}".strip(), str(r.n)]
            for m in self.models:
                na = r.normalized_accuracy.get(m, float("nan"))
                cells += [fmt(r.exact_match.get(m)), fmt(na), letter(na)]
            body.append(cells)
        return f"{self.title}\n\n{render_table(header, body)}"


def _nan_none(x: float | None) -> float | None:
    return None if x is None or x != x else float(x)


def build_card(scored: pa.Table, title: str, taxonomy: Taxonomy | None = None) -> ReportCard:
    """A card from a table scored by model × element (see `steer.score.score`)."""
    taxonomy = taxonomy or load_taxonomy()
    data = scored.to_pydict()
    models = sorted(set(data["model"]))
    order = {e: i for i, e in enumerate(taxonomy.elements)}
    rows: dict[str, CardRow] = {}
    totals = {m: np.zeros(3) for m in models}  # asked, correct, sum_norm
    for i, element in enumerate(data["element"]):
        m = data["model"][i]
        info = taxonomy.elements.get(element)
        row = rows.setdefault(element, CardRow(element, info.name if info else "", 0))
        asked = data["n_units"][i]  # like the metrics: a no-answer counts
        row.n = max(row.n, data["n_rows"][i])
        row.exact_match[m] = data["exact_match"][i]
        row.normalized_accuracy[m] = data["normalized_accuracy"][i]
        totals[m] += (asked, data["n_correct"][i], data["sum_norm"][i])
    overall = CardRow("overall", "", sum(r.n for r in rows.values()))
    for m, (asked, correct, norm) in totals.items():
        overall.exact_match[m] = correct / asked if asked else float("nan")
        overall.normalized_accuracy[m] = norm / asked if asked else float("nan")
    ordered = sorted(rows.values(), key=lambda r: order.get(r.element, len(order)))
    return ReportCard(title, models, ordered, overall)
