"""Version-2 baselines through `steer grade` (real runs of a reference agent,
a real subprocess): paired, corrected RAT007; RAT010 for a baseline of
something else; version-1 baselines still load, unpaired (RAT011)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from bank_factory import biased_agent, paired_runs, write_test_bank
from grade_helpers import steer
from steer.run import run_bank
from steer.schema.response import Adaptation

RUBRIC = """\
name = "paired"
metric = "exact_match"
{extra}
[[section]]
name = "All"
select = ["steer.1", "steer.2"]
"""


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("paired")
    bank = paired_runs(root)  # base, rerun, worse
    other_bank = write_test_bank(root / "other-bank.parquet", 180)
    run_bank(bank, "agent:oracle", root / "oracle")
    mixing = Adaptation(prob_mode="mixing")
    run_bank(bank, biased_agent(1, 0.1), root / "mixing", adaptation=mixing)
    run_bank(other_bank, biased_agent(1, 0.1), root / "other-bank", seed=1)
    (root / "r.toml").write_text(RUBRIC.format(extra=""), encoding="utf-8")
    (root / "renamed.toml").write_text(
        RUBRIC.format(extra="").replace('"paired"', '"renamed"'), encoding="utf-8"
    )
    result = grade(root, "base", "--write-baseline", "base.json", "--exit-zero")
    assert result.returncode == 0, result.stderr
    return root


def grade(work: Path, *args: str, rubric: str = "r.toml"):  # type: ignore[no-untyped-def]
    return steer("grade", *args, "-r", rubric, cwd=work)


def codes(stdout: str, code: str) -> list[str]:
    return [line for line in stdout.splitlines() if f" {code} " in line]


def test_baseline_v2_holds_each_question_keyed_by_bank_and_id(work: Path) -> None:
    doc = json.loads((work / "base.json").read_text())
    assert doc["baseline_version"] == 2
    assert (doc["rubric"], doc["metric"]) == ("paired", "exact_match")
    (card,) = doc["cards"]
    assert (card["model"], card["adaptation"]) == (
        "agent:human",
        "mc;shots=0;cot=none;prob=conditioning",
    )
    bank = json.loads((work / "base" / "manifest.json").read_text())["bank_sha256"]
    questions = card["questions"]
    assert set(questions["bank_sha256"]) == {bank} and card["banks"] == [bank]
    # 240 questions, every fifth with two parts: still 240 questions.
    assert len(questions["question"]) == len(set(questions["question"])) == 240
    assert set(card["summary"]) == {"steer.1.1.a", "steer.1.1.c", "steer.2.2.a"}
    assert card["summary"]["steer.1.1.a"]["n"] == 80


def test_regressed_run_fires_rat007_with_adjusted_p(work: Path) -> None:
    result = grade(work, "worse", "--baseline", "base.json")
    assert result.returncode == 1, result.stdout + result.stderr
    lines = codes(result.stdout, "RAT007")
    assert len(lines) == 3
    for line in lines:
        assert "regressed: exact_match" in line
        assert "McNemar exact test" in line and "Holm-adjusted p = " in line
        assert "over 80 paired questions" in line
        assert "difference -0." in line and "[-0." in line


def test_unchanged_rerun_with_a_new_seed_does_not_fire(work: Path) -> None:
    result = grade(work, "rerun", "--baseline", "base.json")
    assert result.returncode == 0, result.stdout
    assert not codes(result.stdout, "RAT007") and not codes(result.stdout, "RAT010")


def test_baseline_can_be_a_run_directory_or_a_response_table(work: Path) -> None:
    by_dir = grade(work, "worse", "--baseline", "base")
    assert by_dir.returncode == 1 and len(codes(by_dir.stdout, "RAT007")) == 3
    by_table = grade(work, "worse", "--baseline", "base/responses.parquet")
    assert by_table.returncode == 1 and len(codes(by_table.stdout, "RAT007")) == 3
    same = grade(work, "rerun", "--baseline", "base")
    assert same.returncode == 0 and not codes(same.stdout, "RAT007")


@pytest.mark.parametrize(
    ("args", "rubric", "says"),
    [
        (["oracle"], "r.toml", "no model `agent:oracle` (baseline has `agent:human`)"),
        (["mixing"], "r.toml", "no adaptation `mc;shots=0;cot=none;prob=mixing`"),
        (["worse"], "renamed.toml", "rubric `paired` (graded: `renamed`)"),
        (["other-bank"], "r.toml", "question bank"),
    ],
)
def test_a_baseline_for_something_else_warns_and_is_not_compared(
    work: Path, args: list[str], rubric: str, says: str
) -> None:
    result = grade(
        work, *args, "--baseline", "base.json", "--select", "RAT007,RAT010", rubric=rubric
    )
    assert result.returncode == 0, result.stdout + result.stderr
    (line,) = codes(result.stdout, "RAT010")
    assert says in line and "not compared" in line
    assert not codes(result.stdout, "RAT007")
    assert "All checks passed" not in result.stdout
    assert "1 warning" in result.stdout


def test_correction_decides_a_marginal_drop(work: Path) -> None:
    """Six questions right only in the baseline: McNemar p = 2·2⁻⁶ ≈ 0.031.
    Holm over three elements makes it 0.094 (no RAT007); `none` keeps it."""
    doc = json.loads((work / "base.json").read_text())
    questions = doc["cards"][0]["questions"]
    flipped = 0
    for i, element in enumerate(questions["element"]):
        if element == "steer.1.1.a" and questions["exact_match"][i] == 0 and flipped < 6:
            questions["exact_match"][i] = 1.0
            flipped += 1
    assert flipped == 6
    (work / "marginal.json").write_text(json.dumps(doc), encoding="utf-8")
    for correction, fires in (("holm", False), ("bh", False), ("none", True)):
        extra = f'[rules.regression]\ncorrection = "{correction}"\nlevel = 0.05\n'
        (work / f"{correction}.toml").write_text(RUBRIC.format(extra=extra), encoding="utf-8")
        result = grade(work, "base", "--baseline", "marginal.json", rubric=f"{correction}.toml")
        lines = codes(result.stdout, "RAT007")
        assert bool(lines) == fires, (correction, result.stdout)
        assert result.returncode == (1 if fires else 0)
    assert "p = 0.031, unadjusted p = 0.031 < 0.05" in lines[0]


def test_invalid_regression_options_are_bad_input(work: Path) -> None:
    (work / "bad.toml").write_text(
        RUBRIC.format(extra='[rules.regression]\ncorrection = "bonferroni"\n'), encoding="utf-8"
    )
    result = grade(work, "base", rubric="bad.toml")
    assert result.returncode == 2
    assert "RUB003" in result.stderr and "correction" in result.stderr
    schema = json.loads(steer("rubric", "schema", cwd=work).stdout)
    options = schema["$defs"]["RegressionOptions"]["properties"]
    assert {"level", "correction", "resamples", "seed"} <= set(options)


def test_version_1_baseline_loads_and_says_not_paired(work: Path) -> None:
    doc = json.loads((work / "base.json").read_text())
    bank = doc["banks"]
    summary = doc["cards"][0]["summary"]
    v1 = {
        "baseline_version": 1,
        "rubric": "paired",
        "banks": bank,
        "metric": "exact_match",
        "scores": {"agent:human": summary},
    }
    (work / "v1.json").write_text(json.dumps(v1), encoding="utf-8")
    same = grade(work, "rerun", "--baseline", "v1.json")
    assert same.returncode == 0
    (note,) = codes(same.stdout, "RAT011")
    assert "version 1" in note and "without pairing" in note
    worse = grade(work, "worse", "--baseline", "v1.json")
    assert worse.returncode == 1
    lines = codes(worse.stdout, "RAT007")
    assert lines and all("not paired" in line for line in lines)


def test_broken_version_2_baseline_is_one_line_exit_2(work: Path) -> None:
    doc = json.loads((work / "base.json").read_text())
    del doc["cards"][0]["questions"]["exact_match"]
    (work / "broken.json").write_text(json.dumps(doc), encoding="utf-8")
    result = grade(work, "base", "--baseline", "broken.json")
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.strip().splitlines()
    assert "broken.json" in line and "exact_match" in line
    doc = json.loads((work / "base.json").read_text())
    doc["cards"][0]["summary"]["steer.1.1.a"]["lo"] = "low"
    (work / "broken.json").write_text(json.dumps(doc), encoding="utf-8")
    result = grade(work, "base", "--baseline", "broken.json")
    assert result.returncode == 2
    assert "cards[0].summary.steer.1.1.a.lo: expected a number" in result.stderr
    v1 = {"baseline_version": 1, "scores": {"m": {"e": {"value": [1]}}}}
    (work / "broken.json").write_text(json.dumps(v1), encoding="utf-8")
    result = grade(work, "base", "--baseline", "broken.json")
    assert result.returncode == 2 and "scores.m.e.value" in result.stderr
    missing = grade(work, "base", "--baseline", "nowhere")
    assert missing.returncode == 2 and "nowhere" in missing.stderr


def test_baseline_rows_match_the_runs_responses(work: Path) -> None:
    """The baseline's outcomes are the run's answers, question by question."""
    doc = json.loads((work / "base.json").read_text())
    questions = doc["cards"][0]["questions"]
    got = dict(zip(questions["question"], questions["exact_match"], strict=True))
    table = pq.read_table(work / "base" / "responses.parquet").to_pylist()
    for r in table:
        if r["part"] == 0 and r["base_id"] not in got:  # single-part: keyed by id
            assert got[r["question_id"]] == float(r["chosen_index"] == r["correct_index"])


def test_a_baseline_sharing_no_question_warns(work: Path) -> None:
    doc = json.loads((work / "base.json").read_text())
    questions = doc["cards"][0]["questions"]
    questions["question"] = [f"gone/{q}" for q in questions["question"]]
    (work / "disjoint.json").write_text(json.dumps(doc), encoding="utf-8")
    result = grade(work, "worse", "--baseline", "disjoint.json", "--select", "RAT007,RAT010")
    assert result.returncode == 0
    (line,) = codes(result.stdout, "RAT010")
    assert "no question in common" in line


def test_unanswered_questions_count_against_the_graded_run(work: Path) -> None:
    table = pq.read_table(work / "base" / "responses.parquet")
    right = pc.and_(
        pc.equal(table["element"], "steer.2.2.a"),
        pc.equal(table["chosen_index"], table["correct_index"]),
    )
    pq.write_table(table.filter(pc.invert(right)), work / "partial.parquet")
    result = grade(
        work, "partial.parquet", "--bank", "bank.parquet", "--baseline", "base.json",
        "--select", "RAT007",
    )  # fmt: skip
    assert result.returncode == 1, result.stdout + result.stderr
    (line,) = codes(result.stdout, "RAT007")
    assert "`steer.2.2.a` regressed: exact_match 0.000" in line
    assert "over 80 paired questions" in line
