"""A small, safe arithmetic language for template variables and constraints.

Templates are data, so their arithmetic never reaches `eval`: a hand-written
tokenizer and recursive-descent parser turn the text into a tree of tuples,
compiled once into nested closures that `Expr.evaluate` calls. The language
has numbers, variable names, `+ - * / ^` (also `×` and `÷`), unary minus,
parentheses, the functions
`min max abs round floor ceil sqrt exp ln` and the closed forms of
`steer.econ` (`cd_demand(a, m, px)` …), comparisons `< <= > >= == !=` and the words
`and or not`. Booleans are the numbers 1 and 0.

Grammar (lowest precedence first):

    or      := and ('or' and)*
    and     := not ('and' not)*
    not     := 'not' not | compare
    compare := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/') unary)*
    unary   := '-' unary | power
    power   := atom ('^' unary)?     (right-associative; -2^2 is -4)
    atom    := NUMBER | NAME | NAME '(' or (',' or)* ')' | '(' or ')'
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from steer import econ
from steer._suggest import did_you_mean

# A parse-tree node: ("num", x), ("var", name), ("neg", n), ("not", n),
# ("bin", op, a, b) or ("call", name, *args).
Node = tuple[Any, ...]


class ExprError(ValueError):
    """A malformed expression, an unknown name or an impossible operation."""


# Templates use a few digits; beyond this 10**digits loses every digit or
# overflows, so a larger count is a mistake in the template.
MAX_ROUND_DIGITS = 15
# Nesting of parentheses, calls and unary operators, and the depth of the parsed
# tree: real templates stay under ten; the parser and the compiled closures
# recurse once per level, so deeper input would exhaust Python's stack.
MAX_NESTING = 32
MAX_TREE_DEPTH = 64


def _finite(value: float, what: str) -> float:
    if not math.isfinite(value):
        raise ExprError(f"{what} is not a finite number")
    return value


def _round(x: float, digits: float = 0) -> float:
    if not -MAX_ROUND_DIGITS <= digits <= MAX_ROUND_DIGITS:
        raise ExprError(
            f"round() takes {-MAX_ROUND_DIGITS} to {MAX_ROUND_DIGITS} digits, got {digits:g}"
        )
    factor = 10.0 ** int(digits)
    # Round half away from zero, as people do by hand (Python rounds half to even).
    scaled = abs(x) * factor + 0.5 + 1e-9
    if not math.isfinite(scaled):
        raise ExprError(f"round({x:g}, {digits:g}) is not a finite number")
    return math.copysign(math.floor(scaled), x) / factor


def _floor(x: float) -> float:
    return float(math.floor(_finite(x, "floor()'s argument")))


def _ceil(x: float) -> float:
    return float(math.ceil(_finite(x, "ceil()'s argument")))


def _sqrt(x: float) -> float:
    if x < 0:
        raise ExprError(f"sqrt({x:g}) of a negative number")
    return math.sqrt(x)


def _exp(x: float) -> float:
    if x > 700:
        raise ExprError(f"exp({x:g}) is too large")
    return math.exp(x)


def _ln(x: float) -> float:
    if x <= 0:
        raise ExprError(f"ln({x:g}) of a number that is not positive")
    return math.log(x)


def _domain_checked(name: str, fn: Callable[..., float]) -> Callable[..., float]:
    """An econ closed form whose ValueError (a draw it cannot handle) and
    arithmetic errors read as the expression's own error: a rejected draw."""

    def call(*args: float) -> float:
        try:
            return _finite(float(fn(*args)), f"{name}()")
        except ExprError:
            raise
        except (ValueError, ArithmeticError) as exc:
            raise ExprError(f"{name}(): {exc}") from None

    return call


FUNCTIONS: dict[str, tuple[int, int, Callable[..., float]]] = {
    "min": (1, 99, min),
    "max": (1, 99, max),
    "abs": (1, 1, abs),
    "round": (1, 2, _round),
    "floor": (1, 1, _floor),
    "ceil": (1, 1, _ceil),
    "sqrt": (1, 1, _sqrt),
    "exp": (1, 1, _exp),
    "ln": (1, 1, _ln),
}
for _name, (_lo, _hi, _fn) in econ.EXPR_FUNCTIONS.items():
    if _name in FUNCTIONS or _name in ("and", "or", "not"):
        raise RuntimeError(f"econ function {_name!r} shadows a built-in")
    FUNCTIONS[_name] = (_lo, _hi, _domain_checked(_name, _fn))
WORDS = ("and", "or", "not")

_TOKEN = re.compile(
    r"\s*(?:(?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|==|!=|[-+*/^()<>,×÷]))"
)


def tokenize(text: str) -> list[tuple[str, str]]:
    """(kind, text) pairs; kind is 'num', 'name' or 'op'."""
    tokens: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            bad = text[pos:].lstrip()[:1]
            raise ExprError(f"unexpected character {bad!r} at position {pos + 1}")
        kind = match.lastgroup or "op"
        value = match.group(kind)
        tokens.append((kind, {"×": "*", "÷": "/"}.get(value, value)))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.nesting = 0

    def deeper(self) -> None:
        """Count one more level of nesting; refuse input nested past MAX_NESTING."""
        self.nesting += 1
        if self.nesting > MAX_NESTING:
            raise ExprError(f"nested more than {MAX_NESTING} levels deep")

    def peek(self) -> str | None:
        return self.tokens[self.pos][1] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise ExprError("unexpected end of expression")
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, op: str) -> None:
        _kind, value = self.take()
        if value != op:
            raise ExprError(f"expected {op!r} but found {value!r}")

    def parse(self) -> Node:
        if not self.tokens:
            raise ExprError("empty expression")
        node = self.or_()
        if self.pos != len(self.tokens):
            raise ExprError(f"unexpected {self.tokens[self.pos][1]!r} after a complete expression")
        return node

    def or_(self) -> Node:
        node = self.and_()
        while self.peek() == "or":
            self.take()
            node = ("bin", "or", node, self.and_())
        return node

    def and_(self) -> Node:
        node = self.not_()
        while self.peek() == "and":
            self.take()
            node = ("bin", "and", node, self.not_())
        return node

    def not_(self) -> Node:
        if self.peek() == "not":
            self.take()
            self.deeper()
            node = ("not", self.not_())
            self.nesting -= 1
            return node
        return self.compare()

    def compare(self) -> Node:
        node = self.sum()
        if self.peek() in ("<", "<=", ">", ">=", "==", "!="):
            op = self.take()[1]
            node = ("bin", op, node, self.sum())
            if self.peek() in ("<", "<=", ">", ">=", "==", "!="):
                raise ExprError("chained comparisons are not allowed; join them with 'and'")
        return node

    def sum(self) -> Node:
        node = self.product()
        while self.peek() in ("+", "-"):
            op = self.take()[1]
            node = ("bin", op, node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while self.peek() in ("*", "/"):
            op = self.take()[1]
            node = ("bin", op, node, self.unary())
        return node

    def unary(self) -> Node:
        if self.peek() in ("-", "+"):
            sign = self.take()[1]
            self.deeper()
            inner = self.unary()
            self.nesting -= 1
            return ("neg", inner) if sign == "-" else inner
        return self.power()

    def power(self) -> Node:
        node = self.atom()
        if self.peek() == "^":
            self.take()
            self.deeper()
            node = ("bin", "^", node, self.unary())
            self.nesting -= 1
        return node

    def atom(self) -> Node:
        kind, value = self.take()
        if kind == "num":
            number = float(value)
            if not math.isfinite(number):
                raise ExprError(f"number {value!r} is too large")
            return ("num", number)
        if kind == "name":
            if value in WORDS:
                raise ExprError(f"{value!r} needs something on its left")
            if self.peek() == "(":
                if value not in FUNCTIONS:
                    close = did_you_mean(value, FUNCTIONS)
                    hint = (
                        f"did you mean {', '.join(map(repr, close))}?"
                        if close
                        else (
                            "see steer.econ and the built-ins min max abs round floor ceil "
                            "sqrt exp ln"
                        )
                    )
                    raise ExprError(f"unknown function {value!r} ({hint})")
                self.take()
                self.deeper()
                args = [self.or_()]
                while self.peek() == ",":
                    self.take()
                    args.append(self.or_())
                self.expect(")")
                self.nesting -= 1
                lo, hi, _ = FUNCTIONS[value]
                if not lo <= len(args) <= hi:
                    raise ExprError(f"{value}() takes {lo}-{hi} arguments, got {len(args)}")
                return ("call", value, *args)
            if value in FUNCTIONS:
                raise ExprError(f"function {value!r} needs parentheses")
            return ("var", value)
        if value == "(":
            self.deeper()
            node = self.or_()
            self.expect(")")
            self.nesting -= 1
            return node
        raise ExprError(f"unexpected {value!r}")


def _depth(tree: Node) -> int:
    """Depth of a parse tree, without recursion (a long chain like
    `a+a+…+a` is deep though it has no parentheses)."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        if node[0] == "bin":
            stack += [(node[2], depth + 1), (node[3], depth + 1)]
        elif node[0] in ("neg", "not"):
            stack.append((node[1], depth + 1))
        elif node[0] == "call":
            stack += [(arg, depth + 1) for arg in node[2:]]
    return deepest


def _names(node: Node, out: set[str]) -> None:
    tag = node[0]
    if tag == "var":
        out.add(node[1])
    elif tag == "bin":
        _names(node[2], out)
        _names(node[3], out)
    elif tag in ("neg", "not"):
        _names(node[1], out)
    elif tag == "call":
        for arg in node[2:]:
            _names(arg, out)


Fn = Callable[[Mapping[str, float]], float]


def _power(a: float, b: float) -> float:
    if abs(b) > 64 or (a == 0 and b < 0) or (a < 0 and not float(b).is_integer()):
        raise ExprError(f"cannot raise {a:g} to the power {b:g}")
    try:
        value = float(a**b)
    except OverflowError:
        value = math.inf
    if math.isfinite(value):
        return value
    raise ExprError(f"{a:g}^{b:g} is too large")


def _divide(a: float, b: float) -> float:
    if b == 0:
        raise ExprError("division by zero")
    value = a / b
    if math.isfinite(value):
        return value
    raise ExprError(f"{a:g} / {b:g} is not a finite number")


def _add(a: float, b: float) -> float:
    value = a + b
    if math.isfinite(value):
        return value
    raise ExprError(f"{a:g} + {b:g} is not a finite number")


def _subtract(a: float, b: float) -> float:
    value = a - b
    if math.isfinite(value):
        return value
    raise ExprError(f"{a:g} - {b:g} is not a finite number")


def _multiply(a: float, b: float) -> float:
    value = a * b
    if math.isfinite(value):
        return value
    raise ExprError(f"{a:g} * {b:g} is not a finite number")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


_BINARY: dict[str, Callable[[float, float], float]] = {
    "+": _add,
    "-": _subtract,
    "*": _multiply,
    "/": _divide,
    "^": _power,
    "<": lambda a, b: float(a < b),
    "<=": lambda a, b: float(a <= b),
    ">": lambda a, b: float(a > b),
    ">=": lambda a, b: float(a >= b),
    "==": lambda a, b: float(_close(a, b)),
    "!=": lambda a, b: float(not _close(a, b)),
}


def _compile(node: Node) -> Fn:
    """The tree as nested closures, built once per expression: templates
    evaluate the same few expressions hundreds of thousands of times, and a
    closure call is much cheaper than dispatching on the node tag each time."""
    tag = node[0]
    if tag == "num":
        value = node[1]
        return lambda env: value
    if tag == "var":
        name = node[1]

        def var(env: Mapping[str, float]) -> float:
            try:
                return env[name]
            except KeyError:
                raise _unknown(name) from None

        return var
    if tag == "neg":
        inner = _compile(node[1])
        return lambda env: -inner(env)
    if tag == "not":
        inner = _compile(node[1])
        return lambda env: 0.0 if inner(env) else 1.0
    if tag == "call":
        function = FUNCTIONS[node[1]][2]
        args = tuple(_compile(a) for a in node[2:])
        if len(args) == 1:
            (only,) = args
            return lambda env: float(function(only(env)))
        return lambda env: float(function(*(a(env) for a in args)))
    op = node[1]
    if op in ("and", "or"):
        left, right = _compile(node[2]), _compile(node[3])
        if op == "and":
            return lambda env: 1.0 if left(env) and right(env) else 0.0
        return lambda env: 1.0 if left(env) or right(env) else 0.0
    return _binary(_BINARY[op], node[2], node[3])


def _unknown(name: str) -> ExprError:
    return ExprError(f"unknown variable {name!r}")


def _binary(binary: Callable[[float, float], float], a: Node, b: Node) -> Fn:
    """`binary(a, b)`, left side first. Most operands in templates are a
    variable or a number: those are read inline rather than through a closure
    of their own, which halves the calls an evaluation makes."""
    kinds = (a[0] if a[0] in ("var", "num") else "fn", b[0] if b[0] in ("var", "num") else "fn")
    if kinds == ("var", "var"):
        x, y = a[1], b[1]

        def var_var(env: Mapping[str, float]) -> float:
            try:
                left = env[x]
            except KeyError:
                raise _unknown(x) from None
            try:
                right = env[y]
            except KeyError:
                raise _unknown(y) from None
            return binary(left, right)

        return var_var
    if kinds == ("var", "num"):
        x, number = a[1], b[1]

        def var_num(env: Mapping[str, float]) -> float:
            try:
                left = env[x]
            except KeyError:
                raise _unknown(x) from None
            return binary(left, number)

        return var_num
    if kinds == ("num", "var"):
        number, y = a[1], b[1]

        def num_var(env: Mapping[str, float]) -> float:
            try:
                right = env[y]
            except KeyError:
                raise _unknown(y) from None
            return binary(number, right)

        return num_var
    if kinds == ("var", "fn"):
        x, g = a[1], _compile(b)

        def var_fn(env: Mapping[str, float]) -> float:
            try:
                left = env[x]
            except KeyError:
                raise _unknown(x) from None
            return binary(left, g(env))

        return var_fn
    if kinds == ("fn", "var"):
        f, y = _compile(a), b[1]

        def fn_var(env: Mapping[str, float]) -> float:
            left = f(env)
            try:
                right = env[y]
            except KeyError:
                raise _unknown(y) from None
            return binary(left, right)

        return fn_var
    if kinds == ("fn", "num"):
        f, number = _compile(a), b[1]
        return lambda env: binary(f(env), number)
    if kinds == ("num", "fn"):
        number, g = a[1], _compile(b)
        return lambda env: binary(number, g(env))
    f, g = _compile(a), _compile(b)
    return lambda env: binary(f(env), g(env))


@dataclass(frozen=True)
class Expr:
    """A parsed expression: `names` are the variables it reads."""

    text: str
    tree: Node
    names: frozenset[str]
    fn: Fn = field(repr=False, compare=False)

    def evaluate(self, env: Mapping[str, float]) -> float:
        value = self.fn(env)
        if not math.isfinite(value):
            raise ExprError(f"{self.text!r} is not a finite number")
        return value


def compile_expr(text: str) -> Expr:
    """Parse `text`; raise `ExprError` naming the problem."""
    if not isinstance(text, str):
        raise ExprError(f"expected an expression in quotes, got {text!r}")
    try:
        tree = _Parser(text).parse()
    except RecursionError:  # MAX_NESTING should make this unreachable
        raise ExprError("nested too deeply") from None
    if _depth(tree) > MAX_TREE_DEPTH:
        raise ExprError(f"expression is more than {MAX_TREE_DEPTH} operations deep")
    names: set[str] = set()
    _names(tree, names)
    return Expr(text, tree, frozenset(names), _compile(tree))
