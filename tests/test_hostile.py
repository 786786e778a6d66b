"""Hostile and degenerate input (issue 19 §3): each case is one line naming the
file, the line or row and the field, exit status 2, and nothing written.

Every test runs the real `steer` command in a subprocess (a crash would show as
a signal, which CliRunner cannot catch) on files written by
tests/hostile_corpus.py.
"""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path
from typing import Any

import pytest

import hostile_corpus as corpus
from grade_helpers import steer_as_user as steer
from steer._json import dumps, json_safe, plain_zero
from steer.errors import InputError
from steer.report import fmt
from steer.score import score

HOSTILE = corpus.HOSTILE_DIR


def one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> str:
    """Exit 2 with one `error:` line holding every fragment."""
    assert result.returncode == 2, (result.returncode, result.stderr)
    # `note:` lines (e.g. "coverage unknown") are context, not part of the error.
    lines = [x for x in result.stderr.splitlines() if x.strip() and not x.startswith("note: ")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: "), result.stderr
    assert "internal error" not in lines[0] and "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])
    return lines[0]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A small valid bank and the oracle's answers to it."""
    folder = tmp_path_factory.mktemp("hostile")
    bank = folder / "bank.parquet"
    made = steer("generate", "--elements", "1.1.a", "--per-cell", "1", "-o", bank, cwd=folder)
    assert made.returncode == 0, made.stderr
    ran = steer("run", bank, "-m", "agent:oracle", "-o", folder / "run", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    return {"folder": folder, "bank": bank, "run": folder / "run"}


# --- 1. nesting 10,000 levels deep ------------------------------------------------------------


def test_deep_json_in_a_bank_is_one_line_not_a_crash(base: dict[str, Path]) -> None:
    path = corpus.bank_deep_field(base["folder"], base["bank"])
    for command in (["bank", "info", path], ["bank", "import", path, "-o", "out.parquet"]):
        result = steer(*command, cwd=base["folder"])
        one_line_error(result, "bank_deep.jsonl:2:", "'options_extra'", "nested more than 64")
    assert not (base["folder"] / "out.parquet").exists()
    result = steer("run", path, "-m", "agent:oracle", "-o", "deep_run", cwd=base["folder"])
    one_line_error(result, "bank_deep.jsonl:2:", "nested more than 64")


def test_deep_object_is_named_by_its_field(base: dict[str, Path]) -> None:
    path = corpus.bank_deep_object(base["folder"], base["bank"])
    one_line_error(steer("bank", "info", path, cwd=base["folder"]), ":3:", "'question_text'")


def test_deep_line_in_a_response_table_is_reported_and_skipped(base: dict[str, Path]) -> None:
    # Response JSON Lines are read like a run's journal: a bad line is named
    # and skipped, so one corrupt line never blocks scoring the rest.
    path = corpus.responses_deep_jsonl(
        base["folder"], base["bank"].parent / "run" / "responses.parquet"
    )
    result = steer("score", path, cwd=base["folder"])
    assert result.returncode in (0, 2), result.stderr
    assert "responses_deep.jsonl:4" in result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("builder", "line"), [(corpus.rubric_deep_array, 5), (corpus.rubric_deep_table, 1)]
)
def test_deep_toml_in_a_rubric(base: dict[str, Path], builder: Any, line: int) -> None:
    path = builder(base["folder"])
    result = steer("grade", base["run"], "--rubric", path, cwd=base["folder"])
    one_line_error(result, f"{path.name}:{line}:", "nested more than 64")


def test_deep_toml_in_a_template(base: dict[str, Path]) -> None:
    path = base["folder"] / "deep_template.toml"
    path.write_text(f"element = {corpus.deep_toml_array()}\n", encoding="utf-8")
    result = steer("templates", "check", path, cwd=base["folder"])
    assert result.returncode == 2
    assert "deep_template.toml:1:" in result.stderr and "nested more than 64" in result.stderr


# --- 2. sizes that would exhaust memory ----------------------------------------------------------


@pytest.mark.parametrize(
    ("option", "value"),
    [("--bootstrap", "1000000000"), ("--bins", "1000000000"), ("--seed", "1" + "0" * 23),
     ("--seed", "1e23"), ("--seed", "-1")],
)  # fmt: skip
def test_huge_sizes_on_score_are_usage_errors(
    base: dict[str, Path], option: str, value: str
) -> None:
    result = steer("score", base["run"], option, value, cwd=base["folder"])
    assert result.returncode == 2 and option in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_huge_sizes_elsewhere(base: dict[str, Path]) -> None:
    folder = base["folder"]
    result = steer("grade", base["run"], "--bootstrap", "1000000000", cwd=folder)
    assert result.returncode == 2 and "--bootstrap" in result.stderr
    result = steer("generate", "--per-cell", "1000000000", "-o", "g.parquet", cwd=folder)
    assert result.returncode == 2 and "--per-cell" in result.stderr
    assert not (folder / "g.parquet").exists()
    result = steer(
        "grade", base["run"], "--rubric", HOSTILE / "rubric_huge_bootstrap.toml", cwd=folder
    )
    one_line_error(result, "rubric_huge_bootstrap.toml:2:", "`bootstrap`", "100000")


@pytest.mark.parametrize(
    "kwargs",
    [{"bootstrap": 10**9}, {"bins": 10**9}, {"seed": 10**23}, {"seed": -1}, {"bins": math.nan}],
)
def test_huge_sizes_in_the_python_api(base: dict[str, Path], kwargs: dict[str, Any]) -> None:
    with pytest.raises(InputError, match=next(iter(kwargs))):
        score(base["run"], **kwargs)


# --- 3. invalid UTF-8 --------------------------------------------------------------------------


def test_bad_utf8_in_bank_jsonl(base: dict[str, Path]) -> None:
    path = corpus.bank_bad_utf8_jsonl(base["folder"], base["bank"])
    result = steer("bank", "info", path, cwd=base["folder"])
    one_line_error(result, "bank_bad_utf8.jsonl:3:", "'question_text'", "not valid UTF-8")


@pytest.mark.parametrize(
    ("builder", "where", "field"),
    [
        (corpus.bank_bad_utf8_parquet, "row 4", "'question_text'"),
        (corpus.bank_bad_utf8_options, "row 3", "'options'"),
    ],
)
def test_bad_utf8_in_bank_parquet(
    base: dict[str, Path], builder: Any, where: str, field: str
) -> None:
    path = builder(base["folder"], base["bank"])
    for command in (["bank", "info", path], ["run", path, "-m", "agent:oracle", "-o", "r8"]):
        one_line_error(steer(*command, cwd=base["folder"]), path.name, where, field, "UTF-8")
    assert not (base["folder"] / "r8" / "responses.parquet").exists()


def test_bad_utf8_in_responses_rubric_and_template(base: dict[str, Path]) -> None:
    folder = base["folder"]
    path = corpus.responses_bad_utf8_parquet(folder, base["run"] / "responses.parquet")
    one_line_error(steer("score", path, cwd=folder), "row 2", "'model'", "UTF-8")
    rubric = corpus.rubric_bad_utf8(folder)
    one_line_error(steer("grade", base["run"], "--rubric", rubric, cwd=folder), ":1:", "UTF-8")
    template = folder / "bad_utf8_template.toml"
    template.write_bytes(b'element = "steer.1.1.a\xff"\n')
    result = steer("templates", "check", template, cwd=folder)
    assert result.returncode == 2 and "bad_utf8_template.toml:1:" in result.stderr


# --- 4. NaN, inf and out-of-range numbers; JSON output -------------------------------------------


@pytest.mark.parametrize(
    ("builder", "fragment"),
    [(corpus.responses_nan_probs, "not a number"), (corpus.responses_inf_probs, "outside [0, 1]")],
)
def test_non_finite_probabilities_are_errors_at_load(
    base: dict[str, Path], builder: Any, fragment: str
) -> None:
    path = builder(base["folder"], base["run"] / "responses.parquet")
    for command in ("score", "grade"):
        result = steer(command, path, cwd=base["folder"])
        one_line_error(result, path.name, "'option_probs'", fragment)


def test_nan_in_a_bank_is_an_error(base: dict[str, Path]) -> None:
    path = corpus.bank_nan_answer_value(base["folder"], base["bank"])
    one_line_error(steer("bank", "info", path, cwd=base["folder"]), "row 0", "'answer_value'")


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("rubric_nan_weight.toml", "finite number"), ("rubric_inf_scale.toml", "finite number")],
)
def test_non_finite_rubric_numbers(base: dict[str, Path], name: str, fragment: str) -> None:
    result = steer("grade", base["run"], "--rubric", HOSTILE / name, cwd=base["folder"])
    one_line_error(result, name, fragment)


def _strict_json(text: str) -> Any:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")

    return json.loads(text, parse_constant=refuse)


def test_json_outputs_never_hold_nan_infinity_or_negative_zero(base: dict[str, Path]) -> None:
    folder = base["folder"]
    # An unanswered run: empty groups have NaN interval bounds inside score().
    ran = steer("run", base["bank"], "-m", "agent:random", "-o", "rnd", cwd=folder)
    assert ran.returncode == 0, ran.stderr
    for args in (
        ["score", base["run"], "rnd", "--format", "json", "--bootstrap", "50"],
        ["grade", base["run"], "rnd", "--format", "json", "--exit-zero"],
        ["bank", "info", base["bank"], "--json"],
        ["taxonomy", "--json"],
    ):
        result = steer(*args, cwd=folder)
        assert result.returncode == 0, (args, result.stderr)
        _strict_json(result.stdout)
        assert "-0.0," not in result.stdout and "-0.0\n" not in result.stdout


def test_json_safe_reference() -> None:
    value = {"a": [math.nan, -0.0, math.inf, -math.inf, 1.5], "b": (1, -0.0), "c": "NaN"}
    assert json_safe(value) == {"a": [None, 0.0, None, None, 1.5], "b": [1, 0.0], "c": "NaN"}
    assert dumps(value) == '{"a": [null, 0.0, null, null, 1.5], "b": [1, 0.0], "c": "NaN"}'
    assert [plain_zero(t) for t in ("-0.000", "-0", "-0.001", "-10.000", "0.000")] == [
        "0.000", "0", "-0.001", "-10.000", "0.000"
    ]  # fmt: skip
    assert fmt(-0.0001) == "0.000" and fmt(-0.0) == "0.000" and fmt(-0.0006) == "-0.001"


# --- 5. template arithmetic ----------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(corpus.TEMPLATE_CASES))
def test_template_arithmetic_names_the_template_file_and_line(
    base: dict[str, Path], case: str
) -> None:
    expr, low = corpus.TEMPLATE_CASES[case]
    path = corpus.template(base["folder"], f"t_{case}.toml", expr, low)
    result = steer("templates", "check", path, cwd=base["folder"])
    assert result.returncode == 2, result.stdout + result.stderr
    first = result.stderr.splitlines()[0]
    assert first.startswith("error: ") and f"{path.name}:" in first, first
    assert first.split(f"{path.name}:")[1].split(":")[0].isdigit(), first  # the line number
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr
    out = base["folder"] / f"g_{case}.parquet"
    generated = steer("generate", "--templates", path, "-o", out, cwd=base["folder"])
    assert generated.returncode == 2 and not out.exists(), generated.stderr


# --- 6. messages name the user's file -------------------------------------------------------------


def test_row_errors_from_grade_name_the_file_not_an_internal_table(base: dict[str, Path]) -> None:
    path = corpus.responses_bad_index(base["folder"], base["run"] / "responses.parquet")
    for command in (["score", path], ["grade", path], ["report", path, "-o", "r.html"]):
        line = one_line_error(steer(*command, cwd=base["folder"]), path.name, "row 3")
        assert "<table>" not in line and "<responses>" not in line
    assert not (base["folder"] / "r.html").exists()


# --- 7. rubric `extends` accepts only rubric files ----------------------------------------------


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("rubric_extends_dir.toml", "RUB005"),
        ("rubric_extends_device.toml", "not a regular file"),
        ("rubric_extends_zero.toml", "not a regular file"),
        ("rubric_extends_non_rubric.toml", "not_a_rubric.toml is not a valid rubric"),
        ("rubric_extends_jsonl.toml", "RUB005"),
    ],
)
def test_extends_only_rubric_files(base: dict[str, Path], name: str, fragment: str) -> None:
    result = steer("grade", base["run"], "--rubric", HOSTILE / name, cwd=base["folder"])
    one_line_error(result, name, "RUB005", fragment)


# --- other JSON and TOML entry points: fits files and the steer config ----------------------


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        ('{"fits": ' + corpus.deep_json() + "}", "nested more than 64"),
        (b'{"fits_version": 1, "fits": "\xff"}', "not valid UTF-8"),
        ('{"fits_version": 1, "fits": [{"value": NaN}]}', "NaN is not a JSON number"),
    ],
)
def test_hostile_fits_files(base: dict[str, Path], content: str | bytes, fragment: str) -> None:
    path = base["folder"] / "fits.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    one_line_error(
        steer("grade", base["run"], "--fits", path, cwd=base["folder"]), "fits.json", fragment
    )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (b'[tool.steer]\nrubric = "\xff"\n', "pyproject.toml:2:"),
        (f"[tool.steer]\nx = {corpus.deep_toml_array()}\n".encode(), "nested more than 64"),
    ],
)
def test_hostile_config_file(
    base: dict[str, Path], tmp_path: Path, content: bytes, fragment: str
) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    one_line_error(steer("grade", base["run"], cwd=tmp_path), "RUB001", fragment)


def test_groups_times_bins_is_bounded_before_allocation(base: dict[str, Path]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    one = pq.read_table(base["run"] / "responses.parquet")
    copies = 60_000 // one.num_rows + 1
    table = pa.concat_tables([one] * copies)
    ids = pa.array([f"q{i}" for i in range(table.num_rows)])
    table = table.set_column(table.column_names.index("question_id"), "question_id", ids)
    with pytest.raises(InputError, match="cells"):
        score(table, by=["question_id"], bins=1000)
    assert score(table, by=["model"], bins=1000).num_rows == 1  # few groups: fine


def test_native_bindings_refuse_huge_sizes() -> None:
    """Direct callers of the extension get an InputError too, not an abort."""
    from steer import _native

    with pytest.raises(InputError, match="bins"):
        _native.ece_equal_mass({}, 10**9)
    with pytest.raises(InputError, match="bins"):
        _native.score_cells({"n_groups": 1}, 10**9)
    with pytest.raises(InputError, match="cells"):
        _native.score_keyed({}, [], [10**6, 10**6], 10)
    with pytest.raises(InputError, match="resamples"):
        _native.bootstrap_ci({}, ["exact_match"], resamples=10**9)
    with pytest.raises(InputError, match="replicates"):
        _native.bootstrap_ci(
            {"n_groups": 10**6}, ["exact_match"], resamples=1000, keep_replicates=True
        )


@pytest.mark.skipif(
    not Path("/sys/kernel").is_dir(), reason="needs Linux sysfs (no files can be created there)"
)
def test_write_errors_name_the_target_not_the_temporary_file(base: dict[str, Path]) -> None:
    for args in (
        ["generate", "--elements", "1.1.a", "--per-cell", "1", "-o", "/sys/x.parquet"],
        ["score", str(base["run"]), "--format", "csv", "-o", "/sys/x.csv"],
    ):
        line = one_line_error(steer(*args, cwd=base["folder"]), args[-1])
        assert ".tmp" not in line, line


def test_atomic_errors_name_the_target(tmp_path: Path) -> None:
    import errno

    from steer._atomic import atomic_path

    target = tmp_path / "out.txt"
    with pytest.raises(OSError, match=r"out\.txt") as info, atomic_path(target) as tmp:
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp))
    assert ".tmp" not in str(info.value) and info.value.errno == errno.ENOSPC
    with pytest.raises(FileNotFoundError, match=r"missing\.txt"), atomic_path(target):
        (tmp_path / "missing.txt").read_text()  # an input's error keeps its own name
    assert not target.exists() and list(tmp_path.iterdir()) == []


def test_diagnostic_numbers_never_show_negative_zero() -> None:
    from steer.rubric.rules._context import fmt as rule_fmt
    from steer.rubric.rules.regression import _signed

    assert rule_fmt(-0.0002) == "0.000" and rule_fmt(-0.3) == "-0.300"
    assert _signed(-0.0001) == "+0.000" and _signed(-0.0006) == "-0.001"


def test_report_formats_never_print_negative_zero() -> None:
    from steer.report.formats._common import interval, num

    assert num(-0.0001) == "0.000" and interval(-0.0002, 0.5) == "[0.000, 0.500]"


@pytest.mark.parametrize("kwargs", [{"per_cell": 10**9}, {"seed": 10**23}, {"seed": -1}])
def test_generate_bank_api_refuses_huge_sizes(kwargs: dict[str, Any]) -> None:
    from steer.generate import generate_bank

    with pytest.raises(InputError, match=next(iter(kwargs))):
        generate_bank(["1.1.a"], **kwargs)


def test_negative_seed_on_run_is_a_usage_error(base: dict[str, Path]) -> None:
    result = steer(
        "run", base["bank"], "-m", "agent:random", "-o", "neg", "--seed=-1", cwd=base["folder"]
    )
    assert result.returncode == 2 and "--seed" in result.stderr, result.stderr
    assert "internal error" not in result.stderr and not (base["folder"] / "neg").exists()


def test_report_numbers_never_print_negative_zero() -> None:
    import steer.report.html as page

    assert page._num(-0.0001) == "0.000" and page._num(-0.2) == "-0.200"
