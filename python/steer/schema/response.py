"""Responses: one row per (run, question part) with what the model answered."""

from __future__ import annotations

import re
from typing import Any, Literal

import pyarrow as pa
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
)

from steer.schema._columns import Column, schema_of

Format = Literal["mc", "shown", "hidden", "together", "separate", "free", "none"]
ProbMode = Literal["conditioning", "mixing"]

# `chosen_index` sentinels. NO_ANSWER: no usable answer (no letter, no
# number). OFF_OPTIONS: answered, but with no listed option (a free-text number
# that matches neither the key nor a distractor): scored as answered and wrong,
# with error type `off_options`, never counted in the no-answer rate.
NO_ANSWER = -1
OFF_OPTIONS = -2
# The error type of an off-options answer (`error_type` column).
OFF_OPTIONS_TAG = "off_options"


#: The most members a collective may have (`collective=majority:N`).
MAX_MEMBERS = 100
MAX_DEBATE_ROUNDS = 10
_COLLECTIVE = re.compile(r"^(?P<kind>[a-z]+):(?P<args>[0-9, ]+)$")
#: A persona id (`steer run --collective … --personas FILE`): a slug, so that
#: it reads unambiguously inside an adaptation label.
PERSONA_ID = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")


def parse_collective(spec: str) -> tuple[str, int, int]:
    """(kind, members, rounds) from "majority:N" (rounds 0) or "debate:N,R";
    ValueError naming the problem."""
    match = _COLLECTIVE.match(spec.strip())
    if match is None:
        raise ValueError(f"{spec!r} is not a collective (majority:N or debate:N,R)")
    kind, args = match.group("kind"), [a.strip() for a in match.group("args").split(",")]
    if kind not in ("majority", "debate"):
        raise ValueError(f"unknown collective {kind!r} (majority:N or debate:N,R)")
    want = 1 if kind == "majority" else 2
    if len(args) != want or not all(a.isdigit() for a in args):
        shape = "majority:N" if kind == "majority" else "debate:N,R"
        raise ValueError(f"{spec!r}: write {shape} with whole numbers")
    n, rounds = int(args[0]), int(args[1]) if kind == "debate" else 0
    if not 2 <= n <= MAX_MEMBERS:
        raise ValueError(f"{kind} needs 2 to {MAX_MEMBERS} members, got {n}")
    if kind == "debate" and not 1 <= rounds <= MAX_DEBATE_ROUNDS:
        raise ValueError(f"debate needs 1 to {MAX_DEBATE_ROUNDS} rounds, got {rounds}")
    return kind, n, rounds


def check_persona_id(value: str) -> str:
    """`value` if it is a persona id (a slug), else ValueError naming it."""
    if not PERSONA_ID.match(value):
        raise ValueError(f"persona {value!r}: lower-case letters, digits and '-' (at most 64)")
    return value


class Adaptation(BaseModel):
    """How questions were put to the model (STEER / STEER-ME adaptations)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Format = "mc"
    shots: int = Field(default=0, ge=0, le=5)
    cot: Literal["none", "shown", "hidden"] = "none"
    prob_mode: ProbMode = "conditioning"
    # Option order: None (the bank's), "shuffle:K" (a run: every question asked
    # under K seeded permutations of its options) or "shuffle:K/i" (a response:
    # asked under permutation i of K). See steer.adapt._order.
    order: str | None = None
    # A collective's answer (steer run --collective): "majority:N", the
    # plurality of N members' answers. None for every individual answer.
    collective: str | None = None

    # Who answers (a collective's member under `--personas`): the persona's id.
    # None for every answer without a persona; then it is left out of the
    # serialised adaptation, so those rows and manifests read as before.
    persona: str | None = None
    # The persona's text, carried beside the id to the conversation's opening
    # message (steer.adapt.opening). Not part of the adaptation's identity or
    # of any file: the run's manifest records its sha256 (`generation`).
    _persona_text: str | None = PrivateAttr(default=None)

    @field_validator("persona")
    @classmethod
    def _persona_id(cls, value: str | None) -> str | None:
        return None if value is None else check_persona_id(value)

    @model_serializer(mode="wrap")
    def _without_unset_persona(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if self.persona is None:
            data.pop("persona", None)
        return data

    def __eq__(self, other: object) -> bool:
        # The fields only: the persona's text rides along, the id is the key.
        if isinstance(other, Adaptation):
            return self.__dict__ == other.__dict__
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self.__dict__.values()))

    def with_persona(self, persona_id: str | None, text: str | None = None) -> Adaptation:
        """This adaptation answered as persona `persona_id` whose description
        is `text` (None, None: as nobody in particular)."""
        if (persona_id is None) != (text is None):
            raise ValueError("a persona needs both its id and its text")
        if text is not None and not text.strip():
            raise ValueError(f"persona {persona_id!r}: the text is empty")
        if persona_id is not None:
            check_persona_id(persona_id)
        copy = self.model_copy(update={"persona": persona_id})
        copy._persona_text = text
        return copy

    @property
    def persona_text(self) -> str | None:
        """The text of the persona (None without one, or when this adaptation
        was read back from a file: only the id is recorded)."""
        return self._persona_text

    @field_validator("collective")
    @classmethod
    def _collective_spec(cls, value: str | None) -> str | None:
        if value is None:
            return None
        parse_collective(value)  # raises ValueError naming the problem
        return value

    @field_validator("order")
    @classmethod
    def _order_spec(cls, value: str | None) -> str | None:
        if value is None:
            return None
        from steer.adapt._order import parse_order

        parse_order(value)  # raises ValueError naming the problem
        return value

    def label(self) -> str:
        base = f"{self.format};shots={self.shots};cot={self.cot};prob={self.prob_mode}"
        if self.order:
            base += f";order={self.order}"
        if self.collective:
            base += f";collective={self.collective}"
        return f"{base};persona={self.persona}" if self.persona else base


ADAPTATION_TYPE = pa.struct(
    [
        pa.field("format", pa.string()),
        pa.field("shots", pa.int8()),
        pa.field("cot", pa.string()),
        pa.field("prob_mode", pa.string()),
        pa.field("order", pa.string()),
        pa.field("collective", pa.string()),
        pa.field("persona", pa.string()),
    ]
)

RESPONSE_COLUMNS: tuple[Column, ...] = (
    Column("run_id", pa.string(), nullable=False),
    Column("model", pa.string(), nullable=False),
    Column("backend", pa.string(), nullable=False),
    Column("adaptation", ADAPTATION_TYPE, nullable=False),
    Column("question_id", pa.string(), nullable=False),
    Column("base_id", pa.string(), required=False, default="", nullable=False),
    Column("part", pa.int32(), required=False, default=0, nullable=False),
    Column("element", pa.string(), nullable=False),
    Column("domain", pa.string(), required=False, default="", nullable=False),
    Column("type", pa.string(), required=False, default="", nullable=False),
    Column("perspective", pa.string(), required=False, default="", nullable=False),
    Column("grade", pa.int32(), required=False),
    Column("n_options", pa.int32(), nullable=False),
    Column(
        "chosen_index",
        pa.int32(),
        nullable=False,
        doc="-1 = no answer; -2 = answered with no listed option (wrong)",
    ),
    Column("correct_index", pa.int32(), doc="null for consistency-graded parts"),
    Column(
        "consistency_rule",
        pa.string(),
        required=False,
        doc="rule of the question's consistency group, e.g. 'same:01,12'",
    ),
    Column("option_probs", pa.list_(pa.float64()), required=False),
    Column("response_text", pa.string(), required=False),
    Column("explanation", pa.string(), required=False),
    Column("tokens_in", pa.int64(), required=False),
    Column("tokens_out", pa.int64(), required=False),
    Column("cost_usd", pa.float64(), required=False),
    Column("latency_s", pa.float64(), required=False),
    Column("error", pa.string(), required=False),
    # Identity of a response beyond (model, adaptation, question): the bank it
    # answered and which sample of the question it is; `recorded_at` orders
    # duplicates for `--dedupe latest`.
    Column("bank_sha256", pa.string(), required=False, doc="fingerprint of the bank asked"),
    Column("sample", pa.int32(), required=False, default=0, nullable=False),
    Column("recorded_at", pa.float64(), required=False, doc="Unix time the answer was recorded"),
    # Free-text answers: the number read from the reply (in the question's
    # answer form; null: none read, or not a free-text answer) and, for a
    # wrong answer, its error type: the chosen option's tag (a digit slip
    # `x+wrong_tens_digit` under `x`), `off_options` for -2, `untagged` when
    # the option has no tag; null for right answers and no-answers.
    Column("answer_read", pa.float64(), required=False, doc="number read from a free-text reply"),
    Column("error_type", pa.string(), required=False, doc="error type of a wrong answer"),
)

RESPONSE_SCHEMA: pa.Schema = schema_of(RESPONSE_COLUMNS)


class Response(BaseModel):
    """One answered (or failed) question part."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    model: str
    backend: str
    adaptation: Adaptation
    question_id: str
    base_id: str = ""
    part: int = 0
    element: str
    domain: str = ""
    type: str = ""
    perspective: str = ""
    grade: int | None = None
    n_options: int = Field(ge=1)
    chosen_index: int = Field(ge=OFF_OPTIONS)
    correct_index: int | None
    consistency_rule: str | None = None
    option_probs: list[float] | None = None
    response_text: str | None = None
    explanation: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    cost_usd: float | None = None
    latency_s: float | None = None
    error: str | None = None
    bank_sha256: str | None = None
    sample: int = Field(default=0, ge=0)
    recorded_at: float | None = None
    answer_read: float | None = None
    error_type: str | None = None
