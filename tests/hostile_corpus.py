"""Hostile input files for the hostile tests (issue 19 §3), written at test time.

Each builder takes a folder and a small valid bank / run to start from and
returns the hostile file it wrote. The 10,000-deep files are generated here
rather than checked in; small hand-written ones live in tests/hostile/.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

DEEP = 10_000
HOSTILE_DIR = Path(__file__).parent / "hostile"


def deep_json(n: int = DEEP) -> str:
    return "[" * n + "]" * n


def deep_toml_array(n: int = DEEP) -> str:
    return "[" * n + "1" + "]" * n


def deep_toml_table(n: int = DEEP) -> str:
    return "{a = " * n + "1" + "}" * n


def rows_of(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path).to_pylist()


def write_jsonl(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def _line(row: dict[str, Any]) -> bytes:
    return json.dumps(row).encode()


def _with_deep_field(source: Path, row: int, name: str, path: Path) -> Path:
    """`source` as JSON lines, row `row` with an extra field `name` nested DEEP levels."""
    lines = [_line(r) for r in rows_of(source)]
    lines[row] = lines[row][:-1] + f', "{name}": {deep_json()}}}'.encode()
    return write_jsonl(path, lines)


# --- question banks -------------------------------------------------------------------------


def bank_deep_field(folder: Path, bank: Path) -> Path:
    return _with_deep_field(bank, 1, "options_extra", folder / "bank_deep.jsonl")


def bank_deep_object(folder: Path, bank: Path) -> Path:
    rows = rows_of(bank)
    deep = '{"a": ' * DEEP + "1" + "}" * DEEP
    lines = [_line(r) for r in rows[:2]] + [b'{"question_text": ' + deep.encode() + b"}"]
    return write_jsonl(folder / "bank_deep_object.jsonl", lines)


def bank_bad_utf8_jsonl(folder: Path, bank: Path) -> Path:
    rows = rows_of(bank)
    lines = [_line(r) for r in rows]
    lines[2] = lines[2].replace(b'"question_text": "', b'"question_text": "\xff\xfe', 1)
    return write_jsonl(folder / "bank_bad_utf8.jsonl", lines)


def _with_bad_string(table: pa.Table, column: str, row: int) -> pa.Table:
    values = [v.encode() for v in table[column].to_pylist()]
    values[row] += b"\xc3"  # a truncated two-byte character
    bad = pa.array(values, pa.binary()).view(pa.string())
    return table.set_column(table.column_names.index(column), column, bad)


def bank_bad_utf8_parquet(folder: Path, bank: Path) -> Path:
    path = folder / "bank_bad_utf8.parquet"
    pq.write_table(_with_bad_string(pq.read_table(bank), "question_text", 4), path)
    return path


def bank_bad_utf8_options(folder: Path, bank: Path) -> Path:
    table = pq.read_table(bank)
    options = [[o.encode() for o in row] for row in table["options"].to_pylist()]
    options[3][1] += b"\xff"
    binary = pa.array(options, pa.list_(pa.binary()))
    strings = pa.ListArray.from_arrays(binary.offsets, binary.values.view(pa.string()))
    path = folder / "bank_bad_utf8_options.parquet"
    pq.write_table(table.set_column(table.column_names.index("options"), "options", strings), path)
    return path


def bank_nan_answer_value(folder: Path, bank: Path) -> Path:
    table = pq.read_table(bank)
    values = [float("nan")] + [None] * (table.num_rows - 1)
    column = pa.array(values, pa.float64())
    path = folder / "bank_nan.parquet"
    index = table.column_names.index("answer_value")
    pq.write_table(table.set_column(index, "answer_value", column), path)
    return path


# --- response tables ------------------------------------------------------------------------


def responses_deep_jsonl(folder: Path, responses: Path) -> Path:
    return _with_deep_field(responses, 3, "extra", folder / "responses_deep.jsonl")


def responses_bad_utf8_parquet(folder: Path, responses: Path) -> Path:
    path = folder / "responses_bad_utf8.parquet"
    pq.write_table(_with_bad_string(pq.read_table(responses), "model", 2), path)
    return path


def _with_probs(table: pa.Table, row: int, bad: float) -> pa.Table:
    n = table["n_options"].to_pylist()
    probs = [[1.0 / k] * k for k in n]
    probs[row] = [bad] + [0.0] * (n[row] - 1)
    column = pa.array(probs, pa.list_(pa.float64()))
    return table.set_column(table.column_names.index("option_probs"), "option_probs", column)


def responses_nan_probs(folder: Path, responses: Path) -> Path:
    path = folder / "responses_nan.parquet"
    pq.write_table(_with_probs(pq.read_table(responses), 2, float("nan")), path)
    return path


def responses_inf_probs(folder: Path, responses: Path) -> Path:
    path = folder / "responses_inf.parquet"
    pq.write_table(_with_probs(pq.read_table(responses), 1, float("inf")), path)
    return path


def responses_bad_index(folder: Path, responses: Path) -> Path:
    table = pq.read_table(responses)
    chosen = table["chosen_index"].to_pylist()
    chosen[3] = 77
    column = pa.array(chosen, pa.int32())
    path = folder / "responses_bad_index.parquet"
    index = table.column_names.index("chosen_index")
    pq.write_table(table.set_column(index, "chosen_index", column), path)
    return path


# --- rubrics and templates ------------------------------------------------------------------

RUBRIC_HEAD = 'name = "hostile"\n[[section]]\nname = "all"\nselect = ["*"]\n'


def rubric_text(folder: Path, name: str, body: str | bytes) -> Path:
    path = folder / name
    data = body if isinstance(body, bytes) else body.encode()
    path.write_bytes(data)
    return path


def rubric_deep_array(folder: Path) -> Path:
    return rubric_text(folder, "rubric_deep.toml", RUBRIC_HEAD + f"x = {deep_toml_array()}\n")


def rubric_deep_table(folder: Path) -> Path:
    return rubric_text(folder, "rubric_deep_table.toml", f"x = {deep_toml_table()}\n" + RUBRIC_HEAD)


def rubric_bad_utf8(folder: Path) -> Path:
    body = b'name = "h\xff"\n[[section]]\nname = "all"\nselect = ["*"]\n'
    return rubric_text(folder, "rubric_bad_utf8.toml", body)


TEMPLATE = """element = "steer.1.1.a"

[[template]]
id = "hostile.x"
domain = "d"
structure = "scenario"
solver = "formula"
vars = {{ x = {{ low = {low}, high = 9 }} }}
derive = {{ y = "{expr}" }}
answer = "y"
wrong = {{ other = "y + 1" }}
phrasings = ["What is {{x}}?"]

[template.grade.1]
size = 1
options = 4
"""


def template(folder: Path, name: str, expr: str = "x + 1", low: str = "1") -> Path:
    path = folder / name
    path.write_text(TEMPLATE.format(expr=expr, low=low), encoding="utf-8")
    return path


TEMPLATE_CASES: dict[str, tuple[str, str]] = {
    "power_overflow": ("(10^64)^64", "1"),
    "round_negative_digits": ("round(x, -400)", "1"),
    "round_positive_digits": ("round(x, 400)", "1"),
    "deep_parentheses": ("(" * 5000 + "x" + ")" * 5000, "1"),
    "long_chain": ("+".join(["x"] * 3000), "1"),
    "huge_literal": ("1e999 * x", "1"),
    "nan_bound": ("x", "nan"),
    "inf_bound": ("x", "-inf"),
    "huge_bound": ("x", "-1e300"),
}

BUILDERS: dict[str, Callable[[Path, Path], Path]] = {
    "bank_deep_field": bank_deep_field,
    "bank_deep_object": bank_deep_object,
    "bank_bad_utf8_jsonl": bank_bad_utf8_jsonl,
    "bank_bad_utf8_parquet": bank_bad_utf8_parquet,
    "bank_bad_utf8_options": bank_bad_utf8_options,
    "bank_nan_answer_value": bank_nan_answer_value,
}
RESPONSE_BUILDERS: dict[str, Callable[[Path, Path], Path]] = {
    "responses_deep_jsonl": responses_deep_jsonl,
    "responses_bad_utf8_parquet": responses_bad_utf8_parquet,
    "responses_nan_probs": responses_nan_probs,
    "responses_inf_probs": responses_inf_probs,
    "responses_bad_index": responses_bad_index,
}
