"""Matched control pairs (issue 20 §2): 2.4.c–e keys are not constant.

Avoiding risk aversion (2.4.c), risk seeking (2.4.d) and loss aversion (2.4.e)
means choosing the higher expected value, which is by design the gamble, the
sure thing or accepting the bet. Each question is therefore paired with a
matched control (the same scenario drawn so that the other option is worth
more) as parts 0 and 1 of one base_id, in a seeded order. Scored right only if
both parts are, a rule that always picks one kind of option scores nothing,
and no blind agent beats chance; every key, the control's included, is
re-derived here from its stored payload with plain Python.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from steer.audit import audit_bank
from steer.bank._order import in_payload_order
from steer.errors import FileFormatError
from steer.generate import generate_bank
from steer.templates import load_template_file, load_templates
from steer.templates._expr import compile_expr

Row = dict[str, Any]
ELEMENTS = ["steer.2.4.c", "steer.2.4.d", "steer.2.4.e"]
# The kind of option the construct keys in the original (the control keys the other).
ORIGINAL_KIND = {"steer.2.4.c": "risky", "steer.2.4.d": "sure", "steer.2.4.e": "risky"}
SPECS = {t.spec.id: t.spec for t in load_templates()}


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=60, seed=7)


def _units(table: pa.Table) -> dict[str, list[Row]]:
    units: dict[str, list[Row]] = defaultdict(list)
    # Options as the payload orders them (the bank shows both parts in one
    # seeded order, see steer.bank._order).
    for q in map(in_payload_order, table.to_pylist()):
        units[q["question_id"].rsplit("/", 1)[0]].append(q)
    return {k: sorted(v, key=lambda q: q["part"]) for k, v in units.items()}


def _kind(lottery: dict[str, list[float]]) -> str:
    """A lottery of one outcome is the sure thing (declining a bet: 0 for sure)."""
    return "sure" if len(lottery["values"]) == 1 else "risky"


def _ev(lottery: dict[str, list[float]]) -> float:
    return sum(v * p for v, p in zip(lottery["values"], lottery["probs"], strict=True))


def test_every_template_of_the_three_elements_has_a_control() -> None:
    mine = [t for t in load_templates() if t.element in ELEMENTS]
    assert len(mine) >= 9
    assert all(t.spec.control is not None for t in mine)


def test_each_question_is_an_original_and_its_control(bank: pa.Table) -> None:
    units = _units(bank)
    assert len(units) == 3 * 4 * 60  # three elements, four templates each
    controls_first = 0
    for base, parts in units.items():
        assert [q["part"] for q in parts] == [0, 1], base
        assert len({q["base_id"] for q in parts}) == 1
        assert all(q["grading"] == "answer" for q in parts)
        payloads = [json.loads(q["payload"]) for q in parts]
        roles = [p["role"] for p in payloads]
        assert sorted(roles) == ["control", "original"], base
        controls_first += roles[0] == "control"
        kinds = {
            p["role"]: _kind(p["lotteries"][q["correct_index"]])
            for p, q in zip(payloads, parts, strict=True)
        }
        element = parts[0]["element"]
        original = ORIGINAL_KIND[element]
        assert kinds["original"] == original, base
        assert kinds["control"] == ("sure" if original == "risky" else "risky"), base
        # Same scenario, same options in the same order: the keys sit apart.
        a, b = parts
        assert a["template_id"] == b["template_id"] and a["perspective"] == b["perspective"]
        assert sorted(o.split("$")[0] for o in a["options"]) == sorted(
            o.split("$")[0] for o in b["options"]
        )
        assert payloads[0]["order"] == payloads[1]["order"]
        assert a["correct_index"] != b["correct_index"]
        assert a["question_text"] != b["question_text"]
    # Which part is the control is a seeded coin: near half either way.
    assert 0.4 < controls_first / len(units) < 0.6


def test_keys_are_rederived_from_each_payload(bank: pa.Table) -> None:
    """Each part's key is the lottery of highest expected value in its own
    payload, clearly ahead; the options are the template's choices in the
    payload's order; the numbers the text states are the payload's."""
    for q in map(in_payload_order, bank.to_pylist()):
        d = json.loads(q["payload"])
        evs = [_ev(lot) for lot in d["lotteries"]]
        best = max(range(len(evs)), key=evs.__getitem__)
        assert q["correct_index"] == best
        assert evs[best] - min(evs) >= 0.01 * abs(evs[best]), q["question_id"]
        assert q["option_tags"][best] == "key" and q["option_tags"].count("key") == 1
        spec = SPECS[q["template_id"]]
        for text, i in zip(q["options"], d["order"], strict=True):
            assert text.startswith(spec.choices[i].text.split("{")[0])
        # The right constraint set holds for the part's role.
        env, required = d["env"], spec.require if d["role"] == "original" else None
        if required is None:
            assert spec.control is not None
            required = spec.control.require
        assert all(compile_expr(r).evaluate(env) for r in required), q["question_id"]


def test_the_wrong_option_of_a_control_is_tagged_by_its_error(bank: pa.Table) -> None:
    tags = defaultdict(set)
    for q in bank.to_pylist():
        role = json.loads(q["payload"])["role"]
        tags[(q["element"], role)] |= {t for t in q["option_tags"] if t != "key"}
    assert tags[("steer.2.4.c", "original")] == {"certainty_bias"}
    assert tags[("steer.2.4.c", "control")] == {"risk_seeking"}
    assert tags[("steer.2.4.d", "original")] == {"longshot_bias"}
    assert tags[("steer.2.4.d", "control")] == {"certainty_bias"}
    assert tags[("steer.2.4.e", "original")] == {"loss_aversion"}
    assert tags[("steer.2.4.e", "control")] == {"risk_seeking"}


def _unit_accuracy(units: list[list[Row]], pick: Any) -> float:
    return sum(all(pick(q) == q["correct_index"] for q in parts) for parts in units) / len(units)


@pytest.mark.parametrize("element", ELEMENTS)
def test_blind_rules_score_at_most_chance(bank: pa.Table, element: str) -> None:
    units = [p for p in _units(bank).values() if p[0]["element"] == element]
    chance = 0.25  # two two-option parts, right only if both are

    def of_kind(kind: str) -> Any:
        return lambda q: next(
            i for i, lot in enumerate(json.loads(q["payload"])["lotteries"]) if _kind(lot) == kind
        )

    rules = {
        "always the gamble / accept": of_kind("risky"),
        "always the sure thing / decline": of_kind("sure"),
        "always first": lambda q: 0,
        "always last": lambda q: len(q["options"]) - 1,
        "longest option": lambda q: max(
            range(len(q["options"])), key=lambda i: len(q["options"][i])
        ),
    }
    for name, rule in rules.items():
        assert _unit_accuracy(units, rule) <= chance + 0.05, name
    # The construct is intact: a consistently biased agent fails every unit,
    # an expected-value maximiser passes every one.
    biased = of_kind("sure" if ORIGINAL_KIND[element] == "risky" else "risky")
    assert _unit_accuracy(units, biased) == 0.0

    def rational(q: Row) -> int:
        lots = json.loads(q["payload"])["lotteries"]
        return max(range(len(lots)), key=lambda i: _ev(lots[i]))

    assert _unit_accuracy(units, rational) == 1.0


def test_the_shortcut_audit_passes_the_three_elements() -> None:
    """Before the pairs, key-text and number agents scored 1.00 against 0.50."""
    table = generate_bank(ELEMENTS, per_cell=300, seed=3)
    report = audit_bank(table, min_n=400)
    judged = {e.element: e for e in report.elements}
    for element in ELEMENTS:
        audit = judged[element]
        assert audit.status == "pass", (element, audit.worst)
        assert all(a.gap <= 0.10 for a in audit.agents), element
        # Keys sit at each position equally often (one per part of each unit).
        assert audit.key_positions[0] == audit.key_positions[1]


def test_generation_is_deterministic_per_seed() -> None:
    a = generate_bank(["2.4.d"], per_cell=20, seed=11)
    b = generate_bank(["2.4.d"], per_cell=20, seed=11)
    c = generate_bank(["2.4.d"], per_cell=20, seed=12)
    assert a.equals(b)
    assert a["question_text"].to_pylist() != c["question_text"].to_pylist()


_TEMPLATE = """
element = "steer.2.4.c"

[[template]]
id = "ra.test"
domain = "careers"
type = "normative"
structure = "{structure}"
solver = "{solver}"
unit = "$"
decimals = 0
require = ["0.5 * prize >= sure * 1.1"]
control = {{ require = [{control}] }}
choices = [
    {{ text = "The sure {{sure}}", values = ["sure"] }},
    {{ text = "The coin flip", values = ["prize", "0"], probs = ["0.5", "0.5"] }},
]
phrasings = ["Take {{sure}} or a fair chance at {{prize}}? Valuing money linearly, which?"]

[template.vars]
sure = {{ low = 1000, high = 9000, step = 100 }}
prize = {{ low = 2000, high = 20000, step = 100 }}

[template.grade.6]
size = 2
"""


def _write(tmp_path: Path, **fields: str) -> Path:
    values = {"structure": "scenario", "solver": "max_expected_value"} | fields
    path = tmp_path / "t.toml"
    path.write_text(_TEMPLATE.format(**values))
    return path


def test_a_control_template_loads_and_generates(tmp_path: Path) -> None:
    (template,) = load_template_file(_write(tmp_path, control='"0.5 * prize <= sure / 1.1"'))
    rows = generate_bank(templates=[template], per_cell=10, seed=1).to_pylist()
    assert len(rows) == 20 and {q["part"] for q in rows} == {0, 1}


def test_a_control_that_can_never_be_met_is_refused(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="can never"):
        load_template_file(_write(tmp_path, control='"prize < 0"'))


def test_a_control_needs_a_choice_scenario(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="control"):
        load_template_file(_write(tmp_path, control='"prize > 0"', solver="formula"))
