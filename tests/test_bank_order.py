"""Seeded option order (issue 20 §5): `steer bank import` permutes each
question's options by default, records the permutation in `option_order`, and
keeps the key, the tags and the parts' relation; `--keep-order` opts out."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.audit._chi2 import chisquare
from steer.bank import import_steer_bench, read_bank, read_bank_metadata, validate_questions
from steer.bank._order import (
    DEFAULT_ORDER_SEED,
    bad_order_row,
    in_payload_order,
    permute_options,
    seeded_orders,
)
from steer.errors import FileFormatError

ELEMENT_MAP = {"syllogism": "steer.1.4.a", "theory_of_mind": "steer.1.5.a"}


# --- a plain reference --------------------------------------------------------------------


def reference_permuted(row: dict, order: list[int]) -> dict:
    """Row `row` shown in `order` (order[shown] = original), by plain indexing."""
    out = dict(row)
    out["options"] = [row["options"][i] for i in order]
    if row.get("option_tags") is not None:
        out["option_tags"] = [row["option_tags"][i] for i in order]
    if row.get("correct_index") is not None:
        out["correct_index"] = order.index(row["correct_index"])
    return out


@st.composite
def banks(draw: st.DrawFn) -> pa.Table:
    """Small banks: questions of 1-3 parts, 2-6 options, some tagged."""
    rows = []
    for q in range(draw(st.integers(1, 12))):
        n = draw(st.integers(2, 6))
        parts = draw(st.integers(1, 3))
        tagged = draw(st.booleans())
        for part in range(parts):
            key = draw(st.integers(0, n - 1))
            rows.append(
                {
                    "element": "steer.1.1.c",
                    "base_id": f"q{q}",
                    "part": part,
                    "options": [f"o{q}.{part}.{i}" for i in range(n)],
                    "correct_index": key,
                    "option_tags": (
                        ["key" if i == key else f"slip{i}" for i in range(n)] if tagged else None
                    ),
                }
            )
    return pa.Table.from_pylist(
        rows,
        schema=pa.schema(
            [
                ("element", pa.string()),
                ("base_id", pa.string()),
                ("part", pa.int32()),
                ("options", pa.list_(pa.string())),
                ("correct_index", pa.int32()),
                ("option_tags", pa.list_(pa.string())),
            ]
        ),
    )


@settings(max_examples=60, deadline=None)
@given(banks(), st.integers(0, 2**63 - 1))
def test_permutation_keeps_key_text_and_tags(table: pa.Table, seed: int) -> None:
    out, _ = permute_options(table, seed)
    before, after = table.to_pylist(), out.to_pylist()
    for old, new in zip(before, after, strict=True):
        order = new["option_order"]
        assert sorted(order) == list(range(len(old["options"])))
        assert new == {**reference_permuted(old, order), "option_order": order}
        # The key's text and tag travel with it.
        assert new["options"][new["correct_index"]] == old["options"][old["correct_index"]]
        if old["option_tags"] is not None:
            assert new["option_tags"][new["correct_index"]] == "key"
        # Undoing the order gives the payload's order back.
        assert in_payload_order(new) == {**old, "option_order": None}
    # The parts of one question share their permutation.
    by_question: dict[str, set[tuple[int, ...]]] = {}
    for row in after:
        by_question.setdefault(row["base_id"], set()).add(tuple(row["option_order"]))
    assert all(len(orders) == 1 for orders in by_question.values())


@settings(max_examples=30, deadline=None)
@given(banks(), st.integers(0, 2**63 - 1))
def test_permutation_is_deterministic_and_row_independent(table: pa.Table, seed: int) -> None:
    out, _ = permute_options(table, seed)
    again, _ = permute_options(table, seed)
    assert out.equals(again)
    # A question's order depends on the seed and its own key, not on the others.
    tail, _ = permute_options(table.slice(table.num_rows // 2), seed)
    assert (
        tail["option_order"].to_pylist() == out["option_order"].to_pylist()[table.num_rows // 2 :]
    )


@settings(max_examples=30, deadline=None)
@given(banks(), st.integers(0, 2**32), st.integers(0, 2**32))
def test_permuting_twice_composes_with_the_payload_order(
    table: pa.Table, first: int, second: int
) -> None:
    once, _ = permute_options(table, first)
    twice, _ = permute_options(once, second)
    for old, new in zip(table.to_pylist(), twice.to_pylist(), strict=True):
        assert in_payload_order(new) == {**old, "option_order": None}


def test_orders_are_uniform_over_positions() -> None:
    """Across many questions, every original index lands at every position
    about equally often (χ² against uniform)."""
    keys = pa.array([f"steer.1.1.c/{i}" for i in range(4000)])
    flat = seeded_orders(keys, np.full(4000, 4), 3).reshape(4000, 4)
    for position in range(4):
        counts = np.bincount(flat[:, position], minlength=4).astype(float)
        _, p = chisquare(counts, np.full(4, 1000.0))
        assert p > 1e-4


def test_consistency_group_shares_one_permutation_and_rule_is_restated() -> None:
    rows = [
        {
            "element": "steer.2.1.c",
            "base_id": "g",
            "part": part,
            "options": ["a", "b", "c"],
            "correct_index": None,
            "consistency_group": "g1",
            "consistency_rule": "same:01",
        }
        for part in range(2)
    ]
    seen: list[tuple[str, list[list[int]]]] = []

    def restate(rule: str, perms: list[list[int]]) -> str:
        seen.append((rule, perms))
        return f"restated:{rule}"

    out, rewritten = permute_options(pa.Table.from_pylist(rows), 9, rules=restate)
    orders = out["option_order"].to_pylist()
    assert orders[0] == orders[1]
    ((rule, perms),) = seen
    assert rule == "same:01"
    # perms[p][old] = new position.
    assert [[orders[p].index(old) for old in range(3)] for p in range(2)] == perms
    assert out["consistency_rule"].to_pylist() == ["restated:same:01"] * 2
    assert [r for r, _ in rewritten] == [0, 1]


def test_a_bad_option_order_is_one_line_naming_row_and_field() -> None:
    table = pa.table(
        {
            "question_id": ["steer.1.1.c/a/0", "steer.1.1.c/b/0"],
            "element": ["steer.1.1.c"] * 2,
            "base_id": ["a", "b"],
            "question_text": ["?", "?"],
            "options": [["x", "y"], ["x", "y"]],
            "correct_index": pa.array([0, 1], pa.int32()),
            "option_order": pa.array([[1, 0], [1, 1]], pa.list_(pa.int32())),
        }
    )
    assert bad_order_row(table["options"], table["option_order"]) == 1
    with pytest.raises(FileFormatError) as info:
        validate_questions(table, "bank.parquet")
    message = str(info.value)
    assert "row 2" in message or "row 1" in message
    assert "option_order" in message and "\n" not in message


# --- import -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def samples(steer_samples: list[Path]) -> list[Path]:
    if not steer_samples:
        pytest.skip("no steer_samples in the shared fixtures")
    return steer_samples


def test_import_permutes_by_default_and_keep_order_keeps(samples: list[Path]) -> None:
    kept = import_steer_bench(samples, element_map=ELEMENT_MAP, keep_order=True)
    permuted = import_steer_bench(samples, element_map=ELEMENT_MAP)
    assert kept["option_order"].null_count == kept.num_rows
    assert permuted["option_order"].null_count == 0
    assert permuted["question_id"].equals(kept["question_id"])
    moved = 0
    for old, new in zip(kept.to_pylist(), permuted.to_pylist(), strict=True):
        assert new["options"][new["correct_index"]] == old["options"][old["correct_index"]]
        assert in_payload_order(new) == old
        moved += new["options"] != old["options"]
    assert moved > 0.5 * kept.num_rows
    # The default seed is fixed: the same files import to the same bank.
    assert import_steer_bench(samples, element_map=ELEMENT_MAP).equals(permuted)
    other = import_steer_bench(samples, element_map=ELEMENT_MAP, order_seed=DEFAULT_ORDER_SEED + 1)
    assert other["option_order"].to_pylist() != permuted["option_order"].to_pylist()


def _key_position_p(table: pa.Table) -> float:
    """χ² p-value of the key positions against uniform placement."""
    n_opts = [len(o) for o in table["options"].to_pylist()]
    keys = table["correct_index"].to_pylist()
    width = max(n_opts)
    observed = np.bincount(keys, minlength=width).astype(float)
    expected = np.zeros(width)
    for n, count in Counter(n_opts).items():
        expected[:n] += count / n
    return chisquare(observed, expected)[1]


def test_imported_samples_no_longer_have_a_constant_key_position(samples: list[Path]) -> None:
    kept = import_steer_bench(samples, element_map=ELEMENT_MAP, keep_order=True)
    permuted = import_steer_bench(samples, element_map=ELEMENT_MAP)
    for element in ("steer.1.1.c", "steer.1.5.a"):
        before = kept.filter(pa.compute.equal(kept["element"], element))
        after = permuted.filter(pa.compute.equal(permuted["element"], element))
        # The authors' order: one position holds nearly every key.
        assert max(Counter(before["correct_index"].to_pylist()).values()) > 0.9 * before.num_rows
        assert _key_position_p(before) < 1e-6
        assert _key_position_p(after) > 1e-3
        assert max(Counter(after["correct_index"].to_pylist()).values()) < 0.6 * after.num_rows


def _steer(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", *args], capture_output=True, text=True, check=False
    )


def test_cli_import_records_the_order_in_bank_and_info(samples: list[Path], tmp_path: Path) -> None:
    maps = [a for k, v in ELEMENT_MAP.items() for a in ("--element-map", f"{k}={v}")]
    out = tmp_path / "bank.parquet"
    done = _steer("bank", "import", *map(str, samples), *maps, "-o", str(out))
    assert done.returncode == 0, done.stderr
    meta = read_bank_metadata(out)
    assert meta is not None
    assert meta.option_order == "permuted" and meta.order_seed == DEFAULT_ORDER_SEED
    assert read_bank(out)["option_order"].null_count == 0
    info = _steer("bank", "info", str(out))
    assert f"options permuted with seed {DEFAULT_ORDER_SEED}" in info.stdout
    as_json = json.loads(_steer("bank", "info", str(out), "--json").stdout)
    assert as_json["metadata"]["option_order"] == "permuted"

    kept = tmp_path / "kept.parquet"
    done = _steer("bank", "import", *map(str, samples), *maps, "--keep-order", "-o", str(kept))
    assert done.returncode == 0, done.stderr
    meta = read_bank_metadata(kept)
    assert meta is not None and meta.option_order == "kept" and meta.order_seed is None
    assert pq.read_table(kept)["option_order"].null_count == read_bank(kept).num_rows
    assert "source's order" in _steer("bank", "info", str(kept)).stdout

    seeded = tmp_path / "seeded.parquet"
    done = _steer(
        "bank", "import", *map(str, samples), *maps, "--order-seed", "5", "-o", str(seeded)
    )
    assert done.returncode == 0, done.stderr
    assert read_bank_metadata(seeded).order_seed == 5  # type: ignore[union-attr]
    assert (
        read_bank(seeded)["option_order"].to_pylist() != read_bank(out)["option_order"].to_pylist()
    )
    bad = _steer("bank", "import", *map(str, samples), *maps, "--order-seed", "-1", "-o", "x")
    assert bad.returncode == 2


# --- consistency groups: the restated rule judges the mapped choices alike -----------------

RULES = ["same:01", "flip:01", "same:01;flip:12", "map:01=1|0+1", "map:01=*|-;same:12"]


@st.composite
def groups(draw: st.DrawFn) -> tuple[pa.Table, str]:
    rule = draw(st.sampled_from(RULES))
    n_parts = 3 if "12" in rule else 2
    sizes = [draw(st.integers(2, 4)) for _ in range(n_parts)]
    rows = [
        {
            "element": "steer.2.1.c",
            "base_id": "g",
            "part": part,
            "options": [f"p{part}.{i}" for i in range(n)],
            "correct_index": None,
            "consistency_group": "g",
            "consistency_rule": rule,
        }
        for part, n in enumerate(sizes)
    ]
    return pa.Table.from_pylist(rows), rule


@settings(max_examples=60, deadline=None)
@given(groups(), st.integers(0, 2**63 - 1))
def test_imported_group_rule_is_restated_for_the_permutation(
    group: tuple[pa.Table, str], seed: int
) -> None:
    from itertools import product

    from steer.bank._import import permuted_rule
    from steer.generate._consistency import rule_holds

    table, rule = group
    out, _ = permute_options(table, seed, rules=permuted_rule)
    rows = out.to_pylist()
    new_rule = rows[0]["consistency_rule"]
    assert {r["consistency_rule"] for r in rows} == {new_rule}
    sizes = [len(r["options"]) for r in rows]
    orders = [r["option_order"] for r in rows]
    # Reference: the original rule judges the options the displayed choices name.
    for shown in product(*(range(n) for n in sizes)):
        original = [orders[p][c] for p, c in enumerate(shown)]
        assert rule_holds(new_rule, shown, sizes) == rule_holds(rule, original, sizes)
