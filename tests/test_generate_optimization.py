"""Optimization and transitivity elements (1.2.b, 1.2.c, 2.1.b, 2.3.b),
property-tested over seeds against plain-Python references written here: the
continuous objectives are maximized by brute force over a fine grid, the
production plans by enumerating every whole-number plan, and the preference
chains by every complete ranking that fits the stated comparisons.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.generate import generate_bank

Row = dict[str, Any]

NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def numbers(text: str) -> list[float]:
    return [float(x.replace(",", "")) for x in NUMBER.findall(text)]


def bank(element: str, seed: int, allow_other: bool = False) -> list[Row]:
    """A small seeded bank; numeric answers may fill with nearby numbers (`other`)."""
    rows = generate_bank([element], per_cell=2, seed=seed).to_pylist()
    assert rows
    for q in rows:
        assert q["option_tags"].count("key") == 1
        assert q["option_tags"][q["correct_index"]] == "key"
        assert len(set(q["options"])) == len(q["options"])
        assert allow_other or all(tag != "other" for tag in q["option_tags"]), q["option_tags"]
    return rows


# --- 1.2.b: continuous objectives, maximized over a fine grid ---------------------------


def objective(tid: str, env: dict[str, float]) -> tuple[Any, float, float]:
    """The objective of the answer's variable and its feasible interval."""
    if tid == "oc.box":
        length, width = env["L"], env["W"]
        return (lambda x: x * (length - 2 * x) * (width - 2 * x)), 0.0, width / 2
    if tid == "oc.monopoly-output":
        a, b, c = env["a"], env["b"], env["c"]
        return (lambda q: (a - b * q - c) * q), 0.0, env["cap"]
    if tid == "oc.fence":  # the side along the river, y; the two ends are (P - y) / 2
        p = env["P"]
        return (lambda y: y * (p - y) / 2), 0.0, p
    if tid == "oc.ticket-price":
        choke, k, c = env["choke"], env["k"], env["c"]
        return (lambda price: (price - c) * k * (choke - price)), 0.0, choke
    raise AssertionError(tid)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_continuous_optimum_matches_grid_search(seed: int) -> None:
    for q in bank("1.2.b", seed, allow_other=True):
        env = json.loads(q["payload"])["env"]
        tid = q["template_id"]
        f, lo, hi = objective(tid, env)
        grid = np.linspace(lo, hi, 200_001)
        values = f(grid)
        best_x = float(grid[int(np.argmax(values))])
        x = numbers(q["options"][q["correct_index"]])[0]
        assert x == pytest.approx(q["answer_value"])
        assert abs(x - best_x) <= (hi - lo) / 100_000 + 1e-9, (q["question_text"], x, best_x)
        for i, text in enumerate(q["options"]):
            if i != q["correct_index"]:
                assert abs(numbers(text)[0] - best_x) > (hi - lo) / 100_000, (text, x)
        if tid == "oc.monopoly-output":  # whole units too, and the capacity can bind
            qs = np.arange(0, int(env["cap"]) + 1)
            assert x == qs[int(np.argmax(f(qs)))]


def test_capacity_binds_in_some_monopoly_questions() -> None:
    """The boundary is the answer in some draws, so 'never the capacity' is no rule."""
    rows = generate_bank(["1.2.b"], per_cell=60, seed=2).to_pylist()
    mono = [q for q in rows if q["template_id"] == "oc.monopoly-output"]
    binding = [q for q in mono if json.loads(q["payload"])["env"]["bind"] == 1]
    assert 0.2 < len(binding) / len(mono) < 0.5


# --- 1.2.c: production plans, by enumeration --------------------------------------------


def plan_env(env: dict[str, float]) -> tuple[float, ...]:
    return tuple(env[k] for k in ("H", "ha", "hb", "pa", "pb", "ca", "cb"))


def feasible(env: dict[str, float], a: float, b: float) -> bool:
    hours, ha, hb, _pa, _pb, ca, cb = plan_env(env)
    return 0 <= a <= ca and 0 <= b <= cb and ha * a + hb * b <= hours


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_production_plan_is_the_best_whole_plan(seed: int) -> None:
    for q in bank("1.2.c", seed, allow_other=True):
        env = json.loads(q["payload"])["env"]
        hours, ha, hb, pa, pb, ca, cb = plan_env(env)
        # the question states every number of the problem
        assert {hours, ha, hb, pa, pb, ca, cb} <= set(numbers(q["question_text"].replace("$", "")))

        plans = [
            (a, b) for a in range(int(ca) + 1) for b in range(int(cb) + 1) if feasible(env, a, b)
        ]
        profits = [pa * a + pb * b for a, b in plans]
        top = max(profits)
        winners = [p for p, v in zip(plans, profits, strict=True) if v == top]
        assert len(winners) == 1, winners
        # The key is the best whole plan's profit; no other option is.
        values = [numbers(o.replace("$", ""))[0] for o in q["options"]]
        assert values[q["correct_index"]] == top, (q["question_text"], q["options"], top)
        assert values.count(top) == 1
        tags = dict(zip(q["option_tags"], values, strict=True))
        # Each named error is the profit of the plan it names.
        if "ignored_constraint" in tags:
            assert tags["ignored_constraint"] == pa * ca + pb * cb
            assert not feasible(env, ca, cb)
        if "highest_unit_profit" in tags:
            assert tags["highest_unit_profit"] in profits and tags["highest_unit_profit"] < top
        if "split_hours_evenly" in tags:
            a, b = min(ca, hours // (2 * ha)), min(cb, hours // (2 * hb))
            assert tags["split_hours_evenly"] == pa * a + pb * b


# --- 2.1.b / 2.3.b: preference chains, by every ranking that fits ------------------------


def verdicts(links: list[list[Any]], n: int, x: int, y: int) -> set[str]:
    """How x compares with y in every complete, transitive ranking (a level
    per alternative, ties allowed) that agrees with the stated comparisons."""
    out = set()
    for level in itertools.product(range(n), repeat=n):
        if all(
            level[u] > level[v] if kind == "gt" else level[u] == level[v] for u, v, kind in links
        ):
            out.add("first" if level[x] > level[y] else "second" if level[x] < level[y] else "tie")
    return out


def stated(names: list[str], u: int, v: int, kind: str) -> str:
    if kind == "eq":
        return f"{names[u]} and {names[v]} are equally good"
    return f"{names[u]} is better than {names[v]}"


LOTTERY = re.compile(
    r"(\w+(?: plan)? [A-Z][a-z]+) pays \$([\d,]+) with probability ([\d.]+)%, otherwise \$([\d,]+)"
)


@pytest.mark.parametrize("element", ["2.1.b", "2.3.b"])
@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_transitive_choice_follows_the_chain(element: str, seed: int) -> None:
    for q in bank(element, seed):
        d = json.loads(q["payload"])
        names, links, (x, y) = d["names"], d["links"], d["pair"]
        n = len(names)
        assert len(links) == n - 1
        assert all({u, v} != {x, y} for u, v, _ in links)  # never compared directly
        for u, v, kind in links:
            assert stated(names, u, v, kind) in q["question_text"]
        found = verdicts(links, n, x, y)
        assert found  # the comparisons are consistent
        key = q["options"][q["correct_index"]]
        if len(found) > 1:
            assert key == "It cannot be determined from the stated comparisons"
        else:
            (only,) = found
            expected = {"first": names[x], "second": names[y], "tie": "Either one: they tie"}
            assert key == expected[only]
        if element == "2.3.b":
            found_lots = LOTTERY.findall(q["question_text"])
            assert [f[0] for f in found_lots] == names
            prizes = [
                (float(h.replace(",", "")), float(lo.replace(",", "")))
                for _, h, _, lo in found_lots
            ]
            for (h1, l1), (h2, l2) in itertools.combinations(prizes, 2):
                # neither lottery first-order stochastically dominates the other
                assert (h1 - h2) * (l1 - l2) < 0, prizes


def test_transitivity_answers_are_balanced() -> None:
    """Either alternative, "neither" and "cannot be determined" are each the key
    about a quarter of the time (a trailing escape option is not a free pass)."""
    rows = generate_bank(["2.1.b", "2.3.b"], per_cell=60, seed=5).to_pylist()
    keys = []
    for q in rows:
        d = json.loads(q["payload"])
        key = q["options"][q["correct_index"]]
        names = [d["names"][i] for i in d["pair"]]
        keys.append(names.index(key) if key in names else key)
    for answer in (
        0,
        1,
        "Either one: they tie",
        "It cannot be determined from the stated comparisons",
    ):
        assert 0.18 < keys.count(answer) / len(keys) < 0.32, answer


def test_grades_and_error_tags() -> None:
    rows = generate_bank(["1.2.b", "1.2.c", "2.1.b", "2.3.b"], per_cell=3, seed=11).to_pylist()
    grades: dict[str, set[int]] = {}
    tags: set[str] = set()
    for q in rows:
        grades.setdefault(q["element"], set()).add(q["grade"])
        tags.update(q["option_tags"])
    assert grades == {
        "steer.1.2.b": {2, 3},
        "steer.1.2.c": {3, 4},
        "steer.2.1.b": {2, 3},
        "steer.2.3.b": {2, 3},
    }
    assert {
        "ignored_cost",
        "treated_as_square",
        "ignored_constraint",
        "highest_unit_profit",
        "split_hours_evenly",
        "intransitive_choice",
        "no_transitive_inference",
    } <= tags
