"""Template wording (`render`, `placeholders`) and template files (`load_template_file`)."""

from __future__ import annotations

import string
import tomllib
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.errors import FileFormatError
from steer.generate import DISTRACTORS, SOLVERS, STRUCTURES
from steer.templates import (
    PlaceholderError,
    load_template_file,
    load_templates,
    placeholders,
    render,
    template_files,
)

# --- render / placeholders -----------------------------------------------------------


def test_render_substitutes_names() -> None:
    text = "A {thing} pays {amount} with {thing} odds."
    values = {"thing": "wheel", "amount": "$5", "unused": "x"}
    assert render(text, values) == "A wheel pays $5 with wheel odds."
    assert placeholders(text) == ["thing", "amount", "thing"]
    assert render("{n} items", {"n": 3}) == "3 items"
    assert render("no placeholders", {}) == "no placeholders"
    assert placeholders("no placeholders") == []


def test_render_brace_escapes() -> None:
    assert render("{{literal}} and {x}", {"x": 1}) == "{literal} and 1"
    assert render("{{{x}}}", {"x": 1}) == "{1}"
    assert render("}}{{", {}) == "}{"
    assert placeholders("{{literal}} {x} }}") == ["x"]


def test_substituted_values_are_not_reinterpreted() -> None:
    # A value that looks like a placeholder is inserted verbatim, once.
    assert render("{a} {b}", {"a": "{b}", "b": "{{"}) == "{b} {{"


class _Spy(Mapping[str, object]):
    """A mapping that records every lookup, to prove nothing is evaluated."""

    def __init__(self, data: dict[str, object]) -> None:
        self.data = data
        self.looked_up: list[str] = []

    def __getitem__(self, key: str) -> object:
        self.looked_up.append(key)
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)


class _Trap:
    """Any attribute access, indexing or formatting would be noticed."""

    touched = False

    def __getattribute__(self, name: str) -> object:
        if name not in ("__class__", "__str__", "__repr__"):
            type(self).touched = True
        return object.__getattribute__(self, name)

    def __getitem__(self, key: object) -> object:
        type(self).touched = True
        return "indexed"

    def __format__(self, spec: str) -> str:
        type(self).touched = True
        return "formatted"


MALFORMED = [
    "{x.__class__}",
    "{x.__class__.__init__.__globals__}",
    "{x[0]}",
    "{x['key']}",
    "{x:>10}",
    "{x!r}",
    "{}",
    "{0}",
    "{ x }",
    "{x y}",
    "{x",
    "x}",
    "{",
    "}",
    "{{x}",
    "{9lives}",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_placeholders_are_rejected_not_evaluated(text: str) -> None:
    values = _Spy({"x": _Trap(), "0": "zero"})
    _Trap.touched = False
    with pytest.raises(PlaceholderError, match="malformed placeholder"):
        render(f"before {text} after", values)
    with pytest.raises(PlaceholderError, match="malformed placeholder") as info:
        placeholders(f"before {text} after")
    assert info.value.name in text
    assert values.looked_up == []
    assert not _Trap.touched


def test_render_unknown_variable() -> None:
    with pytest.raises(PlaceholderError, match=r"unknown variable \{y\}") as info:
        render("{x} {y}", {"x": 1})
    assert info.value.name == "y"
    assert isinstance(info.value, ValueError)


# Reference: for texts made of plain runs, `{{`, `}}` and `{name}`, str.format
# gives the same result, and string.Formatter lists the same names.
_piece = st.one_of(
    st.text(alphabet=st.characters(exclude_characters="{}"), max_size=6),
    st.just("{{"),
    st.just("}}"),
    st.sampled_from(["alpha", "b", "_c1", "Delta_2"]).map(lambda n: "{" + n + "}"),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_piece, max_size=12))
def test_render_agrees_with_str_format_on_plain_templates(pieces: list[str]) -> None:
    text = "".join(pieces)
    values = {"alpha": "A", "b": 2, "_c1": "{c}", "Delta_2": 3.5}
    assert render(text, values) == text.format(**values)
    names = [field for _, field, _, _ in string.Formatter().parse(text) if field is not None]
    assert placeholders(text) == names


# --- shipped templates -------------------------------------------------------------------


def test_load_templates_loads_every_shipped_template() -> None:
    files = template_files()
    assert files, "no shipped template files found"
    expected: list[tuple[str, str]] = []
    for path in files:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
        expected.extend((raw["element"], t["id"]) for t in raw["template"])
    loaded = load_templates()
    assert sorted((t.element, t.spec.id) for t in loaded) == sorted(expected)
    ids = [t.spec.id for t in loaded]
    assert len(ids) == len(set(ids)), "template ids must be unique"
    assert {t.element for t in loaded} >= {"steer.1.1.c", "steer.2.4.b", "steer.3.1.b"}
    for template in loaded:
        spec = template.spec
        assert template.source.startswith("templates/") and template.source.endswith(".toml")
        assert template.line is not None
        assert spec.structure in STRUCTURES and spec.solver in SOLVERS
        assert all(name in DISTRACTORS for name in spec.distractors)
        assert all(0 <= grade <= 14 for grade in spec.grade)
    assert load_templates() is loaded  # cached


# --- bad template files ---------------------------------------------------------------------

GOOD = """\
# A minimal valid template (line numbers below count from here).
element = "steer.1.1.c"

[[template]]
id = "t.one"
domain = "games of chance"
structure = "lottery"
solver = "expected_value"
distractors = ["unweighted_mean", "best_outcome"]
phrasings = ["A wheel at the {event} pays {outcomes}. What is a spin worth?"]
words = { event = ["fair"] }

[template.grade.3]
size = 2
options = 4
low = 1
high = 40
"""


def _line(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if needle in line)


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad_template.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_good_template_loads(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD)
    (template,) = load_template_file(path)
    assert template.element == "steer.1.1.c"
    assert template.spec.id == "t.one"
    assert template.source == str(path)
    assert template.line == _line(GOOD, 'id = "t.one"')


# (what to change in GOOD, the line the error must point at, words the message must hold)
BAD = {
    "unknown variable": (
        ("{outcomes}", "{outcome}"),
        "phrasings =",
        ["unknown variable {outcome}", "did you mean {outcomes}?", "phrasings"],
    ),
    "unknown solver": (
        ('"expected_value"', '"expected_valu"'),
        "solver =",
        ["unknown solver 'expected_valu'", "did you mean 'expected_value'?"],
    ),
    "unknown structure": (
        ('"lottery"', '"lotery"'),
        "structure =",
        ["unknown structure 'lotery'", "did you mean 'lottery'?"],
    ),
    "unknown distractor": (
        ('"best_outcome"]', '"best_outcom"]'),
        "distractors =",
        ["unknown distractor 'best_outcom'", "did you mean 'best_outcome'?"],
    ),
    "distractor of the wrong answer kind": (
        ('"best_outcome"]', '"certainty_bias"]'),
        "distractors =",
        ["'certainty_bias'", "choice", "numeric", "expected_value"],
    ),
    "solver for another structure": (
        ('"lottery"', '"bimatrix"'),
        "solver =",
        ["'expected_value' cannot solve a 'bimatrix'"],
    ),
    "unknown key": (
        ("phrasings =", "phrasing ="),
        "phrasing =",
        ["unknown key 'phrasing'", "did you mean 'phrasings'?"],
    ),
    "unknown key in a grade": (
        ("options = 4", "option = 4"),
        "[template.grade.3]",
        ["unknown key 'option'", "did you mean 'options'?"],
    ),
    "unknown top-level key": (
        ('element = "steer.1.1.c"', 'element = "steer.1.1.c"\nelemnt = "x"'),
        "elemnt =",
        ["unknown key 'elemnt'", "did you mean 'element'?"],
    ),
    "unknown element": (
        ('"steer.1.1.c"', '"steer.1.1.cc"'),
        "element =",
        ["unknown element 'steer.1.1.cc'", "did you mean 'steer.1.1.c'"],
    ),
    "grade above 14": (
        ("[template.grade.3]", "[template.grade.15]"),
        "[template.grade.15]",
        ["grade levels must be 0-14", "15"],
    ),
    "numeric template without options": (
        ("options = 4\n", ""),
        "[template.grade.3]",
        ["grade 3", "numeric answers need `options`"],
    ),
    "range too small for the size": (
        ("high = 40", "high = 2\nstep = 1\nsize = 3"),
        "[template.grade.3]",
        ["grade 3", "fewer than 3 distinct amounts"],
    ),
    "malformed placeholder (attribute)": (
        ("{outcomes}", "{outcomes.__class__}"),
        "phrasings =",
        ["malformed placeholder '{outcomes.__class__}'"],
    ),
    "malformed placeholder (format spec)": (
        ("{outcomes}", "{outcomes:>10}"),
        "phrasings =",
        ["malformed placeholder '{outcomes:>10}'"],
    ),
    "malformed placeholder (positional)": (
        ("{outcomes}", "{}"),
        "phrasings =",
        ["malformed placeholder '{}'"],
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_template_names_file_and_line(tmp_path: Path, case: str) -> None:
    (old, new), at, words = BAD[case]
    assert GOOD.count(old) == 1
    text = GOOD.replace(old, new)
    if case == "range too small for the size":
        text = text.replace("size = 2\n", "")
    path = _write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        load_template_file(path)
    message = str(info.value)
    assert message.startswith(f"{path}:{_line(text, at)}: "), message
    assert info.value.source == str(path)
    for word in words:
        assert word in message, (word, message)
    assert "\n" not in message


def test_toml_syntax_error_names_file_and_line(tmp_path: Path) -> None:
    text = GOOD.replace("size = 2", "size = = 2")
    path = _write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        load_template_file(path)
    message = str(info.value)
    line = _line(text, "size = = 2")
    assert message.startswith(f"{path}:{line}:"), message  # file:line:column
    assert "invalid TOML" in message


def test_label_replaces_the_path_in_messages(tmp_path: Path) -> None:
    path = _write(tmp_path, GOOD.replace('"lottery"', '"lotery"'))
    with pytest.raises(FileFormatError, match=r"^templates/mine\.toml:\d+: "):
        load_template_file(path, label="templates/mine.toml")


def test_error_points_at_the_failing_template_of_several(tmp_path: Path) -> None:
    second = GOOD.split("[[template]]", 1)[1].replace('"t.one"', '"t.two"')
    second = second.replace('"lottery"', '"lotery"')
    text = GOOD + "\n[[template]]" + second
    path = _write(tmp_path, text)
    with pytest.raises(FileFormatError) as info:
        load_template_file(path)
    lines = text.splitlines()
    expected = max(i for i, line in enumerate(lines, 1) if '"lotery"' in line)
    assert str(info.value).startswith(f"{path}:{expected}: ")
