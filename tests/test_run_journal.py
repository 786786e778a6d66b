"""The journal under damage: every kind of corrupt line is reported with its
line number and skipped, a resume asks exactly the skipped questions again,
a question asked again supersedes its old row, and temporary files a killed
compaction left behind are removed."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bank_factory import write_test_bank
from steer.run import JOURNAL, RESPONSES, read_journal, run_bank
from steer.run._journal import _last_per_key
from steer.schema import RESPONSE_SCHEMA


@pytest.fixture(scope="module")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_test_bank(tmp_path_factory.mktemp("b") / "bank.parquet", 6)


def _damage(out: Path, line: int, new: bytes) -> None:
    lines = (out / JOURNAL).read_bytes().split(b"\n")
    lines[line - 1] = new
    (out / JOURNAL).write_bytes(b"\n".join(lines))


def _row(out: Path, line: int) -> dict[str, object]:
    return json.loads((out / JOURNAL).read_bytes().split(b"\n")[line - 1])


CORRUPTIONS = {
    "wrong type": (lambda r: {**r, "chosen_index": "two"}, "field 'chosen_index'"),
    "null in a required field": (lambda r: {**r, "question_id": None}, "field 'question_id'"),
    "list where a number goes": (lambda r: {**r, "tokens_in": [1, 2]}, "field 'tokens_in'"),
    "unknown field": (lambda r: {**r, "surprise": 1}, "field 'surprise'"),
    "not an object": (lambda r: [1, 2, 3], "not a JSON object"),
}


@pytest.mark.parametrize("kind", sorted(CORRUPTIONS))
def test_a_line_with_a_bad_field_is_skipped_and_its_question_asked_again(
    bank: Path, tmp_path: Path, kind: str
) -> None:
    out = tmp_path / "run"
    run_bank(bank, "agent:oracle", out)
    change, message = CORRUPTIONS[kind]
    lost = _row(out, 3)["question_id"]
    _damage(out, 3, json.dumps(change(_row(out, 3))).encode())
    read = read_journal(out / JOURNAL)
    assert read.table.num_rows == 5 and lost not in read.table["question_id"].to_pylist()
    assert len(read.problems) == 1
    assert read.problems[0].startswith(f"{out / JOURNAL}:3: ") and message in read.problems[0]
    again = run_bank(bank, "agent:oracle", out)
    assert again.n_new == 1 and again.responses.num_rows == 6


@pytest.mark.parametrize(
    ("garbage", "message"),
    [
        (b"\xff\xfe\x00binary\x80garbage", "invalid UTF-8"),
        (b'{"run_id": "\xc3\x28"}', "invalid UTF-8"),
        (b"[" * 10000 + b"]" * 10000, "recursion limit"),
        (b'{"a":' * 10000 + b"1" + b"}" * 10000, ""),
        (b"\x00\x00\x00\x00", "invalid JSON"),
    ],
)
def test_binary_garbage_and_deep_nesting_never_block_a_resume(
    bank: Path, tmp_path: Path, garbage: bytes, message: str
) -> None:
    out = tmp_path / "run"
    run_bank(bank, "agent:oracle", out)
    _damage(out, 2, garbage)
    read = read_journal(out / JOURNAL)
    assert read.table.num_rows == 5 and len(read.problems) == 1
    assert read.problems[0].startswith(f"{out / JOURNAL}:2: ") and message in read.problems[0]
    again = run_bank(bank, "agent:oracle", out)
    assert again.n_new == 1 and again.responses.num_rows == 6
    assert any(":2: " in p for p in again.problems)


def test_a_truncated_last_line_is_reported_and_trimmed(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_bank(bank, "agent:oracle", out)
    data = (out / JOURNAL).read_bytes()
    (out / JOURNAL).write_bytes(data[: len(data) - 40])
    again = run_bank(bank, "agent:oracle", out)
    assert any(":6: truncated line" in p for p in again.problems)
    assert again.n_new == 1 and again.responses.num_rows == 6


def test_stale_temporaries_of_a_killed_compaction_are_removed(bank: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    run_bank(bank, "agent:oracle", out)
    stale = [out / f".{RESPONSES}.k1ll3d.tmp", out / ".manifest.json.abc123.tmp"]
    for path in stale:
        path.write_bytes(b"half a parquet file")
    keep = out / "notes.tmp"  # not ours: left alone
    keep.write_text("mine")
    run_bank(bank, "agent:oracle", out)
    assert not any(p.exists() for p in stale) and keep.exists()


Row = tuple[str, str, int, str, int]  # model, question_id, sample, format, value


def _reference_last(rows: list[Row]) -> list[Row]:
    last: dict[tuple[str, str, int, str], int] = {}
    for i, (m, q, s, f, _) in enumerate(rows):
        last[(m, q, s, f)] = i
    return [rows[i] for i in sorted(last.values())]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["m1", "m2"]),
            st.sampled_from(["a", "b", "c"]),
            st.integers(0, 2),
            st.sampled_from(["mc", "free"]),
            st.integers(-(2**40), 2**40),
        ),
        max_size=40,
    )
)
def test_last_row_per_response_key_wins(rows: list[Row]) -> None:
    adaptation = [{"format": r[3], "shots": 0, "cot": "none", "prob_mode": "mixing"} for r in rows]
    table = pa.table(
        {
            "run_id": ["r"] * len(rows),
            "model": [r[0] for r in rows],
            "adaptation": pa.array(adaptation, RESPONSE_SCHEMA.field("adaptation").type),
            "bank_sha256": pa.array([None] * len(rows), pa.string()),
            "question_id": [r[1] for r in rows],
            "sample": pa.array([r[2] for r in rows], pa.int32()),
            "value": pa.array([r[4] for r in rows], pa.int64()),
        }
    )
    got = _last_per_key(table).to_pylist()
    assert [
        (g["model"], g["question_id"], g["sample"], g["adaptation"]["format"], g["value"])
        for g in got
    ] == _reference_last(rows)
