"""Question banks: importing the authors' steer-bench samples, Parquet I/O, summaries,
and one-line errors for every kind of bad input."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer._atomic import atomic_path
from steer.bank import (
    bank_info,
    file_sha256,
    import_steer_bench,
    questions_to_table,
    read_bank,
    read_bank_metadata,
    read_table,
    write_bank,
)
from steer.bank._import import _correct_index_from_flags
from steer.errors import FileFormatError, InputError, UnknownNameError
from steer.schema import QUESTION_SCHEMA, Question
from steer.taxonomy import load_taxonomy

ELEMENT_MAP = {"syllogism": "steer.1.4.a", "theory_of_mind": "steer.1.5.a"}
# Where each sample file's questions belong (TAXONOMY.md): compute_expectations is a slug.
ELEMENT_OF_FILE = {
    "compute_expectations": "steer.1.1.c",
    "syllogism": "steer.1.4.a",
    "theory_of_mind": "steer.1.5.a",
}


# --- a plain-Python reference for the samples ---------------------------------------------


def raw_rows(paths: list[Path]) -> list[tuple[Path, dict[str, Any]]]:
    rows = []
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            rows += [(path, json.loads(line)) for line in fh if line.strip()]
    return rows


def expected_question(path: Path, raw: dict[str, Any]) -> dict[str, Any]:
    element = ELEMENT_OF_FILE[raw["element_dir"]]
    base, part = raw["question_id"].rsplit("_", 1)
    flags = raw["correct"]
    assert flags.count(1) == 1
    assert len(flags) == len(raw["options"])
    return {
        "question_id": f"{element}/{base}/{part}",
        "element": element,
        "base_id": base,
        "part": int(part),
        "question_text": raw["question_text"],
        "options": raw["options"],
        "correct_index": flags.index(1),
        "grading": "answer",
        "grade": int(float(raw["difficulty_level"])),
        "domain": raw["domain"],
        "type": raw["type"],
        "explanation": raw["explanation"],
        "source": f"steer-bench:{path.name}",
    }


@pytest.fixture(scope="module")
def samples(steer_samples: list[Path]) -> list[Path]:
    assert [p.stem for p in steer_samples] == sorted(ELEMENT_OF_FILE)
    return steer_samples


@pytest.fixture(scope="module")
def imported(samples: list[Path]) -> pa.Table:
    # The authors' order, to compare with the raw files (the seeded order is
    # tested in test_bank_order.py).
    return import_steer_bench(samples, element_map=ELEMENT_MAP, keep_order=True)


@pytest.fixture(scope="module")
def reference(samples: list[Path]) -> list[dict[str, Any]]:
    return [expected_question(path, raw) for path, raw in raw_rows(samples)]


# --- importing the samples ---------------------------------------------------------------


def test_import_samples_matches_reference(
    imported: pa.Table, reference: list[dict[str, Any]]
) -> None:
    assert imported.num_rows == len(reference) == 197
    assert imported.schema.equals(QUESTION_SCHEMA)
    rows = imported.to_pylist()
    assert [r["question_id"] for r in rows] == [r["question_id"] for r in reference]
    assert len({r["question_id"] for r in rows}) == 197
    for got, want in zip(rows, reference, strict=True):
        for key, value in want.items():
            assert got[key] == value, (want["question_id"], key)
        assert got["perspective"] == got["template_id"] == ""
        assert got["correct_index"] < len(got["options"])


def test_imported_rows_are_valid_questions(imported: pa.Table) -> None:
    for row in imported.to_pylist():
        Question(**row)


def test_import_needs_an_element_map(samples: list[Path]) -> None:
    for path in samples:
        if path.stem not in ELEMENT_MAP:
            continue
        with pytest.raises(FileFormatError) as info:
            import_steer_bench([path])
        msg = str(info.value)
        assert msg.startswith(f"{path}:1: field 'element': ")
        assert f"--element-map {path.stem}={ELEMENT_MAP[path.stem]}" in msg
        assert "\n" not in msg
    # all three together fail on the first file that needs a mapping
    with pytest.raises(FileFormatError, match="--element-map"):
        import_steer_bench(samples)


def test_import_one_mapping_is_not_enough(samples: list[Path]) -> None:
    theory = next(p for p in samples if p.stem == "theory_of_mind")
    with pytest.raises(FileFormatError) as info:
        import_steer_bench(samples, element_map={"syllogism": "steer.1.4.a"})
    assert str(info.value).startswith(f"{theory}:1: field 'element': ")


def test_import_rejects_a_bad_map_target(samples: list[Path]) -> None:
    with pytest.raises(UnknownNameError, match=r"did you mean 'steer\.1\.4\.a'"):
        import_steer_bench(samples, element_map={"syllogism": "steer.1.4.aa"})


def test_import_needs_files() -> None:
    with pytest.raises(InputError, match="no input files"):
        import_steer_bench([])


def test_import_accepts_short_ids_in_the_map(samples: list[Path], imported: pa.Table) -> None:
    short = {"syllogism": "1.4.a", "theory_of_mind": "first_order_false_belief"}
    assert import_steer_bench(samples, element_map=short, keep_order=True).equals(imported)


# --- Parquet round trip and the steer-bench parquet layout -------------------------------


def test_write_read_round_trip(imported: pa.Table, tmp_path: Path) -> None:
    path = write_bank(imported, tmp_path / "sub" / "bank.parquet")
    assert path == tmp_path / "sub" / "bank.parquet"
    back = read_bank(path)
    assert back.schema.equals(QUESTION_SCHEMA)
    assert back.equals(imported)
    assert back.to_pylist() == imported.to_pylist()
    assert read_table(path).num_rows == 197
    assert sorted(p.name for p in path.parent.iterdir()) == ["bank.parquet"]
    # deterministic bytes: a bank read back and written again keeps its provenance
    # (including created_at, whatever second it is now) and so its hash
    assert read_bank_metadata(path) is not None
    again = write_bank(back, tmp_path / "again.parquet")
    assert read_bank_metadata(again) == read_bank_metadata(path)
    assert file_sha256(again) == file_sha256(path)


def test_source_date_epoch_pins_the_stamp(
    imported: pa.Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    one = write_bank(imported, tmp_path / "one.parquet")
    two = write_bank(imported, tmp_path / "two.parquet")
    meta = read_bank_metadata(one)
    assert meta is not None and meta.created_at == "2023-11-14T22:13:20+00:00"
    assert file_sha256(one) == file_sha256(two)


def test_import_steer_bench_parquet_layout(imported: pa.Table, tmp_path: Path) -> None:
    # the public steer-bench question parquet: `difficulty` instead of `grade`, slugs allowed
    slug_of = {e.id: e.slug for e in load_taxonomy()}
    layout = imported.rename_columns(
        ["difficulty" if n == "grade" else n for n in imported.column_names]
    )
    slugs = pa.array([slug_of[e] for e in imported["element"].to_pylist()])
    layout = layout.set_column(layout.column_names.index("element"), "element", slugs)
    pq.write_table(layout, tmp_path / "bench.parquet")
    assert import_steer_bench([tmp_path / "bench.parquet"], keep_order=True).equals(imported)


def test_questions_to_table(imported: pa.Table) -> None:
    questions = [Question(**row) for row in imported.slice(0, 5).to_pylist()]
    assert questions_to_table(questions).equals(imported.slice(0, 5).combine_chunks())


# --- bank_info ----------------------------------------------------------------------------


def test_bank_info_counts(imported: pa.Table, reference: list[dict[str, Any]]) -> None:
    info = bank_info(imported)
    expected = Counter((r["element"], r["domain"], r["grade"]) for r in reference)
    got = {(c["element"], c["domain"], c["grade"]): c["n"] for c in info.cells.to_pylist()}
    assert got == dict(expected)
    keys = [(c["element"], c["domain"], c["grade"]) for c in info.cells.to_pylist()]
    assert keys == sorted(keys)
    assert info.n_questions == 197
    assert info.n_base_questions == len({(r["element"], r["base_id"]) for r in reference})
    assert info.n_elements == 3
    assert info.options == dict(Counter(len(r["options"]) for r in reference))
    assert info.gradings == {"answer": 197}
    assert info.to_dict()["n_questions"] == 197


def test_bank_info_warns_about_out_of_range_grades(
    imported: pa.Table, reference: list[dict[str, Any]]
) -> None:
    tax = load_taxonomy()
    grades: dict[str, list[int]] = {}
    for r in reference:
        grades.setdefault(r["element"], []).append(r["grade"])
    outside = {
        element
        for element, gs in grades.items()
        if min(gs) < tax.elements[element].grades[0] or max(gs) > tax.elements[element].grades[1]
    }
    # the authors' samples label syllogisms 0 and theory of mind 0-2; the paper says 2 and 3
    assert outside == {"steer.1.4.a", "steer.1.5.a"}
    warnings = bank_info(imported).warnings
    assert len(warnings) == len(outside)
    assert {w.split(":", 1)[0] for w in warnings} == outside
    assert "steer.1.5.a: grades 0-2 fall outside the taxonomy's 3-3" in " ".join(warnings)


def test_bank_info_warns_about_missing_grades(imported: pa.Table) -> None:
    table = imported.set_column(
        imported.column_names.index("grade"), "grade", pa.nulls(197, pa.int32())
    )
    warnings = bank_info(table).warnings
    assert sorted(warnings) == sorted(
        f"{e}: no grade levels recorded" for e in ELEMENT_OF_FILE.values()
    )


# --- bad inputs: one line naming the file, the place and the field -----------------------


def sample_row(qid: str = "0_0", element: str = "compute_expectations", **kw: Any) -> dict:
    row: dict[str, Any] = {
        "element_dir": element,
        "question_id": qid,
        "question_text": "A fair die is rolled. What is the expected value?",
        "explanation": None,
        "options": ["3.5", "3", "4"],
        "option_ids": [0, 1, 2],
        "correct": [1, 0, 0],
        "domain": "dice",
        "type": "positive",
        "difficulty_level": 3,
    }
    row.update(kw)
    return row


def good_rows(n: int = 4) -> list[dict]:
    return [sample_row(f"{i}_0") for i in range(n)]


def write_jsonl(path: Path, rows: list[dict | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def import_error(*paths: Path, **kw: Any) -> FileFormatError:
    with pytest.raises(FileFormatError) as info:
        import_steer_bench(list(paths), **kw)
    err = info.value
    assert "\n" not in str(err)
    return err


def assert_at(err: FileFormatError, path: Path, line: int, field: str | None) -> None:
    head = f"{path}:{line}: " + (f"field {field!r}: " if field else "")
    assert str(err).startswith(head), str(err)
    assert err.source == str(path)
    assert err.where == f"line {line}"
    assert err.field == field


def test_good_rows_import(tmp_path: Path) -> None:
    table = import_steer_bench([write_jsonl(tmp_path / "ok.jsonl", good_rows())], keep_order=True)
    assert table["question_id"].to_pylist() == [f"steer.1.1.c/{i}/0" for i in range(4)]
    assert table["correct_index"].to_pylist() == [0] * 4


def test_malformed_json_line(tmp_path: Path) -> None:
    rows: list[dict | str] = [*good_rows(2), "", sample_row("2_0"), '{"element_dir": "x", ']
    rows += good_rows(1)
    path = write_jsonl(tmp_path / "bad.jsonl", rows)
    err = import_error(path)
    assert_at(err, path, 5, None)  # line 3 is blank, line 5 the broken one
    assert "invalid JSON" in str(err)


def test_line_that_is_not_an_object(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [*good_rows(2), "[1, 2, 3]"])
    err = import_error(path)
    assert_at(err, path, 3, None)
    assert "must be a JSON object" in str(err)


@pytest.mark.parametrize(
    ("field", "value", "kinds"),
    [
        ("domain", 5, "is int here but string on line 1"),
        ("question_text", ["x"], "is list here but string on line 1"),
        ("difficulty_level", "hard", "is string here but int on line 1"),
        ("options", {"a": 1}, "is object here but list on line 1"),
    ],
)
def test_field_that_changes_type(tmp_path: Path, field: str, value: Any, kinds: str) -> None:
    path = write_jsonl(tmp_path / "tc.jsonl", [*good_rows(3), sample_row("9_0", **{field: value})])
    err = import_error(path)
    assert_at(err, path, 4, field)
    assert kinds in str(err)


@pytest.mark.parametrize("column", ["options", "question_text", "question_id", "correct"])
def test_missing_column(tmp_path: Path, column: str) -> None:
    rows = [{k: v for k, v in r.items() if k != column} for r in good_rows()]
    path = write_jsonl(tmp_path / "mc.jsonl", rows)
    err = import_error(path)
    assert str(err) == f"{path}: field {column!r}: missing required column"


def test_missing_element_column_in_bench_layout(tmp_path: Path) -> None:
    path = tmp_path / "bench.parquet"
    pq.write_table(pa.table({"question_id": ["a"], "options": [["x"]]}), path)
    err = import_error(path)
    assert str(err).startswith(f"{path}: field 'element': missing required column")


@pytest.mark.parametrize(("flags", "marks"), [([0, 0, 0], 0), ([1, 1, 0], 2), ([1, 1, 1], 3)])
def test_correct_must_mark_one_option(tmp_path: Path, flags: list[int], marks: int) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [*good_rows(2), sample_row("9_0", correct=flags)])
    err = import_error(path)
    assert_at(err, path, 3, "correct")
    assert f"must mark exactly one option correct, marks {marks}" in str(err)


@pytest.mark.parametrize("flags", [[0, 1], [0, 1, 0, 0], []])
def test_correct_and_options_lengths_differ(tmp_path: Path, flags: list[int]) -> None:
    path = write_jsonl(tmp_path / "c.jsonl", [*good_rows(2), sample_row("9_0", correct=flags)])
    err = import_error(path)
    assert_at(err, path, 3, "correct")
    assert "different length than options" in str(err)


def test_unknown_element_with_suggestion(tmp_path: Path) -> None:
    rows = [*good_rows(2), sample_row("9_0", element="compute_expectatons")]
    path = write_jsonl(tmp_path / "u.jsonl", rows)
    err = import_error(path)
    assert_at(err, path, 3, "element")
    assert "unknown element 'compute_expectatons'" in str(err)
    assert "did you mean 'compute_expectations'?" in str(err)


def test_unknown_element_id_in_bench_layout(imported: pa.Table, tmp_path: Path) -> None:
    table = imported.slice(0, 3)
    elements = pa.array(["steer.1.1.c", "steer.1.1.c", "steer.11.c"])
    table = table.set_column(table.column_names.index("element"), "element", elements)
    path = tmp_path / "bench.parquet"
    pq.write_table(table, path)
    err = import_error(path)
    assert str(err).startswith(f"{path}: row 2: field 'element': unknown element 'steer.11.c'")
    assert "did you mean 'steer.1.1.c'?" in str(err)


def test_null_element(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "n.jsonl", [*good_rows(2), sample_row("9_0", element=None)])
    err = import_error(path)
    assert_at(err, path, 3, "element")


def test_grade_outside_levels(tmp_path: Path) -> None:
    rows = [*good_rows(2), sample_row("9_0", difficulty_level=20)]
    path = write_jsonl(tmp_path / "g.jsonl", rows)
    err = import_error(path)
    assert_at(err, path, 3, "grade")
    assert "20 is outside the grade levels 0-14" in str(err)


def test_duplicate_question_ids_within_a_file(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "d.jsonl", [*good_rows(4), sample_row("1_0")])
    err = import_error(path)
    assert_at(err, path, 5, "question_id")
    assert "duplicate question_id 'steer.1.1.c/1/0' (first at line 2)" in str(err)


def test_duplicate_question_ids_across_files(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "a.jsonl", good_rows(4))
    second = write_jsonl(tmp_path / "b.jsonl", [sample_row("7_0"), sample_row("2_0")])
    err = import_error(first, second)
    assert_at(err, second, 2, "question_id")
    assert f"'steer.1.1.c/2/0' appears in more than one file ({first}, {second})" in str(err)


def test_same_base_ids_for_different_elements_do_not_clash(tmp_path: Path) -> None:
    first = write_jsonl(tmp_path / "a.jsonl", good_rows(2))
    second = write_jsonl(tmp_path / "b.jsonl", [sample_row("0_0", element="bayes_rule")])
    table = import_steer_bench([first, second])
    assert table["question_id"].to_pylist()[-1] == "steer.1.3.c/0/0"


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_text("")
    assert str(import_error(path)) == f"{path}: contains no questions"


def test_corrupt_parquet(imported: pa.Table, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1 this is not a parquet file" * 10)
    truncated = write_bank(imported, tmp_path / "truncated.parquet")
    truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 2])
    for path in (garbage, truncated):
        err = import_error(path)
        assert str(err).startswith(f"{path}: not a readable Parquet file")
        with pytest.raises(FileFormatError, match="not a readable Parquet file"):
            read_bank(path)


def test_unsupported_suffix(tmp_path: Path) -> None:
    path = tmp_path / "bank.csv"
    path.write_text("question_id,element\n")
    err = import_error(path)
    assert str(err) == f"{path}: unsupported file type '.csv'; use .parquet or .jsonl"
    no_suffix = tmp_path / "bank"
    no_suffix.write_text("{}")
    assert "'(none)'" in str(import_error(no_suffix))


def test_nonexistent_path_and_directory(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    assert str(import_error(missing)) == f"{missing}: no such file"
    with pytest.raises(FileFormatError, match="no such file"):
        read_bank(tmp_path / "missing.parquet")
    assert str(import_error(tmp_path)).startswith(f"{tmp_path}: is a directory")


def test_read_bank_validates_rows(imported: pa.Table, tmp_path: Path) -> None:
    table = imported.slice(0, 4)
    col = table.column_names.index("element")
    for elements, message in [
        (["steer.1.1.c"] * 3 + ["3.1.b"], "is not a full element id — use 'steer.3.1.b'"),
        (["steer.1.1.c"] * 3 + ["steer.3.1.x"], "unknown element 'steer.3.1.x' — did you mean"),
    ]:
        path = tmp_path / "bank.parquet"
        pq.write_table(table.set_column(col, "element", pa.array(elements)), path)
        with pytest.raises(FileFormatError) as info:
            read_bank(path)
        assert str(info.value).startswith(f"{path}: row 3: field 'element': {message}")
    bad_key = table.set_column(
        table.column_names.index("correct_index"), "correct_index", pa.array([0, 1, 9, 2])
    )
    pq.write_table(bad_key, tmp_path / "key.parquet")
    with pytest.raises(FileFormatError) as info:
        read_bank(tmp_path / "key.parquet")
    assert str(info.value) == (
        f"{tmp_path / 'key.parquet'}: row 2: field 'correct_index': "
        "9 is not the index of one of the options"
    )


# --- the flags → index conversion against a plain reference ------------------------------

flag_rows = st.lists(
    st.lists(st.integers(0, 1), min_size=1, max_size=5), min_size=1, max_size=12
).flatmap(lambda rows: st.tuples(st.just(rows), st.integers(0, len(rows))))


@settings(max_examples=150, deadline=None, database=None)
@given(flag_rows)
def test_correct_index_from_flags_matches_reference(case: tuple[list[list[int]], int]) -> None:
    rows, split = case
    options = [["o"] * len(r) for r in rows]
    flags = pa.chunked_array(
        [pa.array(rows[:split], pa.list_(pa.int64())), pa.array(rows[split:], pa.list_(pa.int64()))]
    )
    bad = [i for i, r in enumerate(rows) if r.count(1) != 1]
    if bad:
        with pytest.raises(FileFormatError) as info:
            _correct_index_from_flags(flags, pa.chunked_array([options]), "f.jsonl")
        assert info.value.where == f"line {bad[0] + 1}"
        assert f"marks {rows[bad[0]].count(1)}" in str(info.value)
    else:
        got = _correct_index_from_flags(flags, pa.chunked_array([options]), "f.jsonl")
        assert got.to_pylist() == [r.index(1) for r in rows]


# --- atomic writes -----------------------------------------------------------------------


def uncastable(imported: pa.Table) -> pa.Table:
    """Right columns, but a grade that is not a number."""
    table = imported.slice(0, 3)
    grade = pa.array(["3", "three", "4"])
    return table.set_column(table.column_names.index("grade"), "grade", grade)


@pytest.mark.parametrize(
    "make_bad",
    [uncastable, lambda t: t.drop_columns(["question_text"])],
    ids=["uncastable-value", "missing-column"],
)
def test_write_bank_failure_leaves_nothing(
    imported: pa.Table, tmp_path: Path, make_bad: Callable[[pa.Table], pa.Table]
) -> None:
    target = tmp_path / "bank.parquet"
    with pytest.raises((pa.ArrowInvalid, ValueError)):
        write_bank(make_bad(imported), target)
    assert list(tmp_path.iterdir()) == []


def test_write_bank_failure_keeps_existing_target(imported: pa.Table, tmp_path: Path) -> None:
    target = write_bank(imported, tmp_path / "bank.parquet")
    before = target.read_bytes()
    with pytest.raises(ValueError):
        write_bank(uncastable(imported), target)
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["bank.parquet"]
    assert read_bank(target).equals(imported)


def test_atomic_path_cleans_up_when_the_writer_fails(imported: pa.Table, tmp_path: Path) -> None:
    target = write_bank(imported, tmp_path / "bank.parquet")
    before = target.read_bytes()
    with pytest.raises(RuntimeError, match="disk full"), atomic_path(target) as tmp:
        assert tmp.parent == tmp_path
        assert tmp != target
        pq.write_table(imported.slice(0, 1), tmp)
        raise RuntimeError("disk full")
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["bank.parquet"]


def test_a_bank_filtered_to_no_rows_validates_without_reaching_indices_nonzero(
    imported: pa.Table,
) -> None:
    """Filtering to no rows leaves chunkless columns; pyarrow before the fix of
    apache/arrow#51018 crashes the process in indices_nonzero on them (seen on
    a GPU machine's pyarrow), so the bank's checks must not hand them over."""
    import pyarrow.compute as pc

    from steer.bank._validate import validate_questions
    from steer.schema._columns import first_true, true_indices

    empty = imported.filter(pc.equal(imported["element"], "no such element"))
    assert empty["options"].num_chunks == 0
    assert validate_questions(empty, "bank.parquet").num_rows == 0
    assert first_true(pc.is_null(empty["question_id"])) == -1
    mixed = pa.chunked_array([[False, None], [], [True, False, True]], type=pa.bool_())
    assert true_indices(mixed).to_pylist() == [2, 4] and first_true(mixed) == 2
