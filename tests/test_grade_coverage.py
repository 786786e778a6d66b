"""Grades count every question asked: coverage, no-answers, keys, one card per
(model, adaptation), path errors, and the CI output formats (junit, github).

Runs are real: a generated bank, `run_bank` with the built-in agents, and the
`steer` command through click's CliRunner (in process, stderr kept apart).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner, Result

from steer.bank import write_bank
from steer.cli import cli
from steer.cli.demo_cmd import DEMO_ELEMENTS
from steer.errors import FileFormatError, InputError
from steer.generate import generate_bank
from steer.report.formats import render_github, render_junit
from steer.rubric import grade, load_rubric, shipped_rubrics
from steer.run import run_bank
from steer.schema import Adaptation
from steer.score import load_responses, score

BANK_SIZE = 610


def steer(*args: object) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


@pytest.fixture(scope="module")
def work(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 610-question bank, an oracle run asked 61 of it (`--limit 61`), and a
    run that answered the whole bank."""
    root = tmp_path_factory.mktemp("coverage")
    questions = generate_bank(list(DEMO_ELEMENTS), per_cell=30, seed=0).slice(0, BANK_SIZE)
    assert questions.num_rows == BANK_SIZE
    write_bank(questions, root / "bank.parquet")
    run_bank(root / "bank.parquet", "agent:oracle", root / "oracle-61", limit=61)
    run_bank(root / "bank.parquet", "agent:oracle", root / "oracle-all")
    return root


def responses_of(run: Path) -> pa.Table:
    return pq.read_table(run / "responses.parquet")


# --- the denominator is the questions asked -------------------------------------------------------


@pytest.mark.parametrize("name", sorted(shipped_rubrics()))
def test_a_run_asked_a_tenth_of_its_bank_fails_under_every_shipped_rubric(
    work: Path, name: str
) -> None:
    result = steer("grade", work / "oracle-61", "-r", name)
    assert result.exit_code == 1, result.output
    assert "RAT012" in result.stdout
    assert "asked 61 of the bank's 610 questions" in result.stdout


def test_the_whole_bank_answered_has_full_coverage(work: Path) -> None:
    result = steer("grade", work / "oracle-all")
    assert "coverage: answered 610/610 asked · asked 610/610 of the bank" in result.stdout
    assert not any(code in result.stdout for code in ("RAT012", "RAT013", "RAT014"))
    assert result.exit_code == 0, result.output


def test_every_failed_answer_exits_1(work: Path, tmp_path: Path) -> None:
    # What a run against a server that errors on every question records.
    failed = responses_of(work / "oracle-61")
    failed = failed.set_column(
        failed.schema.get_field_index("chosen_index"),
        "chosen_index",
        pa.array([-1] * failed.num_rows, pa.int32()),
    )
    failed = failed.set_column(
        failed.schema.get_field_index("error"),
        "error",
        pa.array(["HTTP 500 from server"] * failed.num_rows),
    )
    pq.write_table(failed, tmp_path / "failed.parquet")
    result = steer("grade", tmp_path / "failed.parquet", "--bank", work / "bank.parquet")
    assert result.exit_code == 1, result.output
    assert "RAT012" in result.stdout and "no usable answer" in result.stdout
    assert "answered 0/610 asked" in result.stdout


def test_a_run_stopped_before_its_first_answer_exits_1(work: Path, tmp_path: Path) -> None:
    run = tmp_path / "stopped"
    run.mkdir()
    shutil.copy(work / "oracle-61" / "manifest.json", run / "manifest.json")
    result = steer("grade", run)
    assert result.exit_code == 1, result.output
    assert "answered 0/61 asked" in result.stdout and "RAT012" in result.stdout


def test_an_empty_table_is_never_a_pass(work: Path, tmp_path: Path) -> None:
    pq.write_table(responses_of(work / "oracle-61").slice(0, 0), tmp_path / "empty.parquet")
    result = steer("grade", tmp_path / "empty.parquet")
    assert result.exit_code == 1, result.output
    assert "nothing to grade" in result.stdout
    assert "All checks passed" not in result.stdout


def test_bank_makes_missing_questions_count_for_a_bare_table(work: Path) -> None:
    table = work / "oracle-61" / "responses.parquet"
    unknown = steer("grade", table)
    assert "RAT014" in unknown.stdout and "--bank" in unknown.stdout
    assert "coverage unknown" in unknown.stdout
    known = steer("grade", table, "--bank", work / "bank.parquet")
    assert known.exit_code == 1, known.output
    assert "answered 61/610 asked · asked 610/610 of the bank" in known.stdout
    assert "RAT013" in known.stdout and "RAT014" not in known.stdout
    # The same through the API: exact match over the 610 asked, not the 61 answered.
    (row,) = score(table, by=["model"], bank=work / "bank.parquet").to_pylist()
    assert (row["n_units"], row["n_no_answer"], row["n_correct"]) == (610, 549, 61)


def test_a_response_to_a_question_not_asked_is_bad_input(work: Path, tmp_path: Path) -> None:
    other = generate_bank(list(DEMO_ELEMENTS), per_cell=30, seed=0).slice(0, 100)
    write_bank(other, tmp_path / "small.parquet")
    # Rows without a bank fingerprint: only their question ids can disagree.
    table = tmp_path / "bare.parquet"
    pq.write_table(responses_of(work / "oracle-all").drop_columns(["bank_sha256"]), table)
    with pytest.raises(FileFormatError) as info:
        load_responses(table, bank=tmp_path / "small.parquet")
    assert (info.value.source, info.value.field) == (str(table), "question_id")
    result = steer("score", table, "--bank", tmp_path / "small.parquet")
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1
    assert "was not asked" in result.stderr and "row 100" in result.stderr


# --- keys -------------------------------------------------------------------------------------


def test_the_same_run_twice_is_exit_2_naming_both(work: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy-of-oracle"
    shutil.copytree(work / "oracle-61", copy)
    with pytest.raises(InputError, match="both hold the response"):
        load_responses([work / "oracle-61", copy])
    for args in ((work / "oracle-61", copy), (work / "oracle-61", work / "oracle-61")):
        result = steer("grade", *args)
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.strip().splitlines()
        assert str(args[0]) in line and str(args[1]) in line and "--dedupe latest" in line
    result = steer("score", work / "oracle-61", copy)
    assert result.exit_code == 2


def test_dedupe_latest_keeps_the_later_record(work: Path, tmp_path: Path) -> None:
    base = responses_of(work / "oracle-61")
    wrong = base.set_column(
        base.schema.get_field_index("chosen_index"),
        "chosen_index",
        pc_wrong(base),
    )
    n = base.num_rows

    def stamped(table: pa.Table, when: float | None, name: str) -> Path:
        column = pa.array([when] * n, pa.float64())
        table = table.set_column(table.schema.get_field_index("recorded_at"), "recorded_at", column)
        pq.write_table(table, tmp_path / name)
        return tmp_path / name

    right_late, wrong_early = (
        stamped(base, 200.0, "right.parquet"),
        stamped(wrong, 100.0, "w.parquet"),
    )
    for order in ((right_late, wrong_early), (wrong_early, right_late)):
        (row,) = score(list(order), by=["model"], dedupe="latest").to_pylist()
        assert (row["n_units"], row["n_correct"]) == (n, n)  # the later (right) answers
    # Without recorded times, the input given later wins.
    a, b = stamped(base, None, "a.parquet"), stamped(wrong, None, "b.parquet")
    (row,) = score([a, b], by=["model"], dedupe="latest").to_pylist()
    assert row["n_correct"] == 0
    (row,) = score([b, a], by=["model"], dedupe="latest").to_pylist()
    assert row["n_correct"] == n
    result = steer("score", a, b, "--dedupe", "latest", "--format", "json")
    assert result.exit_code == 0, result.output


def pc_wrong(table: pa.Table) -> pa.Array:
    """A wrong option for every row (correct + 1, wrapped)."""
    import pyarrow.compute as pc

    shifted = pc.add(table["correct_index"], 1)
    return pc.if_else(
        pc.greater_equal(shifted, table["n_options"]), pa.scalar(0, pa.int32()), shifted
    ).cast(pa.int32())


# --- one card per (model, adaptation) -------------------------------------------------------------


def test_three_adaptations_of_one_model_get_three_cards(work: Path, tmp_path: Path) -> None:
    adaptations = [
        Adaptation(),
        Adaptation(format="hidden", shots=3),
        Adaptation(cot="shown", prob_mode="mixing"),
    ]
    runs = []
    for k, adaptation in enumerate(adaptations):
        run_bank(work / "bank.parquet", "agent:oracle", tmp_path / f"a{k}", adaptation=adaptation)
        runs.append(tmp_path / f"a{k}")
    result = grade(runs, load_rubric("whole-benchmark"))
    assert [c.model for c in result.cards] == ["agent:oracle"] * 3
    assert sorted(c.adaptation for c in result.cards) == sorted(a.label() for a in adaptations)
    assert all(c.coverage and c.coverage.graded == BANK_SIZE for c in result.cards)
    text = steer("grade", *runs, "--format", "markdown").stdout
    for adaptation in adaptations:
        assert f"## agent:oracle · {adaptation.label()}" in text


# --- paths ------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["score", "grade", "report"])
def test_a_missing_path_or_a_folder_without_a_run_is_exit_2(command: str, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    for path in (tmp_path / "nowhere", tmp_path / "empty"):
        result = steer(command, path)
        assert result.exit_code == 2, result.output
        (line,) = result.stderr.strip().splitlines()
        assert str(path) in line
        assert "All checks passed" not in result.output


# --- CI formats -------------------------------------------------------------------------------


def test_junit_fails_only_on_errors(work: Path) -> None:
    result = grade([work / "oracle-61" / "responses.parquet"], load_rubric("whole-benchmark"))
    severities = {d.severity for d in result.diagnostics}
    assert {"warning", "info"} <= severities  # RAT014 and RAT009
    text = render_junit(result)
    errors = sum(d.severity == "error" for d in result.diagnostics)
    assert f'failures="{errors}"' in text.splitlines()[1]
    assert text.count("<failure ") == errors
    assert text.count("<system-out>") == len(result.diagnostics) - errors
    # Warnings alone are not a failing build.
    ignore = [d.code for d in result.diagnostics if d.severity == "error"]
    args = ["--ignore", ",".join(ignore)] if ignore else []
    quiet = steer("grade", work / "oracle-61" / "responses.parquet", "--format", "junit", *args)
    assert quiet.exit_code == 0 and "<failure" not in quiet.stdout
    assert "RAT014" in quiet.stdout  # the warning is still reported


def test_github_output_escapes_every_field(work: Path, tmp_path: Path) -> None:
    evil = "m%0A::error file=x::pwned\n::error::pwned\r,:"
    table = responses_of(work / "oracle-61")
    table = table.set_column(
        table.schema.get_field_index("model"), "model", pa.array([evil] * table.num_rows)
    )
    rubric = tmp_path / "evil.toml"
    rubric.write_text(
        'name = "r%0A::error::pwned\\n::warning::pwned"\nextends = "whole-benchmark"\n',
        encoding="utf-8",
    )
    result = grade([table], load_rubric(str(rubric)))
    assert result.diagnostics
    lines = render_github(result).splitlines()
    commands = [line for line in lines if line.startswith("::")]
    assert len(commands) == len(result.diagnostics)  # one command per diagnostic, no more
    assert len(lines) == len(result.diagnostics) + 1  # and the summary line
    for line in commands:
        # `::level props::message`: the properties are ours alone, whatever the data.
        head = line[2:].split("::", 1)[0]
        assert re.fullmatch(r"(error|warning|notice) file=[^:,]*,line=\d+,col=\d+,title=\w+", head)
    assert "m%250A::error file=x::pwned%0A::error::pwned%0D,:" in lines[-1]
    assert "r%250A::error::pwned%0A::warning::pwned" in lines[-1]


# --- manifests ----------------------------------------------------------------------------------


def test_a_manifest_without_asked_falls_back_to_the_first_limit_rows_of_its_bank(
    work: Path, tmp_path: Path
) -> None:
    old = tmp_path / "old-run"
    shutil.copytree(work / "oracle-61", old)
    manifest = json.loads((old / "manifest.json").read_text(encoding="utf-8"))
    del manifest["asked"]  # written before steer recorded it
    manifest["bank_path"] = str(work / "bank.parquet")
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    loaded = load_responses(old)
    ((key, coverage),) = loaded.coverage.items()
    assert key[0] == "agent:oracle" and (coverage.asked, coverage.bank) == (61, BANK_SIZE)
    # Its bank gone, nothing says what it asked: coverage unknown, a warning.
    manifest["bank_path"] = str(tmp_path / "moved.parquet")
    (old / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    assert load_responses(old).coverage == {}
    assert "RAT014" in steer("grade", old).stdout


def test_an_unanswered_question_needs_the_bank_to_be_counted(work: Path, tmp_path: Path) -> None:
    run = tmp_path / "partial"
    shutil.copytree(work / "oracle-61", run)
    table = responses_of(run).slice(0, 50)  # 11 of the 61 asked lost
    (run / "journal.jsonl").unlink(missing_ok=True)
    pq.write_table(table, run / "responses.parquet")
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    manifest["bank_path"] = str(tmp_path / "moved.parquet")
    (run / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = steer("grade", run)
    assert result.exit_code == 2
    (line,) = result.stderr.strip().splitlines()
    assert "11 of the 61 questions asked have no response" in line and "--bank" in line
    # Given the bank, the 11 are no-answers.
    result = steer("grade", run, "--bank", work / "bank.parquet")
    assert "answered 50/61 asked" in result.stdout and "RAT013" in result.stdout


def test_the_no_answer_threshold_is_the_rubrics(work: Path, tmp_path: Path) -> None:
    table = work / "oracle-61" / "responses.parquet"
    lenient = tmp_path / "lenient.toml"
    lenient.write_text(
        'name = "lenient"\nextends = "whole-benchmark"\n\n'
        "[rules.no_answer_rate]\nmax_no_answer_rate = 0.95\n\n"
        "[rules.incomplete_coverage]\nmin_bank_coverage = 0.05\n",
        encoding="utf-8",
    )
    result = steer("grade", table, "--bank", work / "bank.parquet", "-r", lenient)
    assert "RAT013" not in result.stdout and "RAT012" not in result.stdout
    assert result.exit_code == 0, result.output
    strict = steer("grade", table, "--bank", work / "bank.parquet")
    assert "RAT013" in strict.stdout and "90.0%" in strict.stdout


def test_a_rerun_with_a_smaller_limit_keeps_counting_what_it_asked_before(
    work: Path, tmp_path: Path
) -> None:
    run = tmp_path / "rerun"
    shutil.copytree(work / "oracle-61", run)
    run_bank(work / "bank.parquet", "agent:oracle", run, limit=30)
    manifest = json.loads((run / "manifest.json").read_text(encoding="utf-8"))
    assert len(manifest["asked"]) == 30
    ((_, coverage),) = load_responses(run).coverage.items()
    assert coverage.asked == 61  # the earlier, larger ask still counts
    assert "answered 61/61 asked · asked 61/610" in steer("grade", run).stdout
