"""Free-text answers: the Rust reader (steer._native.extract_answers, through
steer.adapt._free) on a table of replies in the forms models write, against
the regex reader it replaced (tests/free_text_reference.py) where both should
agree, and the credit rule of issue 21 §3."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from free_text_reference import extract_number_reference
from steer.adapt import Completion, converse, opening
from steer.adapt._free import (
    extract_answers,
    extract_number,
    judge_reply,
    key_in_form,
    numbers_match,
    option_values,
)
from steer.bank import read_bank
from steer.errors import InputError
from steer.generate import generate_questions
from steer.schema import NO_ANSWER, OFF_OPTIONS, Adaptation, Question
from steer.templates import load_template_file

N, M, P = "number", "money", "percent"

# (reply, form, value read in that form or None). Grouped by what they test.
PRECEDENCE = [
    ("so the price is \\boxed{12.5} dollars, not 13", N, 12.5),
    ("\\boxed{1,250} and later \\boxed{3/4}", N, 0.75),
    ("\\boxed{7} then \\boxed{no idea}", N, 7.0),
    ("\\boxed{ 8 } at last", N, 8.0),
    ("\\boxed {9}", N, 9.0),
    ("\\boxed{3} and ANSWER: 4", N, 3.0),
    ("ANSWER: 4 and \\boxed{3}", N, 3.0),
    ("ANSWER: 42\nthen some 7", N, 42.0),
    ("answer: 42\nthen 7", N, 42.0),
    ("Answer : 42 then 7", N, 7.0),
    ("Final Answer: 19", N, 19.0),
    ("ANSWER: 1\nANSWER: 2\nmore 9", N, 2.0),
    ("ANSWER: 1\nANSWER: none\nmore 9", N, 1.0),
    ("**Answer:** 8 apples", N, 8.0),
    ("**Answer**: 8 apples", N, 8.0),
    ("ANSWER:\n\n  5\nlater 6", N, 5.0),
    ("The answer is 42, since 6 × 7", N, 7.0),
    ("The answer is 42.", N, 42.0),
    ("we get 3 then 4.5", N, 4.5),
    ("Step 1: 10. Step 2: 20. Result 30", N, 30.0),
    ("\\boxed{\\text{about } 15 \\text{ units}}", N, 15.0),
    ("\\boxed{\\boxed{4}}", N, 4.0),
    ("\\boxed{x = 2, y = 5}", N, 5.0),
    ("\\boxed{} then 6", N, 6.0),
    ("ANSWER: none, I think 11", N, 11.0),
    ("ANSWER: 3 (but maybe 4)", N, 4.0),
    ("answer:5", N, 5.0),
    ("ANSWER:\t-2", N, -2.0),
    ("The correct answer: 77%", P, 77.0),
    ("Answer: $15\nCheck: 3 × 5 = 15, also 99", M, 15.0),
]

CURRENCY = [
    ("$1,234.50", M, 1234.5),
    ("It costs $5.", M, 5.0),
    ("\\$12.75", M, 12.75),
    ("\\boxed{\\$1{,}200}", M, 1200.0),
    ("€30", M, 30.0),
    ("£7.50 each", M, 7.5),
    ("¥1,000", M, 1000.0),
    ("₹250", M, 250.0),
    ("$ 45", M, 45.0),
    ("-$5", M, -5.0),
    ("$-5", M, -5.0),
    ("−$3.25", M, -3.25),
    ("a loss of -$1,200.", M, -1200.0),
    ("USD 80", M, 80.0),
    ("80 dollars", M, 80.0),
    ("$0.99", M, 0.99),
    ("$.50", M, 0.5),
    ("The profit is $2,500.00.", M, 2500.0),
    ("pays $12/hour", M, 12.0),
    ("$5 per unit", M, 5.0),
]

THOUSANDS = [
    ("1,234,567.5", N, 1234567.5),
    ("1,234", N, 1234.0),
    ("12,345", N, 12345.0),
    ("123,456", N, 123456.0),
    ("1,000,000", N, 1e6),
    ("1,23", N, 23.0),
    ("1,2345", N, 2345.0),
    ("1234,567", N, 567.0),
    ("1,234,56", N, 56.0),
    ("3, 4 and 5", N, 5.0),
    ("1{,}234", N, 1234.0),
    ("12{,}345.6", N, 12345.6),
    ("1234567", N, 1234567.0),
    ("1,000.25", N, 1000.25),
    ("0,5", N, 5.0),
    ("prices 1,200 and 1,300.", N, 1300.0),
]

SIGNS = [
    ("-2.5", N, -2.5),
    ("−2.5", N, -2.5),
    ("negative: −2.5", N, -2.5),
    ("+3", N, 3.0),
    ("(-4)", N, -4.0),
    ("= -7", N, -7.0),
    ("3-5", N, 5.0),
    ("x-5", N, 5.0),
    ("a range of 10 - 12", N, 12.0),  # a sign touches its number
    ("-0.5%", N, -0.005),
    ("−.25", N, -0.25),
    ("change: -1,250", N, -1250.0),
    ("--3", N, -3.0),
    ("\\boxed{-\\frac{1}{2}}", N, -0.5),
    ("\\boxed{\\frac{-1}{2}}", N, -0.5),
    ("-\\dfrac{3}{4}", N, -0.75),
    ("−\\frac{3}{4}", N, -0.75),
    ("-1 1/2", N, -1.5),
    ("it fell to -3e2", N, -300.0),
    ("v = 2.-1", N, 1.0),
]

SCIENTIFIC = [
    ("1.2e3", N, 1200.0),
    ("1.2E3", N, 1200.0),
    ("1.2e+3", N, 1200.0),
    ("1.2E-3", N, 0.0012),
    ("1.5e3 units", N, 1500.0),
    ("3e8 m/s", N, 3e8),
    ("1.2 × 10^3", N, 1200.0),
    ("1.2×10^3", N, 1200.0),
    ("1.2×10³", N, 1200.0),
    ("1.2 × 10⁻³", N, 0.0012),
    ("4.5×10¹²", N, 4.5e12),
    ("1.2 \\times 10^{3}", N, 1200.0),
    ("1.2 \\times 10^{-2}", N, 0.012),
    ("2.5 \\cdot 10^4", N, 25000.0),
    ("2.5 · 10^4", N, 25000.0),
    ("1.2 x 10^3", N, 1200.0),
    ("1.2*10^3", N, 1200.0),
    ("6 × 10^−2", N, 0.06),
    ("5 × 7", N, 7.0),
    ("2 x 3 = 6", N, 6.0),
    ("1.2e", N, 1.2),
    ("3eggs", N, 3.0),
    ("1e-2", N, 0.01),
    ("2E+0", N, 2.0),
    ("$1.2 × 10^6", M, 1.2e6),
    ("1e3%", N, 10.0),
]

FRACTIONS = [
    ("3/4", N, 0.75),
    ("3 / 4", N, 0.75),
    ("the share is 1/8.", N, 0.125),
    ("\\frac{3}{4}", N, 0.75),
    ("\\dfrac{3}{4}", N, 0.75),
    ("\\tfrac{1}{4}", N, 0.25),
    ("\\frac{ 3 }{ 8 }", N, 0.375),
    ("\\boxed{\\frac{3}{4}}", N, 0.75),
    ("\\boxed{\\dfrac{10}{4}}", N, 2.5),
    ("\\frac{1,000}{4}", N, 250.0),
    ("\\frac{1.5}{3}", N, 0.5),
    ("\\frac{a}{b} = 2", N, 2.0),
    ("\\frac{x+1}{2}", N, 2.0),
    ("1 1/2", N, 1.5),
    ("1 1/2 cups", N, 1.5),
    ("2 3/4 hours", N, 2.75),
    ("3 4/2", N, 2.0),
    ("3 1/1", N, 1.0),
    ("1.5 1/2", N, 0.5),
    ("1,000 1/2", N, 0.5),
    ("10  1/2", N, 0.5),
    ("7/2", N, 3.5),
    ("1.5/3", N, 0.5),
    ("3/0", N, None),
    ("\\frac{3}{0}", N, None),
    ("\\boxed{1/3}", N, 1 / 3),
    ("1/3%", N, 1 / 300),
    ("$5/unit", M, 5.0),
    ("24/7", N, 24 / 7),
    ("\\frac12", N, 12.0),
    ("3/4 of the total, i.e. 0.75", N, 0.75),
    ("\\frac{3}{4}%", P, 0.75),
]

PERCENT = [
    ("25%", N, 0.25),
    ("25%", M, 0.25),
    ("25%", P, 25.0),
    ("25", P, 25.0),
    ("25", N, 25.0),
    ("0.25", P, 0.25),
    ("25 %", N, 0.25),
    ("25 percent", N, 0.25),
    ("25 Percent", N, 0.25),
    ("25 per cent", N, 0.25),
    ("25 percentage points", N, 25.0),
    ("25 percentile", N, 25.0),
    ("\\boxed{25\\%}", N, 0.25),
    ("\\boxed{25\\%}", P, 25.0),
    ("12.5%", N, 0.125),
    ("12.5%", P, 12.5),
    ("The rate is 7%.", N, 0.07),
    ("ANSWER: 40%", P, 40.0),
    ("100%", N, 1.0),
    ("1,250%", N, 12.5),
    ("-3%", P, -3.0),
    ("a 5% rise, so 105", N, 105.0),
    ("about 33.3% of it", P, 33.3),
    ("0.5%", N, 0.005),
]

UNITS = [
    ("12 hours", N, 12.0),
    ("4.5 kg", N, 4.5),
    ("It takes 12 hours.", N, 12.0),
    ("10 units per day", N, 10.0),
    ("15 widgets", N, 15.0),
    ("3.2 million", N, 3.2),
    ("40 hrs/week", N, 40.0),
    ("9.81 m/s²", N, 9.81),
    ("about 7 apples in total", N, 7.0),
    ("1st 2nd then 3rd", N, 3.0),
    ("CO2 output of 8 tons", N, 8.0),
    ("quantity = 20 units, price = $4 per unit", M, 4.0),
    ("Q* = 50", N, 50.0),
    ("MRS = 0.5", N, 0.5),
    ("the elasticity is -1.25 (elastic)", N, -1.25),
    ("2 km", N, 2.0),
    ("5kg", N, 5.0),
    ("100°C", N, 100.0),
]

PUNCTUATION = [
    ("**42**", N, 42.0),
    ("**42**.", N, 42.0),
    ("The answer is **$1,234.50**.", M, 1234.5),
    ("42.", N, 42.0),
    ("42!", N, 42.0),
    ("(42)", N, 42.0),
    ("[42]", N, 42.0),
    ("`42`", N, 42.0),
    ("*42*", N, 42.0),
    ("42...", N, 42.0),
    ("42;", N, 42.0),
    ('"42"', N, 42.0),
    ("42.0.", N, 42.0),
    ("=42=", N, 42.0),
    ("$42.", M, 42.0),
    ("ANSWER: **17**", N, 17.0),
    ("_42_", N, 42.0),
    ("42?", N, 42.0),
    ("~42", N, 42.0),
    ("≈ 3.14", N, 3.14),
    ("1.2.3", N, 0.3),
    (".5", N, 0.5),
    ("0.", N, 0.0),
    ("007", N, 7.0),
]

HOSTILE = [
    ("", N, None),
    ("   ", N, None),
    ("no numbers here", N, None),
    ("...!?;:,", N, None),
    ("$%", N, None),
    ("NaN", N, None),
    ("nan", N, None),
    ("inf", N, None),
    ("-inf", N, None),
    ("Infinity", N, None),
    ("1e999", N, None),
    ("-1e999", N, None),
    ("1.2 × 10^999", N, None),
    ("\\boxed{", N, None),
    ("\\boxed{5", N, 5.0),
    ("\\boxed{5 and later 6", N, 6.0),
    ("\\boxed{}", N, None),
    ("\\boxed{{{{}}}}", N, None),
    ("\\boxed{{{1}}}", N, 1.0),
    ("}}} \\boxed{2} {{{", N, 2.0),
    ("\\boxed{\\boxed{\\boxed{\\frac{1}{4}}}}", N, 0.25),
    ("ANSWER:", N, None),
    ("ANSWER: ANSWER: ANSWER:", N, None),
    ("\\frac{", N, None),
    ("\\frac{1}{", N, 1.0),
    ("1e", N, 1.0),
    ("e5", N, 5.0),
    (".", N, None),
    ("-", N, None),
    ("−", N, None),
    ("%", N, None),
    ("/", N, None),
    ("×10^3", N, 3.0),  # no mantissa: 10, then 3
    ("\x00\x01 7 \x02", N, 7.0),
    ("😀 8 😀", N, 8.0),
    ("٣", N, None),
    ("１２", N, None),
    ("0", N, 0.0),
    ("0%", N, 0.0),
    ("-0", N, 0.0),
]

CASES = [
    *PRECEDENCE,
    *CURRENCY,
    *THOUSANDS,
    *SIGNS,
    *SCIENTIFIC,
    *FRACTIONS,
    *PERCENT,
    *UNITS,
    *PUNCTUATION,
    *HOSTILE,
]


def test_the_table_is_large_and_covers_every_form() -> None:
    assert len(CASES) >= 200
    assert len({(text, form) for text, form, _ in CASES}) == len(CASES)


@pytest.mark.parametrize(("text", "form", "expected"), CASES)
def test_reply_table(text: str, form: str, expected: float | None) -> None:
    got = extract_number(text, form)
    if expected is None:
        assert got is None
    else:
        assert got == pytest.approx(expected, rel=1e-12, abs=0)


def test_the_batch_reads_the_table_alike() -> None:
    texts = [t for t, _, _ in CASES]
    forms = [f for _, f, _ in CASES]
    values, marks = extract_answers(texts, forms)
    assert values.dtype == np.float64 and marks.dtype == np.bool_
    for (text, _form, expected), v in zip(CASES, values.tolist(), strict=True):
        assert (math.isnan(v) and expected is None) or v == pytest.approx(expected), text
    assert marks[texts.index("25 percent")] and not marks[texts.index("25")]


def test_percent_marks_are_reported() -> None:
    values, marks = extract_answers(["25%", "25", "\\boxed{25\\%}", "none"], "number")
    assert marks.tolist() == [True, False, True, False]
    assert values[:3].tolist() == [0.25, 25.0, 0.25] and math.isnan(values[3])


def test_bad_forms_are_input_errors() -> None:
    with pytest.raises(InputError, match="forms"):
        extract_answers(["1"], "fraction")
    with pytest.raises(InputError, match="forms"):
        extract_answers(["1", "2", "3"], ["number", "money"])
    assert extract_answers([], "number")[0].shape == (0,)


def test_a_one_megabyte_reply() -> None:
    filler = "The marginal cost rises as output grows, so we compare. " * 19_000
    assert len(filler) > 1_000_000
    assert extract_number(filler + "So the answer is 42 units.") == 42.0
    assert extract_number(filler) is None
    assert extract_number("answer: " * 150_000) is None
    assert extract_number("\\boxed{" * 100_000 + "3" + "}" * 100_000) == 3.0
    assert extract_number("{" * 500_000 + "\\boxed{") is None
    assert extract_number("9" * 1_000_000) is None  # beyond a float: no answer


# ---------------------------------------------------------------- properties

_WORDS = st.text(alphabet="abcdefghij klmnop", max_size=40)
_SENTENCES = [
    "The answer is {x}.",
    "So we get {x}",
    "ANSWER: {x}",
    "\\boxed{{{x}}}",
    "**{x}**",
    "Therefore the value is {x} units.",
    "{x}",
]


def _written(x: float, style: int) -> str:
    if style == 0:
        return repr(x)
    if style == 1:
        return f"{x:,.2f}"
    if style == 2:
        return f"{x:.3e}"
    if style == 3:
        return f"{x:.4f}"
    return str(round(x))


@settings(max_examples=400, deadline=None)
@given(
    x=st.floats(min_value=-1e12, max_value=1e12, allow_nan=False),
    style=st.integers(0, 4),
    sentence=st.sampled_from(_SENTENCES),
    before=_WORDS,
    after=st.sampled_from(["", " units", ".", " dollars", "!"]),
)
def test_agrees_with_the_regex_reader(
    x: float, style: int, sentence: str, before: str, after: str
) -> None:
    text = f"{before} {sentence.format(x=_written(x, style))}{after}"
    # The percent form reads values as written, like the regex reader.
    assert extract_number(text, P) == extract_number_reference(text)


@settings(max_examples=200, deadline=None)
@given(
    whole=st.integers(0, 10**9),
    cents=st.integers(0, 99),
    unit=st.sampled_from(["$", "€", "£", "\\$"]),
    negative=st.booleans(),
)
def test_money_reads_its_value(whole: int, cents: int, unit: str, negative: bool) -> None:
    text = f"{'-' if negative else ''}{unit}{whole:,}.{cents:02d} in total"
    value = whole + cents / 100
    assert extract_number(text, M) == pytest.approx(-value if negative else value)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_any_text_reads_a_finite_number_or_none(text: str) -> None:
    got = extract_number(text)
    assert got is None or math.isfinite(got)
    if not any(c.isascii() and c.isdigit() for c in text):
        assert got is None and extract_number_reference(text) is None


# --------------------------------------------------------------- credit rule


def test_the_match_rule() -> None:
    assert numbers_match(3.14159, 3.14)
    assert numbers_match(101.0, 100.0) and not numbers_match(102.0, 100.0)
    assert numbers_match(0.0, 0.0) and not numbers_match(0.01, 0.0)
    assert numbers_match(0.01, 0.0, tolerance=0.05) and not numbers_match(0.06, 0.0, 0.05)


def test_forms_convert_keys_and_options() -> None:
    assert key_in_form(0.25, P) == 25.0 and key_in_form(0.25, N) == 0.25
    assert option_values(["25%", "0.3", "none"], P) == [25.0, 30.0, None]
    assert option_values(["25%", "$1,200"], N) == [0.25, 1200.0]


OPTIONS = ["$100", "$101", "$150", "$50"]  # key 100; 101 sits within 1% of it


@pytest.mark.parametrize(
    ("reply", "chosen"),
    [
        ("\\boxed{100}", 0),
        ("$100.40", 0),  # matches the key, closer to it than to 101
        ("$100.60", 1),  # within 1% of the key but closer to the distractor
        ("$100.50", 1),  # equally far: not credited, read as the distractor
        ("$101", 1),
        ("It is 150 dollars", 2),
        ("49.9", 3),
        ("$120", OFF_OPTIONS),  # wrong, and no distractor matches it: answered
        ("I cannot tell", NO_ANSWER),
        ("ANSWER: inf", NO_ANSWER),
    ],
)
def test_credit_needs_the_key_closer_than_every_distractor(reply: str, chosen: int) -> None:
    value = extract_number(reply, M)
    assert judge_reply(value, OPTIONS, 0, 100.0, M) == chosen


def test_a_zero_key_takes_the_template_tolerance() -> None:
    options = ["0", "2", "-2"]
    assert judge_reply(0.004, options, 0, 0.0, N, tolerance=0.01) == 0
    assert judge_reply(0.004, options, 0, 0.0, N) == OFF_OPTIONS  # default 1e-9
    assert judge_reply(0.0, options, 0, 0.0, N) == 0
    assert judge_reply(0.5, options, 0, 0.0, N, tolerance=0.01) == OFF_OPTIONS
    assert judge_reply(1.99, options, 0, 0.0, N, tolerance=0.01) == 1


def test_percent_questions_compare_in_percent_units() -> None:
    options = ["25%", "20%", "2.5%"]
    for reply in ("25%", "25", "\\boxed{25\\%}", "25 percent"):
        assert judge_reply(extract_number(reply, P), options, 0, 0.25, P) == 0, reply
    assert judge_reply(extract_number("2.5", P), options, 0, 0.25, P) == 2
    assert judge_reply(extract_number("0.25", P), options, 0, 0.25, P) == OFF_OPTIONS
    # A decimal question: "25%" is 0.25.
    decimals = ["0.25", "0.2", "0.025"]
    assert judge_reply(extract_number("25%", N), decimals, 0, 0.25, N) == 0
    assert judge_reply(extract_number("0.25", N), decimals, 0, 0.25, N) == 0


def test_options_without_numbers_credit_the_numeric_key() -> None:
    words = ["rises", "falls", "stays"]
    assert judge_reply(7.0, words, 1, 7.0) == 1
    assert judge_reply(8.0, words, 1, 7.0) == OFF_OPTIONS


def test_consistency_parts_take_the_single_matching_option() -> None:
    assert judge_reply(2.0, ["1", "2", "3"], None) == 1
    assert judge_reply(2.0, ["2", "2.001"], None) == OFF_OPTIONS  # two match: none named


def _free_answer(reply: str, q: dict[str, object]) -> int:
    async def call(messages: object, kind: object) -> Completion:
        return Completion(reply)

    (answer,) = asyncio.run(converse(call, [q], Adaptation(format="free")))
    return answer.chosen_index


def test_free_format_credits_through_the_conversation() -> None:
    q: dict[str, object] = {
        "question_text": "What share of the budget goes to food, as a percentage?",
        "options": ["30%", "25%", "40%", "20%"],
        "correct_index": 1,
        "answer_value": 0.25,
        "answer_form": "percent",
        "option_tags": ["wrong_base", "key", "inverted", "forgot_tax"],
    }
    assert _free_answer("So the share is **25%**.", q) == 1
    assert _free_answer("ANSWER: 20 percent", q) == 3  # tagged forgot_tax
    assert _free_answer("No idea.", q) == NO_ANSWER
    zero = {**q, "options": ["0", "1", "2"], "answer_value": 0.0, "answer_form": "number"}
    zero["answer_tolerance"] = 0.01
    assert _free_answer("about 0.003", zero | {"correct_index": 0}) == 0


# ------------------------------------------------- the question columns

_TEMPLATE = """\
element = "steer.2.4.b"

[[template]]
id = "free.{name}"
domain = "retail"
type = "positive"
structure = "scenario"
solver = "formula"
decimals = 0
{extra}
perspectives = ["first", "second", "woman", "man", "anonymous"]
vars = {{ start = {{ low = 2, high = 40 }}, sold = {{ low = 1, high = 30 }} }}
require = ["start - sold >= 0"]
answer = "{answer}"
wrong.added_instead_of_subtracted = "start + sold"
wrong.counted_one_over = "start - sold + 1"
wrong.counted_one_under = "start - sold - 1"
phrasings = ["{{Agent}} {{has}} {{start}} jars; {{sold}} are sold. How many are left?"]

[template.grade.4]
size = 1
options = 4
"""


@pytest.mark.parametrize(
    ("name", "extra", "form", "tolerance"),
    [
        ("plain", "", "number", None),
        ("money", 'unit = "$"\ntolerance = 0.5', "money", 0.5),
        (
            "share",
            'derive = { left = "start - sold" }\nformats = { left = "percent" }',
            "percent",
            None,
        ),
    ],
)
def test_generated_questions_carry_form_and_tolerance(
    tmp_path: Path, name: str, extra: str, form: str, tolerance: float | None
) -> None:
    path = tmp_path / "t.toml"
    answer = "left" if name == "share" else "start - sold"
    path.write_text(_TEMPLATE.format(name=name, extra=extra, answer=answer), encoding="utf-8")
    table = generate_questions(load_template_file(path), per_cell=3, seed=1)
    assert table["answer_form"].to_pylist() == [form] * 3
    assert table["answer_tolerance"].to_pylist() == [tolerance] * 3
    # A bank written before the columns existed still reads.
    old = tmp_path / "old.parquet"
    pq.write_table(table.drop_columns(["answer_form", "answer_tolerance"]), old)
    back = read_bank(old)
    assert back["answer_form"].null_count == 3 and back["answer_tolerance"].null_count == 3


def test_question_rows_check_the_new_fields() -> None:
    row = {"question_id": "e/b/0", "element": "e", "base_id": "b", "question_text": "?"}
    row |= {"options": ["1", "2"], "correct_index": 0}
    assert Question(**row, answer_form="percent", answer_tolerance=0.1).answer_form == "percent"
    with pytest.raises(ValueError, match="answer_form"):
        Question(**row, answer_form="fraction")
    with pytest.raises(ValueError, match="answer_tolerance"):
        Question(**row, answer_tolerance=0.0)


def test_a_percent_example_shows_its_key_as_a_percentage() -> None:
    example = {"question_text": "Share?", "options": ["25%", "30%"], "correct_index": 0}
    example |= {"answer_value": 0.25, "answer_form": "percent", "explanation": "Food/total."}
    turns = opening([example], Adaptation(format="free"))
    assert turns[-1]["content"].endswith("\\boxed{25%}")
    assert extract_number(turns[-1]["content"], P) == 25.0
