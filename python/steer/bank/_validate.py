"""Whole-bank checks, vectorised over Arrow columns."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc

from steer.errors import FileFormatError, UnknownNameError, row_location
from steer.schema import QUESTION_COLUMNS, conform, first_true
from steer.taxonomy import Taxonomy, load_taxonomy

GRADINGS = ("answer", "consistency", "elicit")
# Elicitation rows: choices with no key, under `experiment.<name>` (an
# experiment's trials), `game.<name>` (a game's moves) or `survey.<name>` (a
# questionnaire's items).
ELICIT_PREFIX = "experiment."
GAME_PREFIX = "game."
SURVEY_PREFIX = "survey."
ELICIT_PREFIXES = (ELICIT_PREFIX, GAME_PREFIX, SURVEY_PREFIX)


def is_elicit_element(element: str) -> bool:
    return element.startswith(ELICIT_PREFIXES)


def validate_questions(table: pa.Table, source: str, taxonomy: Taxonomy | None = None) -> pa.Table:
    """Conform `table` to the question schema and check every row's invariants.

    Raises `FileFormatError` with the file, the first bad row and the field.
    """
    table = conform(table, QUESTION_COLUMNS, source)
    taxonomy = taxonomy or load_taxonomy()

    def fail(mask: pa.ChunkedArray | pa.Array, field: str, problem: str) -> None:
        row = first_true(mask)
        if row >= 0:
            value = table.column(field)[row].as_py()
            raise FileFormatError(
                problem.format(value=value),
                source=source,
                where=row_location(source, row),
                field=field,
            )

    fail(
        pc.invert(pc.is_in(table["grading"], pa.array(GRADINGS))),
        "grading",
        "{value!r} is not one of 'answer', 'consistency', 'elicit'",
    )
    is_elicit = pc.equal(table["grading"], "elicit")
    is_experiment = pc.or_(
        pc.or_(
            pc.starts_with(table["element"], ELICIT_PREFIX),
            pc.starts_with(table["element"], GAME_PREFIX),
        ),
        pc.starts_with(table["element"], SURVEY_PREFIX),
    )
    fail(
        pc.not_equal(is_elicit, is_experiment),
        "grading",
        "{value!r}: elicitation rows ('elicit') and 'experiment.*', 'game.*' or 'survey.*' "
        "elements go together",
    )
    is_answer = pc.equal(table["grading"], "answer")
    n_opts = pc.list_value_length(table["options"])
    fail(pc.less(n_opts, 1), "options", "a question needs at least one option")
    fail(
        pc.and_(is_answer, pc.is_null(table["correct_index"])),
        "correct_index",
        "missing for an answer-graded question",
    )
    out_of_range = pc.or_(
        pc.less(table["correct_index"], 0), pc.greater_equal(table["correct_index"], n_opts)
    )
    fail(
        pc.and_(is_answer, out_of_range),
        "correct_index",
        "{value} is not the index of one of the options",
    )
    fail(
        pc.and_(pc.invert(is_answer), pc.is_valid(table["correct_index"])),
        "correct_index",
        "consistency-graded and elicitation parts must leave it null (got {value})",
    )
    grade = table["grade"]
    fail(
        pc.or_(pc.less(grade, 0), pc.greater(grade, 14)),
        "grade",
        "{value} is outside the grade levels 0-14",
    )
    tag_len = pc.list_value_length(table["option_tags"])
    fail(
        pc.and_(pc.is_valid(tag_len), pc.not_equal(tag_len, n_opts)),
        "option_tags",
        "needs one tag per option",
    )

    from steer.bank._order import bad_order_row

    bad_order = bad_order_row(table["options"], table["option_order"])
    if bad_order >= 0:
        raise FileFormatError(
            "is not a permutation of the option positions",
            source=source,
            where=row_location(source, bad_order),
            field="option_order",
        )

    counts = pc.value_counts(table["question_id"])
    dupes = counts.filter(pc.greater(counts.field("counts"), 1))
    if len(dupes):
        dup = dupes.field("values")[0].as_py()
        rows = pc.indices_nonzero(pc.equal(table["question_id"], dup))
        raise FileFormatError(
            f"duplicate question_id {dup!r} (first at {row_location(source, rows[0].as_py())})",
            source=source,
            where=row_location(source, rows[1].as_py()),
            field="question_id",
        )

    for element in pc.unique(table["element"]).to_pylist():
        if is_elicit_element(element):
            continue  # an experiment's trials or a game's moves: `steer play` names them
        if element not in taxonomy:
            row = first_true(pc.equal(table["element"], element))
            try:
                taxonomy.element(element)
                detail = "is not a full element id"
                found = taxonomy.element(element).id
                detail += f" — use {found!r}"
            except UnknownNameError as exc:
                detail = str(exc)
            raise FileFormatError(
                detail, source=source, where=row_location(source, row), field="element"
            )
    return table
