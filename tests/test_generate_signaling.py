"""Which equilibrium a sequential-equilibrium question asks for."""

from __future__ import annotations

import collections

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


def test_signaling_keys_are_not_mostly_pooling() -> None:
    bank = generate_bank(["3.5.b"], per_cell=100, seed=5).to_pylist()
    kinds = collections.Counter(
        "pooling" if sender_pools(q["options"][q["correct_index"]]) else "separating" for q in bank
    )
    # Separation is made to fail in some draws (the weak type mimics, or the
    # signal is too dear even for the strong type), so that the separating
    # profile is a wrong option as well as a key: a fifth of keys or more.
    assert kinds["separating"] >= 0.2 * len(bank), kinds
    assert kinds["pooling"] >= 0.25 * len(bank), kinds
