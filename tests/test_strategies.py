"""Reference strategies play exactly what their definitions say."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from steer.errors import InputError, UnknownNameError
from steer.play._equilibria import auction_deviation
from steer.play._games import Game, load_game, payoffs
from steer.play._strategies import (
    STRATEGIES,
    Agent,
    History,
    level_k_actions,
    make_agent,
    parse_agent,
)


def _play(game: Game, agents: list[Agent], seed: int = 0) -> np.ndarray:
    """Moves (rounds × players, action indices for discrete games) of a game
    played by `agents`, one per seat."""
    rng = np.random.default_rng(seed)
    moves = np.empty((0, game.players))
    for _ in range(game.rounds):
        history = History(moves, payoffs(game, moves) if len(moves) else None)
        row = [agent(game, history, seat, rng) for seat, agent in enumerate(agents)]
        coded = game.encode(row) if game.discrete else np.asarray(row, dtype=float)
        moves = np.vstack([moves, coded])
    return moves


def test_registry_and_specs() -> None:
    assert set(STRATEGIES) == {
        "always-defect",
        "always-cooperate",
        "tit-for-tat",
        "truthful",
        "level-k",
        "free-rider",
        "conditional-cooperator",
        "random",
        # The sequential games' agents (tests/test_play_sequential.py).
        "backward-induction",
        "strongest-target",
        "fixed-target",
    }
    assert parse_agent("agent:level-k(k=2)") == ("level-k", {"k": 2})
    assert parse_agent("agent:tit-for-tat(first=defect)") == ("tit-for-tat", {"first": "defect"})
    assert parse_agent(" agent:random ") == ("random", {})


@pytest.mark.parametrize(
    ("spec", "error", "message"),
    [
        ("agent:tit-for-tot", UnknownNameError, "did you mean 'tit-for-tat'"),
        ("agent:level-k(j=1)", InputError, "unknown parameter 'j'"),
        ("agent:level-k", InputError, "'k'"),
        ("agent:level-k(k=-1)", InputError, "'k'"),
        ("agent:random(seed=1)", InputError, "unknown parameter 'seed'"),
        ("level-k(k=1)", InputError, "not an agent spec"),
        ("agent:level-k(k)", InputError, "key=value"),
    ],
)
def test_bad_specs(spec: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        make_agent(spec)


def test_always_defect_and_cooperate() -> None:
    game = load_game("repeated-prisoners-dilemma")
    moves = _play(game, [make_agent("agent:always-defect"), make_agent("agent:random")])
    assert (moves[:, 0] == 1).mean() == 1.0
    moves = _play(game, [make_agent("agent:always-cooperate"), make_agent("agent:random")])
    assert (moves[:, 0] == 0).all()
    with pytest.raises(InputError, match="'defect'"):
        make_agent("agent:always-defect")(load_game("stag-hunt"), History.start(game), 0, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", range(5))
def test_tit_for_tat_copies(seed: int) -> None:
    game = load_game("repeated-prisoners-dilemma", rounds=30)
    moves = _play(game, [make_agent("agent:tit-for-tat"), make_agent("agent:random")], seed)
    assert moves[0, 0] == 0  # cooperates first
    assert (moves[1:, 0] == moves[:-1, 1]).all()
    grim = _play(game, [make_agent("agent:tit-for-tat(first=defect)"), make_agent("agent:random")])
    assert grim[0, 0] == 1


def test_tit_for_tat_against_itself_cooperates_and_against_defection_defects() -> None:
    game = load_game("repeated-prisoners-dilemma")
    tft = make_agent("agent:tit-for-tat")
    assert (_play(game, [tft, tft]) == 0).all()
    moves = _play(game, [tft, make_agent("agent:always-defect")])
    assert moves[0, 0] == 0 and (moves[1:, 0] == 1).all()


def test_truthful_bids_its_value() -> None:
    game = load_game("second-price-auction")
    rng = np.random.default_rng(3)
    values = game.draw_values(rng)
    agent = make_agent("agent:truthful")
    bids = np.array(
        [
            [agent(game, History.start(game, values[r]), seat, rng) for seat in range(2)]
            for r in range(game.rounds)
        ]
    )
    assert (bids == values).all()
    assert auction_deviation(bids, values).max() == 0.0
    # Truthful bidding never loses money in a second-price auction.
    assert payoffs(game, bids, values=values).min() >= 0
    with pytest.raises(InputError, match="auctions"):
        agent(load_game("prisoners-dilemma"), History.start(game), 0, rng)


def test_level_k_in_the_two_player_beauty_contest() -> None:
    game = load_game("beauty-contest")
    rng = np.random.default_rng(0)
    start = History.start(game)
    mean0 = 50.0  # level 0 is uniform on [0, 100]
    level = {k: make_agent(f"agent:level-k(k={k})")(game, start, 0, rng) for k in (1, 2, 3)}
    assert level[1] == pytest.approx(mean0 / 2, abs=1e-6)
    assert level[2] == pytest.approx(mean0 / 4, abs=1e-6)
    assert level[3] == pytest.approx(mean0 / 8, abs=1e-6)
    zero = [float(make_agent("agent:level-k(k=0)")(game, start, 0, rng)) for _ in range(500)]
    assert min(zero) >= 0 and max(zero) <= 100
    assert np.mean(zero) == pytest.approx(50, abs=5)


def test_level_k_discrete_and_many_players() -> None:
    # Against a uniform opponent, hare pays 6.5 and stag 5.5; defect dominates.
    assert level_k_actions(load_game("stag-hunt"), 1).tolist() == [1, 1]
    assert level_k_actions(load_game("prisoners-dilemma"), 3).tolist() == [1, 1]
    # Five players, 2/3 of the mean: g = (2/3)(g + 4x)/5 → g = 2x/3.25.
    five = load_game("beauty-contest", players=5)
    assert level_k_actions(five, 1)[0] == pytest.approx(2 * 50 * 4 / 13, abs=1e-6)
    with pytest.raises(InputError, match="private values"):
        level_k_actions(load_game("second-price-auction"), 1)


def test_free_rider_keeps_everything() -> None:
    game = load_game("repeated-public-goods")
    moves = _play(game, [make_agent("agent:free-rider")] + [make_agent("agent:random")] * 3)
    assert (moves[:, 0] == 0).all()
    endowment = game.params["endowment"]
    private_share = (endowment - moves[:, 0]) / endowment
    assert private_share.mean() == 1.0
    with pytest.raises(InputError, match="public-goods"):
        make_agent("agent:free-rider")(load_game("stag-hunt"), History.start(game), 0, None)  # type: ignore[arg-type]


@given(st.lists(st.integers(0, 100), min_size=4, max_size=4))
def test_conditional_cooperator_follows_the_average(previous: list[int]) -> None:
    game = load_game("repeated-public-goods")
    agent = make_agent("agent:conditional-cooperator")
    history = History(np.array([previous], dtype=float))
    rng = np.random.default_rng(0)
    got = agent(game, history, 0, rng)
    others = np.mean(previous[1:])
    assert got == round(others)  # whole units: the nearest allowed contribution
    assert agent(game, History.start(game), 0, rng) == 50  # half the endowment
    assert make_agent("agent:conditional-cooperator(first=20)")(
        game, History.start(game), 0, rng
    ) == pytest.approx(20)


def test_conditional_cooperators_together_keep_their_first_level() -> None:
    game = load_game("repeated-public-goods")
    moves = _play(game, [make_agent("agent:conditional-cooperator(first=30)")] * 4)
    assert (moves == 30).all()


@pytest.mark.parametrize(
    "name", ["prisoners-dilemma", "minimum-effort", "beauty-contest", "gama:el-farol"]
)
def test_random_stays_in_the_action_space(name: str) -> None:
    game = load_game(name)
    moves = _play(game, [make_agent("agent:random")] * game.players, seed=7)
    payoffs(game, moves)  # raises on a move outside the action space
    if name == "prisoners-dilemma":
        many = load_game(name, rounds=400)
        both = _play(many, [make_agent("agent:random")] * 2, seed=7)
        assert both.mean() == pytest.approx(0.5, abs=0.07)


def test_strategies_are_deterministic_given_the_rng() -> None:
    game = load_game("minimum-effort")
    agents = [make_agent("agent:random")] * 2
    assert (_play(game, agents, seed=11) == _play(game, agents, seed=11)).all()
