"""Bad input to scoring, through the API, click's CliRunner and a real
`python -m steer score` subprocess: one clear line naming the file, the
row or line and the column, exit status 2, no traceback, no partial output."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from grade_helpers import steer_as_user
from steer.cli import cli
from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.score import score
from test_score_reference import response_table

MC = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}


def row(i: int = 0, **values: Any) -> dict[str, Any]:
    return {
        "run_id": "run",
        "model": "m",
        "backend": "agent",
        "adaptation": MC,
        "question_id": f"q{i}",
        "base_id": f"b{i}",
        "part": 0,
        "element": "steer.3.1.b",
        "domain": "d",
        "type": "t",
        "perspective": "p",
        "grade": 5,
        "n_options": 2,
        "chosen_index": i % 2,
        "correct_index": 0,
        "consistency_rule": None,
        "option_probs": [0.7, 0.3],
    } | values


def good_rows(n: int = 6) -> list[dict[str, Any]]:
    return [row(i) for i in range(n)]


def write_parquet(path: Path, rows: list[dict[str, Any]]) -> Path:
    pq.write_table(response_table(rows), path)
    return path


def write_jsonl(path: Path, rows: list[dict[str, Any]], tail: str = "") -> Path:
    text = "".join(json.dumps(r) + "\n" for r in rows)
    path.write_text(text + tail, encoding="utf-8")
    return path


def invoke(*args: str | Path) -> Any:
    """`steer ARGS` through click's CliRunner (stderr kept apart)."""
    return CliRunner().invoke(cli, [str(a) for a in args])


def assert_one_line_error(stderr: str, *fragments: str) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), stderr
    assert "Traceback" not in stderr and "panicked" not in stderr
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


# --- probabilities outside [0, 1] -----------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, -0.25, math.inf, -math.inf])
def test_probability_outside_the_unit_interval_in_parquet(tmp_path: Path, bad: float) -> None:
    rows = good_rows()
    rows[3] = rows[3] | {"option_probs": [bad, 0.0]}
    path = write_parquet(tmp_path / "resp.parquet", rows)
    with pytest.raises(FileFormatError) as info:
        score(path, by=["model"])
    err = info.value
    assert (err.source, err.where, err.field) == (str(path), "row 3", "option_probs")
    assert str(err).startswith(f"{path}: row 3: field 'option_probs': probability ")
    assert "outside [0, 1]" in str(err)

    result = steer_as_user("score", path, "--by", "model", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert_one_line_error(result.stderr, str(path), "row 3", "'option_probs'", "outside [0, 1]")
    result = invoke("score", path, "--by", "model")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, str(path), "row 3", "'option_probs'")


def test_probability_errors_name_the_jsonl_line_and_the_right_file(tmp_path: Path) -> None:
    good = write_parquet(tmp_path / "good.parquet", good_rows(5))
    # Another model's answers: the same response in both files would be a key clash.
    rows = [r | {"model": "other"} for r in good_rows(4)]
    rows[2] = rows[2] | {"option_probs": [0.5, 2.0]}
    bad = write_jsonl(tmp_path / "bad.jsonl", rows)
    # Row 2 of the JSONL file is its line 3; the Parquet file before it shifts nothing.
    with pytest.raises(FileFormatError) as info:
        score([good, bad], by=["model"])
    assert (info.value.source, info.value.where) == (str(bad), "line 3")
    assert str(info.value).startswith(f"{bad}:3: field 'option_probs': ")
    result = steer_as_user("score", good, bad, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, f"{bad}:3", "'option_probs'")


def test_unanswered_or_keyless_rows_are_not_checked(tmp_path: Path) -> None:
    rows = good_rows()
    rows[0] = rows[0] | {"chosen_index": -1, "option_probs": [5.0, 0.0]}  # not used: no answer
    rows[1] = rows[1] | {"correct_index": None, "option_probs": [5.0, 0.0]}  # no key
    rows[2] = rows[2] | {"option_probs": [0.0, 0.0]}  # unusable (sums to 0), counted
    (out,) = score(write_parquet(tmp_path / "r.parquet", rows), by=["model"]).to_pylist()
    assert (out["n_prob"], out["n_prob_invalid"]) == (3, 1)


def test_nan_probability_is_an_error_at_load(tmp_path: Path) -> None:
    rows = good_rows()
    rows[2] = rows[2] | {"option_probs": [math.nan, 0.5]}
    path = write_parquet(tmp_path / "nan.parquet", rows)
    with pytest.raises(FileFormatError) as info:
        score(path, by=["model"])
    assert (info.value.where, info.value.field) == ("row 2", "option_probs")
    assert "not a number" in str(info.value)


def test_probability_list_length_differs_from_n_options(tmp_path: Path) -> None:
    rows = good_rows()
    rows[4] = rows[4] | {"n_options": 3, "chosen_index": 2}  # 2 probabilities for 3 options
    path = write_parquet(tmp_path / "len.parquet", rows)
    with pytest.raises(FileFormatError) as info:
        score(path, by=["model"])
    assert (info.value.where, info.value.field) == ("row 4", "option_probs")
    assert "2 probabilities for 3 options" in str(info.value)
    result = invoke("score", path)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, str(path), "row 4", "'option_probs'", "3 options")


def test_bad_option_indices_name_the_row(tmp_path: Path) -> None:
    rows = good_rows()
    rows[1] = rows[1] | {"chosen_index": 7}
    path = write_parquet(tmp_path / "idx.parquet", rows)
    result = steer_as_user("score", path, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, str(path), "row 1", "'chosen_index'", "7")


# --- missing and mistyped columns, corrupt files --------------------------------------------------


def test_missing_column_suggests_a_close_name(tmp_path: Path) -> None:
    table = response_table(good_rows())
    renamed = table.rename_columns(
        ["chosen_idx" if c == "chosen_index" else c for c in table.column_names]
    )
    path = tmp_path / "renamed.parquet"
    pq.write_table(renamed, path)
    for source in (renamed, path):
        with pytest.raises(FileFormatError) as info:
            score(source, by=["model"])
        assert info.value.field == "chosen_index"
        assert "missing required column" in str(info.value)
        assert "did you mean 'chosen_idx'?" in str(info.value)
    result = steer_as_user("score", path, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, str(path), "'chosen_index'", "did you mean 'chosen_idx'")
    result = invoke("score", path)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "'chosen_index'", "missing required column")


def test_missing_column_without_a_close_name(tmp_path: Path) -> None:
    path = tmp_path / "few.parquet"
    pq.write_table(response_table(good_rows()).drop_columns(["n_options"]), path)
    result = invoke("score", path)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, str(path), "'n_options'", "missing required column")


def test_mistyped_column(tmp_path: Path) -> None:
    table = response_table(good_rows())
    words = pa.array(["zero", "one"] * 3)
    mistyped = table.set_column(table.schema.get_field_index("chosen_index"), "chosen_index", words)
    # In memory: an InputError naming the column, never an Arrow exception.
    with pytest.raises(FileFormatError) as info:
        score(mistyped, by=["model"])
    assert info.value.field == "chosen_index" and "expected int32, got string" in str(info.value)
    # Floats that are not whole numbers, and nulls, likewise.
    floats = table.set_column(
        table.schema.get_field_index("n_options"), "n_options", pa.array([2.5] * 6)
    )
    with pytest.raises(FileFormatError, match="'n_options': expected int32"):
        score(floats, by=["model"])
    nulls = table.set_column(
        table.schema.get_field_index("chosen_index"), "chosen_index", pa.array([0, None] * 3)
    )
    with pytest.raises(FileFormatError, match=r"row 1: field 'chosen_index': value is missing"):
        score(nulls, by=["model"])
    # Strings that are whole numbers are fine.
    digits = table.set_column(
        table.schema.get_field_index("chosen_index"), "chosen_index", pa.array(["0", "1"] * 3)
    )
    assert score(digits, by=["model"])["n_correct"].to_pylist() == [3]
    # In a file: the same message with the file's name, exit 2.
    path = tmp_path / "typed.parquet"
    pq.write_table(mistyped, path)
    for result in (steer_as_user("score", path, cwd=tmp_path), invoke("score", path)):
        code = result.returncode if hasattr(result, "returncode") else result.exit_code
        assert code == 2
        assert_one_line_error(result.stderr, str(path), "'chosen_index'", "expected int32")


def test_multi_part_questions_need_their_key_columns() -> None:
    table = pa.table(
        {"model": ["m"] * 2, "n_options": [2, 2], "chosen_index": [0, 1], "correct_index": [0, 1]}
    )
    assert score(table, by=["model"])["n_units"].to_pylist() == [2]  # single parts: fine
    with pytest.raises(FileFormatError, match=r"field 'run_id': missing column"):
        score(table.append_column("part", pa.array([0, 1], pa.int32())), by=["model"])


@pytest.mark.parametrize("content", [b"", b"PAR1" + b"\x00" * 64, b"not parquet at all\n"])
def test_corrupt_parquet(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "broken.parquet"
    path.write_bytes(content)
    with pytest.raises(FileFormatError) as info:
        score(path, by=["model"])
    assert info.value.source == str(path) and "not a readable Parquet file" in str(info.value)
    result = steer_as_user("score", path, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, str(path), "Parquet")


def test_truncated_parquet(tmp_path: Path) -> None:
    good = write_parquet(tmp_path / "good.parquet", good_rows(50))
    path = tmp_path / "cut.parquet"
    path.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    result = invoke("score", path)
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, str(path), "not a readable Parquet file")


# --- journals -------------------------------------------------------------------------------------


def test_journal_with_a_corrupt_middle_line_and_a_truncated_last_line(tmp_path: Path) -> None:
    rows = good_rows(6)
    lines = [json.dumps(r) for r in rows]
    lines[2] = lines[2][: len(lines[2]) // 2]  # corrupt line 3
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    journal = run_dir / "journal.jsonl"
    # Line 7: a row cut short by a kill (no newline at the end).
    journal.write_text("\n".join(lines) + "\n" + json.dumps(row(9))[:40], encoding="utf-8")

    (out,) = score(run_dir, by=["model"]).to_pylist()
    assert out["n_rows"] == 5  # lines 1, 2, 4, 5, 6
    # Rows 0, 1, 3, 4, 5 of good_rows: chosen = i % 2, key 0 → rows 0 and 4 right.
    assert out["n_correct"] == 2

    for result in (steer_as_user("score", run_dir, "--format", "json", cwd=tmp_path), None):
        if result is None:
            result = invoke("score", run_dir, "--format", "json")
            code = result.exit_code
        else:
            code = result.returncode
        assert code == 0, result.stderr
        warnings = result.stderr.strip().splitlines()
        assert len(warnings) == 2, result.stderr
        assert all(w.startswith(f"warning: {journal}:") for w in warnings)
        assert any(w.startswith(f"warning: {journal}:3: invalid JSON") for w in warnings)
        assert any(w.startswith(f"warning: {journal}:7: truncated line") for w in warnings)
        (scored,) = json.loads(result.stdout)
        assert scored["n_rows"] == 5


def test_jsonl_file_with_a_truncated_last_line(tmp_path: Path) -> None:
    # A response table FILE is strict (only a run directory's own journal skips
    # a line cut short by a kill): the cut line is bad input naming its line.
    path = write_jsonl(tmp_path / "resp.jsonl", good_rows(3), tail='{"run_id": "run", "mo')
    result = steer_as_user("score", path, "--format", "csv", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == ""
    assert_one_line_error(result.stderr, str(path), ":4:", "invalid JSON")


# --- unknown names, bad options -------------------------------------------------------------------


def test_unknown_metric_and_group_column(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "r.parquet", good_rows())
    with pytest.raises(UnknownNameError) as info:
        score(path, by=["model"], metrics=["normalised_accuracy"])
    assert "normalized_accuracy" in info.value.suggestions
    with pytest.raises(UnknownNameError) as info:
        score(path, by=["modle"])
    assert "model" in info.value.suggestions

    cases = [
        (
            ("--metric", "normalised_accuracy"),
            ("unknown metric", "did you mean", "'normalized_accuracy'"),
        ),
        (("--metric", "ece,brierr"), ("unknown metric 'brierr'", "'brier'")),
        (("--by", "model,elemnt"), ("unknown column 'elemnt'", "did you mean", "'element'")),
        (("--by", "domian"), ("unknown column 'domian'", "'domain'")),
    ]
    for args, fragments in cases:
        result = steer_as_user("score", path, *args, cwd=tmp_path)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert_one_line_error(result.stderr, *fragments)
        result = invoke("score", path, *args)
        assert result.exit_code == 2, args
        assert_one_line_error(result.stderr, *fragments)


def test_bad_options(tmp_path: Path) -> None:
    path = write_parquet(tmp_path / "r.parquet", good_rows())
    result = steer_as_user("score", path, "--format", "parquet", cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, "--format parquet needs --out")
    assert list(tmp_path.iterdir()) == [path]
    result = invoke("score", path, "--ci", "1.5")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "ci must be a level between 0 and 1")
    result = invoke("score", path, "--by", " , ")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "--by needs at least one column")
    result = invoke("score", tmp_path / "nowhere.parquet")
    assert result.exit_code == 2
    assert_one_line_error(result.stderr, "nowhere.parquet", "no such file")
    with pytest.raises(InputError, match="bins"):
        score(path, bins=0)


# --- --out on error -------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json", "table"])
def test_out_leaves_no_partial_file_on_error(tmp_path: Path, fmt: str) -> None:
    rows = good_rows()
    rows[5] = rows[5] | {"option_probs": [0.2, 1.2]}
    bad = write_parquet(tmp_path / "bad.parquet", rows)
    good = write_parquet(tmp_path / "good.parquet", good_rows())
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    fresh = out_dir / f"fresh.{fmt}"
    result = steer_as_user("score", bad, "--format", fmt, "--out", fresh, cwd=tmp_path)
    assert result.returncode == 2
    assert_one_line_error(result.stderr, str(bad), "row 5")
    assert list(out_dir.iterdir()) == []  # nothing written, no temporary left behind
    # An existing output survives a failed run unchanged.
    kept = out_dir / f"kept.{fmt}"
    assert invoke("score", good, "--format", fmt, "--out", kept).exit_code == 0
    before = kept.read_bytes()
    result = invoke("score", bad, "--format", fmt, "--out", kept)
    assert result.exit_code == 2
    assert kept.read_bytes() == before
    assert list(out_dir.iterdir()) == [kept]
    if fmt == "parquet":
        assert pq.read_table(kept).num_rows == 1
