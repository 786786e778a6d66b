"""`steer play`: experiments answered through run/'s machinery — durable,
resumable, cached per sample — by reference agents and by the real `openai`
client against a loopback server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from openai_server import FakeOpenAI
from steer.errors import InputError
from steer.play import TRIALS, play_experiment, read_play
from steer.run import read_responses
from steer.schema import Adaptation


@pytest.mark.parametrize(
    "experiment",
    ["ultimatum-proposer", "ultimatum-responder", "dictator", "gambling", "mixed-gamble",
     "waiting", "discounting", "mm-triangle", "budget"],
)  # fmt: skip
def test_every_experiment_plays_and_resumes(tmp_path: Path, experiment: str) -> None:
    out = tmp_path / experiment
    first = play_experiment(experiment, "agent:human-panel", out, samples=2, seed=3)
    assert first.run.n_new == first.trials.num_rows > 0
    responses = first.run.responses
    # Each response is the sample its trial says, and answered (agents never fail).
    assert sorted(responses["sample"].to_pylist()) == sorted(first.trials["sample"].to_pylist())
    assert pc.all(pc.greater_equal(responses["chosen_index"], 0)).as_py()
    again = play_experiment(experiment, "agent:human-panel", out, samples=2, seed=3)
    assert again.run.n_new == 0
    record, trials = read_play(out)
    assert record.experiment == experiment and record.samples == 2
    assert trials.num_rows == first.trials.num_rows


def test_trials_file_is_byte_identical_when_rebuilt(tmp_path: Path) -> None:
    # The run's bank fingerprint must survive a resume.
    play_experiment("dictator", "agent:fs", tmp_path / "a", samples=3)
    play_experiment("dictator", "agent:fs", tmp_path / "b", samples=3)
    assert (tmp_path / "a" / TRIALS).read_bytes() == (tmp_path / "b" / TRIALS).read_bytes()


def test_another_play_in_the_same_directory_is_refused(tmp_path: Path) -> None:
    play_experiment("dictator", "agent:fs", tmp_path, samples=2)
    with pytest.raises(InputError, match="samples was 2, now 3"):
        play_experiment("dictator", "agent:fs", tmp_path, samples=3)
    with pytest.raises(InputError, match="intervention was 'baseline'"):
        play_experiment("dictator", "agent:fs", tmp_path, samples=2, intervention="advice")
    with pytest.raises(InputError, match="experiment was 'dictator'"):
        play_experiment("budget", "agent:fs", tmp_path, samples=2)


def test_bad_arguments(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="--samples"):
        play_experiment("budget", "agent:garp", tmp_path / "a", samples=0)
    with pytest.raises(InputError, match="unknown intervention"):
        play_experiment("budget", "agent:garp", tmp_path / "b", intervention="persona")
    assert not (tmp_path / "b").exists()
    with pytest.raises(InputError, match="unknown parameter 'k'"):
        play_experiment("budget", "agent:garp(k=1)", tmp_path / "c")
    with pytest.raises(InputError, match=r"lambda=99 is outside \[0.1, 10\]"):
        play_experiment("gambling", "agent:pt(lambda=99)", tmp_path / "d")
    with pytest.raises(InputError, match="is not a number"):
        play_experiment("gambling", "agent:pt(lambda=x)", tmp_path / "e")
    with pytest.raises(InputError, match="given twice"):
        play_experiment("gambling", "agent:pt(alpha=1,alpha=2)", tmp_path / "f")
    with pytest.raises(InputError, match="missing '\\)'"):
        play_experiment("gambling", "agent:pt(alpha=1", tmp_path / "g")


def test_samples_are_separate_requests_and_resume_asks_nothing_again(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    options = {"base_url": url, "max_retries": 1, "retry_base_s": 0.01, "temperature": 1.0}
    out = tmp_path / "run"
    done = play_experiment(
        "ultimatum-responder", "openai:gpt-x", out, samples=3, backend_options=options
    )
    chat = [r for r in state.log if r["path"].endswith("/chat/completions")]
    # 11 offers x 3 samples: one request each, although each sample's prompts repeat.
    assert len(chat) == 33
    assert len({r["last_user"] for r in chat}) == 11
    assert sorted(set(done.run.responses["sample"].to_pylist())) == [0, 1, 2]
    # The server answers "B" (reject) everywhere: every choice is recorded.
    assert set(done.run.responses["chosen_index"].to_pylist()) == {1}
    state.log.clear()
    again = play_experiment(
        "ultimatum-responder", "openai:gpt-x", out, samples=3, backend_options=options
    )
    assert again.run.n_new == 0
    assert not [r for r in state.log if r["path"].endswith("/chat/completions")]
    # The transcripts hold what was sent for every trial.
    lines = (out / "transcripts.jsonl").read_text().splitlines()
    assert len(lines) == 33
    assert "The other participant offers you" in json.dumps(json.loads(lines[0]))


def test_cli_play_then_fit(tmp_path: Path) -> None:
    out = tmp_path / "g"
    play = subprocess.run(
        [sys.executable, "-m", "steer", "play", "ultimatum-responder", "-m",
         "agent:fs(alpha=1,beta=0.2,noise=0)", "-o", str(out), "-n", "4", "--no-progress"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    assert "44 new choices" in play.stdout
    responses, _ = read_responses(out)
    assert responses.num_rows == 44
    fits = tmp_path / "fits.json"
    fit = subprocess.run(
        [sys.executable, "-m", "steer", "fit", str(out), "-b", "50", "--format", "json",
         "-o", str(fits)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert fit.returncode == 0, fit.stderr
    data = json.loads(fits.read_text())
    alpha = next(f for f in data["fits"] if f["parameter"] == "alpha")
    # Accepts 4 of 10 and up (alpha = 1 makes 10/3 the threshold): alpha in (0.75, 2].
    assert alpha["estimate"] == 2.0 and alpha["ci_lo"] == 0.75
    assert pq.read_table(out / TRIALS).num_rows == 44


def test_unparsable_choices_are_asked_again_then_counted(
    fake: tuple[FakeOpenAI, str], tmp_path: Path
) -> None:
    state, url = fake
    options = {"base_url": url, "max_retries": 1, "retry_base_s": 0.01}

    def reply(messages: list[dict[str, str]]) -> str:
        # Rambles first; after one re-ask answers only for offers of $5 and up.
        asked_again = "does not name one of the options" in messages[-1]["content"]
        first = next(m["content"] for m in messages if m["role"] == "user")
        offer = int(first.split("offers you $")[1].split(" ")[0])
        return "A" if asked_again and offer >= 5 else "Hmm, hard to say."

    state.reply = reply
    done = play_experiment(
        "ultimatum-responder", "openai:gpt-x", tmp_path, samples=1, backend_options=options
    )
    chat = [r for r in state.log if r["path"].endswith("/chat/completions")]
    # Offers 5..10 answer at the first re-ask (2 requests); 0..4 use both re-asks (3).
    assert len(chat) == 6 * 2 + 5 * 3
    stimulus = dict(zip(done.trials["question_id"].to_pylist(),
                        done.trials["stimulus"].to_pylist(), strict=True))  # fmt: skip
    chosen = {stimulus[r["question_id"]]: r["chosen_index"] for r in done.run.responses.to_pylist()}
    assert chosen == {f"ur{s}": (0 if s >= 5 else -1) for s in range(11)}
    assert done.run.n_errors_left == 0  # unparsable is no answer, not a transport error


def test_option_order_perturbation_is_its_own_condition(tmp_path: Path) -> None:
    from steer.fit import compare_conditions, fit_runs

    play_experiment("ultimatum-responder", "agent:fs(alpha=1,noise=0)", tmp_path, samples=2,
                    adaptation=Adaptation(order="shuffle:2"))  # fmt: skip
    fits = fit_runs([tmp_path], bootstrap=20)
    conditions = set(fits["condition"].to_pylist())
    assert conditions == {"baseline;order=shuffle:2/0", "baseline;order=shuffle:2/1"}
    # The agent reads the options it was shown: the same choices either way.
    alphas = {r["condition"]: r["estimate"] for r in fits.to_pylist() if r["parameter"] == "alpha"}
    assert set(alphas.values()) == {2.0}
    shift = compare_conditions(fits, *sorted(conditions))
    assert all(v == 0 for v in shift["shift"].to_pylist())


def test_worked_examples_intervention(tmp_path: Path) -> None:
    done = play_experiment("gambling", "agent:pt", tmp_path, samples=1,
                           intervention="examples:2")  # fmt: skip
    assert done.record.intervention == "examples:2"
    questions = pq.read_table(tmp_path / TRIALS, columns=["question_text"])
    text = questions["question_text"][0].as_py()
    assert text.count("Example ") == 2 and "Chosen:" in text
    # Shots drawn from keyed banks make no sense for keyless choices.
    with pytest.raises(InputError, match="examples:1"):
        play_experiment("gambling", "agent:pt", tmp_path / "x", adaptation=Adaptation(shots=1))
    with pytest.raises(InputError, match="none of the above"):
        play_experiment(
            "gambling", "agent:pt", tmp_path / "y", adaptation=Adaptation(format="none")
        )


def test_fit_bad_input_is_one_line_and_exit_2(tmp_path: Path) -> None:
    not_play = tmp_path / "empty"
    not_play.mkdir()
    play_experiment("dictator", "agent:fs", tmp_path / "d", samples=1)
    for args, says in (
        ([str(not_play)], "not a play run"),
        ([str(tmp_path / "d"), "--compare", "baseline", "persona:x"], "no runs under condition"),
    ):
        done = subprocess.run([sys.executable, "-m", "steer", "fit", *args],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert done.returncode == 2, done.stderr
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0]


def test_a_fits_file_without_an_estimate_must_say_it_is_not_identified(tmp_path: Path) -> None:
    from steer.errors import FileFormatError
    from steer.rubric import read_fits

    path = tmp_path / "fits.json"
    path.write_text(json.dumps({"fits": [{"model": "m", "parameter": "k", "estimate": None}]}))
    with pytest.raises(FileFormatError, match="only a fit marked identified: false"):
        read_fits(path)
    path.write_text(json.dumps({"fits": [{"model": "m", "parameter": "k", "estimate": None,
                                          "identified": False, "reason": "no data"}]}))  # fmt: skip
    assert read_fits(path).get("m", "k").reason == "no data"
