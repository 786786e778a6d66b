"""Every element's generator, property-tested over seeds against plain-Python
references written here (brute-force Nash, hand-counted Borda, …).

For each generated question: exactly one option is tagged `key` and it sits at
`correct_index`; options are distinct; numeric options are at least the grade's
tolerance apart and read back as rounded numbers; and the key equals what the
reference computes from the stored payload.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import affiliated_reference as affiliated
import sequential_reference as seqref
from steer.audit._consistency import p_random
from steer.bank._order import in_payload_order
from steer.generate import generate_bank
from steer.generate._consistency import parse_rule
from steer.generate._options import min_gap
from steer.templates import TemplateSpec, load_templates

TEMPLATES = [t for t in load_templates() if t.element.startswith("steer.")]
SPECS: dict[str, TemplateSpec] = {t.spec.id: t.spec for t in TEMPLATES}
ELEMENTS = sorted({t.element for t in TEMPLATES})

Row = dict[str, Any]

# --- references -------------------------------------------------------------------------


def ev(lot: dict[str, list[float]]) -> float:
    return math.fsum(v * p for v, p in zip(lot["values"], lot["probs"], strict=True))


def best_lottery(payload: dict[str, Any]) -> int:
    evs = [ev(lot) for lot in payload["lotteries"]]
    return int(np.argmax(evs))


def clarke_total(e: dict[str, float]) -> float:
    """Sum of VCG (Clarke pivot) taxes for a go/no-go project: each agent pays the
    others' best welfare without it minus their welfare at the chosen decision."""
    net = [e[f"w{i}"] - e["share"] for i in (1, 2, 3)]

    def chosen(vals: list[float]) -> int:
        return int(sum(vals) >= 0)

    total = 0.0
    for i in range(3):
        others = net[:i] + net[i + 1 :]
        total += chosen(others) * sum(others) - chosen(net) * sum(others)
    return total


def grid_argmax(f: Callable[[np.ndarray], np.ndarray], lo: float, hi: float) -> float:
    """The maximizer of `f` on [lo, hi] over a fine grid, to two decimals."""
    xs = np.linspace(lo, hi, 400_001)
    return round(float(xs[int(np.argmax(f(xs)))]), 2)


def whole_argmax(f: Callable[[np.ndarray], np.ndarray], hi: float) -> float:
    """The whole number in [0, hi] where `f` is largest."""
    xs = np.arange(0, int(hi) + 1)
    return float(xs[int(np.argmax(f(xs)))])


def best_plan_profit(e: dict[str, float]) -> float:
    """The largest profit of any whole plan within the hours and the caps."""
    return max(
        e["pa"] * a + e["pb"] * b
        for a in range(int(e["ca"]) + 1)
        for b in range(int(e["cb"]) + 1)
        if e["ha"] * a + e["hb"] * b <= e["H"]
    )


FORMULAS: dict[str, Callable[[dict[str, float]], float]] = {
    "as.shop-stock": lambda e: e["start"] + e["delivered"] - e["sold"],
    "as.savings": lambda e: e["balance"] + e["income"] - e["spent"],
    "as.farm-herd": lambda e: e["herd"] + e["born"] - e["moved"],
    "md.bulk-order": lambda e: e["price"] * e["quantity"],
    "md.split-bill": lambda e: e["share"],
    "md.fuel-use": lambda e: e["rate"] * e["hours"],
    "pb.marbles": lambda e: e["red"] / (e["red"] + e["blue"] + e["green"]),
    "pb.defects": lambda e: e["defective"] / (e["defective"] + e["good"]),
    "pb.raffle": lambda e: e["mine"] / (e["mine"] + e["others"]),
    "cr.rain": lambda e: 1 - e["p"],
    "cr.delivery": lambda e: 1 - e["p"],
    "cr.free-throw": lambda e: 1 - e["p"],
    "cr.machine": lambda e: 1 - e["p"],
    "as.library": lambda e: e["shelved"] + e["returned"] - e["lent"],
    "md.wages": lambda e: e["wage"] * e["hours"],
    "pb.cards": lambda e: e["hearts"] / (e["hearts"] + e["rest"]),
    # 1.2.b: the maximizer, by search (a fine grid, or every whole unit)
    "oc.box": lambda e: grid_argmax(
        lambda x: x * (e["L"] - 2 * x) * (e["W"] - 2 * x), 0.0, e["W"] / 2
    ),
    "oc.ticket-price": lambda e: grid_argmax(
        lambda p: (p - e["c"]) * (e["choke"] - p), e["c"], e["choke"]
    ),
    "oc.fence": lambda e: whole_argmax(lambda y: y * (e["P"] - y) / 2, e["P"]),
    "oc.monopoly-output": lambda e: whole_argmax(
        lambda q: (e["a"] - e["b"] * q - e["c"]) * q, e["cap"]
    ),
    # 1.2.c: the best whole production plan's profit, by enumeration
    "co.workshop": lambda e: best_plan_profit(e),
    "co.bakery": lambda e: best_plan_profit(e),
    "co.consultancy": lambda e: best_plan_profit(e),
    "co.print-shop": lambda e: best_plan_profit(e),
    # independent trials: the streak is irrelevant
    "gf.coin": lambda e: e["p"],
    "gf.roulette": lambda e: e["red"] / (2 * e["red"] + e["green"]),
    "gf.births": lambda e: e["p"],
    "gf.defects": lambda e: e["p"],
    # level k best-responds k times to the level-0 anchor
    "lk.beauty-contest": lambda e: e["top"] / 2 * e["p"] ** e["k"],
    "lk.pricing": lambda e: e["anchor"] * e["p"] ** e["k"],
    "lk.arrival": lambda e: e["start"] * e["p"] ** e["k"],
    # 4.3.d: total Clarke taxes
    "bb.roommates": clarke_total,
    "bb.streetlight": clarke_total,
    "bb.lab": clarke_total,
}


def bayes(e: dict[str, float]) -> float:
    if "evidence" in e:
        return e["likelihood"] * e["prior"] / e["evidence"]
    joint = e["likelihood"] * e["prior"]
    return joint / (joint + e["false_alarm"] * (1 - e["prior"]))


def pure_nash(p: np.ndarray) -> list[tuple[int, int]]:
    rows, cols = p.shape[:2]
    return [
        (r, c)
        for r in range(rows)
        for c in range(cols)
        if p[r, c, 0] >= p[:, c, 0].max() and p[r, c, 1] >= p[r, :, 1].max()
    ]


def own(p: np.ndarray, player: int) -> np.ndarray:
    return p[:, :, 0] if player == 0 else p[:, :, 1].T


def strictly_dominates(m: np.ndarray, a: int, b: int) -> bool:
    return bool(np.all(m[a] > m[b]))


def irds(p: np.ndarray) -> tuple[list[int], list[int]]:
    rows, cols = list(range(p.shape[0])), list(range(p.shape[1]))
    changed = True
    while changed:
        changed = False
        sub_r = p[np.ix_(rows, cols)][:, :, 0]
        gone = [
            rows[i]
            for i in range(len(rows))
            if any(np.all(sub_r[j] > sub_r[i]) for j in range(len(rows)) if j != i)
        ]
        sub_c = p[np.ix_(rows, cols)][:, :, 1].T
        gone_c = [
            cols[i]
            for i in range(len(cols))
            if any(np.all(sub_c[j] > sub_c[i]) for j in range(len(cols)) if j != i)
        ]
        if gone or gone_c:
            rows = [r for r in rows if r not in gone]
            cols = [c for c in cols if c not in gone_c]
            changed = True
    return rows, cols


def tree_first_move(d: dict[str, Any]) -> int:
    parent, player, pay = d["parent"], d["player"], np.asarray(d["payoffs"])
    children: dict[int, list[int]] = {}
    for i, q in enumerate(parent):
        children.setdefault(q, []).append(i)

    def value(node: int) -> np.ndarray:
        if player[node] < 0:
            return pay[node]
        vals = [value(c) for c in children[node]]
        return max(vals, key=lambda v: v[player[node]])

    firsts = children[0]
    return int(np.argmax([value(c)[0] for c in firsts]))


def spe_profile(d: dict[str, Any]) -> tuple[int, list[int]]:
    """Leader's move and the follower's best reply at each of its nodes (two stages)."""
    parent, pay = d["parent"], np.asarray(d["payoffs"])
    firsts = [i for i, q in enumerate(parent) if q == 0]
    kids = {n: [i for i, q in enumerate(parent) if q == n] for n in firsts}
    replies = [int(np.argmax([pay[k, 1] for k in kids[n]])) for n in firsts]
    leader = int(np.argmax([pay[kids[n][r], 0] for n, r in zip(firsts, replies, strict=True)]))
    return leader, replies


def in_hull(points: list[tuple[float, float]], q: tuple[float, float]) -> bool:
    # q is in the convex hull iff it lies in some triangle of the points.
    def cross(o: Any, a: Any, b: Any) -> float:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    for a, b, c in itertools.combinations(points, 3):
        d1, d2, d3 = cross(a, b, q), cross(b, c, q), cross(c, a, q)
        if not (
            (d1 < -1e-12 or d2 < -1e-12 or d3 < -1e-12) and (d1 > 1e-12 or d2 > 1e-12 or d3 > 1e-12)
        ):
            return True
    return False


def stage_points(p: np.ndarray) -> list[tuple[float, float]]:
    return [(float(p[r, c, 0]), float(p[r, c, 1])) for r in range(2) for c in range(2)]


def minmax(p: np.ndarray) -> tuple[float, float]:
    return float(p[:, :, 0].max(axis=0).min()), float(p[:, :, 1].max(axis=1).min())


def counts_by_rule(d: dict[str, Any], rule: str) -> list[Fraction]:
    rankings, counts, m = d["rankings"], d["counts"], len(d["names"])
    score = [Fraction(0)] * m
    if rule == "plurality":
        for r, c in zip(rankings, counts, strict=True):
            score[r[0]] += c
    elif rule == "borda":
        for r, c in zip(rankings, counts, strict=True):
            for place, cand in enumerate(r):
                score[cand] += c * (m - 1 - place)
    else:
        for a, b in itertools.permutations(range(m), 2):
            a_over_b = sum(
                c for r, c in zip(rankings, counts, strict=True) if r.index(a) < r.index(b)
            )
            b_over_a = sum(counts) - a_over_b
            score[a] += 1 if a_over_b > b_over_a else Fraction(1, 2) if a_over_b == b_over_a else 0
    return score


def condorcet(d: dict[str, Any]) -> int | None:
    m = len(d["names"])
    total = sum(d["counts"])
    for a in range(m):
        if all(
            2
            * sum(
                c
                for r, c in zip(d["rankings"], d["counts"], strict=True)
                if r.index(a) < r.index(b)
            )
            > total
            for b in range(m)
            if b != a
        ):
            return a
    return None


def ttc(prefs: list[list[int]]) -> list[int]:
    n = len(prefs)
    owner = {h: h for h in range(n)}  # house h owned by agent h
    result: dict[int, int] = {}
    while len(result) < n:
        left = [a for a in range(n) if a not in result]
        points = {a: owner[next(h for h in prefs[a] if owner.get(h) in left)] for a in left}
        # follow pointers from any agent to find a cycle
        a, seen = left[0], []
        while a not in seen:
            seen.append(a)
            a = points[a]
        cycle = seen[seen.index(a) :]
        for agent in cycle:
            result[agent] = next(h for h in prefs[agent] if owner.get(h) in left)
        for agent in cycle:
            del owner[agent]
    return [result[a] for a in range(n)]


def expected_key(q: Row) -> Any:
    """What the answer must be, from the payload, by the references above."""
    d = json.loads(q["payload"])
    solver = SPECS[q["template_id"]].solver
    tid = q["template_id"]
    if solver == "formula":
        return FORMULAS[tid](d["env"])
    if solver == "bayes_posterior":
        return bayes(d["env"])
    if solver == "expected_value":
        return ev(d)
    if solver in ("max_expected_value", "best_stored_option"):
        return best_lottery(d)
    if solver in ("best_response",):
        p = np.asarray(d["payoffs"])
        m = own(p, d["player"])
        return int(np.argmax(m[:, d["against"]]))
    p = np.asarray(d.get("payoffs", 0), dtype=float)
    if solver == "payoff_lookup":
        r, c = d["cell"]
        return float(p[r, c, d["player"]])
    if solver == "dominant_strategy":
        m = own(p, d["player"])
        (best,) = [
            a
            for a in range(len(m))
            if all(strictly_dominates(m, a, b) for b in range(len(m)) if b != a)
        ]
        return best
    if solver == "dominated_strategy":
        m = own(p, d["player"])
        (worst,) = [
            b for b in range(len(m)) if any(strictly_dominates(m, a, b) for a in range(len(m)))
        ]
        return worst
    if solver == "iterated_dominance":
        return irds(p)
    if solver == "pure_nash":
        return pure_nash(p)
    if solver == "level_k_action":
        # level 0 mixes uniformly; level k best-responds to the other's level k - 1
        beliefs = [np.full(p.shape[1], 1 / p.shape[1]), np.full(p.shape[0], 1 / p.shape[0])]
        for _ in range(d["k"]):
            br_row = int(np.argmax(p[:, :, 0] @ beliefs[0]))
            br_col = int(np.argmax(beliefs[1] @ p[:, :, 1]))
            beliefs = [np.eye(p.shape[1])[br_col], np.eye(p.shape[0])[br_row]]
        return br_row if d["player"] == 0 else br_col
    if solver == "mixed_nash":
        # the other player's payoffs fix the asked player's mix
        other = own(p, 1 - d["player"])  # (other's actions, asked player's actions)
        a, b, c, e = other[0, 0], other[0, 1], other[1, 0], other[1, 1]
        return (e - b) / (a - b - c + e)
    if solver == "backward_induction":
        return tree_first_move(d)
    if solver == "subgame_perfect":
        return spe_profile(d)
    if solver == "feasible_payoff":
        return 0 if in_hull(stage_points(p), tuple(d["point"])) else 1
    if solver == "enforceable_payoff":
        v = minmax(p)
        ok = (
            in_hull(stage_points(p), tuple(d["point"]))
            and d["point"][0] >= v[0]
            and d["point"][1] >= v[1]
        )
        return 0 if ok else 1
    if solver in ("grim_trigger", "grim_trigger_delta"):
        t, r, pp = p[1, 0, 0], p[0, 0, 0], p[1, 1, 0]
        critical = (t - r) / (t - pp)
        return critical if solver == "grim_trigger_delta" else (0 if d["delta"] >= critical else 1)
    if solver == "grim_trigger_whose":
        # each player's own (T − R) / (T − P); options: both, only row, only column, neither
        row = (p[1, 0, 0] - p[0, 0, 0]) / (p[1, 0, 0] - p[1, 1, 0])
        col = (p[0, 1, 1] - p[0, 0, 1]) / (p[0, 1, 1] - p[1, 1, 1])
        ok = (d["delta"] >= row, d["delta"] >= col)
        return {(True, True): 0, (True, False): 1, (False, True): 2, (False, False): 3}[ok]
    if solver == "bayes_nash_best_response":
        prior, pay, s = d["prior"], np.asarray(d["payoffs"]), d["strategy"]
        exp = prior[0][0] * pay[0, 0, s[0], :, 1] + prior[1][0] * pay[1, 0, s[1], :, 1]
        return int(np.argmax(exp))
    if solver in ("plurality", "borda"):
        score = counts_by_rule(d, solver)
        return score.index(max(score))
    if solver in ("copeland", "copeland_menu"):
        score = counts_by_rule(d, "copeland")
        return [i for i, s in enumerate(score) if s == max(score)]
    if solver == "condorcet":
        w = condorcet(d)
        return len(d["names"]) if w is None else w
    if solver == "top_trading_cycles":
        return ttc(d["preferences"])
    if solver == "sealed_bid_auction":
        bids = d["bids"]
        order = sorted(range(len(bids)), key=lambda i: -bids[i])
        price = bids[order[0]] if d["rule"] == "first" else bids[order[1]]
        return order[0], price
    if solver in ("sequential_equilibrium", "signaling_equilibrium"):
        # every option's profile, judged by the textbook reference
        game = seqref.Game.from_payload(d)
        return {seqref.profile_text(d, p): seqref.judge(game, p) for p in seqref.all_profiles(game)}
    if solver == "social_axiom":
        from social_axioms_reference import expected_choice  # brute force over profiles

        return expected_choice(d)
    raise AssertionError(f"no reference for solver {solver!r}")


def _number(text: str, unit: str) -> float:
    return float(text.replace(unit, "", 1).replace(",", "") if unit else text.replace(",", ""))


def check_question(q: Row) -> None:
    q = in_payload_order(q)  # options as the payload orders them
    spec = SPECS[q["template_id"]]
    options = q["options"]
    assert len(set(options)) == len(options), options
    if q["grading"] == "consistency":
        # The rule follows the shown option order: the template's rule over
        # the same parts, reordered, so it is as hard to satisfy by chance.
        assert q["correct_index"] is None
        shown, written = parse_rule(q["consistency_rule"]), parse_rule(spec.consistency_rule)
        assert {(c.a, c.b) for c in shown} == {(c.a, c.b) for c in written}
        n = tuple(len(p.options) for p in spec.parts)
        assert p_random(q["consistency_rule"], n) == pytest.approx(
            p_random(spec.consistency_rule, n), abs=1e-12
        )
        return
    assert q["option_tags"].count("key") == 1 and q["option_tags"][q["correct_index"]] == "key"
    key_text = options[q["correct_index"]]
    if q["element"] == "steer.4.4.c":
        # the linkage principle from the stated model, not the template's `values`
        env = json.loads(q["payload"])["env"]
        assert [affiliated.key_is_right(env, q["template_id"], o) for o in options] == [
            i == q["correct_index"] for i in range(len(options))
        ], (q["question_text"], options)
    expected = expected_key(q)
    d = json.loads(q["payload"])
    if spec.solver in (
        "formula",
        "bayes_posterior",
        "expected_value",
        "payoff_lookup",
        "mixed_nash",
        "grim_trigger_delta",
    ):
        values = [_number(o, spec.unit) for o in options]
        assert values[q["correct_index"]] == pytest.approx(round(expected, spec.decimals), abs=1e-9)
        gap = min_gap(values[q["correct_index"]], q["grade"], spec.decimals)
        ordered = sorted(values)
        assert all(b - a >= gap - 1e-9 for a, b in itertools.pairwise(ordered)), options
        assert q["answer_value"] == pytest.approx(expected)
    elif spec.solver == "iterated_dominance":
        # One option names a strategy IRDS removes, and only after its first
        # round; every other option names a survivor.
        rows, cols = expected
        names = (d["row_actions"], d["col_actions"])
        survivors = {f"{names[0][i]} ({d['players'][0]})" for i in rows}
        survivors |= {f"{names[1][j]} ({d['players'][1]})" for j in cols}
        for i, option in enumerate(options):
            assert (option not in survivors) == (i == q["correct_index"]), option
        action, player = key_text[:-1].split(" (")
        p = np.asarray(d["payoffs"], dtype=float)
        m = own(p, d["players"].index(player))
        s = names[d["players"].index(player)].index(action)
        assert not any(strictly_dominates(m, a, s) for a in range(len(m)))
    elif spec.solver == "pure_nash":
        cells = [f"({d['row_actions'][r]}, {d['col_actions'][c]})" for r, c in expected]
        if not expected:
            assert key_text == "There is no pure-strategy equilibrium"
        assert all(cell in key_text for cell in cells) and key_text.count("(") == len(cells)
        # A wrong set is never a different size from the key; against "no
        # pure equilibrium" one or two profiles.
        sizes = {option.count("(") for option in options if option.startswith("(")}
        assert sizes <= ({len(cells)} if cells else {1, 2}), options
    elif spec.solver == "copeland_menu":
        names = [d["names"][i] for i in expected]
        # a lone winner is capitalised like every option ("The park")
        one = names[0][:1].upper() + names[0][1:]
        shown = one if len(names) == 1 else "A tie between " + " and ".join(names)
        assert key_text == shown, (key_text, shown)
        assert sorted(sorted(o) for o in d["options"]).count(sorted(expected)) == 1
    elif spec.solver == "copeland":
        names = [d["names"][i] for i in expected]
        if len(names) == 1:
            assert key_text == names[0][:1].upper() + names[0][1:]
        else:
            assert key_text.startswith("A tie between") and all(n in key_text for n in names)
    elif spec.solver == "top_trading_cycles":
        good = d["good"]
        for agent, house in zip(d["agents"], expected, strict=True):
            assert f"{agent}: {good} {house + 1}" in key_text.split("; ")
    elif spec.solver == "subgame_perfect":
        leader, replies = expected
        labels, parent = d["labels"], d["parent"]
        firsts = [i for i, p in enumerate(parent) if p == 0]
        assert key_text.split("; ")[0].endswith(": " + labels[firsts[leader]])
        for n, r in zip(firsts, replies, strict=True):
            kid = [i for i, p in enumerate(parent) if p == n][r]
            assert f"{labels[kid]} after {labels[n]}" in key_text
    elif spec.solver in ("sequential_equilibrium", "signaling_equilibrium"):
        for i, option in enumerate(options):
            verdict = expected[option]
            assert verdict.sequential == (i == q["correct_index"]), (option, verdict)
        # the key holds with strict incentives, not by indifference
        assert min(expected[key_text].margins) > 1e-6
    elif spec.solver == "sealed_bid_auction":
        winner, price = expected
        assert key_text.startswith(d["names"][winner] + " wins and pays ")
        assert _number(key_text.rsplit(" ", 1)[1], spec.unit) == pytest.approx(price)
    else:
        assert q["correct_index"] == expected, (q["question_text"], options, expected)


@pytest.mark.parametrize("element", ELEMENTS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_every_element_verified_unique_answers(element: str, seed: int) -> None:
    bank = generate_bank([element], per_cell=2, seed=seed)
    rows = bank.to_pylist()
    assert rows
    for q in rows:
        check_question(q)


def test_elements_have_three_domains_and_their_grades() -> None:
    from steer.taxonomy import load_taxonomy

    taxonomy = load_taxonomy()
    for element in ELEMENTS:
        mine = [t for t in TEMPLATES if t.element == element]
        assert len({t.spec.domain for t in mine}) >= 3, element
        lo, hi = taxonomy.element(element).grades
        assert all(lo <= g <= hi for t in mine for g in t.spec.grade), element


def test_higher_grades_are_bigger() -> None:
    """Within a template, a higher grade never offers fewer options or a smaller problem."""
    for t in TEMPLATES:
        grades = sorted(t.spec.grade)
        for a, b in itertools.pairwise(grades):
            ga, gb = t.spec.grade[a], t.spec.grade[b]
            assert (gb.options or 0) >= (ga.options or 0), t.spec.id
            if t.spec.structure == "game_tree":  # deeper trees: count the stages
                assert gb.depth >= ga.depth, t.spec.id
            else:
                assert gb.size >= ga.size, t.spec.id


def test_perspectives_rotate_and_fill_pronouns() -> None:
    bank = generate_bank(["2.2.a"], per_cell=5, seed=4).to_pylist()
    assert {q["perspective"] for q in bank} == {"first", "second", "woman", "man", "anonymous"}
    for q in bank:
        text = q["question_text"]
        assert "{" not in text
        if q["perspective"] == "first":
            assert "I " in text or "my " in text
        if q["perspective"] == "second":
            assert "you" in text.lower()


def test_distractors_are_tagged_with_errors() -> None:
    bank = generate_bank(["2.2.a", "1.3.c", "3.1.f", "4.4.b"], per_cell=3, seed=9).to_pylist()
    tags = {t for q in bank for t in q["option_tags"]}
    assert {"sunk_cost_included", "inverse_conditional", "misjudged_risk_effect"} <= tags


def test_consistency_questions_are_multi_part() -> None:
    bank = generate_bank(["2.1.c", "2.5.b", "2.5.c", "2.5.d"], per_cell=2, seed=1).to_pylist()
    groups: dict[str, list[Row]] = {}
    for q in bank:
        assert q["grading"] == "consistency" and q["correct_index"] is None
        groups.setdefault(q["consistency_group"], []).append(q)
    for parts in groups.values():
        parts.sort(key=lambda q: q["part"])
        # Two parts; 2.1.c units with a decoy and then a relevant newcomer, three.
        assert [q["part"] for q in parts] in ([0, 1], [0, 1, 2])
        assert len({q["consistency_rule"] for q in parts}) == 1
        assert all(len(q["options"]) >= len(parts[0]["options"]) for q in parts[1:])
