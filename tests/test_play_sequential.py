"""The sequential games (`steer play gama:pirate` / `gama:battle-royale`):
step-by-step play on the round engine, reference agents with known metrics,
a hand-traced game, determinism, resuming over HTTP and bad game files."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from openai_server import FakeOpenAI
from steer.adapt._lists import read_number_list
from steer.errors import FileFormatError, InputError
from steer.play import game_metrics, play_game, read_game_run
from steer.play._equilibria import pirate_outcome
from steer.play._games import load_game

HIT_RATES = [0.35, 0.40, 0.45, 0.50, 0.55, 0.60, 0.65, 0.70, 0.75, 0.80]


def _metrics(out: Path) -> dict[str, dict[str, Any]]:
    _, game, moves = read_game_run(out)
    return {r["model"]: r for r in game_metrics(game, moves).to_pylist()}


def _rows(out: Path) -> list[tuple[Any, ...]]:
    keep = ("sample", "round", "seat", "move", "action", "payoff", "forfeit")
    return [tuple(r[k] for k in keep) for r in pq.read_table(out / "moves.parquet").to_pylist()]


# --- reading a proposal ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("I keep most. \\boxed{98, 0, 1, 0, 1}", [98, 0, 1, 0, 1]),
        ("ANSWER: 98,0,1,0,1", [98, 0, 1, 0, 1]),
        ('{"player 1": 98, "player 2": 0, "player 3": 1, "player 4": 0, "player 5": 1}',
         [98, 0, 1, 0, 1]),
        ("Reasoning with 3 pirates...\nMy plan: 98 0 1 0 1", [98, 0, 1, 0, 1]),
    ],
)  # fmt: skip
def test_a_proposal_is_read_from_free_text(text: str, want: list[int]) -> None:
    assert read_number_list(text, 5, 100) == (want, None)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("\\boxed{98, 1, 1}", "has 3 numbers, not 5"),
        ("\\boxed{98, 0, 1, 0, 2}", "add up to 101, not 100"),
        ("\\boxed{102, -2, 0, 0, 0}", "-2 is negative"),
        ("\\boxed{97.5, 0.5, 1, 0, 1}", "97.5 is not a whole number"),
        ("I would rather not say.", "no list of numbers"),
    ],
)
def test_a_bad_proposal_says_why(text: str, why: str) -> None:
    values, reason = read_number_list(text, 5, 100)
    assert values is None and reason is not None and why in reason


# --- reference agents give the metrics their definitions imply ----------------------------


@pytest.mark.parametrize("pirates", [2, 3, 5, 10])
def test_backward_induction_pirates_carry_the_equilibrium_plan_at_once(
    tmp_path: Path, pirates: int
) -> None:
    out = tmp_path / "p"
    done = play_game("gama:pirate", f"agent:backward-induction*{pirates}", out, samples=2)
    plan = pirate_outcome(pirates, 100, 0.5).tolist()
    t = done.moves.to_pylist()
    assert max(r["round"] for r in t) == 2  # carried by the first vote
    for s in range(2):
        first = next(r for r in t if r["sample"] == s and r["round"] == 1)
        assert first["seat"] == 1 and first["action"] == ",".join(map(str, plan))
        final = {r["seat"]: r["payoff"] for r in t if r["sample"] == s}
        assert [final[k + 1] for k in range(pirates)] == plan
    m = _metrics(out)["agent:backward-induction"]
    assert m["gama_score"] == 100.0 and m["vote_accuracy"] == 1.0
    assert m["proposal_distance"] == 0.0 and m["ne_distance"] == 0.0
    assert m["converged_to"] == "backward induction" and m["forfeits"] == 0


def test_strongest_target_shooters_score_100(tmp_path: Path) -> None:
    out = tmp_path / "b"
    play_game("gama:battle-royale", "agent:strongest-target*10", out, samples=3, seed=4)
    m = _metrics(out)["agent:strongest-target"]
    assert m["gama_score"] == 100.0 and m["strongest_share"] == 1.0
    # One survivor, or the survivors at the turn cap, share the win.
    for s in range(3):
        pay = {r[2]: r[5] for r in _rows(out) if r[0] == s}
        assert sum(pay.values()) <= 1.0 + 1e-12


def _reference_share(rows: list[tuple[Any, ...]], player_seats: set[int]) -> float:
    """A plain replay of the moves table: per sample, the share of the seats'
    turns aimed at the strongest opponent still standing; then the mean."""
    per_sample = []
    for s in sorted({r[0] for r in rows}):
        standing = set(range(1, 11))
        aimed = turns = 0
        for _, _, seat, move, action, _, forfeit in sorted(r for r in rows if r[0] == s):
            target = int(move)
            if seat in player_seats:
                best = max(HIT_RATES[o - 1] for o in standing if o != seat)
                turns += 1
                aimed += (not forfeit) and target in standing and HIT_RATES[target - 1] == best
            if action.endswith(": hit"):
                standing.remove(target)
        if turns:
            per_sample.append(aimed / turns)
    return sum(per_sample) / len(per_sample)


def test_a_fixed_target_shooter_scores_the_share_its_definition_implies(tmp_path: Path) -> None:
    out = tmp_path / "b"
    players = ",".join(["agent:fixed-target(seat=3)"] * 5 + ["agent:strongest-target"] * 5)
    play_game("gama:battle-royale", players, out, samples=6, seed=11)
    rows = _rows(out)
    # Its definition: player 3 while standing (and not itself), else the next to shoot.
    for s in range(6):
        standing = set(range(1, 11))
        for _, _, seat, move, action, _, _ in sorted(r for r in rows if r[0] == s):
            if seat <= 5:
                after = sorted(standing - {seat}, key=lambda o: (o - seat) % 10)
                assert int(move) == (3 if 3 in standing and seat != 3 else after[0])
            if action.endswith(": hit"):
                standing.remove(int(move))
    m = _metrics(out)
    want = _reference_share(rows, {1, 2, 3, 4, 5})
    assert 0.0 < want < 1.0
    assert m["agent:fixed-target(seat=3)"]["gama_score"] == pytest.approx(100 * want)
    assert m["agent:strongest-target"]["gama_score"] == 100.0


def test_random_agents_play_both_games_validly(tmp_path: Path) -> None:
    done = play_game("gama:pirate", "agent:random*6", tmp_path / "p", samples=8, seed=2)
    assert done.n_forfeits == 0
    for r in done.moves.to_pylist():
        if r["round"] % 2 == 1:  # a proposal: one coin count per living pirate
            plan = [int(x) for x in r["action"].split(",")]
            assert sum(plan) == 100 and len(plan) == 6 - (r["round"] - 1) // 2
        else:
            assert r["action"] in ("accept", "reject")
    royale = play_game("gama:battle-royale", "agent:random*10", tmp_path / "b", samples=4)
    assert royale.n_forfeits == 0
    assert {re.sub(r"\d+", "K", r["action"]) for r in royale.moves.to_pylist()} <= {
        "shoot K: hit", "shoot K: missed", "shoot into the air",
    }  # fmt: skip


def test_the_same_seed_gives_the_same_moves(tmp_path: Path) -> None:
    for game, players in [("gama:pirate", "agent:random*5"),
                          ("gama:battle-royale", "agent:random*10")]:  # fmt: skip
        a = play_game(game, players, tmp_path / f"{game}-a", samples=5, seed=9)
        b = play_game(game, players, tmp_path / f"{game}-b", samples=5, seed=9)
        c = play_game(game, players, tmp_path / f"{game}-c", samples=5, seed=10)
        assert a.moves.drop(["run_dir"]).equals(b.moves.drop(["run_dir"]))
        assert a.moves["action"].to_pylist() != c.moves["action"].to_pylist()


# --- a hand-traced game over HTTP -----------------------------------------------------------


def _proposer(plan: str) -> Any:
    def reply(messages: list[dict[str, str]]) -> str:
        return f"My plan: \\boxed{{{plan}}}"

    return reply


def test_three_pirates_hand_traced(fake: tuple[FakeOpenAI, str], tmp_path: Path) -> None:
    state, url = fake
    state.reply = _proposer("50, 25, 25")
    out = tmp_path / "p"
    play_game("gama:pirate", "openai:m,agent:backward-induction*2", out, samples=2,
              backend_options={"base_url": url})  # fmt: skip
    # Pirate 2 gets 100 if pirate 1 dies: rejects 25; pirate 3 gets 0 then: accepts.
    # 2 of 3 votes carry the plan.
    assert _rows(out) == [
        (s, *row)
        for s in range(2)
        for row in [
            (1, 1, 50.0, "50,25,25", 50.0, False),
            (2, 2, 0.0, "reject", 25.0, False),
            (2, 3, 1.0, "accept", 25.0, False),
        ]
    ]
    m = _metrics(out)
    # 1 - |50-99| + |25-0| + |25-1| over 200 = 1 - 98/200.
    assert m["openai:m"]["gama_score"] == pytest.approx(100 * (1 - 98 / 200))
    assert m["openai:m"]["ne_distance"] == pytest.approx(98 / 200)
    asked = [e["last_user"] for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(asked) == 2 and "Propose how to split the 100 coins" in asked[0]
    assert "give 3 whole numbers, the coins for players 1, 2, 3" in asked[0]


def test_an_invalid_proposal_throws_the_proposer_overboard(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    state.reply = _proposer("100, 0")  # two numbers for three pirates
    out = tmp_path / "p"
    done = play_game("gama:pirate", "openai:m,agent:backward-induction*2", out, samples=2,
                     backend_options={"base_url": url})  # fmt: skip
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(chat) == 2 * 3  # asked, then asked again twice, per sample
    rows = done.moves.to_pylist()
    forfeit = [r for r in rows if r["forfeit"]]
    assert len(forfeit) == 2 and all(
        "the list has 2 numbers, not 3" in r["reason"] and np.isnan(r["move"]) for r in forfeit
    )
    # No vote on a plan nobody made; pirate 2 proposes to pirates 2 and 3, and
    # its own vote is half of two: carried.
    first = [(r["round"], r["seat"], r["action"], r["payoff"]) for r in rows if r["sample"] == 0]
    assert first == [(1, 1, "none", 0.0), (3, 2, "100,0", 100.0), (4, 3, "reject", 0.0)]
    assert _metrics(out)["openai:m"]["gama_score"] == 0.0
    assert not (out / "rounds" / "r0002").exists()


def _model_pirate(messages: list[dict[str, str]]) -> str:
    """Keep all the gold when proposing; reject every plan."""
    ask = messages[-1]["content"]
    match = re.search(r"give (\d+) whole numbers", ask)
    if match:
        n = int(match.group(1))
        return "\\boxed{" + ", ".join(["100"] + ["0"] * (n - 1)) + "}"
    return "I reject: \\boxed{0}"


def test_a_model_game_interrupted_resumes_without_asking_twice(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    state.reply = _model_pirate
    opts = {"base_url": url, "concurrency": 4}
    whole = play_game("gama:pirate", "openai:greedy*5", tmp_path / "whole", samples=3,
                      backend_options=opts)  # fmt: skip
    # Every plan fails until two are left: 4 proposals, 4 + 3 + 2 + 1 votes.
    asked = 3 * (4 + 10)
    assert state.chat_requests() == asked and whole.moves.num_rows == asked
    state.log.clear()

    class StopError(Exception):
        pass

    def stop_after_three(step: int, last: int) -> None:
        if step == 3:
            raise StopError

    out = tmp_path / "resumed"
    with pytest.raises(StopError):
        play_game("gama:pirate", "openai:greedy*5", out, samples=3, backend_options=opts,
                  on_round=stop_after_three)  # fmt: skip
    first = state.chat_requests()
    assert 0 < first < asked and not (out / "moves.parquet").exists()
    resumed = play_game("gama:pirate", "openai:greedy*5", out, samples=3, backend_options=opts)
    assert state.chat_requests() == asked  # every move asked exactly once across the stop
    assert resumed.moves.drop(["run_dir"]).equals(whole.moves.drop(["run_dir"]))
    state.log.clear()
    again = play_game("gama:pirate", "openai:greedy*5", out, samples=3, backend_options=opts)
    assert again.n_new == 0 and state.chat_requests() == 0


def _shoot_the_first_other(messages: list[dict[str, str]]) -> str:
    """Shoot at the lowest-numbered other player still in the game."""
    standing = messages[-1]["content"].split("Still in the game:")[1]
    for number, rest in re.findall(r"player (\d+) \((you)?", standing):
        if not rest:
            return f"\\boxed{{{number}}}"
    raise AssertionError("nobody to shoot")


KILLED = textwrap.dedent(
    """
    import sys
    from steer.play import play_game
    play_game("gama:battle-royale", "openai:gpt-x*10", sys.argv[1], samples=6, rounds=12,
              backend_options={"base_url": sys.argv[2], "concurrency": 4})
    """
)


def test_a_killed_battle_royale_never_asks_the_server_twice(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    state.reply = _shoot_the_first_other
    state.delay_s = 0.005
    out = tmp_path / "br"
    script = tmp_path / "game.py"
    script.write_text(KILLED)
    child = subprocess.Popen([sys.executable, str(script), str(out), url], env={**os.environ})
    gate = threading.Event()
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and state.chat_requests() < 15:
            time.sleep(0.002)
        state.hold = gate  # later requests wait, unanswered, until the child is dead
        time.sleep(0.5)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        killed_at = state.chat_requests()
        assert killed_at >= 15
        state.hold = None
        done = play_game("gama:battle-royale", "openai:gpt-x*10", out, samples=6, rounds=12,
                         backend_options={"base_url": url, "concurrency": 4})  # fmt: skip
        assert killed_at < done.moves.num_rows, "the kill should land mid-game"
        assert state.chat_requests() == done.moves.num_rows  # each move asked once
        assert done.n_forfeits == 0
    finally:
        state.delay_s = 0.0
        state.hold = None
        gate.set()
        if child.poll() is None:
            child.kill()


# --- bad input ------------------------------------------------------------------------------


def _game_file(tmp_path: Path, name: str, **changes: Any) -> Path:
    text = (Path(load_game(name).path)).read_text()
    for key, value in changes.items():
        text = re.sub(rf"(?m)^{key} = .*$", f"{key} = {json.dumps(value)}", text)
    path = tmp_path / f"{name.replace(':', '-')}-bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("name", "changes", "field", "message"),
    [
        ("gama:pirate", {"players": 31, "rounds": 40}, "players", "at most 30"),
        ("gama:pirate", {"rounds": 5}, "rounds", "rounds >= players - 1"),
        ("gama:pirate", {"gold": 3}, "params.gold", "cannot buy enough votes"),
        ("gama:pirate", {"information": "none"}, "information", "all-moves"),
        ("gama:battle-royale", {"hit_rates": [0.5, 0.6, 0.7]}, "params.hit_rates",
         "one hit rate per player (10)"),
        ("gama:battle-royale", {"max": 9}, "actions", "max = players"),
    ],
)  # fmt: skip
def test_bad_game_files_give_one_clear_error(
    tmp_path: Path, name: str, changes: dict[str, Any], field: str, message: str
) -> None:
    path = _game_file(tmp_path, name, **changes)
    out = tmp_path / "out"
    with pytest.raises(FileFormatError) as info:
        play_game(path, "agent:random*10", out)
    assert info.value.field == field and message in str(info.value)
    assert str(path) in str(info.value)
    assert not out.exists()


def test_agents_that_cannot_play_are_refused_before_anything_is_written(tmp_path: Path) -> None:
    out = tmp_path / "g"
    with pytest.raises(InputError, match="agent:tit-for-tat plays simultaneous rounds"):
        play_game("gama:pirate", "agent:tit-for-tat*5", out)
    with pytest.raises(InputError, match="agents that play it: agent:random, agent:backward"):
        play_game("gama:pirate", "agent:strongest-target*5", out)
    with pytest.raises(InputError, match=r"seat 11 is not 1\.\.10"):
        play_game("gama:battle-royale", "agent:fixed-target(seat=11)*10", out)
    with pytest.raises(InputError, match="plays a sequential game"):
        play_game("prisoners-dilemma", "agent:backward-induction*2", out)
    assert not (out / "moves.parquet").exists()


# --- the command line -----------------------------------------------------------------------


def test_cli_plays_and_scores_the_pirate_game(tmp_path: Path) -> None:
    out = tmp_path / "g"
    played = subprocess.run(
        [sys.executable, "-m", "steer", "play", "gama:pirate", "--players",
         "agent:backward-induction*5", "--rounds", "4", "-n", "2", "-o", str(out),
         "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "10 new moves" in played.stdout
    scored = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(out)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    assert "gama_score" in scored.stdout and "100.000" in scored.stdout
    assert "nearest the equilibrium backward induction (distance 0.000)" in scored.stdout


def test_a_seat_count_the_games_per_player_parameters_do_not_fit_is_one_clear_error(
    tmp_path: Path,
) -> None:
    with pytest.raises(InputError) as err:
        play_game("gama:battle-royale", "agent:strongest-target*4", tmp_path / "br")
    message = str(err.value)
    assert "cannot seat 4 players (--players)" in message
    assert "params.hit_rates" in message and "written for 10" in message
    assert not (tmp_path / "br").exists()  # refused before anything is written


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("0123456789.,-:= \n\\boxed{}ANSWERp")), max_size=400),
    st.integers(1, 12),
    st.integers(0, 1000),
)
def test_reading_a_list_never_raises_and_returns_only_valid_lists(
    text: str, count: int, total: int
) -> None:
    values, why = read_number_list(text, count, total)
    if values is None:
        assert why
    else:
        assert why is None and len(values) == count and sum(values) == total
        assert all(isinstance(v, int) and v >= 0 for v in values)


def test_a_list_with_a_number_too_long_for_a_float_is_a_reason_not_a_crash() -> None:
    values, why = read_number_list("9" * 400 + ", 1", 2, 100)
    assert values is None and why is not None and "more than the 100" in why


def _tamper(path: Path, column: str, row: int, value: Any) -> None:
    import pyarrow as pa

    table = pq.read_table(path)
    values = table[column].to_pylist()
    values[row] = value
    index = table.schema.get_field_index(column)
    pq.write_table(
        table.set_column(index, column, pa.array(values, table.schema.field(column).type)), path
    )


@pytest.mark.parametrize(
    ("game", "players", "column", "value", "expected"),
    [
        ("gama:pirate", "agent:backward-induction*3", "action", "garbage,,x", "is not a plan"),
        ("gama:pirate", "agent:backward-induction*3", "seat", 7, "outside 1..3"),
        (
            "gama:battle-royale",
            "agent:strongest-target*10",
            "action",
            "shoot 99: hit",
            "is not 'shoot",
        ),
        ("gama:battle-royale", "agent:strongest-target*10", "move", 2.5, "is not a seat number"),
    ],
)
def test_a_hand_edited_moves_table_is_one_clear_error_naming_row_and_column(
    tmp_path: Path, game: str, players: str, column: str, value: Any, expected: str
) -> None:
    out = tmp_path / "run"
    play_game(game, players, out, rounds=None if "royale" in game else 2, samples=2)
    read_game_run(out)  # as written: valid
    _tamper(out / "moves.parquet", column, 0, value)
    with pytest.raises(FileFormatError) as err:
        read_game_run(out)
    message = str(err.value)
    assert "moves.parquet: row 1: field" in message and column in message and expected in message


def test_the_step_figure_plots_each_players_share_of_rational_moves_with_labels_inside(
    tmp_path: Path,
) -> None:
    from steer.play._plots import round_figure

    out = tmp_path / "br"
    play_game("gama:battle-royale", "agent:strongest-target*5,agent:fixed-target(seat=1)*5",
              out, samples=3)  # fmt: skip
    _, game, moves = read_game_run(out)
    fig = round_figure(game, moves)
    fig.canvas.draw()
    (ax,) = fig.axes
    lines = {line.get_label(): line.get_ydata() for line in ax.get_lines()}
    strongest = np.asarray(lines["agent:strongest-target"], dtype=float)
    assert np.all(strongest[~np.isnan(strongest)] == 1.0)  # every shot at the strongest
    # The fixed shooter's share per step, recomputed plainly from the rows.
    rows = [r for r in moves.to_pylist() if r["player"] == "agent:fixed-target(seat=1)"]
    steps = int(moves["round"].to_numpy().max())
    hit_rates = list(game.rule_params.hit_rates)  # type: ignore[union-attr]
    expected = np.full(steps, np.nan)
    by_step: dict[int, list[float]] = {}
    for sample in sorted({r["sample"] for r in moves.to_pylist()}):
        standing = set(range(game.players))
        for r in sorted((r for r in moves.to_pylist() if r["sample"] == sample),
                        key=lambda r: r["round"]):  # fmt: skip
            shooter, target = r["seat"] - 1, int(r["move"]) - 1
            top = max(hit_rates[s] for s in standing if s != shooter)
            if r["player"] == "agent:fixed-target(seat=1)" and not r["forfeit"]:
                aimed = target in standing and hit_rates[target] == top
                by_step.setdefault(r["round"], []).append(float(aimed))
            if r["action"].endswith(": hit"):
                standing.discard(target)
    for step, values in by_step.items():
        expected[step - 1] = np.mean(values)
    assert rows
    np.testing.assert_allclose(np.asarray(lines["agent:fixed-target(seat=1)"], float), expected)
    assert "step" in ax.get_xlabel() and "share played rationally" in ax.get_ylabel()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for t in (ax.xaxis.label, ax.yaxis.label, ax.title, *fig.legends[0].get_texts()):
        box = t.get_window_extent(renderer)
        assert fig.bbox.x0 <= box.x0 and box.x1 <= fig.bbox.x1 + 0.5, t.get_text()
