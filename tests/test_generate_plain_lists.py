"""Plain-Python forms of generation's hot paths agree with what they replaced.

Samplers and named errors that run once per draw read a few payoffs or
ballots; there they work on plain lists instead of numpy arrays, and a drawn
game's table text is made only for the draw kept (`Instance.defer`). These
tests hold each to the numpy formulation it replaced, on random small games,
ties included, so a bank stays byte for byte what it was.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from steer.generate._games import _best_reply_cells, _instance, irds_rounds
from steer.generate._registry import Instance
from steer.generate._social import _lone_winners, _pairwise_top, _slip_winners
from steer.generate._structures import _matrix_text
from steer.templates import load_templates
from steer.templates._text import render


def _numpy_irds_rounds(
    payoffs: np.ndarray,
    *,
    weak: bool = False,
    players: tuple[int, ...] = (0, 1),
    judge: str = "own",
    rounds: int | None = None,
    first_round_keeps_dominated: bool = False,
    never_best_reply: bool = False,
) -> tuple[list[int], list[int]]:
    """irds_rounds as it was written on numpy arrays."""
    alive = [list(range(payoffs.shape[0])), list(range(payoffs.shape[1]))]
    done = 0
    while rounds is None or done < rounds:
        gone: list[set[int]] = [set(), set()]
        for p in players:
            idx = payoffs[:, :, p if judge == "own" else 1 - p]
            own = idx if p == 0 else idx.T
            sub = own[np.ix_(alive[p], alive[1 - p])]
            if never_best_reply:
                best = (sub == sub.max(axis=0, keepdims=True)).any(axis=1)
                gone[p].update(s for s, ok in zip(alive[p], best, strict=True) if not ok)
                continue
            for a, s in enumerate(alive[p]):
                for b, t in enumerate(alive[p]):
                    if a == b:
                        continue
                    diff = sub[b] - sub[a]
                    strict = bool((diff > 0).all())
                    if strict or (weak and bool((diff >= 0).all()) and bool((diff > 0).any())):
                        gone[p].add(t if first_round_keeps_dominated and done == 0 else s)
                        break
        if not gone[0] and not gone[1]:
            break
        alive = [[s for s in alive[p] if s not in gone[p]] for p in (0, 1)]
        if not alive[0] or not alive[1]:
            break
        done += 1
    return alive[0], alive[1]


def _games(count: int) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    out = []
    for _ in range(count):
        rows, cols = (int(x) for x in rng.integers(2, 5, size=2))
        # Few distinct payoffs: ties and weak dominance are common.
        scale = float(rng.choice([1.0, 0.5, -1.5]))
        out.append(rng.integers(0, 4, size=(rows, cols, 2)).astype(float) * scale)
    return out


@pytest.mark.parametrize(
    "how",
    [
        {},
        {"weak": True},
        {"judge": "other"},
        {"first_round_keeps_dominated": True},
        {"never_best_reply": True},
        {"rounds": 1},
        {"players": (0,)},
    ],
)
def test_irds_rounds_matches_the_numpy_formulation(how: dict[str, object]) -> None:
    for payoffs in _games(400):
        assert irds_rounds(payoffs, **how) == _numpy_irds_rounds(payoffs, **how)  # type: ignore[arg-type]


def test_best_reply_cells_match_the_numpy_formulation() -> None:
    for payoffs in _games(400):
        col_best = payoffs[:, :, 0].max(axis=0)
        rows_best = {
            (int(r), int(c)) for r, c in zip(*np.nonzero(payoffs[:, :, 0] == col_best), strict=True)
        }
        row_best = payoffs[:, :, 1].max(axis=1, keepdims=True)
        cols_best = {
            (int(r), int(c)) for r, c in zip(*np.nonzero(payoffs[:, :, 1] == row_best), strict=True)
        }
        assert _best_reply_cells(payoffs, 0) == rows_best
        assert _best_reply_cells(payoffs, 1) == cols_best


def _profiles(count: int) -> list[Instance]:
    rng = np.random.default_rng(11)
    out = []
    for _ in range(count):
        m = int(rng.integers(3, 7))
        rankings = list(itertools.permutations(range(m)))
        k = min(len(rankings), m + 1)
        picked = rng.choice(len(rankings), size=k, replace=False)
        names = [f"C{i}" for i in range(m)]
        data = {
            "rankings": [list(rankings[i]) for i in picked],
            "counts": [int(x) for x in rng.integers(1, 4, size=k)],
            "names": names,
        }
        out.append(Instance(data, {}, list(names)))
    return out


def test_profile_tallies_match_numpy() -> None:
    for instance in _profiles(300):
        rankings = np.asarray(instance.data["rankings"])
        counts = np.asarray(instance.data["counts"])
        m = rankings.shape[1]
        places = [np.zeros(m), np.zeros(m), np.zeros(m)]
        for k, col in enumerate((0, 1, -1)):
            np.add.at(places[k], rankings[:, col], counts)
        slips = _slip_winners(instance)
        assert int(np.argmin(places[2])) in slips and int(np.argmax(places[1])) in slips
        assert int(np.argmax(np.bincount(rankings[:, 0], minlength=m))) in slips
        lone = _lone_winners(instance)
        assert lone[2:] == [int(np.argmin(places[2])), int(np.argmax(places[1]))]
        place = np.argsort(rankings, axis=1)
        for tie_points in (0.0, 1.0):
            score = np.zeros(m)
            for a, b in itertools.combinations(range(m), 2):
                a_over_b = int(counts[place[:, a] < place[:, b]].sum())
                b_over_a = int(counts.sum()) - a_over_b
                if a_over_b == b_over_a:
                    score[a] += tie_points
                    score[b] += tie_points
                else:
                    score[a if a_over_b > b_over_a else b] += 1
            top = [int(c) for c in np.flatnonzero(score == score.max())]
            assert _pairwise_top(instance, tie_points) == top


def test_a_games_table_text_is_made_once_when_rendered() -> None:
    template = next(t for t in load_templates("steer") if t.spec.structure == "normal_form")
    rng = np.random.default_rng(3)
    payoffs = rng.integers(0, 9, size=(2, 2, 2)).astype(float)
    instance = _instance(rng, payoffs, template.spec)
    assert "matrix" not in instance.fields and instance.defer is not None
    fields = instance.text_fields()
    assert instance.defer is None and fields is instance.fields
    rows, cols = instance.data["row_actions"], instance.data["col_actions"]
    assert fields["matrix"] == _matrix_text(
        payoffs, rows, cols, fields["row_player"], fields["col_player"], template.spec.decimals
    )
    assert instance.text_fields() is fields  # made once


@pytest.mark.parametrize(
    ("text", "values", "expected"),
    [
        ("{Agent}'s plan", {"Agent": "You"}, "Your plan"),
        ("{firm}'s plan", {"firm": "Works"}, "Works' plan"),
        ("a {x} and {n} trays", {"x": "8", "n": "1"}, "an 8 and 1 tray"),
        (
            "{Agent} wants a {x} and buys",
            {"Agent": "You", "x": "apple"},
            "You want an apple and buy",
        ),
        (
            "does {agent} {has} a {x}",
            {"agent": "I", "has": "have", "x": "1 tray"},
            "do I have a 1 tray",
        ),
        ("{n} {x} trays", {"n": "1", "x": "red"}, "1 red trays"),
    ],
)
def test_render_applies_every_rule_through_its_plan(
    text: str, values: dict[str, str], expected: str
) -> None:
    assert render(text, values) == expected
