"""Games between models and strategies (`steer play GAME --players …`): the
round engine on steer run, its metrics, durability and bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from openai_server import FakeOpenAI
from steer.errors import InputError, UnknownNameError
from steer.play import game_metrics, play_game, read_game_run
from steer.play._equilibria import regret
from steer.play._games import load_game
from steer.play._seats import split_players

ROOT = Path(__file__).resolve().parents[1]


def _metrics(out: Path) -> dict[str, dict[str, object]]:
    _, game, moves = read_game_run(out)
    return {r["model"]: r for r in game_metrics(game, moves).to_pylist()}


# --- player specs -------------------------------------------------------------------


def test_player_specs_split_outside_parentheses_and_repeat() -> None:
    assert split_players("agent:level-k(k=2),openai:gpt-4o*3, agent:random") == [
        "agent:level-k(k=2)", "openai:gpt-4o", "openai:gpt-4o", "openai:gpt-4o", "agent:random",
    ]  # fmt: skip
    assert (
        split_players("agent:conditional-cooperator(first=30)*2")
        == ["agent:conditional-cooperator(first=30)"] * 2
    )
    for bad, match in [
        ("agent:level-k(k=2", "'\\(' without '\\)'"),
        ("agent:random,,agent:random", "empty spec"),
        ("agent:random)", "without '\\('"),
        ("agent:random*0", "1 to 1000"),
    ]:
        with pytest.raises(InputError, match=match):
            split_players(bad)


def test_unknown_players_and_wrong_seat_counts_fail_before_anything_is_written(
    tmp_path: Path,
) -> None:
    out = tmp_path / "g"
    with pytest.raises(UnknownNameError, match="did you mean 'agent:tit-for-tat'"):
        play_game("prisoners-dilemma", "agent:tit-for-tatt,agent:random", out)
    with pytest.raises(UnknownNameError, match="game strategy 'agent:oracle'"):
        play_game("prisoners-dilemma", "agent:oracle,agent:random", out)
    with pytest.raises(InputError, match="unknown parameter 'kk'"):
        play_game("beauty-contest", "agent:level-k(kk=2),agent:random", out)
    with pytest.raises(InputError, match=r"has 2 seats .* names 3"):
        play_game("stag-hunt", "agent:random*3", out)
    with pytest.raises(InputError, match="played step by step"):
        play_game("gama:pirate", "agent:tit-for-tat*5", out)
    with pytest.raises(UnknownNameError, match="did you mean 'stag-hunt'"):
        play_game("stag-hunts", "agent:random*2", out)
    assert not out.exists()


# --- reference strategies give the metrics their definitions imply -------------------


def test_always_defect_and_tit_for_tat_in_the_ten_round_dilemma(tmp_path: Path) -> None:
    out = tmp_path / "pd"
    done = play_game(
        "repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect", out, samples=3
    )
    assert done.moves.num_rows == 3 * 10 * 2 and done.n_forfeits == 0
    m = _metrics(out)
    # Tit-for-tat cooperates once, then copies the defector for nine rounds.
    assert m["agent:tit-for-tat"]["defection_rate"] == pytest.approx(0.9)
    assert m["agent:always-defect"]["defection_rate"] == 1.0
    assert m["agent:always-defect"]["%NE"] == 1.0 and m["agent:always-defect"]["Dev"] == 0.0
    # Payoffs: round 1 CD (12 / 50), then DD (25 / 25).
    assert m["agent:tit-for-tat"]["payoff"] == pytest.approx((12 + 9 * 25) / 10)
    assert m["agent:always-defect"]["payoff"] == pytest.approx((50 + 9 * 25) / 10)
    # Ex-post regret: only tit-for-tat's first cooperation (25 - 12) is regrettable.
    assert m["agent:tit-for-tat"]["regret"] == pytest.approx(13 / 10)
    assert m["agent:always-defect"]["regret"] == 0.0
    assert m["agent:tit-for-tat"]["converged_to"] == "(defect, defect)"


def test_cooperators_are_fully_efficient(tmp_path: Path) -> None:
    m = _metrics(
        play_game("prisoners-dilemma", "agent:always-cooperate*2", tmp_path / "cc").directory
    )
    assert m["agent:always-cooperate"]["Eff"] == 1.0
    assert m["agent:always-cooperate"]["defection_rate"] == 0.0


def test_truthful_bidders_deviate_by_nothing(tmp_path: Path) -> None:
    out = tmp_path / "auction"
    play_game("second-price-auction", "agent:truthful,agent:random", out, samples=4, rounds=5)
    _record, _game, moves = read_game_run(out)
    mine = moves.filter(moves["seat"].to_numpy() == 1).to_pydict()
    assert mine["move"] == mine["value"]  # bids its private value
    assert set(mine["value"]) <= set(range(10, 101, 10))
    m = _metrics(out)
    assert m["agent:truthful"]["bid_deviation"] == 0.0 and m["agent:truthful"]["ActDev"] == 0.0
    assert m["agent:truthful"]["regret"] == 0.0  # bidding one's value is weakly dominant
    assert m["agent:random"]["ActDev"] > 0


def test_level_k_in_the_two_player_beauty_contest_uses_the_games_best_reply(
    tmp_path: Path,
) -> None:
    # With two players the best reply to x is x/2 (not 2x/3): level 1 answers the
    # level-0 mean 50 with 25, level 2 answers 25 with 12.5.
    out = tmp_path / "bc"
    play_game("beauty-contest", "agent:level-k(k=1),agent:level-k(k=2)", out, samples=2)
    m = _metrics(out)
    assert m["agent:level-k(k=1)"]["guess_deviation"] == pytest.approx(25.0)
    assert m["agent:level-k(k=1)"]["ActDev"] == pytest.approx(0.25)
    assert m["agent:level-k(k=2)"]["guess_deviation"] == pytest.approx(12.5)
    assert m["agent:level-k(k=2)"]["regret"] == pytest.approx(0.0, abs=1e-9)


def test_free_rider_and_conditional_cooperator_in_repeated_public_goods(tmp_path: Path) -> None:
    out = tmp_path / "pg"
    players = "agent:free-rider,agent:conditional-cooperator(first=60)*3"
    play_game("repeated-public-goods", players, out, samples=2)
    _, _game, moves = read_game_run(out)
    m = _metrics(out)
    assert m["agent:free-rider"]["private_share"] == 1.0 and m["agent:free-rider"]["%NE"] == 1.0
    t = moves.to_pydict()
    by = {(s, r, p): x for s, r, p, x in zip(t["sample"], t["round"], t["seat"], t["move"],
                                             strict=True)}  # fmt: skip
    for (s, r, p), x in by.items():
        if p == 1:
            assert x == 0
        elif r == 1:
            assert x == 60
        else:  # the mean of the other seats' previous contributions, on the grid
            others = [by[(s, r - 1, q)] for q in range(1, 5) if q != p]
            assert x == round(sum(others) / 3)


def test_an_indefinitely_repeated_game_ends_by_its_continuation_draws(tmp_path: Path) -> None:
    out = tmp_path / "ipd"
    play_game("infinitely-repeated-prisoners-dilemma", "agent:always-cooperate*2", out,
              samples=200, seed=3)  # fmt: skip
    _, _, moves = read_game_run(out)
    rounds = np.bincount(moves["sample"].to_numpy(), weights=moves["round"].to_numpy() * 0 + 1)
    lengths = rounds / 2
    # Continuation 0.5: the mean length is 2 (geometric), every game at least 1 round.
    assert lengths.min() == 1 and 1.6 < lengths.mean() < 2.4
    assert _metrics(out)["agent:always-cooperate"]["Eff"] == 1.0


# --- the vectorised metrics agree with a plain reference --------------------------------


def _reference_per_player(game_name: str, moves: dict[str, list]) -> dict[str, dict[str, float]]:
    """Metrics by loops: per sample, then the mean over samples."""
    game = load_game(game_name)
    out: dict[str, dict[str, float]] = {}
    n = len(moves["sample"])
    profiles: dict[tuple[int, int], dict[int, float]] = {}
    values: dict[tuple[int, int], dict[int, float]] = {}
    for i in range(n):
        key = (moves["sample"][i], moves["round"][i])
        profiles.setdefault(key, {})[moves["seat"][i] - 1] = moves["move"][i]
        values.setdefault(key, {})[moves["seat"][i] - 1] = moves["value"][i]
    for who in dict.fromkeys(moves["player"]):
        per: dict[int, dict[str, list[float]]] = {}
        for i in range(n):
            if moves["player"][i] != who or moves["forfeit"][i]:
                continue
            s, r, seat = moves["sample"][i], moves["round"][i], moves["seat"][i] - 1
            x = moves["move"][i]
            cell = per.setdefault(s, {"payoff": [], "regret": [], "metric": []})
            cell["payoff"].append(moves["payoff"][i])
            prof = [profiles[(s, r)][k] for k in range(game.players)]
            if game.needs_values:
                vals = [values[(s, r)][k] for k in range(game.players)]
                cell["metric"].append(abs(x - vals[seat]) / vals[seat])
                grid = np.linspace(0, 200, 1001)
                best = max(_auction_payoff(prof, vals, seat, b) for b in [*grid.tolist(), x])
                cell["regret"].append(max(0.0, best - moves["payoff"][i]))
            else:
                if game_name.endswith("public-goods"):
                    cell["metric"].append((100 - x) / 100)
                else:
                    cell["metric"].append(1.0 if x == 1 else 0.0)
                cell["regret"].append(float(regret(game, prof)[seat]))
        out[who] = {
            k: float(np.mean([np.mean(c[k]) for c in per.values()]))
            for k in ("payoff", "regret", "metric")
        }
    return out


def _auction_payoff(prof: list[float], vals: list[float], seat: int, bid: float) -> float:
    bids = list(prof)
    bids[seat] = bid
    winner = max(range(len(bids)), key=lambda k: (bids[k], -k))
    if winner != seat:
        return 0.0
    price = sorted(bids)[-2]
    return vals[seat] - price


@settings(
    max_examples=6, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    game_name=st.sampled_from(
        ["repeated-prisoners-dilemma", "repeated-public-goods", "second-price-auction"]
    ),
    seed=st.integers(0, 10_000),
    samples=st.integers(1, 4),
)
def test_metrics_match_a_plain_loop_reference(
    tmp_path_factory: pytest.TempPathFactory, game_name: str, seed: int, samples: int
) -> None:
    game = load_game(game_name)
    out = tmp_path_factory.mktemp("ref") / "g"
    players = ["agent:random"] * (game.players - 1) + ["agent:always-defect"]
    if game_name != "repeated-prisoners-dilemma":
        players[-1] = "agent:free-rider" if "public" in game_name else "agent:truthful"
    play_game(game_name, players, out, samples=samples, seed=seed, rounds=3)
    _, g, moves = read_game_run(out)
    got = {r["model"]: r for r in game_metrics(g, moves).to_pylist()}
    want = _reference_per_player(game_name, moves.to_pydict())
    metric = {"repeated-prisoners-dilemma": "defection_rate",
              "repeated-public-goods": "private_share",
              "second-price-auction": "bid_deviation"}[game_name]  # fmt: skip
    for who, ref in want.items():
        assert got[who]["payoff"] == pytest.approx(ref["payoff"], abs=1e-9)
        assert got[who][metric] == pytest.approx(ref["metric"], abs=1e-9)
        assert got[who]["regret"] == pytest.approx(ref["regret"], abs=1e-9)


# --- models over HTTP, forfeits, durability --------------------------------------------


def test_models_play_over_a_real_http_server_and_resume_from_the_cache(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    opts = {"base_url": url, "concurrency": 8}
    out = tmp_path / "pg"
    done = play_game("repeated-public-goods", "openai:gpt-x*3,agent:free-rider", out,
                     samples=2, rounds=3, backend_options=opts)  # fmt: skip
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(chat) == 2 * 3 * 3  # one request per model move
    assert done.n_forfeits == 0
    t = done.moves.to_pydict()
    assert {x for x, p in zip(t["move"], t["seat"], strict=True) if p < 4} == {42.0}
    # Each move leads to its transcript: the prompt shows the history it may see.
    row = next(r for r in done.moves.to_pylist() if r["round"] == 3 and r["seat"] == 2)
    transcripts = (out / row["run_dir"] / "transcripts.jsonl").read_text().splitlines()
    said = next(json.loads(x) for x in transcripts if row["question_id"] in x)
    prompt = said["exchanges"][0]["messages"][-1]["content"]
    assert "Round 2: you chose 42 and got" in prompt and "all players' total was 126" in prompt
    assert "What happened so far" in prompt and "player 4 chose" not in prompt  # aggregate only
    # Running the same command again asks nothing.
    state.log.clear()
    again = play_game("repeated-public-goods", "openai:gpt-x*3,agent:free-rider", out,
                      samples=2, rounds=3, backend_options=opts)  # fmt: skip
    assert again.n_new == 0 and not state.log
    assert again.moves.equals(done.moves)


def test_a_player_that_never_answers_forfeits_with_its_reason(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    state.reply = lambda messages: "I would rather not say."
    opts = {"base_url": url, "max_retries": 0}
    done = play_game("prisoners-dilemma", "openai:mute,agent:always-defect", tmp_path / "g",
                     samples=2, backend_options=opts)  # fmt: skip
    chat = [e for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(chat) == 2 * 3  # asked, then asked again twice, per sample
    rows = [r for r in done.moves.to_pylist() if r["player"] == "openai:mute"]
    assert all(r["forfeit"] and "names no action" in r["reason"] for r in rows)
    m = _metrics(tmp_path / "g")
    assert m["openai:mute"]["forfeits"] == 2 and m["openai:mute"]["defection_rate"] is None
    # Graded metrics count every move asked: not answering is the least rational.
    assert m["openai:mute"]["%NE"] == 0.0 and m["openai:mute"]["Dev"] == 1.0
    assert m["agent:always-defect"]["defection_rate"] == 1.0


def test_out_of_range_numbers_are_asked_again(fake: tuple[FakeOpenAI, str], tmp_path: Path) -> None:
    state, url = fake

    def reply(messages: list[dict[str, str]]) -> str:
        again = "does not give a number from 0 to 100" in messages[-1]["content"]
        return "\\boxed{30}" if again else "I contribute \\boxed{250}"

    state.reply = reply
    done = play_game("public-goods", "openai:x,agent:free-rider*3", tmp_path / "g",
                     backend_options={"base_url": url})  # fmt: skip
    row = next(r for r in done.moves.to_pylist() if r["seat"] == 1)
    assert row["move"] == 30 and not row["forfeit"]


def test_a_directory_holding_another_game_is_refused(tmp_path: Path) -> None:
    play_game("prisoners-dilemma", "agent:random*2", tmp_path, samples=2)
    with pytest.raises(InputError, match="samples was 2, now 3"):
        play_game("prisoners-dilemma", "agent:random*2", tmp_path, samples=3)
    with pytest.raises(InputError, match="players was"):
        play_game("prisoners-dilemma", "agent:random,agent:always-defect", tmp_path, samples=2)


KILLED_GAME = textwrap.dedent(
    """
    import sys, time
    from steer.play._seats import StrategyBackend
    slow = StrategyBackend.answer
    def answer(self, questions):
        time.sleep(0.01)
        return slow(self, questions)
    StrategyBackend.answer = answer
    from steer.play import play_game
    play_game("repeated-public-goods", sys.argv[2], sys.argv[1], samples=40, seed=7)
    """
)
PLAYERS = "agent:random,agent:conditional-cooperator,agent:free-rider,agent:random"


def _journal_rows(out: Path) -> list[dict[str, object]]:
    rows = []
    for path in sorted(out.glob("rounds/*/*/journal.jsonl")):
        for line in path.read_text().splitlines():
            row = json.loads(line)
            row.pop("recorded_at")
            rows.append(row)
    return rows


@pytest.mark.parametrize("kill_after", [5, 23, 61])
def test_a_tournament_killed_and_resumed_matches_an_uninterrupted_one(
    tmp_path: Path, kill_after: int
) -> None:
    whole = tmp_path / "whole"
    play_game("repeated-public-goods", PLAYERS, whole, samples=40, seed=7)
    out = tmp_path / "killed"
    script = tmp_path / "game.py"
    script.write_text(KILLED_GAME)
    child = subprocess.Popen([sys.executable, str(script), str(out), PLAYERS])
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if sum(p.read_text().count("\n") for p in out.glob("rounds/*/*/journal.jsonl")) >= (
            kill_after * 4
        ):
            break
        time.sleep(0.005)
    os.kill(child.pid, signal.SIGKILL)
    child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL
    assert (
        not (out / "moves.parquet").exists()
        or pq.read_table(out / "moves.parquet").num_rows < 40 * 10 * 4
    ), "the kill should land mid-tournament"
    resumed = play_game("repeated-public-goods", PLAYERS, out, samples=40, seed=7)
    assert resumed.moves.equals(pq.read_table(whole / "moves.parquet"))
    # The same journal, every move answered once.
    killed_rows, whole_rows = _journal_rows(out), _journal_rows(whole)
    key = lambda r: (r["question_id"], r["model"])  # noqa: E731
    assert sorted(killed_rows, key=key) == sorted(whole_rows, key=key)
    ids = [r["question_id"] for r in killed_rows]
    assert len(ids) == len(set(ids)) == 40 * 10 * 4


MODEL_GAME = textwrap.dedent(
    """
    import sys
    from steer.play import play_game
    play_game("repeated-prisoners-dilemma", "openai:gpt-x*2", sys.argv[1], samples=6,
              backend_options={"base_url": sys.argv[2], "concurrency": 4})
    """
)


def test_a_killed_model_tournament_never_asks_the_server_twice(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    state.delay_s = 0.005
    out = tmp_path / "pd"
    script = tmp_path / "game.py"
    script.write_text(MODEL_GAME)
    env = {**os.environ}
    child = subprocess.Popen([sys.executable, str(script), str(out), url], env=env)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and state.chat_requests() < 40:
            time.sleep(0.002)
        gate = threading.Event()
        state.hold = gate  # later requests wait (unanswered) until the child is dead
        time.sleep(0.5)  # the child caches every reply it has received
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        answered = state.chat_requests()
        assert 40 <= answered < 6 * 10 * 2
        state.hold = None
        resumed = play_game("repeated-prisoners-dilemma", "openai:gpt-x*2", out, samples=6,
                            backend_options={"base_url": url, "concurrency": 4})  # fmt: skip
        # Every move was asked exactly once, across the kill.
        assert state.chat_requests() == 6 * 10 * 2
        assert resumed.moves.num_rows == 6 * 10 * 2 and resumed.n_forfeits == 0
        assert set(resumed.moves["action"].to_pylist()) == {"defect"}  # the server says B
    finally:
        state.delay_s = 0.0
        state.hold = None
        gate.set()
        if child.poll() is None:
            child.kill()


def test_cli_plays_and_scores_a_game(tmp_path: Path) -> None:
    out = tmp_path / "g"
    played = subprocess.run(
        [sys.executable, "-m", "steer", "play", "repeated-prisoners-dilemma", "--players",
         "agent:tit-for-tat,agent:always-defect", "-n", "3", "-o", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "60 new moves" in played.stdout
    scored = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(out), "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    rows = {r["model"]: r for r in json.loads(scored.stdout)}
    assert rows["agent:tit-for-tat"]["defection_rate"] == pytest.approx(0.9)
    bad = subprocess.run(
        [sys.executable, "-m", "steer", "play", "stag-hunt", "--players", "agent:random",
         "-o", str(tmp_path / "x")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "has 2 seats" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1 and not (tmp_path / "x").exists()
    wrong = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(out), "--metric", "defection"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert wrong.returncode == 2 and "did you mean 'defection_rate'" in wrong.stderr


def test_grade_takes_game_metrics_under_the_rationality_check_rubric(tmp_path: Path) -> None:
    pd, auction = tmp_path / "rpd", tmp_path / "spa"
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect", pd,
              samples=3)  # fmt: skip
    play_game("second-price-auction", "agent:truthful,agent:random", auction, samples=3)
    graded = subprocess.run(
        [sys.executable, "-m", "steer", "grade", str(pd), str(auction), "--rubric",
         "rationality-check", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert graded.returncode == 1, graded.stderr  # the random bidder fails RC001
    diagnostics = json.loads(graded.stdout)["diagnostics"]
    failed = {(d["code"], d["model"]) for d in diagnostics if d["severity"] == "error"}
    assert failed == {("RC001", "agent:random")}
    # Games a model did not play are reported as not checked, never passed.
    unchecked = {
        (d["model"], d["message"].split("`")[1]) for d in diagnostics if d["code"] == "RAT008"
    }
    assert ("agent:truthful", "prisoners-dilemma.%NE") in unchecked
    assert ("agent:tit-for-tat", "repeated-prisoners-dilemma.%NE") not in unchecked


def test_score_reads_a_game_run_as_the_responses_of_its_rounds(tmp_path: Path) -> None:
    from steer.score import load_responses

    out = tmp_path / "g"
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect", out,
              samples=2, rounds=3)  # fmt: skip
    loaded = load_responses([out])
    assert loaded.table.num_rows == 2 * 3 * 2
    assert set(loaded.table["element"].to_pylist()) == {"game.repeated-prisoners-dilemma"}


def test_plot_rounds_writes_every_format_deterministically_with_labels_inside(
    tmp_path: Path,
) -> None:
    from steer.play._plots import round_figure

    out = tmp_path / "g"
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:random", out, samples=4)
    for suffix in ("png", "svg", "pdf"):
        for name in ("a", "b"):
            done = subprocess.run(
                [sys.executable, "-m", "steer", "plot", "rounds", str(out), "-o",
                 str(tmp_path / f"{name}.{suffix}")],
                capture_output=True, text=True, timeout=120,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
        if suffix != "png":
            a, b = ((tmp_path / f"{n}.{suffix}").read_bytes() for n in ("a", "b"))
            assert a == b, f"the {suffix} output is not deterministic"
    _, game, moves = read_game_run(out)
    fig = round_figure(game, moves)
    fig.canvas.draw()
    canvas = fig.bbox
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    texts = [t for ax in fig.axes for t in (ax.xaxis.label, ax.yaxis.label, ax.title)]
    texts += [t for legend in fig.legends for t in legend.get_texts()]
    assert any("share choosing defect" in t.get_text() for t in texts)
    for t in texts:
        box = t.get_window_extent(renderer)
        assert canvas.x0 <= box.x0 and box.x1 <= canvas.x1 + 0.5, t.get_text()
        assert canvas.y0 <= box.y0 and box.y1 <= canvas.y1 + 0.5, t.get_text()


def test_human_baselines_and_the_rubric_match_the_published_table(shared_fixtures: Path) -> None:
    from steer._toml import parse_toml
    from steer.play import read_rc_table
    from steer.play._game_metrics import HUMAN_BASELINES

    table = read_rc_table(shared_fixtures / "rationality_check" / "game_results.csv")
    code = {
        "beauty-contest": "BeaCon", "prisoners-dilemma": "OnePD",
        "repeated-prisoners-dilemma": "FinRepPD", "public-goods": "OnePG",
        "repeated-public-goods": "FinRepPG", "infinitely-repeated-prisoners-dilemma": "InfRepPD",
        "battle-of-the-sexes": "FinRepBoS", "stag-hunt": "FinRepSH", "minimum-effort": "FinRepME",
    }  # fmt: skip
    assert set(code) == set(HUMAN_BASELINES)
    rubric = parse_toml((ROOT / "rubrics" / "rationality-check.toml").read_text(), "rubric")
    bounds = {
        c["parameter"]: c.get("min", c.get("max")) for c in rubric["check"] if "parameter" in c
    }  # the game checks (the crowd checks bound a metric)
    for game, metrics in HUMAN_BASELINES.items():
        for metric, value in metrics.items():
            assert table.value("Human", code[game], "fin", metric) == pytest.approx(value)
            assert bounds[f"{game}.{metric}"] == pytest.approx(value)


def _gama_reference(game_name: str, moves: dict[str, list]) -> float:
    """GAMA-Bench's score by its definition, sample by sample, then averaged."""
    by: dict[int, dict[int, list[tuple[float, float]]]] = {}
    for s, r, x, v in zip(moves["sample"], moves["round"], moves["move"], moves["value"],
                          strict=True):  # fmt: skip
        by.setdefault(s, {}).setdefault(r, []).append((x, v))
    scores = []
    for rounds in by.values():
        per_round = []
        for cell in rounds.values():
            xs = [x for x, _ in cell]
            if game_name == "gama:guessing":
                per_round.append(sum(xs) / len(xs))
            elif game_name == "gama:el-farol":
                per_round.append(abs(sum(1 for x in xs if x == 0) / len(xs) - 0.6))
            elif game_name == "gama:divide-dollar":
                per_round.append(abs(sum(xs) / len(xs) - 100 / len(xs)))
            elif game_name == "gama:public-goods":
                per_round.append(sum(xs) / len(xs))
            elif game_name == "gama:diner":
                per_round.append(sum(1 for x in xs if x == 1) / len(xs))
            else:
                per_round.append(sum(max(0.0, (v - x) / v) for x, v in cell) / len(cell))
        s_ = sum(per_round) / len(per_round)
        scores.append({
            "gama:guessing": (100 - s_) / 100 * 100,
            "gama:el-farol": (0.6 - s_) / 0.6 * 100,
            "gama:divide-dollar": max(0.0, (10 - s_) / 10 * 100),
            "gama:public-goods": (20 - s_) / 20 * 100,
            "gama:diner": 100 * s_,
            "gama:sealed-bid-auction": 100 * s_,
        }[game_name])  # fmt: skip
    return sum(scores) / len(scores)


@settings(max_examples=8, deadline=None)
@given(
    game_name=st.sampled_from(["gama:guessing", "gama:el-farol", "gama:divide-dollar",
                               "gama:public-goods", "gama:diner", "gama:sealed-bid-auction"]),
    seed=st.integers(0, 10_000),
)  # fmt: skip
def test_gama_scores_match_their_definition(
    tmp_path_factory: pytest.TempPathFactory, game_name: str, seed: int
) -> None:
    out = tmp_path_factory.mktemp("gama") / "g"
    play_game(game_name, "agent:random*10", out, samples=3, rounds=3, seed=seed)
    _, game, moves = read_game_run(out)
    got = game_metrics(game, moves).to_pylist()[0]["gama_score"]
    assert got == pytest.approx(_gama_reference(game_name, moves.to_pydict()), abs=1e-9)


def test_self_interested_play_scores_100_where_gama_bench_rewards_it(tmp_path: Path) -> None:
    play_game("gama:public-goods", "agent:free-rider*10", tmp_path / "pg", rounds=3)
    assert _metrics(tmp_path / "pg")["agent:free-rider"]["gama_score"] == 100.0


def test_a_run_with_a_published_models_metrics_gets_its_domain_scores(
    shared_fixtures: Path,
) -> None:
    from steer.play import RC_GAMES, read_rc_table, score_rc, with_models
    from steer.play._rc_scores import combine_versions

    folder = shared_fixtures / "rationality_check"
    table = combine_versions(read_rc_table(folder / "game_results.csv"))
    # gpt-4o's published per-game values, as game_metrics rows of a run.
    rows = []
    for game, code in RC_GAMES.items():
        row: dict[str, object] = {"model": "replica", "game": game}
        for i in np.flatnonzero((table.game == code) & table.show):
            row[str(table.metric[i])] = table.value("gpt-4o", code, str(table.version[i]),
                                                    str(table.metric[i]))  # fmt: skip
        rows.append(row)
    domains = score_rc(with_models(table, rows)).domains.to_pydict()
    for i in range(len(domains["domain"])):
        if domains["domain"][i] == "Society":  # the crowd games (MMLU, MATH) are not played
            continue
        assert domains["replica"][i] == pytest.approx(domains["gpt-4o"][i], abs=1e-12)
    done = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(folder / "game_results.csv")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2  # a CSV is not a game run: one line, exit 2


def test_score_prints_domain_scores_beside_the_published_models(
    shared_fixtures: Path, tmp_path: Path
) -> None:
    out = tmp_path / "pd"
    play_game("prisoners-dilemma", "agent:always-defect*2", out, samples=2)
    done = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(out), "--published",
         str(shared_fixtures / "rationality_check" / "game_results.csv")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = done.stdout.split("Rationality Check domain scores")[1]
    practical = next(line for line in text.splitlines() if "Practical" in line)
    # Always defecting in the one-shot dilemma: %NE 1 → normalised 1.
    assert practical.split()[3] == "1.000" and "0.720" in practical


@settings(max_examples=60, deadline=None)
@given(p=st.floats(0.51, 0.9999), df=st.floats(0.5, 500))
def test_t_quantile_matches_scipy(p: float, df: float) -> None:
    from scipy import stats

    from steer.stats._distributions import t_quantile

    assert t_quantile(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-7, abs=1e-9)


def test_two_wordings_average_into_fin_and_grade_as_the_baseline(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    # The model defects when the rules come first (v1) and cooperates when the
    # question comes first (v2): the wordings disagree, fin is their mean.
    state.reply = lambda messages: "A" if messages[-1]["content"].startswith("Which") else "B"
    opts = {"base_url": url}
    for wording in ("v1", "v2"):
        play_game("prisoners-dilemma", "openai:gpt-x*2", tmp_path / wording, samples=2,
                  backend_options=opts, wording=wording)  # fmt: skip
    prompt = tmp_path / "v2" / "rounds" / "r0001" / "p1" / "questions.parquet"
    text = pq.read_table(prompt).to_pylist()[0]["question_text"]
    assert text.startswith("Which action") and "(defect, cooperate) → 50, 12" in text
    scored = subprocess.run(
        [sys.executable, "-m", "steer", "score", str(tmp_path / "v1"), str(tmp_path / "v2"),
         "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert scored.returncode == 0, scored.stderr
    rate = {r["wording"]: r["defection_rate"] for r in json.loads(scored.stdout)}
    assert rate == {"v1": 1.0, "v2": 0.0, "fin": 0.5}
    graded = subprocess.run(
        [sys.executable, "-m", "steer", "grade", str(tmp_path / "v1"), str(tmp_path / "v2"),
         "--rubric", "rationality-check", "--format", "json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    failed = [d for d in json.loads(graded.stdout)["diagnostics"] if d["code"] == "RC003"]
    assert len(failed) == 1 and "= 0.500" in failed[0]["message"]  # fin, below 0.79
    with pytest.raises(InputError, match="--wording must be one of v1, v2"):
        play_game("prisoners-dilemma", "agent:random*2", tmp_path / "x", wording="v3")


def test_max_cost_is_a_budget_for_the_whole_game_and_a_rerun_goes_on(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    """--max-cost spans every round's directory: the game stops in the round
    where the budget runs out (no payoffs, no moves.parquet), never spends
    beyond it, and re-running with a larger budget finishes without asking
    any move twice."""
    state, url = fake
    prices = tmp_path / "prices.toml"
    prices.write_text("[pricey]\ninput = 100000.0\noutput = 100000.0\n")
    opts = {"base_url": url, "concurrency": 1, "pricing_file": str(prices)}
    out = tmp_path / "pd"
    game = ("repeated-prisoners-dilemma", "openai:pricey,agent:tit-for-tat", out)
    budget = 150.0  # about seven of the twelve model moves at this price
    first = play_game(*game, samples=3, rounds=4, backend_options=opts, max_cost=budget)
    assert first.stopped == "max-cost" and 0 < first.rounds_played < 4
    assert 0 < first.spent_usd <= budget and not (out / "moves.parquet").exists()
    spent_on_disk = sum(
        json.loads(m.read_text())["spent_usd"] for m in out.glob("rounds/*/*/manifest.json")
    )
    assert spent_on_disk == pytest.approx(first.spent_usd) and spent_on_disk <= budget
    asked = [e["last_user"] for e in state.log if e["path"].endswith("/chat/completions")]
    state.log.clear()
    done = play_game(*game, samples=3, rounds=4, backend_options=opts, max_cost=1e9)
    assert done.stopped is None and done.rounds_played == 4
    assert done.moves.num_rows == 3 * 4 * 2 and (out / "moves.parquet").exists()
    again = [e["last_user"] for e in state.log if e["path"].endswith("/chat/completions")]
    assert len(asked) + len(again) == 3 * 4  # every model move asked once in all


def test_max_cost_needs_a_paid_seat_and_a_number(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="paid API seats"):
        play_game("prisoners-dilemma", "agent:always-defect*2", tmp_path / "g", max_cost=1.0)
    with pytest.raises(InputError, match="must be a number of USD"):
        play_game("prisoners-dilemma", "agent:always-defect*2", tmp_path / "h",
                  max_cost=float("nan"))  # fmt: skip
    assert not (tmp_path / "h").exists()  # refused before anything is written


def test_the_report_shows_game_players_beside_the_human_baseline(tmp_path: Path) -> None:
    """`steer report GAME_RUNS`: a games section with each player's metrics
    (the numbers `steer score` gives) and Rationality Check's human baseline,
    and the rubric checks the games like `steer grade` does."""
    out = tmp_path / "rpd"
    play_game("repeated-prisoners-dilemma", "agent:tit-for-tat,agent:always-defect", out,
              samples=3)  # fmt: skip

    def steer(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "steer", *args], capture_output=True,
                              text=True, timeout=300, cwd=tmp_path)  # fmt: skip

    done = steer("report", "rpd", "--rubric", "rationality-check", "-o", "r.html")
    assert done.returncode == 0, done.stderr
    html = (tmp_path / "r.html").read_text()
    games = html[html.index('<section id="games">') :]
    games = games[: games.index("</section>")]
    scored = json.loads(steer("score", "rpd", "--format", "json").stdout)
    tft = next(r for r in scored if r["model"] == "agent:tit-for-tat")
    assert f"<td>{tft['%NE']:.3f} [" in games
    assert "humans (Rationality Check)" in games and "<td>0.643</td>" in games
    assert "repeated-prisoners-dilemma.%NE` not checked" not in html  # the game was graded
    md = steer("report", "rpd", "--rubric", "rationality-check", "-o", "r.md")
    assert md.returncode == 0, md.stderr
    text = (tmp_path / "r.md").read_text()
    assert "## Games" in text and "| humans (Rationality Check) |" in text
