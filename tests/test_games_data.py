"""Games as data: the shipped files load, bad files name file and field, payoffs
match hand computations, and the equilibrium benchmarks match nashpy and the
known closed forms."""

from __future__ import annotations

from pathlib import Path

import nashpy
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steer._native import sealed_bid_auction
from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.play._equilibria import (
    auction_deviation,
    best_replies,
    best_reply,
    distance_to_nearest,
    efficiency,
    nash_equilibria,
    pirate_outcome,
    regret,
)
from steer.play._games import GAMES_DIR, RULES, load_game, payoffs, shipped_games

PD = """\
name = "pd"
version = 1
source = "test"
notes = ""
players = 2
rounds = 1
information = "all-moves"
actions = ["cooperate", "defect"]
payoffs = [[40, 40], [12, 50], [50, 12], [25, 25]]
"""

EXPECTED_GAMES = {
    "prisoners-dilemma",
    "repeated-prisoners-dilemma",
    "infinitely-repeated-prisoners-dilemma",
    "second-price-auction",
    "beauty-contest",
    "public-goods",
    "repeated-public-goods",
    "battle-of-the-sexes",
    "stag-hunt",
    "minimum-effort",
    "gama:guessing",
    "gama:el-farol",
    "gama:divide-dollar",
    "gama:public-goods",
    "gama:diner",
    "gama:sealed-bid-auction",
    "gama:battle-royale",
    "gama:pirate",
}


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


# --- loading ------------------------------------------------------------------------


def test_every_shipped_game_loads() -> None:
    games = shipped_games()
    assert set(games) == EXPECTED_GAMES
    assert len(list(GAMES_DIR.glob("*.toml"))) == len(games)
    for name in games:
        game = load_game(name)
        assert game.name == name
        assert game.version == 1
        assert game.source and game.notes
        if name.startswith("gama:"):
            assert "2403.11807" in game.source and "April 2024" in game.source


def test_rationality_check_parameters() -> None:
    pd = load_game("prisoners-dilemma")
    assert (pd.rounds, pd.continuation) == (1, None)
    assert load_game("repeated-prisoners-dilemma").rounds == 10
    assert load_game("infinitely-repeated-prisoners-dilemma").continuation == 0.5
    pg = load_game("public-goods")
    assert pg.players == 4
    assert pg.params == {"endowment": 100, "multiplier": 1.2}
    spa = load_game("second-price-auction")
    assert spa.params["values"] == list(range(10, 101, 10))


def test_unknown_game_suggests() -> None:
    with pytest.raises(UnknownNameError, match="prisoners-dilemma"):
        load_game("prisoner-dilemma")


def test_file_path_loads(tmp_path: Path) -> None:
    game = load_game(_write(tmp_path, PD))
    assert game.path.endswith("game.toml")
    assert payoffs(game, ["defect", "cooperate"]).tolist() == [50, 12]


@pytest.mark.parametrize(
    ("replace", "field", "message"),
    [
        (
            ("[[40, 40], [12, 50], [50, 12], [25, 25]]", "[[40, 40], [12, 50], [50, 12]]"),
            "payoffs",
            r"need 2\^2 = 4",
        ),
        (("[25, 25]]", "[25]]"), "payoffs[3]", "one per player"),
        (("rounds = 1\n", "rounds = 1\ncontinuation = 1.5\n"), "continuation", "probability"),
        (
            ("payoffs = [[40, 40], [12, 50], [50, 12], [25, 25]]", 'rule = "publc-goods"'),
            "rule",
            "did you mean 'public-goods'",
        ),
        (("rounds = 1\n", 'rounds = 1\ncolour = "red"\n'), "colour", "unknown key"),
        (('actions = ["cooperate", "defect"]\n', ""), "actions", "required"),
        (('["cooperate", "defect"]', "[]"), "actions", "at least one"),
        (("rounds = 1", "rounds = 0"), "rounds", "greater than or equal to 1"),
        (('information = "all-moves"', 'information = "everything"'), "information", "all-moves"),
    ],
)
def test_bad_files_name_file_and_field(
    tmp_path: Path, replace: tuple[str, str], field: str, message: str
) -> None:
    text = PD.replace(*replace)
    assert text != PD
    path = _write(tmp_path, text)
    with pytest.raises(FileFormatError, match=message) as info:
        load_game(path)
    assert info.value.source == str(path)
    assert info.value.field == field


def test_bad_rule_params_and_actions(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError) as info:
        load_game("public-goods", params={"mult": 2})
    assert info.value.field == "params.mult" and info.value.where == "override"
    with pytest.raises(FileFormatError) as info:
        load_game("public-goods", actions={"kind": "number", "min": 0, "max": 100, "stp": 1})
    assert info.value.field == "actions.stp"
    with pytest.raises(FileFormatError, match="must exceed") as info:
        load_game("public-goods", actions={"kind": "number", "min": 5, "max": 1})
    with pytest.raises(FileFormatError, match=r"\[0, endowment\]"):
        load_game("public-goods", actions={"kind": "number", "min": 0, "max": 500})
    with pytest.raises(FileFormatError, match="needs actions") as info:
        load_game("gama:diner", actions=["a", "b"])
    assert info.value.field == "actions"
    with pytest.raises(FileFormatError, match="not both"):
        load_game("public-goods", payoffs=[[1, 1]])
    with pytest.raises(FileFormatError, match="hit rate") as info:
        load_game("gama:battle-royale", players=3)
    assert info.value.field == "params.hit_rates"


def test_invalid_toml_names_line(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError) as info:
        load_game(_write(tmp_path, PD.replace("rounds = 1", "rounds = = 1")))
    assert info.value.where is not None and info.value.where.startswith("line ")


def test_overrides() -> None:
    pd = load_game("prisoners-dilemma", rounds=5, continuation=0.9)
    assert (pd.rounds, pd.continuation) == (5, 0.9)
    harsher = load_game("prisoners-dilemma", payoffs=[[3, 3], [0, 5], [5, 0], [1, 1]])
    assert payoffs(harsher, [0, 1]).tolist() == [0, 5]
    pg = load_game("public-goods", players=2, params={"multiplier": 1.5})
    assert pg.params == {"endowment": 100, "multiplier": 1.5}
    assert payoffs(pg, [100, 0]).tolist() == [75, 175]
    # A matrix game with more players needs a bigger table: one clear error.
    with pytest.raises(FileFormatError, match="2\\^3 = 8") as info:
        load_game("stag-hunt", players=3)
    assert info.value.field == "payoffs"


# --- payoffs ------------------------------------------------------------------------


def test_matrix_payoffs_by_hand() -> None:
    pd = load_game("repeated-prisoners-dilemma")
    moves = [["cooperate", "cooperate"], ["cooperate", "defect"], ["defect", "defect"]]
    assert payoffs(pd, moves).tolist() == [[40, 40], [12, 50], [25, 25]]
    assert payoffs(pd, np.array([[1, 0]])).tolist() == [[50, 12]]
    bos = load_game("battle-of-the-sexes")
    assert payoffs(bos, [["A", "A"], ["B", "B"], ["A", "B"]]).tolist() == [[10, 7], [7, 10], [0, 0]]
    sh = load_game("stag-hunt")
    assert payoffs(sh, ["stag", "hare"]).tolist() == [1, 8]


def test_rule_payoffs_by_hand() -> None:
    pg = load_game("public-goods")
    # Pot 100 × 1.2 = 120, 30 each.
    assert payoffs(pg, [100, 0, 0, 0]).tolist() == pytest.approx([30, 130, 130, 130])
    assert payoffs(pg, [0, 0, 0, 0]).tolist() == [100] * 4
    me = load_game("minimum-effort")
    assert payoffs(me, [[7, 7], [1, 1], [3, 7]]) == pytest.approx(
        np.array([[1.3, 1.3], [0.7, 0.7], [0.9, 0.5]])
    )
    bc = load_game("beauty-contest")
    # Target 2/3 × 30 = 20.
    assert payoffs(bc, [20, 40]).tolist() == pytest.approx([0, -20])
    guess = load_game("gama:guessing", players=3)
    # Mean 30, target 20: the 20 wins alone; ties split the prize.
    assert payoffs(guess, [20, 30, 40]).tolist() == [1, 0, 0]
    assert payoffs(guess, [0, 0, 0]).tolist() == pytest.approx([1 / 3] * 3)
    bar = load_game("gama:el-farol")
    six = ["go"] * 6 + ["stay"] * 4
    assert payoffs(bar, six).tolist() == [10] * 6 + [5] * 4
    assert payoffs(bar, ["go"] * 7 + ["stay"] * 3).tolist() == [0] * 7 + [5] * 3
    dollar = load_game("gama:divide-dollar", players=3)
    assert payoffs(dollar, [[50, 30, 20], [50, 30, 21]]).tolist() == [[50, 30, 20], [0, 0, 0]]
    diner = load_game("gama:diner", players=2)
    # Bill 30 split in two.
    assert payoffs(diner, ["cheap", "expensive"]).tolist() == [0, 5]


def test_auction_payoffs_match_the_native_solver() -> None:
    spa = load_game("second-price-auction", players=3)
    rng = np.random.default_rng(1)
    bids = rng.integers(0, 5, size=(200, 3)).astype(float) * 10
    values = spa.draw_values(rng, 200)
    got = payoffs(spa, bids, values=values)
    for row in range(200):  # the reference, one auction at a time
        winner, price = sealed_bid_auction(bids[row], "second")
        expected = np.zeros(3)
        assert winner is not None
        expected[winner] = values[row, winner] - price
        assert got[row].tolist() == pytest.approx(expected.tolist())
    fpa = load_game("gama:sealed-bid-auction", players=2)
    assert payoffs(fpa, [30, 20], values=[50, 60]).tolist() == [20, 0]
    with pytest.raises(InputError, match="private values"):
        payoffs(spa, [1, 2, 3])


def test_moves_are_checked() -> None:
    pd = load_game("prisoners-dilemma")
    with pytest.raises(InputError, match="unknown action"):
        payoffs(pd, ["cooperate", "betray"])
    with pytest.raises(InputError, match="2 players"):
        payoffs(pd, [0, 1, 1])
    with pytest.raises(InputError, match="steps of 1"):
        payoffs(load_game("minimum-effort"), [1.5, 2])
    with pytest.raises(InputError, match="sequential"):
        payoffs(load_game("gama:pirate"), np.zeros(10))


@given(st.lists(st.integers(0, 100), min_size=4, max_size=4))
def test_public_goods_total_depends_on_the_sum(contributions: list[int]) -> None:
    pg = load_game("public-goods")
    out = payoffs(pg, contributions)
    assert out.sum() == pytest.approx(400 + 0.2 * sum(contributions))
    # Keeping one more unit always pays 1 − 0.3 more (MPCR 0.3).
    if contributions[0] > 0:
        less = [contributions[0] - 1, *contributions[1:]]
        assert payoffs(pg, less)[0] - out[0] == pytest.approx(0.7)


# --- equilibria ---------------------------------------------------------------------

MATRIX_GAMES = [
    "prisoners-dilemma",
    "repeated-prisoners-dilemma",
    "infinitely-repeated-prisoners-dilemma",
    "battle-of-the-sexes",
    "stag-hunt",
]


def _key(x: np.ndarray, y: np.ndarray) -> tuple[float, ...]:
    return tuple(np.round(np.concatenate([x, y]), 9))


@pytest.mark.parametrize("name", MATRIX_GAMES)
def test_matrix_equilibria_match_nashpy(name: str) -> None:
    game = load_game(name)
    assert game.table is not None
    eqs = nash_equilibria(game)
    profiles = [e.strategies for e in eqs.equilibria if e.strategies is not None]
    assert len(profiles) == len(eqs.equilibria)
    ours = {_key(s[0], s[1]) for s in profiles}
    ref = nashpy.Game(game.table[..., 0], game.table[..., 1])
    theirs = {_key(x, y) for x, y in ref.support_enumeration()}
    assert ours == theirs
    assert eqs.complete


def test_named_equilibria() -> None:
    pd = nash_equilibria(load_game("prisoners-dilemma"))
    assert [e.label for e in pd.equilibria] == ["(defect, defect)"] and pd.dominant
    rep = nash_equilibria(load_game("repeated-prisoners-dilemma"))
    assert rep.subgame_perfect is not None and rep.subgame_perfect.label == "(defect, defect)"
    inf = nash_equilibria(load_game("infinitely-repeated-prisoners-dilemma"))
    # Grim trigger: (50 − 40) / (50 − 25).
    assert inf.critical_continuation == pytest.approx(0.4)
    assert inf.subgame_perfect is None
    bos = nash_equilibria(load_game("battle-of-the-sexes"))
    assert len(bos.equilibria) == 3 and bos.payoff_dominant is None
    mixed = next(e for e in bos.equilibria if not e.pure)
    assert mixed.payoffs is not None
    assert mixed.payoffs.tolist() == pytest.approx([70 / 17, 70 / 17])
    sh = nash_equilibria(load_game("stag-hunt"))
    assert sh.payoff_dominant is not None
    assert sh.equilibria[sh.payoff_dominant].label == "(stag, stag)"
    assert nash_equilibria(load_game("repeated-public-goods")).subgame_perfect is not None


def test_closed_forms() -> None:
    me = nash_equilibria(load_game("minimum-effort"))
    assert [e.label for e in me.equilibria] == [f"({k}, {k})" for k in range(1, 8)]
    assert me.payoff_dominant is not None
    assert me.equilibria[me.payoff_dominant].label == "(7, 7)"
    for name in ("public-goods", "gama:public-goods"):
        pg = nash_equilibria(load_game(name))
        assert [e.label for e in pg.equilibria] == ["all 0"] and pg.dominant
    generous = nash_equilibria(load_game("public-goods", params={"multiplier": 6}))
    assert [e.label for e in generous.equilibria] == ["all 100"]
    bc = nash_equilibria(load_game("beauty-contest"))
    assert [e.label for e in bc.equilibria] == ["all 0"]
    assert nash_equilibria(load_game("beauty-contest", players=5)).equilibria[0].label == "all 0"
    diner = nash_equilibria(load_game("gama:diner"))
    assert len(diner.equilibria) == 1 and diner.dominant
    bar = nash_equilibria(load_game("gama:el-farol"))
    # Exactly 6 of 10 go: C(10, 6) pure equilibria.
    assert len(bar.equilibria) == 210
    dollar = nash_equilibria(load_game("gama:divide-dollar"))
    assert dollar.payoff_dominant is not None
    assert dollar.equilibria[dollar.payoff_dominant].label == "all 10"
    spa = nash_equilibria(load_game("second-price-auction"))
    assert spa.equilibria[0].label.startswith("bid = value")
    assert nash_equilibria(load_game("gama:battle-royale")).equilibria == ()


def test_pirate_backward_induction() -> None:
    assert pirate_outcome(10, 100, 0.5).tolist() == [96, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    assert pirate_outcome(5, 100, 0.5).tolist() == [98, 0, 1, 0, 1]
    assert pirate_outcome(2, 100, 0.5).tolist() == [100, 0]
    eq = nash_equilibria(load_game("gama:pirate")).equilibria[0]
    assert eq.payoffs is not None and eq.payoffs.sum() == 100


def test_best_replies() -> None:
    bc = load_game("beauty-contest")
    # Two players: g = (2/3)(g + x)/2, so g = x/2 (not 2x/3).
    assert best_reply(bc, [60], 0) == pytest.approx(30, abs=1e-6)
    assert best_reply(bc, [60], 1) == pytest.approx(30, abs=1e-6)
    pd = load_game("prisoners-dilemma")
    assert best_replies(pd, ["cooperate"], 0).tolist() == [1]
    me = load_game("minimum-effort")
    assert best_reply(me, [4], 0) == 4
    with pytest.raises(InputError, match="other 1"):
        best_reply(pd, [0, 1], 0)


@given(st.floats(0, 100), st.integers(2, 6))
def test_beauty_contest_best_reply_is_exact(x: float, players: int) -> None:
    game = load_game("beauty-contest", players=players)
    f = 2 / 3
    # g = f (g + S) / n  →  g = f S / (n − f), the fixed point of the rule.
    expected = f * x * (players - 1) / (players - f)
    assert best_reply(game, [x] * (players - 1), 0) == pytest.approx(expected, abs=1e-6)


@given(st.integers(1, 7), st.integers(1, 7))
def test_minimum_effort_regret_is_zero_only_on_common_levels(a: int, b: int) -> None:
    game = load_game("minimum-effort")
    assert (regret(game, [a, b]).max() == 0) == (a == b)


def test_distance_and_efficiency() -> None:
    sh = load_game("stag-hunt")
    eqs = nash_equilibria(sh)
    play = [["hare", "hare"]] * 3 + [["stag", "hare"]]
    distance, index = distance_to_nearest(sh, play, eqs)
    assert eqs.equilibria[index].label == "(hare, hare)"
    assert distance == pytest.approx(0.125)  # seat 0 plays stag a quarter of the time
    # Stag hunt round totals range from 9 (mismatch) to 20 (both stag).
    assert efficiency(20, sh) == 1.0 and efficiency(9, sh) == 0.0
    assert efficiency([[5, 5], [10, 10]], sh) == pytest.approx((15 - 9) / 11)
    bos = load_game("battle-of-the-sexes")
    assert efficiency([[10, 7]], bos) == 1.0
    me = load_game("minimum-effort")
    me_eqs = nash_equilibria(me)
    distance, index = distance_to_nearest(me, [[6, 7], [7, 7]], me_eqs)
    assert me_eqs.equilibria[index].label == "(7, 7)"
    assert distance == pytest.approx(0.25 / 6)
    pg = load_game("public-goods")
    assert efficiency(payoffs(pg, [0, 0, 0, 0]), pg) == 0.0
    assert efficiency(payoffs(pg, [100] * 4), pg) == 1.0


def test_auction_deviation() -> None:
    assert auction_deviation([10, 45, 100], [10, 50, 80]).tolist() == pytest.approx([0, 0.1, 0.25])
    assert set(RULES) >= {"public-goods", "second-price-auction", "beauty-contest"}
