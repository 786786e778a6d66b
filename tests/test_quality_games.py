"""Module 3's elements measure their construct and leak no key (issue 20 §2,
§3): a seeded bank of the game-theory elements passes the shortcut audit, and
each construct fix holds on every question, checked against plain references
written here (brute force over strategies, no steer-core).
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter
from typing import Any

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from quality_audit import audit_failures
from steer import _native
from steer.bank._order import in_payload_order
from steer.generate import generate_bank
from steer.generate._games import (
    NO_PURE,
    _mix_dominated,
    _odds_not_probability,
    _own_indifference,
    _own_indifference_odds,
    irds_rounds,
    level_k_actions,
)
from steer.generate._registry import Instance, Resample, Solution
from steer.generate._sequential import _whose
from steer.templates._perspective import MEN, WOMEN

pytest.importorskip("sklearn")

Row = dict[str, Any]
ELEMENTS = [
    "steer.3.1.a",
    "steer.3.1.b",
    "steer.3.1.e",
    "steer.3.1.f",
    "steer.3.1.g",
    "steer.3.1.h",
    "steer.3.2.b",
    "steer.3.3.a",
    "steer.3.4.a",
    "steer.3.4.b",
    "steer.3.4.c",
    "steer.3.5.a",
    "steer.3.5.b",
]


@pytest.fixture(scope="module")
def bank() -> pa.Table:
    return generate_bank(ELEMENTS, per_cell=100, seed=17)


@pytest.fixture(scope="module")
def rows(bank: pa.Table) -> list[Row]:
    return bank.to_pylist()


def of(rows: list[Row], element: str) -> list[Row]:
    return [r for r in rows if r["element"] == element]


def test_no_blind_agent_beats_chance_on_module_3(bank: pa.Table) -> None:
    _, bad = audit_failures(bank, ELEMENTS, source="module 3", seed=17)
    assert not bad, bad


# --- references -----------------------------------------------------------------------------


def ref_irds(p: np.ndarray) -> tuple[list[int], list[int]]:
    """Iterated strict dominance by pure strategies, both players each round."""
    alive = [list(range(p.shape[0])), list(range(p.shape[1]))]
    while True:
        own = [p[np.ix_(alive[0], alive[1])][:, :, 0], p[np.ix_(alive[0], alive[1])][:, :, 1].T]
        gone = [
            {
                alive[k][i]
                for i in range(len(alive[k]))
                for j in range(len(alive[k]))
                if i != j and (own[k][j] > own[k][i]).all()
            }
            for k in (0, 1)
        ]
        if not gone[0] and not gone[1]:
            return alive[0], alive[1]
        alive = [[s for s in alive[k] if s not in gone[k]] for k in (0, 1)]


def ref_mix_dominated(own: np.ndarray, s: int, others: list[int]) -> bool:
    """Strict domination by a mix of `others`, by a fine grid over mixes of two."""
    lam = np.linspace(0, 1, 2001)[:, None]
    for a, b in itertools.combinations_with_replacement(others, 2):
        if ((lam * own[a] + (1 - lam) * own[b] > own[s] + 1e-9).all(axis=1)).any():
            return True
    return False


def ref_level_k(p: np.ndarray, k: int) -> tuple[int, int]:
    beliefs = [np.full(p.shape[1], 1 / p.shape[1]), np.full(p.shape[0], 1 / p.shape[0])]
    for _ in range(k):
        br_row = int(np.argmax(p[:, :, 0] @ beliefs[0]))
        br_col = int(np.argmax(beliefs[1] @ p[:, :, 1]))
        beliefs = [np.eye(p.shape[1])[br_col], np.eye(p.shape[0])[br_row]]
    return br_row, br_col


games = arrays(np.float64, (3, 3, 2), elements=st.integers(-5, 5).map(float))


@settings(max_examples=200, deadline=None)
@given(games)
def test_irds_rounds_is_iterated_strict_dominance(p: np.ndarray) -> None:
    rows, cols, _ = _native.iterated_dominance(p)
    assert irds_rounds(p) == (list(rows), list(cols)) == ref_irds(p)


@settings(max_examples=100, deadline=None)
@given(games, st.integers(0, 2))
def test_mix_dominance_matches_a_grid_search(p: np.ndarray, s: int) -> None:
    own = p[:, :, 0]
    others = [a for a in range(3) if a != s]
    assert _mix_dominated(own, s, others) == ref_mix_dominated(own, s, others)


@settings(max_examples=200, deadline=None)
@given(games, st.integers(1, 3))
def test_level_k_chain_matches_the_reference(p: np.ndarray, k: int) -> None:
    levels = level_k_actions(p, k)
    if all(x is not None for lv in levels[1:] for x in lv):
        assert levels[k] == ref_level_k(p, k)


def ref_mixed(p: np.ndarray) -> tuple[float, float]:
    """The 2x2 fully mixed equilibrium (row's and column's probability of their
    first action), by each player's indifference written out by hand."""
    a, b = p[:, :, 0], p[:, :, 1]
    down_row = b[0, 0] - b[1, 0] - b[0, 1] + b[1, 1]
    down_col = a[0, 0] - a[0, 1] - a[1, 0] + a[1, 1]
    if down_row == 0 or down_col == 0:
        return -1.0, -1.0  # no fully mixed equilibrium
    return float((b[1, 1] - b[1, 0]) / down_row), float((a[1, 1] - a[0, 1]) / down_col)


@settings(max_examples=200, deadline=None)
@given(arrays(np.float64, (2, 2, 2), elements=st.integers(-9, 9).map(float)), st.integers(0, 1))
def test_mixed_nash_slips_are_the_odds_and_the_wrong_indifference(
    p: np.ndarray, player: int
) -> None:
    """3.1.h: the odds slips report r / (1 − r) of the right (or, for the own
    indifference, the opponent's) equilibrium probability; the own-indifference
    slip reports the opponent's probability."""
    mixes = ref_mixed(p)
    if not all(0 < m < 1 for m in mixes):
        return
    key, theirs = mixes[player], mixes[1 - player]
    instance = Instance({"payoffs": p.tolist(), "player": player}, {})
    no = Solution(value=key)
    assert _own_indifference(instance, no) == pytest.approx(theirs)
    for slip, right in ((_odds_not_probability, key), (_own_indifference_odds, theirs)):
        odds = slip(instance, no)
        expected = right / (1 - right)
        assert (odds is None) == (not 0 < expected < 1)
        if odds is not None:
            assert odds == pytest.approx(expected)


# --- construct fixes, question by question ----------------------------------------------------


def test_irds_key_is_removed_only_after_round_one_and_the_rest_survive(rows: list[Row]) -> None:
    """3.1.e: the options name one strategy each; the key is not dominated in
    the game as given (nor by a mix) but IRDS removes it; the others survive.
    No option holds another, so no set rule picks the key."""
    for q in of(rows, "steer.3.1.e"):
        d = json.loads(q["payload"])
        p = np.asarray(d["payoffs"], dtype=float)
        survivors = ref_irds(p)
        for i, option in enumerate(q["options"]):
            action, who = re.fullmatch(r"(.*) \((.*)\)", option).groups()  # type: ignore[union-attr]
            k = d["players"].index(who)
            s = (d["row_actions"], d["col_actions"])[k].index(action)
            assert (s not in survivors[k]) == (i == q["correct_index"]), option
            if i == q["correct_index"]:
                own = p[:, :, 0] if k == 0 else p[:, :, 1].T
                assert not ref_mix_dominated(own, s, [a for a in range(len(own)) if a != s])
    tags = Counter(t for q in of(rows, "steer.3.1.e") for t in q["option_tags"] if t != "key")
    assert tags["other"] < 0.1 * sum(tags.values()), tags


def test_irds_working_names_each_round_once(rows: list[Row]) -> None:
    """3.1.e: the removals of one round make one clause ("round 1: remove
    Fabrikam's Raise price and Keep price …"), never two "round 1" clauses."""
    grouped = 0
    for q in of(rows, "steer.3.1.e"):
        working = q["explanation"]
        rounds = [int(n) for n in re.findall(r"\b[Rr]ound (\d+)", working)]
        assert rounds == sorted(set(rounds)), working
        assert rounds and rounds[0] == 1, working
        grouped += " and " in working.split("; round 2")[0]
    assert grouped, "no question removes two strategies in one round"


def test_pure_nash_sets_share_the_keys_size_and_none_is_a_real_option(rows: list[Row]) -> None:
    """3.1.f: every wrong set of profiles has as many profiles as the key
    (against 'there is none', one or two: see tests/test_generate_nash_sizes.py);
    'there is none' is offered in every question and is the key in about 1/n
    of them."""
    none_keys = 0
    qs = of(rows, "steer.3.1.f")
    for q in qs:
        assert NO_PURE in q["options"]
        key = q["options"][q["correct_index"]]
        sizes = {option.count("(") for option in q["options"] if option != NO_PURE}
        if key == NO_PURE:
            assert sizes <= {1, 2}, q["options"]
        else:
            assert sizes == {key.count("(")}, (key, q["options"])
        none_keys += key == NO_PURE
    share = none_keys / len(qs)
    assert 0.12 < share < 0.32, share


def test_level_k_matrix_key_is_the_level_k_action(rows: list[Row]) -> None:
    """3.1.g: in the matrix forms the key is the asked player's level-k action,
    and the question states no best reply (it is computed from the payoffs)."""
    seen = 0
    for q in of(rows, "steer.3.1.g"):
        d = json.loads(q["payload"])
        if "k" not in d:
            assert "times the level below" not in q["question_text"]
            continue
        p = np.asarray(d["payoffs"], dtype=float)
        actions = d["row_actions"] if d["player"] == 0 else d["col_actions"]
        key = actions.index(q["options"][q["correct_index"]])
        assert key == ref_level_k(p, d["k"])[d["player"]]
        seen += 1
    assert seen


def test_stated_bayesian_profiles_are_bayes_nash_equilibria(rows: list[Row]) -> None:
    """3.5.a: each row type's stated action is its best reply to the key, and
    the key is the column player's best reply in expectation."""
    for q in of(rows, "steer.3.5.a"):
        d = json.loads(q["payload"])
        pay = np.asarray(d["payoffs"], dtype=float)  # (row types, 1, rows, cols, 2)
        p = d["prior"][0][0]
        s, c = d["strategy"], d["col_actions"].index(q["options"][q["correct_index"]])
        for t in (0, 1):
            assert pay[t, 0, s[t], c, 0] > np.delete(pay[t, 0, :, c, 0], s[t]).max()
        expected = p * pay[0, 0, s[0], :, 1] + (1 - p) * pay[1, 0, s[1], :, 1]
        assert int(np.argmax(expected)) == c


def test_guessing_game_options_and_working(rows: list[Row]) -> None:
    """3.1.g guessing games (R3.12): no wrong option is twice the key (level 0
    at the top of the range always was, so "the option whose double is
    offered" found it), and the explanation shows the chain of levels."""
    qs = [
        q
        for q in of(rows, "steer.3.1.g")
        if q["template_id"] in ("lk.beauty-contest", "lk.arrival")
    ]
    assert qs
    for q in qs:
        key = q["answer_value"]
        doubles = [o for o in q["options"] if abs(float(o) - 2 * key) < 0.011]
        assert not doubles, (q["options"], key)
        assert "level-1" in q["explanation"] and "^" in q["explanation"], q["explanation"]


def test_entry_questions_need_the_followers_belief(rows: list[Row]) -> None:
    """3.3.a: the follower's best reply differs between the ways of entering,
    so no reply is right whatever it believes."""
    for q in of(rows, "steer.3.3.a"):
        d = json.loads(q["payload"])
        pay = np.asarray(d["payoffs"], dtype=float)
        follower = [i for i, pl in enumerate(d["player"]) if pl == 1]
        best = set()
        for node in follower:
            kids = [i for i, par in enumerate(d["parent"]) if par == node]
            best.add(int(np.argmax(pay[kids, 1])))
        assert len(best) > 1


def ref_entry_nash(d: dict[str, Any], plan: tuple[int, ...]) -> bool:
    """Plain reference: is a pure profile of an entry payload a Nash
    equilibrium? `plan` is one action per information set, in the payload's
    set order; a player's deviations are all its other plans."""
    pay = np.asarray(d["payoffs"], dtype=float)
    kids: dict[int, list[int]] = {}
    for i, par in enumerate(d["parent"]):
        kids.setdefault(par, []).append(i)

    def outcome(pr: tuple[int, ...]) -> np.ndarray:
        node = 0
        while node in kids:
            node = kids[node][pr[d["infoset"][node]]]
        return pay[node]

    sets = len(d["sets"])
    owner = [d["player"][d["infoset"].index(s)] for s in range(sets)]
    base = outcome(plan)
    for who in (0, 1):
        mine = [s for s in range(sets) if owner[s] == who]
        for alt in itertools.product(*(range(len(d["sets"][s]["actions"])) for s in mine)):
            dev = list(plan)
            for s, a in zip(mine, alt, strict=True):
                dev[s] = a
            if outcome(tuple(dev))[who] > base[who] + 1e-9:
                return False
    return True


def test_entry_questions_are_not_a_nash_check(rows: list[Row]) -> None:
    """3.3.a (issue 20 §3: "mostly reduces to backward induction"): most
    questions offer a wrong profile that is a Nash equilibrium (a threat no
    consistent belief supports), so a Nash check does not find the key; and
    two options stay out and two enter, with the key on either side as often."""
    qs = of(rows, "steer.3.3.a")
    assert qs
    nash_traps = keys_out = 0
    for q in qs:
        d = json.loads(q["payload"])
        texts = {
            _entry_profile_text(d, plan): plan
            for plan in itertools.product(*(range(len(s["actions"])) for s in d["sets"]))
        }
        plans = [texts[o] for o in q["options"]]
        assert ref_entry_nash(d, plans[q["correct_index"]])
        wrong_nash = [
            i for i, pl in enumerate(plans) if i != q["correct_index"] and ref_entry_nash(d, pl)
        ]
        nash_traps += bool(wrong_nash)
        assert "nash_not_sequential" in q["option_tags"] or not wrong_nash
        outs = [pl[0] == 0 for pl in plans]
        assert sum(outs) == 2, q["options"]
        keys_out += outs[q["correct_index"]]
    assert nash_traps >= 0.7 * len(qs), (nash_traps, len(qs))
    assert 0.4 < keys_out / len(qs) < 0.6, (keys_out, len(qs))


def _entry_profile_text(d: dict[str, Any], plan: tuple[int, ...]) -> str:
    by: dict[str, list[str]] = {}
    for s, a in zip(d["sets"], plan, strict=True):
        by.setdefault(s["who"], []).append(f"{s['actions'][a]} {s['when']}".strip())
    return "; ".join(f"{who}: {', '.join(moves)}" for who, moves in by.items())


def ref_tree_nash(pay: np.ndarray, plan: tuple[int, ...]) -> bool:
    """Plain reference: is a pure profile of a two-stage tree a Nash
    equilibrium? `pay[m, r]` is the leaves' payoff pair after first move m and
    reply r; `plan` is the first move, then a reply per first move. Every
    other strategy of each player is tried."""
    b = pay.shape[0]

    def outcome(pr: tuple[int, ...]) -> np.ndarray:
        return pay[pr[0], pr[1 + pr[0]]]

    base = outcome(plan)
    leader = any(outcome((m, *plan[1:]))[0] > base[0] for m in range(b))
    follower = any(
        outcome((plan[0], *rs))[1] > base[1] for rs in itertools.product(range(b), repeat=b)
    )
    return not leader and not follower


def test_subgame_perfect_questions_are_not_a_nash_check(rows: list[Row]) -> None:
    """3.2.b (R3.15: only the key was a Nash equilibrium, so a plain Nash check
    found it): at least 70% of questions offer a Nash equilibrium that is not
    subgame-perfect (a threat the follower would not carry out), tagged as
    one; the key is the brute-force subgame-perfect profile; no two options
    give the same replies; and the first moves are split as evenly as the
    options allow."""
    qs = of(rows, "steer.3.2.b")
    assert qs
    traps = 0
    for q in qs:
        d = json.loads(q["payload"])
        labels = d["labels"]
        b = sum(1 for par in d["parent"] if par == 0)
        pay = np.asarray(d["payoffs"], dtype=float)[b + 1 :].reshape(b, b, 2)
        lead = q["options"][0].split(": ")[0]
        follow = q["options"][0].split("; ")[1].split(": ")[0]
        texts = {}
        for pl in itertools.product(range(b), repeat=b + 1):
            replies = [
                f"{labels[b + 1 + b * m + r]} after {labels[1 + m]}" for m, r in enumerate(pl[1:])
            ]
            texts[f"{lead}: {labels[1 + pl[0]]}; {follow}: " + ", ".join(replies)] = pl
        plans = [texts[o] for o in q["options"]]
        best = tuple(int(np.argmax(pay[m, :, 1])) for m in range(b))
        first = int(np.argmax([pay[m, best[m], 0] for m in range(b)]))
        assert plans[q["correct_index"]] == (first, *best)
        wrong_nash = [
            i for i, pl in enumerate(plans) if i != q["correct_index"] and ref_tree_nash(pay, pl)
        ]
        traps += bool(wrong_nash)
        for i in wrong_nash:
            assert q["option_tags"][i] in ("off_path_not_optimal", "non_credible_threat")
        assert len({pl[1:] for pl in plans}) == len(plans), q["options"]
        moves = Counter(pl[0] for pl in plans)
        assert max(moves.values()) - min(moves.get(m, 0) for m in range(b)) <= 1, q["options"]
    assert traps >= 0.7 * len(qs), (traps, len(qs))


def test_tree_roles_fit_their_story() -> None:
    """3.2 (R3.2, R3.9): a governor proposes the budget and a state legislator
    answers (never a mayor with a senator), and the market games' moves say
    nothing about who is better off (no "Exit" for the incumbent, no "Stay out"
    or "Partner" for the newcomer)."""
    qs = generate_bank(["steer.3.2.a", "steer.3.2.b"], per_cell=20, seed=5).to_pylist()
    for q in qs:
        text = q["question_text"]
        if q["template_id"] in ("bi.legislation", "spe.legislation"):
            first = re.search(r"- (.+?) chooses .+?, then (.+?) chooses", text)
            assert first, text
            assert first[1].startswith("Governor ") and not first[2].startswith(
                ("Governor ", "Mayor ")
            ), first[0]
        if q["template_id"] in ("bi.entry", "spe.entry"):
            assert not re.search(r"chooses (Exit|Stay out|Partner)\b", text), text


# Third moves that make no sense after a second move (the same third moves
# follow every second move in a tree): signing a blocked bill, conceding after
# the union accepted, thanking a neighbour who declined.
_INCOHERENT = {
    "Block it": ("Sign", "Veto"),
    "Accept": ("Concede", "Hold firm", "Call in a mediator", "Improve the offer"),
    "Decline": ("Thank",),
}


def test_three_move_paths_read_as_a_story() -> None:
    """3.2.a grade 11 (three moves): every third move fits every second move
    it follows in the listed paths."""
    qs = generate_bank(["steer.3.2.a"], per_cell=20, seed=5).to_pylist()
    three = 0
    for q in qs:
        for path in re.findall(r"^- (.+?): ", q["question_text"], flags=re.M):
            moves = re.findall(r"chooses (.+?)(?:, then |$)", path)
            if len(moves) < 3:
                continue
            three += 1
            assert moves[2] not in _INCOHERENT.get(moves[1], ()), path
    assert three


@pytest.mark.parametrize("element", ["steer.3.4.a", "steer.3.4.b"])
def test_yes_and_no_keys_are_balanced(rows: list[Row], element: str) -> None:
    keys = Counter(
        q["options"][q["correct_index"]]
        for q in of(rows, element)
        if set(q["options"]) == {"Yes", "No"}
    )
    assert 0.4 < keys["Yes"] / sum(keys.values()) < 0.6, keys


@pytest.mark.parametrize(
    "element", ["steer.3.1.a", "steer.3.1.b", "steer.3.1.g", "steer.3.1.h", "steer.3.4.c"]
)
def test_wrong_options_are_named_errors(rows: list[Row], element: str) -> None:
    """Issue 20 §4: a tag names the computation behind its option; fewer than
    one wrong option in ten is an unnamed filler."""
    tags = Counter(t for q in of(rows, element) for t in q["option_tags"] if t != "key")
    assert tags["other"] < 0.1 * sum(tags.values()), tags


_CELL = re.compile(r"\((-?[\d,]+(?:\.\d+)?), (-?[\d,]+(?:\.\d+)?)\)")


def test_payoff_options_are_numbers_of_the_table(rows: list[Row]) -> None:
    """3.1.a (R3.5): every option is a number printed in the table, so scanning
    the table for an option that appears in it does not find the key."""
    qs = of(rows, "steer.3.1.a")
    assert qs
    for q in qs:
        printed = {x for cell in _CELL.findall(q["question_text"]) for x in cell}
        assert set(q["options"]) <= printed, (q["options"], q["question_text"])
        assert float(q["options"][q["correct_index"]].replace(",", "")) == q["answer_value"]


def test_payoff_lookup_cell_tells_the_players_apart() -> None:
    """3.1.a: the asked cell never holds two equal payoffs, or reading the other
    player's number would also find the key and the item would not test whose
    number is whose."""
    qs = generate_bank(["3.1.a"], per_cell=40, seed=5).to_pylist()
    assert len(qs) >= 300
    for q in qs:
        payload = json.loads(q["payload"])
        r, c = payload["cell"]
        first, second = payload["payoffs"][r][c]
        assert first != second, (q["template_id"], q["question_text"])


def test_best_response_offers_three_actions_or_more(rows: list[Row]) -> None:
    """3.1.b: every game has at least three actions, and each wrong one is
    picked by a named error."""
    for q in of(rows, "steer.3.1.b"):
        assert len(q["options"]) >= 3
        assert "other" not in q["option_tags"], q["option_tags"]


def test_trigger_items_are_never_yes_no(rows: list[Row]) -> None:
    """3.4.c (issue 20 §2, BAL003): every item offers four options; none is Yes/No."""
    qs = of(rows, "steer.3.4.c")
    assert qs
    for q in qs:
        assert len(q["options"]) == 4, q["options"]
        assert not {"Yes", "No"} & set(q["options"]), q["options"]


# Each named slip of the threshold (T − R) / (T − P), from the row player's T, R, P, S.
THRESHOLD_SLIPS = {
    "gain_loss_swapped": lambda t, r, p, s: (r - p) / (t - p),
    "used_sucker_payoff": lambda t, r, p, s: (t - r) / (t - s),
    "forgot_punishment": lambda t, r, p, s: (t - r) / t,
    "punished_from_today": lambda t, r, p, s: (t - r + p) / t,
    "odds_not_discount_factor": lambda t, r, p, s: (t - r) / (r - p),
}


def test_threshold_options_are_discount_factors(rows: list[Row]) -> None:
    """3.4.c threshold items (R3.11, R3.20): every option is a usable discount
    factor (below 1: "1.00" was offered), each named slip is its formula, and
    the key is the smallest option no more often than the others are."""
    qs = [q for q in of(rows, "steer.3.4.c") if q["template_id"] not in ("gt.cartel", "gt.tariffs")]
    assert len(qs) >= 100
    smallest = 0
    for q in qs:
        d = json.loads(q["payload"])
        p = np.asarray(d["payoffs"], dtype=float)
        trps = (p[1, 0, 0], p[0, 0, 0], p[1, 1, 0], p[0, 1, 0])
        values = [float(o) for o in q["options"]]
        assert all(0 <= v < 1 for v in values), q["options"]
        for v, tag in zip(values, q["option_tags"], strict=True):
            if tag in THRESHOLD_SLIPS:
                assert v == pytest.approx(THRESHOLD_SLIPS[tag](*trps), abs=0.006), tag
        smallest += min(values) == values[q["correct_index"]]
    assert smallest < 0.32 * len(qs), (smallest, len(qs))


def ref_holds(own: tuple[float, float, float, float], delta: float) -> bool:
    """One player's grim-trigger incentive constraint, compared directly: keep
    R forever against T once and P ever after (own = T, R, P, S)."""
    t, r, p, _ = own
    return r / (1 - delta) >= t + delta * p / (1 - delta)


def ref_own(p: np.ndarray) -> list[tuple[float, float, float, float]]:
    """(T, R, P, S) of the row player, then of the column player."""
    return [
        (p[1, 0, 0], p[0, 0, 0], p[1, 1, 0], p[0, 1, 0]),
        (p[0, 1, 1], p[0, 0, 1], p[1, 1, 1], p[1, 0, 1]),
    ]


def ref_whose(row_ok: bool, col_ok: bool) -> int:
    return [[3, 2], [1, 0]][int(row_ok)][int(col_ok)]


# Each named error's per-player threshold rule (own = T, R, P, S), judged the plain way.
WHOSE_RULES = {
    "whose_gain_loss_swapped": lambda t, r, p, s: (r - p) / (t - p),
    "whose_sucker_punishment": lambda t, r, p, s: (t - r) / (t - s),
    "whose_odds_not_discount_factor": lambda t, r, p, s: (t - r) / (r - p),
}


def test_whose_constraint_holds_keys_and_tags(rows: list[Row]) -> None:
    """3.4.c 'whose incentive constraint holds': the key is the plain reference's
    (both, only the row player, only the column player, neither), each about a
    quarter of the time; δ is never within 0.03 of a player's threshold; the
    options name the players; every wrong option's tag is the rule that picks it."""
    qs = [q for q in of(rows, "steer.3.4.c") if q["template_id"] in ("gt.cartel", "gt.tariffs")]
    assert len(qs) >= 100
    keys: Counter[int] = Counter()
    for q in qs:
        q = in_payload_order(q)
        d = json.loads(q["payload"])
        p, delta = np.asarray(d["payoffs"], dtype=float), d["delta"]
        own = ref_own(p)
        for t, r, pp, s in own:
            assert t > r > pp > s
            assert abs(delta - (t - r) / (t - pp)) >= 0.03
        key = ref_whose(ref_holds(own[0], delta), ref_holds(own[1], delta))
        assert q["correct_index"] == key, (q["question_text"], q["options"])
        keys[key] += 1
        one, two = q["options"][1][len("Only ") :], q["options"][2][len("Only ") :]
        assert q["options"] == [f"Both {one} and {two}", f"Only {one}", f"Only {two}",
                                f"Neither {one} nor {two}"]  # fmt: skip
        # the row player (first in each cell) is the first 'Only' option
        assert f"the first number is {one}'s payoff" in q["question_text"], q["question_text"]
        for i, tag in enumerate(q["option_tags"]):
            if i == key:
                continue
            assert tag != "other", q["option_tags"]
            if tag in WHOSE_RULES:
                rule = WHOSE_RULES[tag]
                assert ref_whose(*(delta >= rule(*o) for o in own)) == i, tag
            elif tag == "whose_players_swapped":
                assert ref_whose(ref_holds(own[1], delta), ref_holds(own[0], delta)) == i
            elif tag == "whose_one_shot_defection":
                assert i == 3
            else:
                assert tag == "whose_threat_always_works" and i == 0, tag
    for k in range(4):
        assert abs(keys[k] / len(qs) - 0.25) < 0.1, keys


@settings(max_examples=200, deadline=None)
@given(
    own=st.lists(
        st.lists(st.integers(-5, 15), min_size=4, max_size=4, unique=True), min_size=2, max_size=2
    ),
    delta=st.integers(5, 19),
)
def test_whose_solver_matches_the_plain_reference(own: list[list[int]], delta: int) -> None:
    """The 'whose constraint holds' solver (steer-core grim_trigger, one player
    at a time) agrees with comparing each player's payoff streams directly."""
    (s1, p1, r1, t1), (s2, p2, r2, t2) = (sorted(o) for o in own)
    payoffs = [[[r1, r2], [s1, t2]], [[t1, s2], [p1, p2]]]
    d = delta / 20
    instance = Instance(data={"payoffs": payoffs, "delta": d},
                        fields={"row_player": "A", "col_player": "B"})  # fmt: skip
    ref = ref_own(np.asarray(payoffs, dtype=float))
    try:
        got = _whose(instance).choice
    except Resample:
        # only when δ sits within 0.03 of a threshold
        assert any(abs(d - (t - r) / (t - p)) < 0.03 for t, r, p, _ in ref)
        return
    assert got == ref_whose(ref_holds(ref[0], d), ref_holds(ref[1], d))


SPOKEN = [f"steer.3.1.{c}" for c in "abcdefgh"] + [
    "steer.3.2.a", "steer.3.2.b", "steer.3.3.a", "steer.3.4.a", "steer.3.4.b", "steer.3.4.c",
    "steer.3.5.a", "steer.3.5.b",
]  # fmt: skip
_NAMED = re.compile(rf"\b(?:{'|'.join(WOMEN + MEN)})\b")
# What may follow the name in the sentence that first uses it: a role or the
# work that gives one ("is advising Amara", "is a trade negotiator", "has
# polled the vote gains"), never a bare task ("needs the number", "is asking").
_ROLE = re.compile(
    r"(?:'s consultancy| reasons at level| has (?:polled|estimated|recorded) the"
    r"| is (?:advising|mediating|scouting|coaching|helping|modelling|planning|running|studying"
    r"|forecasting|predicting|competing|designing|reviewing|drafting|reading the table"
    r"|a |an |the |one of))"
)


def test_a_named_agent_is_introduced_before_a_question_uses_them() -> None:
    """R3.10/R3.11, and R3.3/R3.4/R3.7/R3.12/R3.14 of the fourth review: "which
    of Amara's actions would Sofia recommend", "Mei needs the number." and
    "Aisha is asking." bring in a stranger. Where the agent is a named woman or
    man, the first sentence that names them gives their role: "Sofia is
    advising Amara", "In Sofia's model", or an apposition ("Omar, a level-2
    player")."""
    bank = generate_bank(SPOKEN, per_cell=40, seed=23).to_pylist()
    named = [q for q in bank if q["perspective"] in ("woman", "man")]
    assert len(named) > 500
    for q in named:
        text = q["question_text"]
        name = _NAMED.search(text)
        assert name, text
        opening = re.split(r"(?<=[.?!:])\s+|\n", text[: name.start()])[-1]
        after = text[name.end() : name.end() + 40]
        role = opening == "" and _ROLE.match(after)
        seen = (q["template_id"], opening + name[0] + after)
        assert opening == "In " or after.startswith(", ") or role, seen


def test_enforceability_names_no_discount_factor(rows: list[Row]) -> None:
    """3.4.b: enforceability does not depend on the discount factor."""
    for q in of(rows, "steer.3.4.b"):
        assert "discount" not in q["question_text"] and "δ" not in q["question_text"]


def test_sequential_headers_say_the_players_move_in_turn() -> None:
    """R3.8/R3.14 (fourth review): "Neighbours Ines (first) and Kofi:" and "A
    bill passes between Governor Quinn and Senator Lund" are fragments that
    never say the players move in turn (and a bill may be blocked)."""
    qs = generate_bank(["steer.3.2.a", "steer.3.2.b"], per_cell=20, seed=5).to_pylist()
    for q in qs:
        assert not re.search(r"\(first\) and|passes between", q["question_text"]), q["template_id"]


_BELOW = re.compile(r"(?:but|and) (.+?) gets (-?[\d.]+), below the minmax value (-?[\d.]+)")


def test_enforceability_explanation_names_who_is_held_below(rows: list[Row]) -> None:
    """R3.5 (fourth review): "(8, 2.50) is feasible and not above them" was
    unclear and half wrong (8 was above). A No names each player whose
    average is below that player's minmax value, with both numbers; the pair's numbers
    are written alike ("(8.0, 2.5)", not "(8, 2.50)")."""
    for element in ("steer.3.4.a", "steer.3.4.b"):
        for q in of(rows, element):
            pair = re.search(r"\((-?[\d.]+), (-?[\d.]+)\)", q["question_text"])
            assert pair and len({len(x.partition(".")[2]) for x in pair.groups()}) == 1, pair
    qs = of(rows, "steer.3.4.b")
    for q in qs:
        d = json.loads(q["payload"])
        named = _BELOW.findall(q["explanation"])
        if q["options"][q["correct_index"]] == "Yes":
            assert not named and "not above" not in q["explanation"], q["explanation"]
            continue
        assert named, q["explanation"]
        for who, own, minmax in named:
            k = 0 if f"the first number is {who}'s payoff" in q["question_text"] else 1
            assert float(own) == d["point"][k] < float(minmax), q["explanation"]


# Reply labels that say who gains, which random payoffs then contradict (R3.16).
_LOADED_REPLIES = re.compile(
    r"\b(?:Fight|Accommodate|price war|Grant it|Refuse|Go negative|Stay positive|Cut prices"
    r"|Hold prices)\b"
)


def test_hidden_move_replies_say_nothing_about_who_gains(rows: list[Row]) -> None:
    """3.3.a (R3.16, fourth review): with drawn payoffs the entrant may do
    better when "fought" than when accommodated, so the follower's replies are
    named neutrally ("Move upmarket", "Target budget buyers")."""
    qs = of(rows, "steer.3.3.a")
    assert qs
    for q in qs:
        text = q["question_text"] + " ".join(q["options"])
        assert not _LOADED_REPLIES.search(text), (q["template_id"], text)


def test_units_and_discount_factors_fit_their_numbers(rows: list[Row]) -> None:
    """R3.20/R3.10 (fourth review): vote gains of -855.984 are not "points";
    δ is given for both firms, not one; thresholds and mixes are written as δ
    is ("0.75", not "0.7500")."""
    for q in of(rows, "steer.3.1.a"):
        cells = [abs(float(x.replace(",", ""))) for c in _CELL.findall(q["question_text"])
                 for x in c]  # fmt: skip
        assert "(in points)" not in q["question_text"] or max(cells) < 100, q["question_text"]
    for q in of(rows, "steer.3.4.c"):
        text = q["question_text"]
        assert not re.search(r"which meets [^:]*? and values next", text), text
        for x in re.findall(r"δ ≥ (\d+(?:\.\d+)?)", q["explanation"]):
            assert len(x.partition(".")[2]) <= 3, q["explanation"]
    for q in of(rows, "steer.3.1.h"):
        x = re.search(r"with probability (\d+(?:\.\d+)?)", q["explanation"])
        assert x and len(x[1].partition(".")[2]) <= 3, q["explanation"]
