"""Question banks: reading, writing, importing and summarising them."""

from steer.bank._bank import (
    file_sha256,
    questions_to_table,
    read_bank,
    read_bank_metadata,
    write_bank,
)
from steer.bank._import import import_steer_bench, resolve_element
from steer.bank._info import BankInfo, bank_info
from steer.bank._read import read_table
from steer.bank._validate import validate_questions

__all__ = [
    "BankInfo",
    "bank_info",
    "file_sha256",
    "import_steer_bench",
    "questions_to_table",
    "read_bank",
    "read_bank_metadata",
    "read_table",
    "resolve_element",
    "validate_questions",
    "write_bank",
]
