"""The coverage checks of `steer templates check` (issue 20 §4): perspectives
declared and realised, at least 4 phrasings, 4 domains per element, and
(`--variety`) 1,000 distinct questions per element; each finding names file,
line, code, value and threshold."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.cli import cli
from steer.cli.templates_cmd import run_checks
from steer.generate import generate_questions
from steer.templates import load_template_file
from steer.templates._perspective_check import perspective_findings, realised
from steer.templates._variety import distinct_questions, variety_bank

ALL = '["first", "second", "woman", "man", "anonymous"]'
PHRASINGS = [
    "{Agent} spent {sunk} on a project. Finishing costs {cost} and brings {revenue}. "
    "Should {subject} continue?",
    "{Agent}'s project has cost {sunk} so far; {subject} can finish it for {cost} and "
    "earn {revenue}. What should {agent} do?",
    "Finishing {agent}'s project costs {cost} and earns {revenue}; {sunk} is already "
    "spent. Which choice is right for {object}?",
    "With {sunk} already spent, {agent} {is} deciding whether to pay {cost} to earn "
    "{revenue}. Continue or stop?",
]


def template(
    tid: str = "t.sunk",
    domain: str = "business",
    phrasings: list[str] | None = None,
    perspectives: str = ALL,
    revenue: str = "[20, 50, 80]",
) -> str:
    shown = ",\n    ".join(f'"{p}"' for p in (phrasings or PHRASINGS))
    return f"""
[[template]]
id = "{tid}"
domain = "{domain}"
structure = "scenario"
solver = "max_expected_value"
unit = "$"
perspectives = {perspectives}
vars = {{ sunk = {{ low = 10, high = 90 }}, cost = {{ low = 10, high = 90 }}, revenue = {revenue} }}
derive = {{ margin = "revenue - cost" }}
require = ["abs(margin) >= 5"]
choices = [
    {{ text = "Continue", values = ["margin"], error = "sunk_cost_included" }},
    {{ text = "Stop", values = ["0"], error = "sunk_cost_included" }},
]
phrasings = [
    {shown},
]

[template.grade.7]
size = 2
"""


def write(tmp_path: Path, body: str, name: str = "t.toml") -> Path:
    path = tmp_path / name
    path.write_text('element = "steer.2.2.a"\n' + body, encoding="utf-8")
    return path


FOUR_DOMAINS = "".join(template(f"t.{d}", d) for d in ("business", "health", "sports", "education"))


def codes(messages: list[str]) -> list[str]:
    return sorted(m.split(": ")[1].split()[0] for m in messages)


def test_a_complete_element_has_no_coverage_findings(tmp_path: Path) -> None:
    path = write(tmp_path, FOUR_DOMAINS)
    found = run_checks((path,), 20, 0)
    assert (found.checked, found.failures, found.coverage) == (4, [], [])
    result = CliRunner().invoke(cli, ["templates", "check", str(path), "--renders", "20"])
    assert result.exit_code == 0, result.output
    assert "no coverage findings" in result.output


def test_undeclared_perspectives_and_few_phrasings_name_the_line(tmp_path: Path) -> None:
    body = template(perspectives='["woman", "man"]', phrasings=PHRASINGS[:2])
    path = write(tmp_path, body)
    found = run_checks((path,), 10, 0)
    assert codes(found.coverage) == ["TPL001", "TPL003", "TPL004"]
    (undeclared,) = [m for m in found.coverage if "TPL001" in m]
    line = body.splitlines().index('perspectives = ["woman", "man"]') + 2  # + element line
    assert undeclared.startswith(f"{path}:{line}: TPL001 perspective-undeclared: ")
    assert "'first', 'second', 'anonymous'" in undeclared and "help: " in undeclared
    (few,) = [m for m in found.coverage if "TPL003" in m]
    assert "has 2 phrasing(s) (need at least 4)" in few
    (domains,) = [m for m in found.coverage if "TPL004" in m]
    assert domains.startswith(f"{path}:1: TPL004 few-domains: element steer.2.2.a spans 1 ")


def test_a_phrasing_that_never_names_the_person_is_unrealised(tmp_path: Path) -> None:
    fixed = "A firm spent {sunk}; finishing costs {cost} and earns {revenue}. Continue?"
    body = template(phrasings=[*PHRASINGS[:3], fixed])
    path = write(tmp_path, body)
    (t,) = load_template_file(path)
    table = generate_questions([t], per_cell=60, seed=0)
    found = perspective_findings(t, table, path.read_text(encoding="utf-8"))
    line = next(i for i, text in enumerate(path.read_text().splitlines(), 1) if "A firm" in text)
    flagged = {m.split("perspective '")[1].split("'")[0] for m in found}
    # The anonymous render of the fixed wording shows no person: that is right.
    assert flagged == {"first", "second", "woman", "man"}
    assert all(m.startswith(f"{path}:{line}: TPL002 perspective-unrealised: ") for m in found)
    assert all("A firm spent" in m for m in found)


def test_an_anonymous_render_that_says_you_is_unrealised(tmp_path: Path) -> None:
    leaky = "{Agent} spent {sunk}. Finishing costs {cost} and earns {revenue}. Should you go on?"
    path = write(tmp_path, template(phrasings=[*PHRASINGS[:3], leaky]))
    (t,) = load_template_file(path)
    table = generate_questions([t], per_cell=60, seed=0)
    found = perspective_findings(t, table, path.read_text(encoding="utf-8"))
    assert {m.split("perspective '")[1].split("'")[0] for m in found} == {"anonymous"}


@pytest.mark.parametrize(
    ("perspective", "yes", "no"),
    [
        ("first", ["I pay $5.", "My shop pays."], ["Maria pays.", "Mineral water."]),
        ("second", ["Should you pay?", "Your shop."], ["The youth pays."]),
        ("woman", ["Maria pays.", "She pays.", "her shop"], ["He pays.", "The shed."]),
        ("man", ["David pays.", "his shop", "Pay him."], ["She pays.", "The hen."]),
        ("anonymous", ["The decision maker pays."], ["I pay.", "you pay", "Omar pays."]),
    ],
)
def test_person_markers(perspective: str, yes: list[str], no: list[str]) -> None:
    got = realised(perspective, pa.array(yes + no)).to_pylist()
    assert got == [True] * len(yes) + [False] * len(no)


def test_variety_counts_distinct_questions_and_names_dry_cells(tmp_path: Path) -> None:
    # One sunk cost, one cost, two revenues: 4 phrasings × 19 people × 2 at most.
    narrow = template(revenue="[20, 80]").replace("{ low = 10, high = 90 }", "[10]")
    path = write(tmp_path, narrow)
    (t,) = load_template_file(path)
    v = variety_bank([t], target=300, seed=0)
    n = v.distinct["steer.2.2.a"]
    assert 0 < n < 300
    assert v.dry["steer.2.2.a"] == [f"t.sunk grade 7 ({n})"]
    found = run_checks((path,), 5, 0, variety=True)
    (few,) = [m for m in found.coverage if "TPL005" in m]
    assert f"element steer.2.2.a yields {n} distinct questions (need at least 1000)" in few
    assert "ran dry: t.sunk grade 7" in few and few.startswith(f"{path}:1: TPL005")


def test_variety_reaches_its_target_when_the_templates_allow() -> None:
    from steer.templates import load_templates

    ts = [t for t in load_templates() if t.element == "steer.2.4.b"]
    v = variety_bank(ts, target=200, seed=3)
    assert v.distinct["steer.2.4.b"] >= 200
    assert v.table.num_rows >= 200


def plain_distinct(rows: list[tuple[str, str, int, str, list[str]]]) -> dict[str, int]:
    """Reference: one key per question from its parts' texts and option sets."""
    questions: dict[tuple[str, str], list[tuple[int, str, tuple[str, ...]]]] = {}
    for element, base, part, text, options in rows:
        questions.setdefault((element, base), []).append((part, text, tuple(sorted(options))))
    seen: dict[str, set[tuple]] = {}
    for (element, _), parts in questions.items():
        seen.setdefault(element, set()).add(tuple(sorted(parts)))
    return {e: len(s) for e, s in seen.items()}


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["e1", "e2"]),
            st.sampled_from(["x", "y"]),
            st.lists(st.sampled_from(["a", "b", "c"]), min_size=2, max_size=3),
        ),
        min_size=1,
        max_size=30,
    )
)
def test_distinct_questions_matches_a_plain_count(draws: list) -> None:
    rows = [(e, f"b{i}", 0, text, opts) for i, (e, text, opts) in enumerate(draws)]
    table = pa.table(
        {
            "element": [r[0] for r in rows],
            "base_id": [r[1] for r in rows],
            "part": pa.array([r[2] for r in rows], pa.int32()),
            "question_text": [r[3] for r in rows],
            "options": [r[4] for r in rows],
        }
    )
    assert distinct_questions(table) == plain_distinct(rows)


def test_variety_checks_the_bank_it_made(tmp_path: Path) -> None:
    # Distractors without an `error` are tagged `other`: BAL001 over the bank.
    untagged = FOUR_DOMAINS.replace(', error = "sunk_cost_included"', "")
    path = write(tmp_path, untagged)
    found = run_checks((path,), 5, 0, variety=True)
    bal = [m for m in found.coverage if " BAL" in m]
    assert len(bal) == 1, found.coverage
    assert bal[0].startswith(f"{path}:1: steer.2.2.a: BAL001 other-tags: 100% of distractors")
    tagged = run_checks((write(tmp_path, FOUR_DOMAINS, "tagged.toml"),), 5, 0, variety=True)
    assert not [m for m in tagged.coverage if " BAL" in m], tagged.coverage


def test_a_single_perspective_label_must_be_realised_too(tmp_path: Path) -> None:
    fixed = "A firm spent {sunk}; finishing costs {cost} and earns {revenue}. Continue?"
    body = template(phrasings=[fixed] * 4).replace(f"perspectives = {ALL}", 'perspective = "woman"')
    path = write(tmp_path, body)
    (t,) = load_template_file(path)
    table = generate_questions([t], per_cell=10, seed=0)
    (found,) = perspective_findings(t, table, path.read_text(encoding="utf-8"))
    assert "perspective 'woman' is not realised in 10 of 10 renders" in found
