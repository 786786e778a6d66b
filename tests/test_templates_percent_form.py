"""TPL006 percent-form: a phrasing that asks for a percentage while the
answer's form is not `percent` (issue 21 §3: a percentage answer is stored as
a fraction with formats = { <answer var> = "percent" })."""

from __future__ import annotations

from pathlib import Path

import pytest

from steer.cli.templates_cmd import run_checks
from steer.generate import generate_questions
from steer.templates import load_template_file
from steer.templates._percent_check import asks_for_percent, percent_findings

TEMPLATES = """\
element = "steer-me.A.56"

[[template]]
id = "share.percent-units"
domain = "labor"
type = "linear"
structure = "scenario"
solver = "formula"
perspectives = ["first", "second", "woman", "man", "anonymous"]
decimals = 2
vars = { t = [0.12, 0.18, 0.24, 0.36], k = [2, 3, 4] }
derive = { key = "100 * (1 - t) / k" }
answer = "key"
wrong = { forgot_k = "100 * (1 - t)", used_t = "100 * t / k", doubled = "200 * (1 - t) / k" }
phrasings = [
    "{Agent} splits pay taxed at {t} {k} ways. What percentage of pay is each part?",
    "After a {t} tax, {agent} cuts the rest in {k}. Each part is what percent of pay?",
    "A tax of {t} is taken; {agent} splits the rest in {k}. What is a part, in percent?",
    "{Agent} splits after-tax pay ({t} tax) into {k} parts. Report each part's percentage of pay.",
]

[template.grade.12]
size = 1
options = 4

[[template]]
id = "share.fraction"
domain = "labor"
type = "linear"
structure = "scenario"
solver = "formula"
perspectives = ["first", "second", "woman", "man", "anonymous"]
decimals = 2
vars = { t = [0.12, 0.18, 0.24, 0.36], k = [2, 3, 4] }
derive = { key = "(1 - t) / k" }
answer = "key"
formats = { key = "percent" }
wrong = { forgot_k = "1 - t", used_t = "t / k", doubled = "2 * (1 - t) / k" }
phrasings = [
    "{Agent} splits pay taxed at {t} {k} ways. What percentage of pay is each part?",
    "After a {t} tax, {agent} cuts the rest in {k}. Each part is what percent of pay?",
    "A tax of {t} is taken; {agent} splits the rest in {k}. What is a part, in percent?",
    "{Agent} splits after-tax pay ({t} tax) into {k} parts. Report each part's percentage of pay.",
]

[template.grade.12]
size = 1
options = 4
"""


@pytest.mark.parametrize(
    ("phrasing", "asks"),
    [
        ("What percentage of income goes to labor? Give it to two decimal places.", True),
        ("What is labor's share of income, in percent to two decimal places?", True),
        ("By how many percent does output grow?", True),
        ("{Agent} asks how much output falls. Answer as a percentage.", True),
        ("What is the growth rate, in %?", True),
        ("By how many percentage points did productivity grow?", True),
        ("Report each part's percentage of pay.", True),
        # stated quantities are not asks
        ("A tax of {t} percent is levied. How much is raised, in dollars?", False),
        ("The price rises by {up}%. What is the new quantity?", False),
        ("Output rose 5% last year. What is the wage?", False),
        # a decimal is asked for, or the answer is an elasticity
        ("By what percentage does output rise per 1% rise in price? Answer as a decimal.", False),
        (
            "What is the elasticity (the percentage change in K/L per one percent change in "
            "the TRS)? Give a decimal rounded to two places.",
            False,
        ),
        (
            "What is the elasticity, computed as the percentage change in quantity over the "
            "percentage change in price?",
            False,
        ),
        # percent only in the setup
        (
            "Banks lend at 5 percent. The percentage of loans repaid is high. What is the profit?",
            False,
        ),
        ("What is the profit, in dollars?", False),
    ],
)
def test_asks_for_percent(phrasing: str, asks: bool) -> None:
    assert asks_for_percent(phrasing) is asks


def _templates(tmp_path: Path) -> tuple[Path, list]:
    path = tmp_path / "share.toml"
    path.write_text(TEMPLATES, encoding="utf-8")
    return path, load_template_file(path, label=str(path))


def test_percent_units_with_form_number_are_a_finding(tmp_path: Path) -> None:
    path, (units, fraction) = _templates(tmp_path)
    text = path.read_text(encoding="utf-8")
    found = percent_findings(units, generate_questions([units], per_cell=2, seed=1), text)
    assert len(found) == 1
    assert f"{path}:16: TPL006 percent-form" in found[0] and "share.percent-units" in found[0]
    assert "help:" in found[0]
    # The same question stored as a fraction with formats = { key = "percent" } passes.
    assert (
        percent_findings(fraction, generate_questions([fraction], per_cell=2, seed=1), text) == []
    )


def test_templates_check_reports_tpl006(tmp_path: Path) -> None:
    path, _ = _templates(tmp_path)
    checks = run_checks((path,), 1, 0, coverage=True)
    tpl006 = [m for m in checks.coverage if " TPL006 " in m]
    assert len(tpl006) == 1 and "share.percent-units" in tpl006[0]
