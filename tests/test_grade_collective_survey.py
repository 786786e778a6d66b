"""Rubric checks on collectives and questionnaires (`steer grade`): a
collective run's crowd gain and a survey run's subscale scores become records
that `metric` checks bound, through the path game metrics take; checks pass
and fail as a plain recomputation from the run files says, a model without
such a run is not checked (RAT008), bad names are one line with a "did you
mean", and the shipped `rationality-check` rubric grades games, a collective
and questions together.

Runs are real: a hand-made bank (`bank_factory`), `steer run --collective`
with reference agents, `steer survey` with `agent:random`, `steer play`, and
the `steer` command in process (click's CliRunner).
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from bank_factory import write_test_bank
from steer.cli import cli
from steer.play import play_game
from steer.rubric._records import run_records
from steer.run import run_collective
from steer.survey import load_instrument

INSTRUMENT = "decision-style"


def steer(*args: object, cwd: Path) -> Result:
    here = Path.cwd()
    os.chdir(cwd)  # rubric paths and run paths relative to the work folder
    try:
        return CliRunner().invoke(cli, [str(a) for a in args])
    finally:
        os.chdir(here)


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 30-question bank; two collectives (human-like members, whose vote
    differs from their mean, and random ones), a survey answered at random,
    a question run of the oracle and two games."""
    root = tmp_path_factory.mktemp("crowds")
    write_test_bank(root / "bank.parquet", 30)
    run_collective(root / "bank.parquet", "agent:human", root / "crowd", "majority:5", seed=4)
    run_collective(root / "bank.parquet", "agent:random", root / "rcrowd", "majority:3", seed=1)
    done = steer("survey", INSTRUMENT, "-m", "agent:random", "-n", "4", "--seed", "7",
                 "-o", "surv", "--no-progress", cwd=root)  # fmt: skip
    assert done.exit_code == 0, done.output
    (root / "survey.txt").write_text(done.stdout, encoding="utf-8")
    ran = steer("run", "bank.parquet", "-m", "agent:oracle", "-o", "q", "--no-progress", cwd=root)
    assert ran.exit_code == 0, ran.output
    play_game("prisoners-dilemma", "agent:always-defect,agent:always-defect", root / "pd",
              samples=3)  # fmt: skip
    play_game("second-price-auction", "agent:truthful,agent:random", root / "spa", samples=3)
    return root


# --- plain reference computations from the run files -------------------------


def _rows(path: Path) -> list[dict[str, Any]]:
    return pq.read_table(path / "responses.parquet").to_pylist()


def reference_gain(crowd: Path) -> tuple[float, float, float]:
    """(gain, collective accuracy, members' mean accuracy) over the vote's
    answer-graded parts, from the parquet files, by their definition."""
    vote = [r for r in _rows(crowd / "vote") if r["correct_index"] is not None]
    members = [r for m in sorted((crowd / "members").iterdir()) for r in _rows(m)]
    diffs, coll, mean = [], [], []
    for v in vote:
        mine = [r for r in members if r["question_id"] == v["question_id"]]
        right = sum(r["error"] is None and r["chosen_index"] == r["correct_index"] for r in mine)
        member_acc = right / len(mine)
        vote_right = float(v["chosen_index"] == v["correct_index"])
        diffs.append(vote_right - member_acc)
        coll.append(vote_right)
        mean.append(member_acc)
    n = len(vote)
    return sum(diffs) / n, sum(coll) / n, sum(mean) / n


def reference_subscales(survey: Path) -> dict[str, float]:
    """Each subscale's mean over samples of the mean keyed answer."""
    instrument = load_instrument(INSTRUMENT)
    items = {i.id: i for i in instrument.item}
    low, high = instrument.scale.min, instrument.scale.max
    per: dict[str, dict[str, list[float]]] = {}
    for r in _rows(survey):
        match = re.search(r"/i(.+)\.s(\d+)/", r["question_id"])
        assert match is not None
        item = items[match.group(1)]
        if r["error"] is not None or not 0 <= r["chosen_index"] <= high - low:
            continue
        answer = low + r["chosen_index"]
        keyed = low + high - answer if item.reverse else answer
        per.setdefault(item.subscale, {}).setdefault(match.group(2), []).append(keyed)
    return {
        sub: sum(sum(v) / len(v) for v in samples.values()) / len(samples)
        for sub, samples in per.items()
    }


def _rubric(root: Path, name: str, checks: str, *, extends: str = "whole-benchmark") -> Path:
    path = root / f"{name}.toml"
    path.write_text(
        f'name = "{name}"\nextends = "{extends}"\nselect = ["XX", "RAT008"]\n{checks}',
        encoding="utf-8",
    )
    return path


def _grade(root: Path, rubric: Path, *runs: str) -> tuple[int, list[dict[str, Any]]]:
    done = steer("grade", *runs, "--rubric", rubric.name, "--format", "json", cwd=root)
    assert done.exit_code in (0, 1), done.output
    return done.exit_code, json.loads(done.stdout)["diagnostics"]


# --- collectives ----------------------------------------------------------------

GAIN_BOUNDS = (-0.301, -0.151, -0.051, -0.001, 0.049, 0.151)  # off the 1/150 grid


def test_crowd_gain_records_are_the_runs_gain_and_interval(work: Path) -> None:
    for name, model, spec, seed in (("crowd", "agent:human", "majority:5", 4),
                                    ("rcrowd", "agent:random", "majority:3", 1)):  # fmt: skip
        # Re-running resumes (nothing asked) and returns the gain `steer run` printed.
        again = run_collective(work / "bank.parquet", model, work / name, spec, seed=seed)
        assert again.n_new == 0
        records, sources = run_records([work / name])
        assert sources == [str(work / name)]
        by = {r.parameter: r for r in records}
        assert set(by) == {"crowd_gain", "collective_accuracy", "member_accuracy"}
        gain = by["crowd_gain"]
        assert (gain.model, gain.family, gain.n) == (model, spec, 30)
        assert gain.adaptation == f"mc;shots=0;cot=none;prob=conditioning;collective={spec}"
        # The interval is crowd_gain's own, exactly.
        assert (gain.estimate, gain.ci_lo, gain.ci_hi) == (
            again.gain["gain"],
            again.gain["lo"],
            again.gain["hi"],
        )
        plain, coll, mean = reference_gain(work / name)
        assert gain.estimate == pytest.approx(plain, abs=1e-12)
        assert by["collective_accuracy"].estimate == pytest.approx(coll, abs=1e-12)
        assert by["member_accuracy"].estimate == pytest.approx(mean, abs=1e-12)


def test_crowd_gain_checks_pass_and_fail_as_the_plain_gain_says(work: Path) -> None:
    checks = "".join(
        f'\n[[check]]\ncode = "XX{i:03d}"\nmetric = "crowd_gain"\nmin = {b}\n'
        for i, b in enumerate(GAIN_BOUNDS, 1)
    )
    checks += '\n[[check]]\ncode = "XX100"\nmetric = "crowd_gain"\nmax = 0.0\n'
    rubric = _rubric(work, "crowds", checks)
    code, found = _grade(work, rubric, "crowd", "rcrowd")
    failed = {(d["code"], d["model"]) for d in found if d["severity"] == "error"}
    expected = set()
    for name, model in (("crowd", "agent:human"), ("rcrowd", "agent:random")):
        plain = reference_gain(work / name)[0]
        expected |= {(f"XX{i:03d}", model) for i, b in enumerate(GAIN_BOUNDS, 1) if plain < b}
        if plain > 0.0:
            expected.add(("XX100", model))
    assert failed == expected
    assert code == (1 if expected else 0)
    assert any(c.startswith("XX0") for c, _ in expected)  # the bounds straddle the gains
    assert ("XX001", "agent:human") not in expected
    # A failure names the collective, the value with crowd_gain's interval, the
    # bound, and the vote's card; the members' cards are not checked twice.
    records = {r.model: r for r in run_records([work / "crowd", work / "rcrowd"])[0]
               if r.parameter == "crowd_gain"}  # fmt: skip
    for d in (d for d in found if d["severity"] == "error"):
        r = records[d["model"]]
        lo, hi = (f"{x:.3f}".replace("-0.000", "0.000") for x in (r.ci_lo, r.ci_hi))
        assert f"`{r.family}` crowd_gain " in d["message"] and f"[{lo}, {hi}]" in d["message"]
        assert d["element"] == f"collective.{r.family}" and d["adaptation"] == r.adaptation
    assert not [d for d in found if d["code"] == "RAT008"]


def test_score_prints_the_gain_steer_run_printed(work: Path, tmp_path: Path) -> None:
    out = tmp_path / "c"
    ran = steer("run", work / "bank.parquet", "-m", "agent:human", "--collective", "majority:5",
                "-o", out, "--no-progress", cwd=tmp_path)  # fmt: skip
    assert ran.exit_code == 0, ran.output
    line = next(x for x in ran.stdout.splitlines() if x.startswith("accuracy: collective"))
    scored = steer("score", out, "--by", "adaptation", cwd=tmp_path)
    assert scored.exit_code == 0, scored.output
    assert scored.stdout.rstrip().endswith(f"{out} (majority:5): {line}")
    # Machine formats stay the table's rows only.
    rows = steer("score", out, "--by", "adaptation", "--format", "json", cwd=tmp_path)
    assert len(json.loads(rows.stdout)) == 2


# --- questionnaires ----------------------------------------------------------------

SUBSCALE_BOUNDS = (1.03, 2.03, 2.53, 3.03, 3.53, 4.03, 5.0)  # off the 1/16 grid


def test_subscale_checks_pass_and_fail_as_the_plain_scores_say(work: Path) -> None:
    plain = reference_subscales(work / "surv")
    assert set(plain) == {"deliberation", "consistency"}
    records = {r.family: r for r in run_records([work / "surv"])[0]}
    assert set(records) == {f"{INSTRUMENT}.deliberation", f"{INSTRUMENT}.consistency"}
    # The records are what `steer survey` printed: score and interval.
    printed = (work / "survey.txt").read_text(encoding="utf-8")
    for sub, value in plain.items():
        r = records[f"{INSTRUMENT}.{sub}"]
        assert r.estimate == pytest.approx(value, abs=1e-12) and r.n == 4
        assert r.model == "agent:random" and r.parameter == "subscale"
        assert re.search(rf"{sub}\s+{r.estimate:.3f} \[{r.ci_lo:.3f}, {r.ci_hi:.3f}\]", printed)
    checks = "".join(
        f'\n[[check]]\ncode = "XX{i:03d}"\nmetric = "subscale"\nselect = ["{INSTRUMENT}.*"]\n'
        f"min = {b}\n"
        for i, b in enumerate(SUBSCALE_BOUNDS, 1)
    )
    checks += (
        f'\n[[check]]\ncode = "XX200"\nmetric = "subscale"\nselect = ["survey.{INSTRUMENT}.'
        f'deliberation"]\nmax = 2.97\n'
        f'\n[[check]]\ncode = "XX300"\nmetric = "subscale"\nselect = ["{INSTRUMENT}.*"]\n'
        'aggregate = "mean"\nmin = 3.03\n'
    )
    rubric = _rubric(work, "subscales", checks)
    code, found = _grade(work, rubric, "surv")
    failed = {(d["code"], d["element"]) for d in found if d["severity"] == "error"}
    expected = {
        (f"XX{i:03d}", f"survey.{INSTRUMENT}.{sub}")
        for i, b in enumerate(SUBSCALE_BOUNDS, 1)
        for sub, value in plain.items()
        if value < b
    }
    if plain["deliberation"] > 2.97:
        expected.add(("XX200", f"survey.{INSTRUMENT}.deliberation"))
    if sum(plain.values()) / 2 < 3.03:
        expected.add(("XX300", None))
    assert failed == expected and code == (1 if expected else 0)
    assert ("XX007", f"survey.{INSTRUMENT}.deliberation") in expected  # min 5: fails
    assert ("XX001", f"survey.{INSTRUMENT}.deliberation") not in expected  # min 1.03: holds
    assert not [d for d in found if d["code"] == "RAT008"]


# --- not checked, bad names -------------------------------------------------------


def test_a_model_without_the_run_kind_is_not_checked_never_passed(work: Path) -> None:
    rubric = _rubric(work, "kinds", (
        '\n[[check]]\ncode = "XX001"\nmetric = "crowd_gain"\nmin = -1\n'
        '\n[[check]]\ncode = "XX002"\nmetric = "subscale"\nmin = 1\n'
        '\n[[check]]\ncode = "XX003"\nmetric = "crowd_gain"\nselect = ["debate:*"]\nmin = -1\n'
    ))  # fmt: skip
    code, found = _grade(work, rubric, "q", "crowd", "surv")
    assert code == 0
    unchecked = {(d["code"], d["model"], d["message"].split(":")[0], d["adaptation"])
                 for d in found if d["code"] == "RAT008"}  # fmt: skip
    vote = "mc;shots=0;cot=none;prob=conditioning;collective=majority:5"
    members = "mc;shots=0;cot=none;prob=conditioning"
    assert unchecked == {
        # the oracle ran neither a collective nor a survey
        ("RAT008", "agent:oracle", "check XX001", None),
        ("RAT008", "agent:oracle", "check XX002", None),
        ("RAT008", "agent:oracle", "check XX003", None),
        # the human crowd answered no survey (once per card: it has two) …
        ("RAT008", "agent:human", "check XX002", members),
        ("RAT008", "agent:human", "check XX002", vote),
        # … and was no debate: checked on its vote's card only, naming what it has
        ("RAT008", "agent:human", "check XX003", vote),
        # the random model answered the survey but ran no collective here
        ("RAT008", "agent:random", "check XX001", None),
        ("RAT008", "agent:random", "check XX003", None),
    }
    debate = next(d for d in found if d["code"] == "RAT008" and d["model"] == "agent:human"
                  and d["message"].startswith("check XX003"))  # fmt: skip
    assert debate["hint"] == "this model has: majority:5"
    oracle = next(d for d in found if d["model"] == "agent:oracle" and "XX001" in d["message"])
    assert "steer run BANK --collective" in oracle["hint"]


def test_bad_names_are_one_line_with_a_did_you_mean(work: Path) -> None:
    bad = _rubric(work, "typo", '\n[[check]]\ncode = "XX001"\nmetric = "crowd_gian"\nmin = 0\n')
    done = steer("grade", "crowd", "--rubric", bad.name, cwd=work)
    assert done.exit_code == 2
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "did you mean 'crowd_gain'" in done.stderr and "typo.toml:" in done.stderr
    lint = steer("rubric", "check", bad.name, cwd=work)
    assert lint.exit_code == 1 and lint.stdout.count("RUB003") == 1, lint.stdout
    rubric = _rubric(work, "names", (
        '\n[[check]]\ncode = "XX001"\nmetric = "subscale"\n'
        f'select = ["{INSTRUMENT}.delibration"]\nmin = 1\n'
        '\n[[check]]\ncode = "XX002"\nparameter = "crowd_gian"\nmin = 0\n'
    ))  # fmt: skip
    assert "RUB004" not in steer("rubric", "check", rubric.name, cwd=work).stdout
    _, found = _grade(work, rubric, "surv", "crowd")
    hints = {(d["message"].split(":")[0], d["model"], d["hint"]) for d in found}
    assert ("check XX001", "agent:random",
            f"did you mean `{INSTRUMENT}.deliberation`?") in hints  # fmt: skip
    assert ("check XX002", "agent:human", "did you mean `crowd_gain`?") in hints


# --- the shipped rubric, end to end ---------------------------------------------


def test_the_shipped_rubric_grades_games_a_collective_and_questions(work: Path) -> None:
    lint = steer("rubric", "check", "rationality-check", cwd=work)
    assert lint.exit_code == 0, lint.output
    gains = {m: reference_gain(work / d)[0] for m, d in (("agent:human", "crowd"),
                                                          ("agent:random", "rcrowd"))}  # fmt: skip
    done = steer("grade", "q", "pd", "crowd", "rcrowd", "surv", "--rubric", "rationality-check",
                 "--format", "json", cwd=work)  # fmt: skip
    found = json.loads(done.stdout)["diagnostics"]
    errors = {(d["code"], d["model"]) for d in found if d["severity"] == "error"}
    # Exit 1 exactly when an error-level check fails: here only RC011 can (the
    # survey's card is graded by the checks, not as questions: no RAT012).
    assert errors == {("RC011", m) for m, gain in gains.items() if gain < 0}
    assert ("RC011", "agent:random") in errors  # this random crowd lost a little
    assert done.exit_code == (1 if errors else 0), done.output
    unchecked = {(d["model"], d["message"].split(":")[0]) for d in found if d["code"] == "RAT008"}
    assert ("agent:oracle", "check RC011") in unchecked  # no collective: not checked
    assert ("agent:always-defect", "check RC011") in unchecked
    assert ("agent:always-defect", "check RC003") not in unchecked  # played, %NE 1 ≥ 0.79
    assert ("agent:human", "check RC012") in unchecked  # a majority vote, no debate
    # An oracle crowd's members all agree with the key: gain 0, RC011 holds;
    # the auction's random bidder fails RC001: exit 1. (The oracle's question
    # run is left out: its answers would be the crowd's first member's again.)
    run_collective(work / "bank.parquet", "agent:oracle", work / "ocrowd", "majority:3")
    mixed = steer("grade", "pd", "spa", "ocrowd", "--rubric", "rationality-check",
                  "--format", "json", cwd=work)  # fmt: skip
    assert mixed.exit_code == 1, mixed.output
    found = json.loads(mixed.stdout)["diagnostics"]
    assert {(d["code"], d["model"]) for d in found if d["severity"] == "error"} == {
        ("RC001", "agent:random")
    }
    assert not [d for d in found if d["code"] == "RAT008" and d["message"].startswith(
        "check RC011") and d["model"] == "agent:oracle"]  # fmt: skip
    passing = steer("grade", "pd", "ocrowd", "--rubric", "rationality-check", cwd=work)
    assert passing.exit_code == 0, passing.output
