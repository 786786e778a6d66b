"""The command line, through click's CliRunner and through real subprocesses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from steer import __version__
from steer.cli import cli


def invoke(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def run_steer(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", *args], capture_output=True, text=True, cwd=cwd, timeout=300
    )


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    # list_commands/get_command rather than .commands: the top level loads lazily.
    found = [prefix]
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if isinstance(command, click.Group):
            found += all_commands(command, (*prefix, name))
        else:
            found.append((*prefix, name))
    return found


def assert_one_line_error(
    result: click.testing.Result | subprocess.CompletedProcess[str], *needles: str
) -> None:
    code = result.exit_code if isinstance(result, click.testing.Result) else result.returncode
    stderr = result.stderr
    assert code == 2, (code, stderr)
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def test_version() -> None:
    result = invoke("--version")
    assert result.exit_code == 0 and __version__ in result.output


def test_a_misspelled_command_gets_a_suggestion() -> None:
    result = invoke("generat")
    assert result.exit_code == 2
    assert "No such command 'generat'. Did you mean 'generate'?" in result.output
    assert "Did you mean" not in invoke("zzz").output


def test_subcommands_load_on_first_use() -> None:
    # `steer generate` should not pay for grading, reports or model clients.
    code = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from steer.cli import cli\n"
        "assert CliRunner().invoke(cli, ['generate', '--help']).exit_code == 0\n"
        "loaded = sorted(m for m in ('steer.cli.grade_cmd', 'steer.cli.report_cmd', "
        "'steer.rubric', 'steer.generate.llm') if m in sys.modules)\n"
        "print(loaded)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("command", all_commands(cli), ids=" ".join)
def test_every_command_has_help(command: tuple[str, ...]) -> None:
    result = invoke(*command, "--help")
    assert result.exit_code == 0
    assert "Usage:" in result.output


def test_taxonomy_tree_and_filters() -> None:
    text = invoke("taxonomy").output
    assert "STEER (64 elements)" in text and "STEER-ME (58 elements)" in text
    assert "3.1.f  Pure-Strategy Nash Equilibrium" in text
    only = invoke("taxonomy", "--benchmark", "steer-me").output
    assert "STEER-ME (58 elements)" in only and "STEER (" not in only
    grades = json.loads(invoke("taxonomy", "--grades", "9-11", "--json").output)
    assert "steer.3.1.f" in {e["id"] for e in grades["elements"]}
    assert all(e["grades"][0] <= 11 and e["grades"][1] >= 9 for e in grades["elements"])
    setting = json.loads(invoke("taxonomy", "--setting", "3", "--json").output)
    assert {e["setting"] for e in setting["elements"]} == {"steer.3"}


def test_taxonomy_json_lists_every_element_with_grades_and_prerequisites() -> None:
    data = json.loads(invoke("taxonomy", "--json").output)
    assert data["count"] == 122
    by_bench = {
        b: [e for e in data["elements"] if e["benchmark"] == b] for b in ("steer", "steer-me")
    }
    assert len(by_bench["steer"]) == 64 and len(by_bench["steer-me"]) == 58
    for e in data["elements"]:
        assert len(e["grades"]) == 2 and isinstance(e["requires"], list)
    ids = {e["id"] for e in data["elements"]}
    assert all(r in ids for e in data["elements"] for r in e["requires"])


def test_taxonomy_deps() -> None:
    data = json.loads(invoke("taxonomy", "deps", "3.1.f", "--json").output)
    nodes = {n["id"] for n in data["nodes"]}
    assert {"steer.3.1.e", "steer.3.1.d", "steer.3.1.b", "steer.3.1.a", "steer.1.2.a"} <= nodes
    assert ["steer.3.1.f", "steer.3.1.e"] in data["edges"]
    text = invoke("taxonomy", "deps", "pure_nash").output
    assert text.splitlines()[0].startswith("steer.3.1.f")
    assert "└─ steer.3.1.e" in text
    reverse = json.loads(invoke("taxonomy", "deps", "1.2.a", "--reverse", "--json").output)
    assert "steer.3.1.f" in {n["id"] for n in reverse["nodes"]}


def test_taxonomy_bad_input() -> None:
    assert_one_line_error(
        invoke("taxonomy", "deps", "pure_nashh"),
        "unknown element 'pure_nashh'",
        "did you mean 'pure_nash'",
    )
    assert_one_line_error(invoke("taxonomy", "--setting", "9"), "unknown setting '9'")
    bad_grades = invoke("taxonomy", "--grades", "6-3")
    assert bad_grades.exit_code == 2 and "grades run from 0 to 14" in bad_grades.output


def test_bank_import_and_info(steer_samples: list[Path], tmp_path: Path) -> None:
    out = tmp_path / "bank.parquet"
    result = invoke(
        "bank",
        "import",
        *map(str, steer_samples),
        "-o",
        str(out),
        "--element-map",
        "syllogism=steer.1.4.a",
        "--element-map",
        "theory_of_mind=steer.1.5.a",
    )
    assert result.exit_code == 0, result.output
    assert "wrote 197 questions" in result.output
    info = json.loads(invoke("bank", "info", str(out), "--json").output)
    assert info["n_questions"] == 197 and info["n_elements"] == 3
    assert sum(c["n"] for c in info["cells"]) == 197
    text = invoke("bank", "info", str(out))
    assert "steer.1.1.c  weather" in text.output


def test_bank_import_needs_a_map_for_ambiguous_names(
    steer_samples: list[Path], tmp_path: Path
) -> None:
    out = tmp_path / "bank.parquet"
    syllogism = next(p for p in steer_samples if p.name == "syllogism.jsonl")
    assert_one_line_error(
        invoke("bank", "import", str(syllogism), "-o", str(out)),
        f"{syllogism}:1",
        "--element-map syllogism=",
    )
    assert not out.exists()
    assert not list(tmp_path.iterdir())


def test_bank_bad_files(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"element": "3.1.b", "question_id": "1"}\n{not json\n')
    assert_one_line_error(
        invoke("bank", "import", str(bad), "-o", str(tmp_path / "o.parquet")),
        f"{bad}:2",
        "invalid JSON",
    )
    corrupt = tmp_path / "corrupt.parquet"
    corrupt.write_bytes(b"PAR1 not really")
    assert_one_line_error(invoke("bank", "info", str(corrupt)), str(corrupt), "Parquet")
    assert_one_line_error(invoke("bank", "info", str(tmp_path / "missing.parquet")), "no such file")
    assert not (tmp_path / "o.parquet").exists()


def test_generate_counts_multi_part_questions_once(tmp_path: Path) -> None:
    out = tmp_path / "bank.parquet"
    result = invoke("generate", "--elements", "2.5.b", "--per-cell", "1", "-o", str(out))
    assert result.exit_code == 0, result.output
    n = pq.read_table(out, columns=["part"]).num_rows
    assert f"wrote {n // 2} questions ({n} rows with the parts)" in result.output


def test_generate_run_score_pipeline(tmp_path: Path) -> None:
    bank = tmp_path / "bank.parquet"
    result = invoke(
        "generate", "--elements", "1.1.c,3.1.b", "--per-cell", "2", "--seed", "5", "-o", str(bank)
    )
    assert result.exit_code == 0, result.output
    for agent in ("agent:oracle", "agent:random"):
        run = invoke(
            "run", str(bank), "--model", agent, "-o", str(tmp_path / agent.replace(":", "-"))
        )
        assert run.exit_code == 0, run.output
    scored = invoke(
        "score",
        str(tmp_path / "agent-oracle"),
        str(tmp_path / "agent-random"),
        "--by",
        "model,element",
        "--format",
        "json",
    )
    rows = json.loads(scored.output)
    oracle = [r for r in rows if r["model"] == "agent:oracle"]
    assert {r["element"] for r in oracle} == {"steer.1.1.c", "steer.3.1.b"}
    assert all(r["exact_match"] == 1.0 and r["normalized_accuracy"] == 1.0 for r in oracle)
    csv = invoke(
        "score",
        str(tmp_path / "agent-oracle"),
        "--by",
        "grade",
        "--format",
        "csv",
        "-o",
        str(tmp_path / "s.csv"),
    )
    assert csv.exit_code == 0 and (tmp_path / "s.csv").read_text().startswith('"grade"')
    assert_one_line_error(
        invoke("score", str(tmp_path / "agent-oracle"), "--by", "elemnt"),
        "unknown column 'elemnt'",
        "did you mean 'element'",
    )


def test_generate_bad_selector(tmp_path: Path) -> None:
    assert_one_line_error(
        invoke("generate", "--elements", "best_respons", "-o", str(tmp_path / "b.parquet")),
        "did you mean 'best_response'",
    )
    assert not (tmp_path / "b.parquet").exists()


def test_demo_in_process_json() -> None:
    card = json.loads(invoke("demo", "--json", "--per-cell", "2").output)
    assert card["models"] == ["agent:oracle", "agent:random"]
    assert [e["element"] for e in card["elements"]] == ["steer.1.1.c", "steer.2.4.b", "steer.3.1.b"]
    assert card["overall"]["models"]["agent:oracle"]["normalized_accuracy"] == 1.0
    assert card["overall"]["models"]["agent:oracle"]["grade"] == "A"


def test_demo_subprocess_keeps_files(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = run_steer("demo", "--out", str(out), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "steer.3.1.b Best Response" in proc.stdout
    assert (out / "bank.parquet").exists()
    assert (out / "runs" / "agent-oracle" / "responses.parquet").exists()
    assert (out / "runs" / "agent-random" / "manifest.json").exists()


def test_subprocess_bad_input_is_one_line_exit_2(tmp_path: Path) -> None:
    proc = run_steer("taxonomy", "deps", "3.1.zz", cwd=tmp_path)
    assert_one_line_error(proc, "unknown element '3.1.zz'")
    proc = run_steer("bank", "info", str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    assert_one_line_error(proc, "nope.jsonl", "no such file")
    usage = run_steer("run", cwd=tmp_path)
    assert usage.returncode == 2 and "Missing argument" in usage.stderr
