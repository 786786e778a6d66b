"""Mechanism-design and fair-division generators (4.3.a–d, 4.2.d, 2.2.b), checked
over seeds against plain-Python references written here: brute-force dominance
over a grid of values and deviations, participation payoffs, summed transfers,
interim utilities over a small type space and the value of each share.

Every key is recomputed from the stored payload (the sampled variables), and
the option the generator keyed must be the one the reference picks.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.generate import generate_bank
from steer.generate._consistency import rule_holds
from steer.templates import load_templates

SPECS = {t.spec.id: t.spec for t in load_templates() if t.element.startswith("steer.")}
Row = dict[str, Any]


def keyed_choice(q: Row) -> int:
    """Index, in the template's `choices`, of the option the generator keyed."""
    d = json.loads(q["payload"])
    assert q["option_tags"].count("key") == 1 and q["option_tags"][q["correct_index"]] == "key"
    shown = q["correct_index"]
    # The final seeded option permutation: shown option i was option option_order[i].
    before = q["option_order"][shown] if q.get("option_order") is not None else shown
    return d["order"][before]


def bank(element: str, seed: int) -> list[Row]:
    rows = generate_bank([element], per_cell=3, seed=seed).to_pylist()
    assert rows
    return rows


# --- 4.3.a DSIC: brute force over values, rival bids and deviations ---------------------


def blend_deviations(k: float, selling: bool) -> tuple[bool, bool]:
    """(some report below one's value pays, some report above it pays) in the
    two-bidder rule where the winner's price is k·own + (1 − k)·other. Values,
    rival reports and deviations range over a grid; ties split the item."""
    grid = range(0, 21)
    below = above = False
    for v, o in itertools.product(grid, grid):

        def utility(b: int, v: int = v, o: int = o) -> float:
            price = k * b + (1 - k) * o
            gain = price - v if selling else v - price
            wins = b < o if selling else b > o
            return gain if wins else gain / 2 if b == o else 0.0

        truthful = utility(v)
        for b in grid:
            if utility(b) > truthful + 1e-12:
                below |= b < v
                above |= b > v
    return below, above


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_dsic_keys_match_brute_force(seed: int) -> None:
    for q in bank("4.3.a", seed):
        env = json.loads(q["payload"])["env"]
        selling = q["template_id"] == "ds.procurement"
        below, above = blend_deviations(env["k"], selling)
        shading = above if selling else below
        wrong_way = below if selling else above
        assert not (shading and wrong_way)
        # choices: truthful is dominant, shading pays, bidding the other way pays
        expected = 1 if shading else 2 if wrong_way else 0
        assert keyed_choice(q) == expected, (q["question_text"], env)
        assert (env["k"] == 0) == (expected == 0)


# --- 4.3.c individual rationality at a stated horizon ----------------------------------


def ir_level(e: dict[str, float]) -> int:
    """How many of ex post, interim and ex ante participation hold (they are
    nested), by listing every outcome of every type: a type t wins with
    probability p_t and then has g_t - fee; a loser has -fee x (1 - refund)."""
    types = [(e["q"], e["ph"], e["gh"]), (1 - e["q"], e["pl"], e["gl"])]
    fee, kept = e["F"], 1 - e["rf"]
    outcomes = [(p, [(pw, g - fee), (1 - pw, -fee * kept)]) for p, pw, g in types]
    ex_post = all(x >= 0 for _, branch in outcomes for pw, x in branch if pw > 0)
    interim = all(sum(pw * x for pw, x in branch) >= 0 for _, branch in outcomes)
    ex_ante = sum(p * sum(pw * x for pw, x in branch) for p, branch in outcomes) >= 0
    assert ex_ante >= interim >= ex_post  # nested
    return int(ex_post) + int(interim) + int(ex_ante)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_ir_keys_match_participation_payoff(seed: int) -> None:
    for q in bank("4.3.c", seed):
        env = json.loads(q["payload"])["env"]
        text = q["question_text"]
        assert all(w in text.lower() for w in ("ex ante", "interim", "ex post")), text
        # choices: all three, interim and ex ante, ex ante only, none
        assert keyed_choice(q) == 3 - ir_level(env), (text, env)


def test_mechanism_distractors_are_tagged() -> None:
    rows = generate_bank(["4.3.a", "4.3.c"], per_cell=4, seed=3).to_pylist()
    tags = {t for q in rows for t in q["option_tags"]}
    assert {"price_rule_misread_as_truthful", "misread_price_weight", "averaged_over_types"} <= tags
    assert all(len(q["options"]) == len(set(q["options"])) for q in rows)


# --- 4.3.d budget balance: VCG taxes from welfare with and without each agent ------------


def vcg_taxes(values: list[float], cost: float) -> list[float]:
    """Clarke taxes by enumerating both decisions, from gross values and an equal
    split of the cost (independent of the pivot shortcut in the templates)."""
    n = len(values)
    share = cost / n

    def others_welfare(decision: int, skip: int, among: list[int]) -> float:
        return sum(decision * (values[j] - share) for j in among if j != skip)

    def best(among: list[int]) -> int:
        welfare = {d: sum(d * (values[j] - share) for j in among) for d in (0, 1)}
        return 1 if welfare[1] >= welfare[0] else 0

    everyone = list(range(n))
    d = best(everyone)
    taxes = []
    for i in everyone:
        rest = [j for j in everyone if j != i]
        taxes.append(others_welfare(best(rest), i, rest) - others_welfare(d, i, rest))
    return taxes


def _number(text: str) -> float:
    return float(text.replace("$", "").replace(",", ""))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_budget_balance_keys_are_vcg_tax_totals(seed: int) -> None:
    for q in bank("4.3.d", seed):
        e = json.loads(q["payload"])["env"]
        taxes = vcg_taxes([e["w1"], e["w2"], e["w3"]], e["cost"])
        assert all(t >= 0 for t in taxes)  # Clarke taxes never leave a deficit
        pivotal = sum(t > 0 for t in taxes)
        assert pivotal <= 2  # three agents cannot all be pivotal
        # choices: balanced (nobody pivotal), one pivotal tax, two pivotal taxes
        assert keyed_choice(q) == pivotal, (q["question_text"], e)
        assert (pivotal == 0) == (sum(taxes) == 0)
        assert "budget" in q["question_text"] or "cost" in q["question_text"]


# --- 2.2.b endowment effect: WTP and WTA over shifted brackets ---------------------------


def _interval(option: str) -> tuple[float, float]:
    """The range of values a bracket's text covers, [lo, hi)."""
    amounts = [float(x.replace(",", "")) for x in re.findall(r"\$([\d,]+(?:\.\d+)?)", option)]
    if option.startswith("Less than"):
        return (-math.inf, amounts[0])
    if option.endswith("or more"):
        return (amounts[0], math.inf)
    return (amounts[0], amounts[1])


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_endowment_rule_pairs_overlapping_brackets(seed: int) -> None:
    """WTP = WTA is one value, so the buying bracket and the selling bracket must
    share part of their range: read from the shown texts, the rule allows exactly
    the pairs of brackets that overlap, whatever order each part lists them in."""
    rows = generate_bank(["2.2.b"], per_cell=2, seed=seed).to_pylist()
    groups: dict[str, list[Row]] = {}
    for q in rows:
        assert q["grading"] == "consistency" and q["correct_index"] is None
        groups.setdefault(q["consistency_group"], []).append(q)
    for parts in groups.values():
        first, second = sorted(parts, key=lambda q: q["part"])
        a = [_interval(o) for o in first["options"]]
        b = [_interval(o) for o in second["options"]]
        n = [len(a), len(b)]
        for i, (lo_a, hi_a) in enumerate(a):
            for j, (lo_b, hi_b) in enumerate(b):
                overlap = max(lo_a, lo_b) < min(hi_a, hi_b)
                assert rule_holds(first["consistency_rule"], [i, j], n) == overlap, (
                    first["options"],
                    second["options"],
                    first["consistency_rule"],
                )


# --- 4.2.d divide and choose: the divider's guaranteed share, by bisection ----------------


def piece_value(x: float, a: float, p: float, q: float) -> float:
    """Value of [0, x] when [0, a] is worth p per unit and the rest q per unit."""
    return p * min(x, a) + q * max(0.0, x - a)


def equal_split(a: float, length: float, p: float, q: float) -> float:
    lo, hi = 0.0, length
    half = piece_value(length, a, p, q) / 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if piece_value(mid, a, p, q) < half else (lo, mid)
    return (lo + hi) / 2


def _cut(text: str) -> float:
    return float(re.findall(r"\d+(?:\.\d+)?", text.replace(",", ""))[0])


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_fair_division_key_halves_the_dividers_value(seed: int) -> None:
    for q in bank("4.2.d", seed):
        e = json.loads(q["payload"])["env"]
        length, a = e["L"], e["a"]
        total_d = piece_value(length, a, e["p"], e["q"])
        total_c = piece_value(length, a, e["r"], e["s"])

        def guaranteed(x: float, e: dict[str, float] = e, total_d: float = total_d) -> float:
            left = piece_value(x, e["a"], e["p"], e["q"])
            return min(left, total_d - left)

        cuts = [_cut(o) for o in q["options"]]
        key = cuts[q["correct_index"]]
        assert key == pytest.approx(equal_split(a, length, e["p"], e["q"]), abs=1e-6)
        # divide and choose: the divider is sure of half, and no other option does as well
        assert guaranteed(key) == pytest.approx(total_d / 2)
        assert all(guaranteed(x) < total_d / 2 - 1e-9 for x in cuts if x != key)
        # whatever the chooser takes, the chooser gets at least half by their own values
        left_c = piece_value(key, a, e["r"], e["s"])
        assert max(left_c, total_c - left_c) >= total_c / 2


# --- 4.3.b BIC: interim payoffs by enumerating the other agent's type and the coin -------


def interim(e: dict[str, float], value: float, report: str) -> Fraction:
    """Expected payoff of reporting `report` with `value`, the other agent truthful:
    enumerate the other's type and, on a tie, the fair coin."""
    pi = Fraction(e["pi"]).limit_denominator(100)
    price = {"HH": e["xhh"], "HL": e["xhl"], "LL": e["xll"]}
    total = Fraction(0)
    for other, prob in (("H", pi), ("L", 1 - pi)):
        outcomes = [True, False] if report == other else [report == "H"]
        profile = "".join(sorted(report + other))  # "HH", "HL" or "LL"
        for win in outcomes:
            if win:
                total += prob / len(outcomes) * (Fraction(value) - Fraction(price[profile]))
    return total


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_bic_keys_match_interim_payoffs(seed: int) -> None:
    for q in bank("4.3.b", seed):
        e = json.loads(q["payload"])["env"]
        high, low = e["vl"] + e["dv"], e["vl"]
        high_lies = interim(e, high, "L") > interim(e, high, "H")
        low_lies = interim(e, low, "H") > interim(e, low, "L")
        assert not (high_lies and low_lies)
        expected = 1 if high_lies else 2 if low_lies else 0
        assert keyed_choice(q) == expected, (q["question_text"], e)
