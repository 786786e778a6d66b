"""Questions: one row per question part of a bank.

Column names follow the public steer-bench question parquet so its dataset
imports directly; `grade` replaces its free-form difficulty with STEER's grade
levels, and `payload` carries the structured problem (JSON) a solver can
re-check.
"""

from __future__ import annotations

from typing import Literal

import pyarrow as pa
from pydantic import BaseModel, ConfigDict, Field, model_validator

from steer.schema._columns import Column, schema_of

Grading = Literal["answer", "consistency"]
AnswerForm = Literal["number", "money", "percent"]

QUESTION_COLUMNS: tuple[Column, ...] = (
    Column("question_id", pa.string(), nullable=False, doc="'<element>/<base_id>/<part>'"),
    Column("element", pa.string(), nullable=False, doc="taxonomy id, e.g. steer.3.1.b"),
    Column("base_id", pa.string(), nullable=False, doc="question id shared by all parts"),
    Column("part", pa.int32(), required=False, default=0, nullable=False),
    Column("question_text", pa.string(), nullable=False),
    Column("options", pa.list_(pa.string()), nullable=False),
    Column("correct_index", pa.int32(), doc="null for consistency-graded parts"),
    Column("grading", pa.string(), required=False, default="answer", nullable=False),
    Column("consistency_group", pa.string(), required=False),
    Column(
        "consistency_rule",
        pa.string(),
        required=False,
        doc="e.g. 'same:01,12', or 'map:01=2|1+2': after option 0 of part 0, part 1 "
        "must answer 2; after option 1, 1 or 2",
    ),
    Column("type", pa.string(), required=False, default="", nullable=False),
    Column("domain", pa.string(), required=False, default="", nullable=False),
    Column("perspective", pa.string(), required=False, default="", nullable=False),
    Column("grade", pa.int32(), required=False, doc="STEER grade level 0-14"),
    Column("template_id", pa.string(), required=False, default="", nullable=False),
    Column("seed", pa.int64(), required=False),
    Column("source", pa.string(), required=False, default="", nullable=False),
    Column("explanation", pa.string(), required=False, doc="worked answer for few-shot use"),
    Column(
        "option_tags",
        pa.list_(pa.string()),
        required=False,
        doc="per option: 'key' or the error a distractor represents",
    ),
    Column("answer_value", pa.float64(), required=False, doc="numeric key for free-text"),
    Column("tags", pa.list_(pa.string()), required=False),
    Column("payload", pa.string(), required=False, doc="structured problem as JSON"),
    Column(
        "answer_tolerance",
        pa.float64(),
        required=False,
        doc="absolute tolerance of a free-text answer to a zero key (its template's)",
    ),
    Column(
        "answer_form",
        pa.string(),
        required=False,
        doc="what a free-text answer is read as: 'number', 'money' or 'percent' "
        "(answer_value then a fraction, compared in percent units)",
    ),
    Column(
        "option_order",
        pa.list_(pa.int32()),
        required=False,
        doc="per displayed option: its index before the seeded permutation "
        "(the payload's order); null when the options were not permuted",
    ),
)

QUESTION_SCHEMA: pa.Schema = schema_of(QUESTION_COLUMNS)


class Question(BaseModel):
    """One question (or one part of a multi-part question)."""

    model_config = ConfigDict(extra="forbid")

    question_id: str
    element: str
    base_id: str
    part: int = 0
    question_text: str
    options: list[str]
    correct_index: int | None
    grading: Grading = "answer"
    consistency_group: str | None = None
    consistency_rule: str | None = None
    type: str = ""
    domain: str = ""
    perspective: str = ""
    grade: int | None = Field(default=None, ge=0, le=14)
    template_id: str = ""
    seed: int | None = None
    source: str = ""
    explanation: str | None = None
    option_tags: list[str] | None = None
    answer_value: float | None = None
    tags: list[str] | None = None
    payload: str | None = None
    answer_tolerance: float | None = Field(default=None, gt=0)
    answer_form: AnswerForm | None = None
    option_order: list[int] | None = None

    @model_validator(mode="after")
    def _key_matches_grading(self) -> Question:
        if self.grading == "answer":
            if self.correct_index is None:
                raise ValueError("correct_index is required when grading is 'answer'")
            if not 0 <= self.correct_index < len(self.options):
                raise ValueError(
                    f"correct_index {self.correct_index} is outside the {len(self.options)} options"
                )
        elif self.correct_index is not None:
            raise ValueError("consistency-graded parts have no correct_index")
        if self.option_tags is not None and len(self.option_tags) != len(self.options):
            raise ValueError(
                f"option_tags has {len(self.option_tags)} entries for {len(self.options)} options"
            )
        if self.option_order is not None and sorted(self.option_order) != list(
            range(len(self.options))
        ):
            raise ValueError(
                f"option_order {self.option_order} is not a permutation of the "
                f"{len(self.options)} option positions"
            )
        return self

    @staticmethod
    def make_id(element: str, base_id: str, part: int = 0) -> str:
        return f"{element}/{base_id}/{part}"
