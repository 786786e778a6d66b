"""TPL005 few-questions: can every element yield enough distinct questions?

`variety_bank` generates up to `target` questions per element (spread over
its templates × grades) and counts the distinct ones: a question is its
text (every part) with its options as a set, so a reshuffle of the same
options is not new. A cell (template × grade) that stops early has run dry;
when an element falls short while some of its cells did not, it is
generated again with more per cell, so the count says what the element can
yield, not how the first guess was spread.

The bank it returns has every element at (up to) `target` questions: the
quality gate audits that same bank.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.templates._coverage import MIN_QUESTIONS, finding, line_of
from steer.templates._load import Template


@dataclass
class Variety:
    """What `variety_bank` made: the bank, distinct questions per element,
    each element's dry cells ('template grade g (made)') and per-cell size."""

    table: pa.Table
    target: int
    distinct: dict[str, int] = field(default_factory=dict)
    dry: dict[str, list[str]] = field(default_factory=dict)
    per_cell: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)  # templates that could not fill a cell


def _sorted_options(options: pa.Array) -> pa.Array:
    """Each row's options sorted, joined by U+001F (vectorised)."""
    parent = pc.list_parent_indices(options)
    flat = pc.list_flatten(options)
    order = pc.sort_indices(
        pa.table({"p": parent, "t": flat}), sort_keys=[("p", "ascending"), ("t", "ascending")]
    )
    lengths = pc.list_value_length(options).to_numpy(zero_copy_only=False)
    offsets = pa.array(np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32))
    rebuilt = pa.ListArray.from_arrays(offsets, pc.take(flat, order))
    return pc.binary_join(rebuilt, "\x1f")


def distinct_questions(table: pa.Table) -> dict[str, int]:
    """Distinct questions per element: (element, text of all parts, each
    part's option set). Column-wise; no loop over rows."""
    if table.num_rows == 0:
        return {}
    t = table.combine_chunks()
    options = t["options"].chunk(0)
    row = pc.binary_join_element_wise(t["question_text"], _sorted_options(options), "\x1e")
    parts = pa.table({"element": t["element"], "base_id": t["base_id"], "row": row})
    per_question = parts.group_by(["element", "base_id"], use_threads=False).aggregate(
        [("row", "list")]
    )
    content = pc.binary_join(per_question["row_list"], "\x1d")
    counted = (
        pa.table({"element": per_question["element"], "content": content})
        .group_by("element", use_threads=False)
        .aggregate([("content", "count_distinct")])
    )
    return dict(
        zip(
            counted["element"].to_pylist(),
            counted["content_count_distinct"].to_pylist(),
            strict=True,
        )
    )


def _cells_made(table: pa.Table) -> dict[tuple[str, int], int]:
    """Questions made per (template, grade)."""
    if table.num_rows == 0:
        return {}
    first = table.filter(pc.equal(pc.fill_null(table["part"], 0), 0))
    counted = first.group_by(["template_id", "grade"], use_threads=False).aggregate(
        [("base_id", "count")]
    )
    return {
        (tid, int(g)): int(n)
        for tid, g, n in zip(
            counted["template_id"].to_pylist(),
            counted["grade"].to_pylist(),
            counted["base_id_count"].to_pylist(),
            strict=True,
        )
    }


def _generate(
    templates: list[Template], per_cell: int, seed: int, workers: int, failures: list[str]
) -> pa.Table:
    """`generate_questions`, and when a template cannot fill its cells at this
    size, each template alone: the others still count, the failure is kept."""
    from steer.errors import InputError
    from steer.generate import generate_questions

    try:
        return generate_questions(templates, per_cell=per_cell, seed=seed, workers=workers)
    except InputError:
        pass
    tables = []
    for t in templates:
        try:
            tables.append(generate_questions([t], per_cell=per_cell, seed=seed))
        except InputError as exc:
            failures.append(f"{exc} (generating {per_cell} per cell)")
    return pa.concat_tables(tables) if tables else _empty()


def _empty() -> pa.Table:
    from steer.schema import QUESTION_SCHEMA

    return QUESTION_SCHEMA.empty_table()


def variety_bank(
    templates: Sequence[Template], *, target: int = MIN_QUESTIONS, seed: int = 0, workers: int = 1
) -> Variety:
    """Generate up to `target` questions per element of `templates` and count
    the distinct ones (see the module docstring)."""
    by_element: dict[str, list[Template]] = {}
    for t in templates:
        by_element.setdefault(t.element, []).append(t)
    cells = {e: sum(len(t.spec.grade) for t in group) for e, group in by_element.items()}
    per_cell = {e: math.ceil(target / n) for e, n in cells.items()}
    result = Variety(table=pa.table({}), target=target)
    tables: dict[str, pa.Table] = {}
    todo = sorted(by_element)
    for _round in range(4):
        # Elements with the same per-cell size are generated together, so
        # worker processes start a few times, not once per element.
        sizes: dict[int, list[str]] = {}
        for e in todo:
            sizes.setdefault(per_cell[e], []).append(e)
        for size, elements in sorted(sizes.items()):
            chosen = [t for e in elements for t in by_element[e]]
            made = _generate(chosen, size, seed, workers, result.failures)
            for e in elements:
                tables[e] = made.filter(pc.equal(made["element"], e))
        again = []
        for e in todo:
            counts = _cells_made(tables[e])
            distinct = distinct_questions(tables[e]).get(e, 0)
            dry = [
                (t.spec.id, g, counts.get((t.spec.id, g), 0))
                for t in by_element[e]
                for g in sorted(t.spec.grade)
                if counts.get((t.spec.id, g), 0) < per_cell[e]
            ]
            result.distinct[e] = distinct
            result.dry[e] = [f"{tid} grade {g} ({n})" for tid, g, n in dry]
            result.per_cell[e] = per_cell[e]
            open_cells = cells[e] - len(dry)
            if distinct < target and open_cells > 0:
                short = target - distinct
                per_cell[e] += math.ceil(short / open_cells)
                again.append(e)
        if not again:
            break
        todo = again
    ordered = [tables[e] for e in sorted(tables)]
    result.table = pa.concat_tables(ordered) if ordered else pa.table({})
    return result


def variety_findings(
    variety: Variety, templates: Sequence[Template], file_texts: dict[str, str]
) -> list[str]:
    """TPL005 for each element below `variety.target` distinct questions."""
    first: dict[str, Template] = {}
    for t in templates:
        first.setdefault(t.element, t)
    out = []
    for element, n in sorted(variety.distinct.items()):
        if n >= variety.target:
            continue
        t = first[element]
        dry = variety.dry.get(element, [])
        shown = ", ".join(dry[:6]) + (f" … ({len(dry)} cells)" if len(dry) > 6 else "")
        out.append(
            finding(
                t.source,
                line_of(file_texts.get(t.source, ""), "element"),
                "TPL005",
                f"element {element} yields {n} distinct questions (need at least "
                f"{variety.target})" + (f"; ran dry: {shown}" if dry else ""),
                "widen the sampled ranges and words, add phrasings, domains or grades",
            )
        )
    return out
