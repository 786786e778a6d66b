"""3.1.f (pure Nash equilibria): the size of a wrong set of profiles must not
tell the key, including when the key is that there is no pure equilibrium
(issue 20 §2). Before, every wrong set then had one profile, so the sentence
was the longest option exactly when it was right."""

from __future__ import annotations

import collections
import json

import pytest

from steer.generate import generate_bank
from steer.generate._games import NO_PURE, TWO_CELL_KEYS


def _cells(option: str) -> int:
    return 0 if option == NO_PURE else option.count("(")


@pytest.fixture(scope="module")
def bank() -> list[dict[str, object]]:
    return generate_bank(["steer.3.1.f"], per_cell=250, seed=3).to_pylist()


def test_the_two_profile_shares_are_this_samplers(bank: list[dict[str, object]]) -> None:
    # TWO_CELL_KEYS holds how often a key with profiles has two or more, by
    # game size; with ~190 such keys per template grade and four templates the
    # share is known to a few points.
    keys: dict[int, collections.Counter[bool]] = collections.defaultdict(collections.Counter)
    for q in bank:
        options, key = q["options"], q["correct_index"]
        assert isinstance(options, list) and isinstance(key, int)
        size = _size_of(q)
        n = _cells(options[key])
        if n:
            keys[size][n >= 2] += 1
    for size, counts in keys.items():
        share = 100 * counts[True] / sum(counts.values())
        assert abs(share - TWO_CELL_KEYS[size]) < 6, (size, share)


def _size_of(q: dict[str, object]) -> int:
    """Actions per player, read from the question's payload."""
    return len(json.loads(str(q["payload"]))["payoffs"])


def test_wrong_sets_against_no_equilibrium_are_sized_as_keys_are(
    bank: list[dict[str, object]],
) -> None:
    two: dict[bool, collections.Counter[bool]] = {
        True: collections.Counter(),
        False: collections.Counter(),
    }
    for q in bank:
        options, key = q["options"], q["correct_index"]
        assert isinstance(options, list) and isinstance(key, int)
        wrong = [_cells(o) for i, o in enumerate(options) if i != key and _cells(o) > 0]
        if not wrong:
            continue
        none_key = _cells(options[key]) == 0
        two[none_key][max(wrong) >= 2] += 1
    with_sets = two[False][True] / sum(two[False].values())
    against_none = two[True][True] / sum(two[True].values())
    assert against_none > 0.15
    assert abs(against_none - with_sets) < 0.08


def test_always_picking_the_longest_option_scores_near_chance(
    bank: list[dict[str, object]],
) -> None:
    # Before the fix: 0.27 against chance 0.23 on this bank (the sentence was
    # the longest option in three of four questions it was the key of).
    right, chance = 0, 0.0
    for q in bank:
        options, key = q["options"], q["correct_index"]
        assert isinstance(options, list) and isinstance(key, int)
        lengths = [len(o) for o in options]
        right += lengths.index(max(lengths)) == key
        chance += 1 / len(options)
    assert (right - chance) / len(bank) < 0.02
