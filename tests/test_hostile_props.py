"""Property and fuzz tests over steer's loaders (issue 19 §3).

Whatever bytes a user hands steer, a loader either returns its value or raises
steer's own error type (`SteerError`); any other exception, a crash or a hang
is a bug. The byte scanner that guards the parsers is checked against a plain
Python reference.
"""

from __future__ import annotations

import contextlib
import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from steer._native import scan_json
from steer._scan import MAX_DEPTH
from steer.backends._pricing import load_pricing
from steer.bank import read_bank
from steer.errors import SteerError
from steer.rubric import check_rubric
from steer.score import score
from steer.templates import load_template_file

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def reference_scan(data: bytes, max_depth: int) -> tuple[str, int, int] | None:
    """Plain reference for `scan_json`: the first `[`/`{` deeper than
    `max_depth` outside strings (a raw newline ends a string), else the first
    invalid UTF-8 byte, as (kind, line, column), 1-based."""
    try:
        data.decode("utf-8")
        end = len(data)
    except UnicodeDecodeError as exc:
        end = exc.start
    depth, line, start, in_string, escaped = 0, 1, 0, False, False
    for i in range(end):
        b = data[i : i + 1]
        if b == b"\n":
            line, start, in_string, escaped = line + 1, i + 1, False, False
        elif in_string:
            if escaped:
                escaped = False
            elif b == b"\\":
                escaped = True
            elif b == b'"':
                in_string = False
        elif b == b'"':
            in_string = True
        elif b in (b"[", b"{"):
            depth += 1
            if depth > max_depth:
                return ("depth", line, i - start + 1)
        elif b in (b"]", b"}"):
            depth = max(depth - 1, 0)
    if end == len(data):
        return None
    line = data.count(b"\n", 0, end) + 1
    return ("utf8", line, end - (data.rfind(b"\n", 0, end) + 1) + 1)


_JSONISH = st.text(alphabet='[]{}"\\a:,\n é', max_size=300)


@settings(max_examples=400, deadline=None)
@given(_JSONISH, st.integers(0, 10))
def test_scan_matches_reference_on_text(text: str, limit: int) -> None:
    data = text.encode()
    assert scan_json(data, limit) == reference_scan(data, limit)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), st.integers(0, 10))
def test_scan_matches_reference_on_bytes(data: bytes, limit: int) -> None:
    assert scan_json(data, limit) == reference_scan(data, limit)


def test_scan_finds_the_10000_deep_line() -> None:
    data = b'{"a": 1}\n{"b": "[[[["}\n{"c": ' + b"[" * 10_000 + b"]" * 10_000 + b"}\n"
    assert scan_json(data, MAX_DEPTH) == ("depth", 3, 6 + MAX_DEPTH)
    assert scan_json(data, MAX_DEPTH) == reference_scan(data, MAX_DEPTH)


# --- loaders: a value or a SteerError, never anything else -------------------------------------

_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_BANK_KEYS = ["question_id", "element", "options", "correct_index", "question_text", "grade"]
_ROW = st.dictionaries(st.sampled_from(_BANK_KEYS) | st.text(max_size=5), _JSON, max_size=6)


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _jsonl_lines() -> st.SearchStrategy[bytes]:
    line = st.one_of(
        _ROW.map(lambda r: json.dumps(r).encode()),
        st.integers(60, 3000).map(lambda n: ('{"options": ' + _deep(n) + "}").encode()),
        st.binary(max_size=40),
    )
    return st.lists(line, min_size=1, max_size=5).map(lambda lines: b"\n".join(lines) + b"\n")


def outcome(load: Callable[[Path], Any], data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"input{suffix}"
        path.write_bytes(data)
        with contextlib.suppress(SteerError):
            load(path)


@FUZZ
@given(_jsonl_lines())
def test_bank_loader_on_hostile_jsonl(data: bytes) -> None:
    outcome(read_bank, data, ".jsonl")


@FUZZ
@given(_jsonl_lines())
def test_response_loader_on_hostile_jsonl(data: bytes) -> None:
    outcome(lambda p: score(p, by=["model"]), data, ".jsonl")


@FUZZ
@given(st.binary(max_size=200))
def test_parquet_loaders_on_garbage(data: bytes) -> None:
    outcome(read_bank, b"PAR1" + data + b"PAR1", ".parquet")
    outcome(lambda p: score(p, by=["model"]), b"PAR1" + data, ".parquet")


_TOML_PIECES = st.sampled_from(
    ['name = "x"\n', "[[section]]\n", 'select = ["*"]\n', "weight = nan\n", "bootstrap = 9e9\n",
     "ci = inf\n", 'extends = "/dev/null"\n', "x = [[[[[[\n", "]]]\n", "{a = {b = 1}}\n",
     '"\\u00ff"\n', "\n", "# [[[[[[[[\n", "= = =\n", "[scale]\nA = -1e308\n", "[rules]\n"]
)  # fmt: skip
_TOML = st.one_of(
    st.lists(_TOML_PIECES, max_size=12).map(lambda parts: "".join(parts).encode()),
    st.integers(60, 3000).map(lambda n: ("x = " + "[" * n + "1" + "]" * n + "\n").encode()),
    st.binary(max_size=80),
)


@FUZZ
@given(_TOML)
def test_rubric_loader_on_hostile_toml(data: bytes) -> None:
    outcome(check_rubric, data, ".toml")


@FUZZ
@given(_TOML)
def test_template_loader_on_hostile_toml(data: bytes) -> None:
    outcome(load_template_file, data, ".toml")


@FUZZ
@given(st.one_of(_TOML, _jsonl_lines()), st.sampled_from([".toml", ".json"]))
def test_pricing_loader_on_hostile_files(data: bytes, suffix: str) -> None:
    outcome(load_pricing, data, suffix)
