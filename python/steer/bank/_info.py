"""Summaries of a question bank."""

from __future__ import annotations

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from steer.taxonomy import Taxonomy, load_taxonomy


@dataclass
class BankInfo:
    n_questions: int
    n_base_questions: int
    n_elements: int
    cells: pa.Table  # element, domain, grade, n
    options: dict[int, int]  # number of options -> questions
    gradings: dict[str, int]
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "n_questions": self.n_questions,
            "n_base_questions": self.n_base_questions,
            "n_elements": self.n_elements,
            "options": {str(k): v for k, v in self.options.items()},
            "gradings": self.gradings,
            "cells": self.cells.to_pylist(),
            "warnings": self.warnings,
        }


def _counts(column: pa.ChunkedArray) -> dict[object, int]:
    vc = pc.value_counts(column)
    return dict(zip(vc.field("values").to_pylist(), vc.field("counts").to_pylist(), strict=True))


def bank_info(table: pa.Table, taxonomy: Taxonomy | None = None) -> BankInfo:
    """Counts by element × domain × grade, plus shape facts and warnings."""
    taxonomy = taxonomy or load_taxonomy()
    cells = (
        table.group_by(["element", "domain", "grade"], use_threads=False)
        .aggregate([("question_id", "count")])
        .rename_columns(["element", "domain", "grade", "n"])
        .sort_by([("element", "ascending"), ("domain", "ascending"), ("grade", "ascending")])
    )
    base_keys = pc.binary_join_element_wise(table["element"], table["base_id"], "/")
    warnings = []
    grades_by_element = (
        table.group_by("element").aggregate([("grade", "min"), ("grade", "max")]).to_pylist()
    )
    for row in grades_by_element:
        element = taxonomy.elements[row["element"]]
        lo, hi = row["grade_min"], row["grade_max"]
        if lo is None:
            warnings.append(f"{element.id}: no grade levels recorded")
        elif lo < element.grades[0] or hi > element.grades[1]:
            warnings.append(
                f"{element.id}: grades {lo}-{hi} fall outside the taxonomy's "
                f"{element.grades[0]}-{element.grades[1]} for {element.slug}"
            )
    options = _counts(pc.list_value_length(table["options"]))
    return BankInfo(
        n_questions=table.num_rows,
        n_base_questions=len(pc.unique(base_keys)),
        n_elements=len(pc.unique(table["element"])),
        cells=cells,
        options={int(k): int(v) for k, v in sorted(options.items())},  # type: ignore[call-overload]
        gradings={str(k): int(v) for k, v in _counts(table["grading"]).items()},
        warnings=warnings,
    )
