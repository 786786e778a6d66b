"""steer's records (pydantic) and Arrow schemas, and `conform` for user tables."""

from __future__ import annotations

from typing import Any

import pyarrow as pa
import pytest
from pydantic import BaseModel, ValidationError

from steer.errors import FileFormatError, InputError
from steer.schema import (
    ADAPTATION_TYPE,
    NO_ANSWER,
    OFF_OPTIONS,
    QUESTION_COLUMNS,
    QUESTION_SCHEMA,
    RESPONSE_COLUMNS,
    RESPONSE_SCHEMA,
    Adaptation,
    Question,
    Response,
    RunManifest,
    conform,
    first_true,
)

# DESIGN.md, section "Data" (the steer-bench compatible rows) ...
DESIGN_QUESTION_COLUMNS = [
    "question_id", "element", "base_id", "part", "question_text", "options",
    "correct_index", "grading", "consistency_group", "consistency_rule", "type", "domain",
    "perspective", "grade", "template_id", "seed", "source", "explanation", "option_tags",
    "answer_value",
]  # fmt: skip
DESIGN_RESPONSE_COLUMNS = [
    "run_id", "model", "backend", "adaptation", "question_id", "element", "domain", "type",
    "perspective", "grade", "n_options", "chosen_index", "correct_index", "consistency_rule",
    "option_probs",
    "response_text", "explanation", "tokens_in", "tokens_out", "cost_usd", "latency_s",
    "error",
]  # fmt: skip
# ... and the columns steer adds: `tags`, `payload`, `option_order` at the end of a
# question row,
# `base_id`, `part` after a response's question_id, and a response's identity
# (`bank_sha256`, `sample`) and record time at its end.
QUESTION_NAMES = [
    *DESIGN_QUESTION_COLUMNS,
    "tags",
    "payload",
    "answer_tolerance",
    "answer_form",
    "option_order",
]
RESPONSE_NAMES = [
    *DESIGN_RESPONSE_COLUMNS[:5],
    "base_id",
    "part",
    *DESIGN_RESPONSE_COLUMNS[5:],
    "bank_sha256",
    "sample",
    "recorded_at",
    "answer_read",
    "error_type",
]


def test_question_schema_columns() -> None:
    assert QUESTION_SCHEMA.names == QUESTION_NAMES
    assert [c.name for c in QUESTION_COLUMNS] == QUESTION_NAMES
    assert [
        n
        for n in QUESTION_SCHEMA.names
        if n not in {"tags", "payload", "option_order", "answer_tolerance", "answer_form"}
    ] == (DESIGN_QUESTION_COLUMNS)


def test_response_schema_columns() -> None:
    assert RESPONSE_SCHEMA.names == RESPONSE_NAMES
    assert [c.name for c in RESPONSE_COLUMNS] == RESPONSE_NAMES
    added = {"base_id", "part", "bank_sha256", "sample", "recorded_at", "answer_read", "error_type"}
    assert [n for n in RESPONSE_SCHEMA.names if n not in added] == DESIGN_RESPONSE_COLUMNS
    adaptation = RESPONSE_SCHEMA.field("adaptation").type
    assert adaptation == ADAPTATION_TYPE
    assert [adaptation.field(i).name for i in range(adaptation.num_fields)] == [
        "format",
        "shots",
        "cot",
        "prob_mode",
        "order",
        "collective",
        "persona",
    ]


def test_schema_types() -> None:
    q = QUESTION_SCHEMA
    assert q.field("options").type == pa.list_(pa.string())
    assert q.field("option_tags").type == pa.list_(pa.string())
    assert q.field("answer_value").type == pa.float64()
    assert q.field("correct_index").nullable  # null for consistency-graded parts
    for name in ("question_id", "element", "base_id", "question_text", "options"):
        assert not q.field(name).nullable, name
    r = RESPONSE_SCHEMA
    assert r.field("option_probs").type == pa.list_(pa.float64())
    assert not r.field("chosen_index").nullable
    assert r.field("correct_index").nullable
    assert NO_ANSWER == -1


@pytest.mark.parametrize(
    ("model", "names"), [(Question, QUESTION_NAMES), (Response, RESPONSE_NAMES)]
)
def test_models_follow_the_schemas(model: type[BaseModel], names: list[str]) -> None:
    assert list(model.model_fields) == names


# --- Question -------------------------------------------------------------------------


def question(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_id": "steer.3.1.b/7/0",
        "element": "steer.3.1.b",
        "base_id": "7",
        "question_text": "Which action is a best response?",
        "options": ["Spend", "Don't spend", "Either", "Neither"],
        "correct_index": 0,
    }
    row.update(overrides)
    return row


def test_question_defaults_and_id() -> None:
    q = Question(**question())
    assert q.part == 0
    assert q.grading == "answer"
    assert q.type == q.domain == q.perspective == q.template_id == q.source == ""
    assert q.grade is q.explanation is q.option_tags is q.tags is q.payload is None
    assert Question.make_id("steer.3.1.b", "7") == q.question_id
    assert Question.make_id("steer.2.1.c", "3", 2) == "steer.2.1.c/3/2"


def test_question_into_the_arrow_schema() -> None:
    q = Question(**question(option_tags=["key", "a", "b", "c"], grade=3, tags=["x"]))
    table = pa.Table.from_pylist([q.model_dump()], schema=QUESTION_SCHEMA)
    assert table.to_pylist() == [q.model_dump()]


def test_question_rejects_extra_keys() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Question(**question(difficulty=3))


@pytest.mark.parametrize("index", [-1, 4, 100])
def test_question_rejects_key_outside_options(index: int) -> None:
    with pytest.raises(ValidationError, match=f"correct_index {index} is outside the 4 options"):
        Question(**question(correct_index=index))


def test_question_needs_key_when_answer_graded() -> None:
    with pytest.raises(ValidationError, match="correct_index is required"):
        Question(**question(correct_index=None))


def test_consistency_graded_parts() -> None:
    q = Question(
        **question(
            correct_index=None,
            grading="consistency",
            consistency_group="g1",
            consistency_rule="same:01,12",
        )
    )
    assert q.correct_index is None
    with pytest.raises(ValidationError, match="consistency-graded parts have no correct_index"):
        Question(**question(grading="consistency", correct_index=1))
    with pytest.raises(ValidationError):
        Question(**question(grading="majority"))


@pytest.mark.parametrize("n_tags", [0, 3, 5])
def test_question_rejects_option_tags_of_wrong_length(n_tags: int) -> None:
    with pytest.raises(ValidationError, match=f"option_tags has {n_tags} entries for 4 options"):
        Question(**question(option_tags=["t"] * n_tags))


@pytest.mark.parametrize("grade", [-1, 15])
def test_question_rejects_grade_outside_levels(grade: int) -> None:
    with pytest.raises(ValidationError):
        Question(**question(grade=grade))


# --- Response, Adaptation, RunManifest -------------------------------------------------


def response(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": "r1",
        "model": "agent:oracle",
        "backend": "agent",
        "adaptation": {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"},
        "question_id": "steer.3.1.b/7/0",
        "element": "steer.3.1.b",
        "n_options": 4,
        "chosen_index": 0,
        "correct_index": 0,
    }
    row.update(overrides)
    return row


def test_response_into_the_arrow_schema() -> None:
    r = Response(**response(option_probs=[0.7, 0.1, 0.1, 0.1], grade=3))
    assert r.adaptation == Adaptation()
    table = pa.Table.from_pylist([r.model_dump()], schema=RESPONSE_SCHEMA)
    (row,) = table.to_pylist()
    # An adaptation without a persona leaves it out of its dump (files read as
    # before); the table holds it as null.
    assert row["adaptation"].pop("persona") is None
    assert [row] == [r.model_dump()]


def test_response_rejects_extra_keys() -> None:
    with pytest.raises(ValidationError, match="Extra inputs"):
        Response(**response(secret="x"))
    with pytest.raises(ValidationError, match="Extra inputs"):
        Response(**response(adaptation={"format": "mc", "temperature": 0.0}))


def test_response_ranges() -> None:
    assert Response(**response(chosen_index=NO_ANSWER)).chosen_index == -1
    # -2: answered with no listed option (a free-text number matching none).
    assert Response(**response(chosen_index=OFF_OPTIONS)).chosen_index == -2
    with pytest.raises(ValidationError):
        Response(**response(chosen_index=-3))
    with pytest.raises(ValidationError):
        Response(**response(n_options=0))


def test_adaptation() -> None:
    a = Adaptation(format="hidden", shots=3, cot="hidden", prob_mode="mixing")
    assert a.label() == "hidden;shots=3;cot=hidden;prob=mixing"
    with pytest.raises(ValidationError, match="Extra inputs"):
        Adaptation(format="mc", seed=1)  # type: ignore[call-arg]
    for bad in ({"shots": 6}, {"shots": -1}, {"format": "xml"}, {"prob_mode": "argmax"}):
        with pytest.raises(ValidationError):
            Adaptation(**bad)
    with pytest.raises(ValidationError):
        a.shots = 1  # frozen: adaptations are keys of results


def manifest(**overrides: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "run_id": "r1",
        "created_at": "2025-01-01T00:00:00Z",
        "steer_version": "0.1.0",
        "bank_path": "bank.parquet",
        "bank_sha256": "0" * 64,
        "n_questions": 10,
        "model": "agent:oracle",
        "backend": "agent",
    }
    row.update(overrides)
    return row


def test_run_manifest() -> None:
    m = RunManifest(**manifest())
    assert m.adaptation == Adaptation()
    assert RunManifest.model_validate_json(m.model_dump_json()) == m
    with pytest.raises(ValidationError, match="Extra inputs"):
        RunManifest(**manifest(api_key="sk-secret"))
    with pytest.raises(ValidationError, match="Extra inputs"):
        RunManifest(**manifest(adaptation={"format": "mc", "bogus": 1}))
    with pytest.raises(ValidationError):
        RunManifest(**manifest(n_questions=-1))


# --- conform --------------------------------------------------------------------------


def minimal_table(n: int = 3) -> pa.Table:
    """Only the required question columns."""
    return pa.table(
        {
            "question_id": [f"steer.1.1.a/{i}/0" for i in range(n)],
            "element": ["steer.1.1.a"] * n,
            "base_id": [str(i) for i in range(n)],
            "question_text": [f"What is {i} + 1?" for i in range(n)],
            "options": [[str(i + 1), str(i + 2)] for i in range(n)],
            "correct_index": pa.array([0] * n, pa.int64()),
        }
    )


def with_column(table: pa.Table, name: str, values: pa.Array) -> pa.Table:
    if name in table.column_names:
        return table.set_column(table.column_names.index(name), name, values)
    return table.append_column(name, values)


def test_conform_adds_optional_columns() -> None:
    out = conform(minimal_table(), QUESTION_COLUMNS, "bank.parquet")
    assert out.schema.equals(QUESTION_SCHEMA)
    row = out.to_pylist()[1]
    assert row["part"] == 0
    assert row["grading"] == "answer"
    for name in ("type", "domain", "perspective", "template_id", "source"):
        assert row[name] == "", name
    for name in ("consistency_group", "grade", "seed", "explanation", "option_tags", "tags"):
        assert row[name] is None, name
    assert row["correct_index"] == 0


def test_conform_casts_reorders_and_drops() -> None:
    table = minimal_table()
    table = with_column(table, "grade", pa.array(["3", "4", None]))
    table = with_column(table, "part", pa.array([0, 1, 2], pa.int64()))
    table = with_column(table, "seed", pa.array([1, 2, 3], pa.int8()))
    table = with_column(table, "answer_value", pa.array([1, 2, 3]))
    table = with_column(table, "unrelated", pa.array([1, 2, 3]))
    table = table.select(list(reversed(table.column_names)))
    out = conform(table, QUESTION_COLUMNS, "bank.parquet")
    assert out.schema.equals(QUESTION_SCHEMA)
    assert out["grade"].to_pylist() == [3, 4, None]
    assert out["part"].to_pylist() == [0, 1, 2]
    assert out["seed"].to_pylist() == [1, 2, 3]
    assert out["answer_value"].to_pylist() == [1.0, 2.0, 3.0]
    assert out["question_id"].to_pylist() == table["question_id"].to_pylist()


def test_conform_renames() -> None:
    table = minimal_table().rename_columns(
        ["id", "element", "base_id", "question_text", "options", "correct_index"]
    )
    out = conform(table, QUESTION_COLUMNS, "b.parquet", renames={"id": "question_id"})
    assert out["question_id"].to_pylist() == minimal_table()["question_id"].to_pylist()


def test_conform_response_columns() -> None:
    r = Response(**response())
    table = pa.Table.from_pylist([r.model_dump()]).drop_columns(["base_id", "part", "grade"])
    out = conform(table, RESPONSE_COLUMNS, "responses.parquet")
    assert out.schema.equals(RESPONSE_SCHEMA)
    (row,) = out.to_pylist()
    assert row["adaptation"].pop("persona") is None  # a struct written before personas
    assert [row] == [r.model_dump()]


@pytest.mark.parametrize("source", ["bank.parquet", "bank.jsonl"])
@pytest.mark.parametrize("missing", ["question_id", "element", "options", "correct_index"])
def test_conform_missing_required_column(source: str, missing: str) -> None:
    with pytest.raises(FileFormatError) as info:
        conform(minimal_table().drop_columns([missing]), QUESTION_COLUMNS, source)
    err = info.value
    assert isinstance(err, InputError)
    assert (err.source, err.field) == (source, missing)
    assert str(err) == f"{source}: field {missing!r}: missing required column"


@pytest.mark.parametrize(
    ("name", "values", "expected_type"),
    [
        ("grade", pa.array(["3", "hard", "4"]), "int32"),
        ("part", pa.array([0.0, 1.5, 2.0]), "int32"),
        ("correct_index", pa.array([0, 2**40, 1]), "int32"),
        ("question_text", pa.array([[1], [2], [3]]), "string"),
        ("options", pa.array(["a", "b", "c"]), "list<item: string>"),
    ],
)
def test_conform_uncastable_type(name: str, values: pa.Array, expected_type: str) -> None:
    table = with_column(minimal_table(), name, values)
    with pytest.raises(FileFormatError) as info:
        conform(table, QUESTION_COLUMNS, "bank.parquet")
    err = info.value
    assert (err.source, err.field) == ("bank.parquet", name)
    assert str(err).startswith(f"bank.parquet: field {name!r}: expected {expected_type}, got ")
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    ("source", "where"), [("bank.parquet", "bank.parquet: row 2"), ("q.jsonl", "q.jsonl:3")]
)
@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("question_text", pa.array(["a", "b", None])),
        ("options", pa.array([["a"], ["b"], None])),
        ("part", pa.array([0, 1, None])),
        ("grading", pa.array(["answer", "answer", None])),
    ],
)
def test_conform_null_in_non_nullable_column(
    source: str, where: str, name: str, values: pa.Array
) -> None:
    table = with_column(minimal_table(), name, values)
    with pytest.raises(FileFormatError) as info:
        conform(table, QUESTION_COLUMNS, source)
    assert str(info.value) == f"{where}: field {name!r}: value is missing (null)"


def test_conform_allows_nulls_where_nullable() -> None:
    table = with_column(minimal_table(), "correct_index", pa.array([None, 1, None], pa.int64()))
    out = conform(table, QUESTION_COLUMNS, "bank.parquet")
    assert out["correct_index"].to_pylist() == [None, 1, None]


def test_first_true() -> None:
    assert first_true(pa.array([False, None, True, True])) == 2
    assert first_true(pa.chunked_array([[False], [False, True]])) == 2
    assert first_true(pa.array([False, None])) == -1
    assert first_true(pa.array([], pa.bool_())) == -1
