"""steer's data model: pydantic records and the matching Arrow schemas."""

from steer.schema._columns import Column, conform, first_true, schema_of
from steer.schema.bank import BANK_METADATA_KEY, BankMetadata
from steer.schema.manifest import RunManifest
from steer.schema.question import QUESTION_COLUMNS, QUESTION_SCHEMA, Question
from steer.schema.response import (
    ADAPTATION_TYPE,
    NO_ANSWER,
    OFF_OPTIONS,
    OFF_OPTIONS_TAG,
    RESPONSE_COLUMNS,
    RESPONSE_SCHEMA,
    Adaptation,
    Response,
)

__all__ = [
    "ADAPTATION_TYPE",
    "BANK_METADATA_KEY",
    "NO_ANSWER",
    "OFF_OPTIONS",
    "OFF_OPTIONS_TAG",
    "QUESTION_COLUMNS",
    "QUESTION_SCHEMA",
    "RESPONSE_COLUMNS",
    "RESPONSE_SCHEMA",
    "Adaptation",
    "BankMetadata",
    "Column",
    "Question",
    "Response",
    "RunManifest",
    "conform",
    "first_true",
    "schema_of",
]
