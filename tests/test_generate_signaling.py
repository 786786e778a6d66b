"""Which equilibrium a sequential-equilibrium question asks for."""

from __future__ import annotations

import collections
import json

import numpy as np

from steer.generate import generate_bank
from steer.generate._imperfect import _pick_key


def sender_pools(option: str) -> bool:
    """'Maya: Skip if skilled, Skip if unskilled; Firm: …' → both types send the same."""
    sender = option.split(";")[0].split(": ", 1)[1]
    first, second = (move.rsplit(" if ", 1)[0] for move in sender.split(", "))
    return first == second


def test_keys_are_drawn_by_the_first_movers_strategy() -> None:
    data = {
        "sets": [{"who": "S"}, {"who": "S"}, {"who": "R"}, {"who": "R"}],
        "pick": 0,
    }
    # Three pooling equilibria (sender plays 0, 0) and one separating (0, 1).
    profiles = np.array([[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 1], [0, 1, 0, 1], [1, 1, 1, 1]])
    strict = [0, 1, 2, 3]
    picked = collections.Counter()
    for pick in range(12):
        data["pick"] = pick
        key = _pick_key(data, profiles, strict)
        assert key in strict
        picked["separating" if key == 3 else "pooling"] += 1
    # Half the picks go to each sender strategy, not three quarters to pooling.
    assert picked == {"separating": 6, "pooling": 6}


def reference_pbe(d: dict, prof: list[int]) -> bool:
    """Plain perfect Bayesian equilibrium check of a two-type signaling profile
    (strong type's message, weak type's message, reply to message 0, to 1):
    Bayes' rule on the path, some belief (a fine grid) off it, every move a
    best reply, every sender type strictly better off than by switching."""
    pay = np.asarray(d["receiver_pay"], dtype=float)
    p, n = d["prior_first"], pay.shape[1]
    u = np.asarray(d["payoffs"], dtype=float)[:, 0]
    sender = [
        [[u[1 + ty * (3 + 2 * n) + 1 + m * (1 + n) + 1 + a] for a in range(n)] for m in (0, 1)]
        for ty in (0, 1)
    ]
    sends, replies = prof[:2], prof[2:]
    for m in (0, 1):
        w = np.array([p * (sends[0] == m), (1 - p) * (sends[1] == m)])
        beliefs = (
            [w / w.sum()] if w.sum() else [np.array([x, 1 - x]) for x in np.linspace(0, 1, 1001)]
        )
        if not any((b @ pay)[replies[m]] >= (b @ pay).max() - 1e-12 for b in beliefs):
            return False
    return all(
        sender[ty][sends[ty]][replies[sends[ty]]]
        > sender[ty][1 - sends[ty]][replies[1 - sends[ty]]]
        for ty in (0, 1)
    )


def shape(option: list[int], n: int) -> tuple[int, ...]:
    return (*option[:2], *(r // (n - 1) for r in option[2:]))


def test_signaling_keys_are_balanced_by_shape_and_proven() -> None:
    """3.5.b: the key is the one option that is a perfect Bayesian equilibrium
    (by the plain reference above); each profile shape is the key in about a
    quarter of its appearances, so no shape gives the key away; every wrong
    option is tagged by how it fails."""
    bank = generate_bank(["3.5.b"], per_cell=120, seed=5).to_pylist()
    keys: collections.Counter[tuple[int, ...]] = collections.Counter()
    seen: collections.Counter[tuple[int, ...]] = collections.Counter()
    for q in bank:
        d = json.loads(q["payload"])
        n = len(d["receiver_pay"][0])
        key = q["option_order"][q["correct_index"]]
        for i, option in enumerate(d["options"]):
            assert reference_pbe(d, option) == (i == key), (option, q["question_text"])
            seen[shape(option, n)] += 1
            keys[shape(option, n)] += i == key
        tags = [t for i, t in enumerate(q["option_tags"]) if i != q["correct_index"]]
        assert set(tags) <= {
            "bayes_belief_ignored",
            "pooling_type_deviates",
            "separating_type_deviates",
        }, tags
    assert len(seen) == 6, seen
    for s, count in seen.items():
        assert 0.17 < keys[s] / count < 0.33, (s, keys[s], count)
    separating = keys[(0, 1, 0, 1)] / len(bank)
    assert 0.1 < separating < 0.25, separating
