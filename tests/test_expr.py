"""The template expression language: a hand-written parser, never `eval`."""

from __future__ import annotations

import contextlib
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.templates._expr import ExprError, compile_expr


def value(text: str, **env: float) -> float:
    return compile_expr(text).evaluate(env)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("2 ^ 3 ^ 2", 512),  # right-associative
        ("-2 ^ 2", -4),  # unary minus binds looser than ^
        ("2 ^ -1", 0.5),
        ("10 / 4", 2.5),
        ("7 × 6 ÷ 3", 14),
        ("--3", 3),
        ("min(4, 2, 8) + max(1, 5) + abs(-3)", 10),
        ("round(2.5)", 3),  # half away from zero, as by hand
        ("round(-2.5)", -3),
        ("round(123456, -3)", 123000),
        ("round(0.125, 2)", 0.13),
        ("floor(2.7) + ceil(2.1)", 5),
        ("1 < 2 and 2 <= 2", 1),
        ("1 > 2 or 3 >= 4", 0),
        ("not 0", 1),
        ("0.1 + 0.2 == 0.3", 1),
        ("(1 > 0) != (2 > 3)", 1),
        (".5 + 1e2", 100.5),
    ],
)
def test_values(text: str, expected: float) -> None:
    assert value(text) == pytest.approx(expected)


def test_variables_and_names() -> None:
    expr = compile_expr("round(revenue * 1.2, -3) > cost")
    assert expr.names == {"revenue", "cost"}
    assert expr.evaluate({"revenue": 10500, "cost": 12000}) == 1  # 12,600 → 13,000
    assert expr.evaluate({"revenue": 9000, "cost": 12000}) == 0


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "empty expression"),
        ("1 +", "unexpected end"),
        ("(1 + 2", "unexpected end"),
        ("1 + 2)", "unexpected ')'"),
        ("2 3", "unexpected '3'"),
        ("a.b", "unexpected character '.'"),
        ("__import__('os')", "unexpected character"),
        ("open(x)", "unknown function 'open'"),
        ("min", "needs parentheses"),
        ("abs(1, 2)", "takes 1-1 arguments"),
        ("1 < 2 < 3", "chained comparisons"),
        ("x ** 2", "unexpected '*'"),
        ("and 1", "needs something on its left"),
        ("a[0]", "unexpected character '['"),
        ("x = 1", "unexpected character '='"),
    ],
)
def test_syntax_errors(text: str, problem: str) -> None:
    with pytest.raises(ExprError, match=re.escape(problem)):
        compile_expr(text)


@pytest.mark.parametrize(
    ("text", "env", "problem"),
    [
        ("x + 1", {}, "unknown variable 'x'"),
        ("1 / (a - a)", {"a": 2}, "division by zero"),
        ("(-8) ^ 0.5", {}, "cannot raise"),
        ("10 ^ 400", {}, "cannot raise"),
    ],
)
def test_evaluation_errors(text: str, env: dict[str, float], problem: str) -> None:
    with pytest.raises(ExprError, match=problem):
        compile_expr(text).evaluate(env)


# --- property test against a reference built alongside the text -------------------------

_LEAF = st.integers(-20, 20).map(lambda n: (str(n) if n >= 0 else f"({n})", float(n)))


def _combine(
    children: st.SearchStrategy[tuple[str, float]],
) -> st.SearchStrategy[tuple[str, float]]:
    def build(op: str, a: tuple[str, float], b: tuple[str, float]) -> tuple[str, float]:
        if op == "/" and b[1] == 0:
            return a
        if op == "min":
            return f"min({a[0]}, {b[0]})", min(a[1], b[1])
        if op == "max":
            return f"max({a[0]}, {b[0]})", max(a[1], b[1])
        result = {"+": a[1] + b[1], "-": a[1] - b[1], "*": a[1] * b[1], "/": a[1] / (b[1] or 1)}
        return f"({a[0]} {op} {b[0]})", result[op]

    return st.builds(build, st.sampled_from(["+", "-", "*", "/", "min", "max"]), children, children)


@settings(max_examples=200, deadline=None)
@given(st.recursive(_LEAF, _combine, max_leaves=12))
def test_matches_reference_arithmetic(case: tuple[str, float]) -> None:
    text, expected = case
    got = value(text)
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), text


# --- hostile and degenerate expressions (issue 19 §3) ------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("(" * 5000 + "1" + ")" * 5000, "nested more than 32 levels"),
        ("-" * 3000 + "1", "nested more than 32 levels"),
        ("not " * 3000 + "1", "nested more than 32 levels"),
        ("2^" * 3000 + "1", "nested more than 32 levels"),
        ("min(" * 100 + "1" + ")" * 100, "nested more than 32 levels"),
        ("+".join(["1"] * 3000), "operations deep"),
        ("1e999 + 1", "number '1e999' is too large"),
    ],
)
def test_hostile_syntax_is_an_expr_error(text: str, problem: str) -> None:
    with pytest.raises(ExprError, match=re.escape(problem)):
        compile_expr(text)


@pytest.mark.parametrize(
    ("text", "env", "problem"),
    [
        ("(10^64)^64", {}, "is too large"),
        ("x ^ 64", {"x": 1e300}, "is too large"),
        ("round(x, -400)", {"x": 3.0}, "round() takes -15 to 15 digits"),
        ("round(x, 400)", {"x": 3.0}, "round() takes -15 to 15 digits"),
        ("round(x, 15)", {"x": 1e300}, "is not a finite number"),
        ("1e300 * 1e300", {}, "is not a finite number"),
        ("1e308 + 1e308", {}, "is not a finite number"),
        ("-1e308 - 1e308", {}, "is not a finite number"),
        ("1e300 / 1e-300", {}, "is not a finite number"),
        ("floor(1e300 * 1e10 * 1e10)", {}, "is not a finite number"),
        ("(1e300 * 1e300) < 5", {}, "is not a finite number"),  # no silent inf in a comparison
    ],
)
def test_overflow_is_an_expr_error(text: str, env: dict[str, float], problem: str) -> None:
    with pytest.raises(ExprError, match=re.escape(problem)):
        compile_expr(text).evaluate(env)


def test_nesting_within_the_limit_still_works() -> None:
    assert value("(" * 30 + "1" + ")" * 30) == 1
    assert value("+".join(["1"] * 60)) == 60
    assert value("round(123.456, 2) + round(1234, -2)") == pytest.approx(1323.46)


_WORDS = ["x", "y", "min", "max", "round", "floor", "ceil", "abs", "and", "or", "not"]
_EXPR_ALPHABET = st.sampled_from([*"0123456789.eE+-*/^()<>=!, ×÷", *_WORDS, "1e308", "-400"])


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_EXPR_ALPHABET, max_size=40).map("".join),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
)
def test_any_text_gives_a_value_or_an_expr_error(text: str, x: float, y: float) -> None:
    """Fuzz: whatever the text, the parser and evaluator answer with a finite
    number or steer's own ExprError, never another exception."""
    try:
        expr = compile_expr(text)
    except ExprError:
        return
    try:
        result = expr.evaluate({"x": x, "y": y})
    except ExprError:
        return
    assert math.isfinite(result)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_unicode_gives_a_value_or_an_expr_error(text: str) -> None:
    with contextlib.suppress(ExprError):
        compile_expr(text).evaluate({})


# --- the compiled closures against a plain tree walk ------------------------------------


def _walk(node: tuple, env: dict[str, float]) -> float:
    """The reference: evaluate a parse tree by dispatching on each node's tag,
    with the language's own operations, left operand first."""
    from steer.templates._expr import _BINARY, FUNCTIONS

    tag = node[0]
    if tag == "num":
        return node[1]
    if tag == "var":
        if node[1] not in env:
            raise ExprError(f"unknown variable {node[1]!r}")
        return env[node[1]]
    if tag == "neg":
        return -_walk(node[1], env)
    if tag == "not":
        return 0.0 if _walk(node[1], env) else 1.0
    if tag == "call":
        return float(FUNCTIONS[node[1]][2](*(_walk(a, env) for a in node[2:])))
    op = node[1]
    if op == "and":
        return 1.0 if _walk(node[2], env) and _walk(node[3], env) else 0.0
    if op == "or":
        return 1.0 if _walk(node[2], env) or _walk(node[3], env) else 0.0
    left = _walk(node[2], env)
    return _BINARY[op](left, _walk(node[3], env))


_OPERAND = st.sampled_from(["x", "y", "z", "0", "2", "0.5", "7"])  # z is never bound
_OPS = ["+", "-", "*", "/", "^", "<", "<=", "==", "!=", "and", "or"]


def _combine_text(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda o, a, b: f"({a} {o} {b})", st.sampled_from(_OPS), children, children),
        st.builds(lambda a, b: f"max({a}, {b})", children, children),
        st.builds(lambda a: f"(-{a})", children),
        st.builds(lambda a: f"(not {a})", children),
    )


@settings(max_examples=400, deadline=None)
@given(
    st.recursive(_OPERAND, _combine_text, max_leaves=10),
    st.floats(-50, 50, allow_nan=False),
    st.sampled_from([0.0, 1.0, -3.0, 1e300]),
)
def test_compiled_matches_a_tree_walk(text: str, x: float, y: float) -> None:
    """Same value, or the same ExprError, as walking the tree: the compiled
    closures (which read variable and number operands inline) change no
    result, no error and which operand fails first."""
    expr = compile_expr(text)
    env = {"x": x, "y": y}
    try:
        expected: float | str = _walk(expr.tree, env)
    except ExprError as exc:
        expected = str(exc)
    try:
        got: float | str = expr.fn(env)
    except ExprError as exc:
        got = str(exc)
    assert got == expected or (got != got and expected != expected), text
