"""The consistency-rule language (`same`, `flip`, `map:AB=S0|S1|…`) against a
plain reference: Python's generate-side parser and `rule_holds`, the audit's
vectorised `holds` and `p_random`, and the Rust scorer on a real response
table must all agree with it; `permute_rule` must keep a rule's meaning when
options are reordered."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.audit._consistency import holds as audit_holds
from steer.audit._consistency import p_random as audit_p_random
from steer.audit._consistency import parse_rule as audit_parse
from steer.generate._consistency import parse_rule, permute_rule, rule_holds
from steer.schema import RESPONSE_SCHEMA
from steer.score import score

# --- the reference: the grammar read literally, one clause and one choice at a time ------------


def ref_parse(text: str) -> list[tuple[int, int, str, list[str]]]:
    """(a, b, kind, sets) per constraint; sets only for map."""
    out = []
    for clause in text.split(";"):
        clause = clause.strip()
        if not clause:
            continue
        kind, rest = clause.split(":", 1)
        kind = kind.strip()
        if kind == "map":
            pair, sets = rest.split("=", 1)
            pair = pair.strip()
            out.append((int(pair[0]), int(pair[1]), "map", [s.strip() for s in sets.split("|")]))
        else:
            for pair in rest.split(","):
                pair = pair.strip()
                out.append((int(pair[0]), int(pair[1]), kind, []))
    return out


def ref_holds(text: str, choice: list[int], n: list[int]) -> bool:
    for a, b, kind, sets in ref_parse(text):
        x, y = choice[a], choice[b]
        if kind == "same":
            ok = x == y
        elif kind == "flip":
            ok = y == n[b] - 1 - x
        elif x < 0 or x >= len(sets):
            ok = False  # a choice beyond the listed sets
        elif sets[x] == "*":
            ok = 0 <= y < n[b]
        elif sets[x] == "-":
            ok = False
        else:
            ok = y in [int(i) for i in sets[x].split("+")]
        if not ok:
            return False
    return True


def ref_p_random(text: str, n: list[int]) -> float:
    parts = sorted({p for a, b, _, _ in ref_parse(text) for p in (a, b)})
    combos = list(itertools.product(*(range(n[p]) for p in parts)))
    hits = 0
    for combo in combos:
        choice = [0] * len(n)
        for p, c in zip(parts, combo, strict=True):
            choice[p] = c
        hits += ref_holds(text, choice, n)
    return hits / len(combos)


# --- random rules ----------------------------------------------------------------------------


@st.composite
def rules(draw: st.DrawFn, n_parts: int = 3) -> tuple[str, list[int]]:
    """A random rule over `n_parts` parts and each part's option count."""
    n = [draw(st.integers(1, 5)) for _ in range(n_parts)]
    clauses = []
    for _ in range(draw(st.integers(1, 3))):
        a, b = draw(st.permutations(range(n_parts)))[:2]
        kind = draw(st.sampled_from(["same", "flip", "map", "map"]))
        if kind != "map":
            clauses.append(f"{kind}:{a}{b}")
            continue
        sets = []
        for _ in range(draw(st.integers(1, n[a] + 1))):
            form = draw(st.sampled_from(["*", "-", "set", "set", "set"]))
            if form == "set":
                items = draw(st.lists(st.integers(0, n[b]), min_size=1, max_size=3))
                form = "+".join(str(i) for i in items)
            sets.append(form)
        clauses.append(f"map:{a}{b}=" + "|".join(sets))
    sep = draw(st.sampled_from([";", "; ", " ; "]))
    return sep.join(clauses), n


def all_choices(n: list[int]) -> list[list[int]]:
    return [list(c) for c in itertools.product(*(range(k) for k in n))]


# --- tests -----------------------------------------------------------------------------------


def test_map_by_hand() -> None:
    # IIA with a dominating newcomer: option 0 chosen first forces option 2;
    # option 1 allows 1 or 2.
    rule = "map:01=2|1+2"
    assert [rule_holds(rule, c, [2, 3]) for c in ([0, 2], [0, 0], [1, 1], [1, 2], [1, 0])] == [
        True,
        False,
        True,
        True,
        False,
    ]
    assert audit_p_random(rule, (2, 3)) == pytest.approx(0.5)
    # `*`, `-`, indices above 9, and a choice beyond the listed sets.
    rule = "map:10=*|-|10+12"
    n = [13, 4]
    assert rule_holds(rule, [12, 0], n) and not rule_holds(rule, [0, 1], n)
    assert rule_holds(rule, [10, 2], n) and not rule_holds(rule, [11, 2], n)
    assert not rule_holds(rule, [0, 3], n)
    assert audit_p_random(rule, (13, 4)) == pytest.approx((13 + 0 + 2 + 0) / 52)


@pytest.mark.parametrize(
    ("sugar", "n", "expanded"),
    [("same:01", [3, 3], "map:01=0|1|2"), ("flip:01", [3, 2], "map:01=1|0|-")],
)
def test_same_and_flip_are_maps(sugar: str, n: list[int], expanded: str) -> None:
    for c in all_choices(n):
        assert rule_holds(sugar, c, n) == rule_holds(expanded, c, n), c


@pytest.mark.parametrize(
    ("bad", "names"),
    [
        ("", "no constraints"),
        ("same", "same"),
        ("same:00", "same:00"),
        ("equal:01", "equal:01"),
        ("map:01", "map:01"),
        ("map:01=", "map:01="),
        ("map:01=0||1", "map:01=0||1"),
        ("map:01=0++1", "map:01=0++1"),
        ("map:01=x", "map:01=x"),
        ("map:01=-1", "map:01=-1"),
        ("map:01=1000", "map:01=1000"),
        ("map:00=0|1", "map:00=0|1"),
        ("map:01,12=0|1", "map:01,12=0|1"),
        ("same:01; map:12=0|²", "map:12=0|²"),
    ],
)
def test_malformed_rules_name_the_clause(bad: str, names: str) -> None:
    with pytest.raises(ValueError, match="consistency rule") as info:
        parse_rule(bad)
    assert names in str(info.value)
    with pytest.raises(ValueError):
        audit_parse(bad)


@settings(max_examples=200, deadline=None)
@given(rules())
def test_python_holds_and_chance_match_the_reference(case: tuple[str, list[int]]) -> None:
    rule, n = case
    choices = all_choices(n)
    expected = [ref_holds(rule, c, n) for c in choices]
    assert [rule_holds(rule, c, n) for c in choices] == expected
    vectorised = audit_holds(
        audit_parse(rule),
        np.array(choices, dtype=np.int64),
        np.tile(np.array(n, dtype=np.int64), (len(choices), 1)),
    )
    assert vectorised.tolist() == expected
    assert audit_p_random(rule, tuple(n)) == pytest.approx(ref_p_random(rule, n), abs=1e-12)


def _responses(groups: list[tuple[str, list[int], list[int]]]) -> pa.Table:
    """One consistency group per model name, so each scores in its own cell."""
    rows: list[dict[str, Any]] = []
    for g, (rule, choice, n) in enumerate(groups):
        for part, (c, k) in enumerate(zip(choice, n, strict=True)):
            rows.append(
                {
                    "run_id": "r",
                    "model": f"m{g}",
                    "backend": "agent",
                    "adaptation": {
                        "format": "mc",
                        "shots": 0,
                        "cot": "none",
                        "prob_mode": "conditioning",
                    },
                    "question_id": f"steer.2.1.c/b{g}/{part}",
                    "base_id": f"b{g}",
                    "element": "steer.2.1.c",
                    "part": part,
                    "n_options": k,
                    "chosen_index": c,
                    "consistency_rule": rule,
                }
            )
    columns = {f.name: [r.get(f.name) for r in rows] for f in RESPONSE_SCHEMA}
    columns["sample"] = [0] * len(rows)
    return pa.Table.from_pydict(columns, schema=RESPONSE_SCHEMA)


@settings(max_examples=60, deadline=None)
@given(st.lists(rules().flatmap(lambda rn: st.tuples(
    st.just(rn[0]),
    st.tuples(*(st.integers(0, k - 1) for k in rn[1])).map(list),
    st.just(rn[1]),
)), min_size=1, max_size=8))  # fmt: skip
def test_rust_scorer_matches_the_reference(groups: list[tuple[str, list[int], list[int]]]) -> None:
    scored = score(_responses(groups), by=["model"], metrics=["exact_match"], ci=None)
    got = {
        m: (em, p)
        for m, em, p in zip(
            scored["model"].to_pylist(),
            scored["exact_match"].to_pylist(),
            scored["sum_p_random"].to_pylist(),
            strict=True,
        )
    }
    for g, (rule, choice, n) in enumerate(groups):
        em, p = got[f"m{g}"]
        assert em == float(ref_holds(rule, choice, n)), (rule, choice, n)
        assert p == pytest.approx(ref_p_random(rule, n), abs=1e-12)


@st.composite
def rules_and_perms(draw: st.DrawFn) -> tuple[str, list[int], list[list[int]]]:
    rule, n = draw(rules())
    perms = [list(draw(st.permutations(range(k)))) for k in n]
    return rule, n, perms


@settings(max_examples=300, deadline=None)
@given(rules_and_perms())
def test_permuted_rules_keep_their_meaning(case: tuple[str, list[int], list[list[int]]]) -> None:
    """Reordering the options and the rule together changes no verdict."""
    rule, n, perms = case
    shown = permute_rule(rule, perms)
    parse_rule(shown)  # well formed
    for c in all_choices(n):
        displayed = [perms[p][c[p]] for p in range(len(n))]
        assert rule_holds(rule, c, n) == rule_holds(shown, displayed, n), (rule, shown, c)
        assert ref_holds(rule, c, n) == ref_holds(shown, displayed, n)


def test_permute_rule_by_hand() -> None:
    assert permute_rule("same:01", [[0, 1], [0, 1, 2]]) == "same:01"
    # Part 0 reversed, part 1 rotated: old 0 → shown 1 needs old 2 → shown 1.
    assert permute_rule("map:01=2|1+2", [[1, 0], [2, 0, 1]]) == "map:01=0+1|1"
    assert permute_rule("flip:01; same:12", [[1, 0], [0, 1], [1, 0]]) == ("map:01=0|1; map:12=1|0")
    with pytest.raises(ValueError, match="not a permutation"):
        permute_rule("same:01", [[0, 0], [0, 1]])


# --- generated banks and model-written parts ------------------------------------------------

CONSISTENCY_ELEMENTS = [
    "steer.2.1.c",
    "steer.2.2.b",
    "steer.2.2.c",
    "steer.2.3.c",
    "steer.2.5.b",
    "steer.2.5.c",
    "steer.2.5.d",
]


def test_generated_rules_follow_the_shown_order() -> None:
    """Every generated group's rule, read over the shown options, gives the
    verdict of the template's rule over the options as the template writes them
    (`option_order` maps one to the other), and the shown order varies."""
    from steer.generate import generate_bank
    from steer.templates import load_templates

    written = {t.spec.id: t.spec.consistency_rule for t in load_templates()}
    rows = generate_bank(CONSISTENCY_ELEMENTS, per_cell=6, seed=11).to_pylist()
    groups: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        assert r["grading"] == "consistency"
        groups.setdefault(r["consistency_group"], []).append(r)
    orders = set()
    for parts in groups.values():
        parts.sort(key=lambda r: r["part"])
        rule = parts[0]["consistency_rule"]
        assert all(r["consistency_rule"] == rule for r in parts)
        template_rule = written[parts[0]["template_id"]]
        assert template_rule is not None
        n = [len(r["options"]) for r in parts]
        order = [r["option_order"] for r in parts]
        orders.add(tuple(map(tuple, order)))
        for c in all_choices(n):
            original = [order[p][c[p]] for p in range(len(n))]
            assert rule_holds(rule, c, n) == rule_holds(template_rule, original, n)
    assert len(orders) > 10


def test_keep_the_first_answer_is_not_a_shortcut() -> None:
    """On a generated bank, answering part 0 with its first option and every later
    part with the option of the same text (else the same position) is consistent
    no more often than chance + 10 points in any element (the audit's rule)."""
    from steer.audit import audit_bank
    from steer.generate import generate_bank

    bank = generate_bank(CONSISTENCY_ELEMENTS, per_cell=100, seed=5)
    report = audit_bank(bank, min_n=300, learner=False, rubric=None)
    assert {e.element for e in report.elements} == set(CONSISTENCY_ELEMENTS)
    for e in report.elements:
        assert e.grading == "consistency" and e.status == "pass", e
        agents = {a.agent: a for a in e.agents}
        assert {"keep", "switch"} <= set(agents)
        for name in ("keep", "switch"):
            assert agents[name].gap <= 0.10, (e.element, agents[name])


def test_model_written_parts_may_carry_map_rules() -> None:
    """`verify_parts` (used on model replies) accepts a map rule whose sets
    cover part A's options within part B's range, and says why otherwise."""
    from steer.generate._consistency import verify_parts

    parts = [("Pick one.", ["a", "b", "c"]), ("Pick again.", ["a", "b", "c", "d"])]
    assert verify_parts(parts, "map:01=3|3|2+3") is None
    assert "lists 2 sets" in (verify_parts(parts, "map:01=3|3") or "")
    assert "names option 4" in (verify_parts(parts, "map:01=3|4|2") or "")
    assert "consistency rule" in (verify_parts(parts, "map:01=3|x|2") or "")
    assert "part 2" in (verify_parts(parts, "map:02=0|1|2") or "")
