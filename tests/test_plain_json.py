"""steer-core writes a generated question's payload with the bytes Python's
json writes, and only for trees that read back equal (see
`_generate._resolved_payload`, which then skips decoding)."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steer import _native

I64 = 2**63


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def plain(value: Any, depth: int = 0) -> bool:
    """Reference: a tree json.loads gives back equal (the types steer-core takes)."""
    if depth > 64:
        return False
    if value is None or type(value) is bool:
        return True
    if type(value) is int:
        return -I64 <= value < I64
    if isinstance(value, float):
        return math.isfinite(value)
    if type(value) is str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate
            return False
        return True
    if type(value) is list:
        return all(plain(v, depth + 1) for v in value)
    if type(value) is dict:
        return all(type(k) is str and plain(k) and plain(v, depth + 1) for k, v in value.items())
    return False


scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()
    | st.text(st.characters(codec=None, exclude_categories=()), max_size=6)
)
trees = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=3) | st.integers(0, 3), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=500)
@given(trees)
def test_plain_trees_are_written_as_python_writes_them(value: Any) -> None:
    written = _native.plain_json(value)
    assert (written is not None) == plain(value)
    if written is not None:
        assert written == dumps(value)
        assert json.loads(written) == value


@settings(max_examples=2000)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_every_finite_float_reads_as_its_repr(x: float) -> None:
    assert _native.plain_json(x) == repr(x)
    assert _native.plain_json([x, -x]) == dumps([x, -x])


def test_float_subclasses_count_as_floats_and_everything_else_does_not() -> None:
    assert _native.plain_json({"x": np.float64(0.1)}) == '{"x":0.1}'
    for value in [np.int64(3), (1,), {1: 2}, {"a": float("nan")}, 2**64, "\ud800", {"s": {1}}]:
        assert _native.plain_json(value) is None
    deep: Any = []
    for _ in range(100):
        deep = [deep]
    assert _native.plain_json(deep) is None
