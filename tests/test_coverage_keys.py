"""The vectorised completion (no-answer rows for asked questions) and key
resolution (duplicates across inputs, `dedupe="latest"`) of
`steer.score.load_responses`, against a plain Python reference on small
random tables (hypothesis)."""

from __future__ import annotations

import math
from collections import Counter
from functools import cache
from typing import Any

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.cli.demo_cmd import DEMO_ELEMENTS
from steer.errors import InputError
from steer.generate import generate_bank
from steer.schema import RESPONSE_SCHEMA, Adaptation
from steer.score import load_responses
from steer.score._coverage import NO_ANSWER_ERROR

ADAPTATIONS = (Adaptation().model_dump(), Adaptation(format="hidden", shots=3).model_dump())
N_QUESTIONS = 5


@cache
def bank() -> pa.Table:
    return generate_bank(list(DEMO_ELEMENTS), per_cell=2, seed=0).slice(0, N_QUESTIONS)


@cache
def bank_rows() -> dict[str, dict[str, Any]]:
    return {r["question_id"]: r for r in bank().to_pylist()}


def response(q: int, model: int, adaptation: int, sample: int, chosen: int, error: bool,
             recorded: float | None) -> dict[str, Any]:  # fmt: skip
    qid = list(bank_rows())[q]
    question = bank_rows()[qid]
    return {
        "run_id": "run",
        "model": f"m{model}",
        "backend": "agent",
        "adaptation": ADAPTATIONS[adaptation],
        "question_id": qid,
        "base_id": question["base_id"],
        "part": question["part"],
        "element": question["element"],
        "n_options": len(question["options"]),
        "chosen_index": chosen,
        "correct_index": question["correct_index"],
        "error": "server error" if error else None,
        "sample": sample,
        "recorded_at": recorded,
    }


rows_st = st.builds(
    response,
    st.integers(0, N_QUESTIONS - 1),
    st.integers(0, 1),
    st.integers(0, 1),
    st.integers(0, 1),
    st.integers(-1, 1),
    st.booleans(),
    st.one_of(st.none(), st.sampled_from([1.0, 2.0, 3.0])),
)
inputs_st = st.lists(st.lists(rows_st, max_size=8), min_size=1, max_size=3)


def label(adaptation: dict[str, Any]) -> str:
    return Adaptation.model_validate(adaptation).label()


def reference(inputs: list[list[dict[str, Any]]], dedupe: str | None) -> Counter[tuple[Any, ...]]:
    """Row by row: complete each input against the bank, then resolve keys."""
    ids = list(bank_rows())
    rows: list[tuple[int, dict[str, Any], bool]] = []  # (input, row, added for coverage)
    for i, given_rows in enumerate(inputs):
        # An empty input: no row says which model was asked.
        if not given_rows:
            raise InputError("no responses in")
        for r in given_rows:
            rows.append((i, r | {"chosen_index": -1 if r["error"] else r["chosen_index"]}, False))
        cards = list(dict.fromkeys((r["model"], label(r["adaptation"])) for r in given_rows))
        for model, adaptation in cards:
            have = {
                r["question_id"]
                for r in given_rows
                if (r["model"], label(r["adaptation"])) == (model, adaptation)
            }
            # One no-answer per sample the card drew: each (question, sample) is a unit.
            drawn = sorted(
                {
                    r["sample"]
                    for r in given_rows
                    if (r["model"], label(r["adaptation"])) == (model, adaptation)
                }
            )
            for q in ids:
                if q not in have:
                    for sample in drawn:
                        filler = {
                            "question_id": q,
                            "model": model,
                            "adaptation_label": adaptation,
                            "sample": sample,
                            "chosen_index": -1,
                            "recorded_at": None,
                        }
                        rows.append((i, filler, True))

    def key(r: dict[str, Any]) -> tuple[Any, ...]:
        adaptation = r.get("adaptation_label") or label(r["adaptation"])
        return (r["question_id"], r["model"], adaptation, r["sample"])

    kept: list[tuple[dict[str, Any], bool]] = []
    if dedupe is None:
        # A key in two inputs is an error (in-memory tables may repeat a key).
        owners: dict[tuple[Any, ...], set[int]] = {}
        for i, r, filled in rows:
            if not filled:
                owners.setdefault(key(r), set()).add(i)
        if any(len(v) > 1 for v in owners.values()):
            raise InputError("both hold the response")
        seen: set[tuple[Any, ...]] = set()
        for _, r, filled in rows:
            if not filled:
                kept.append((r, False))
            elif key(r) not in owners and key(r) not in seen:
                seen.add(key(r))
                kept.append((r, True))
    else:
        best: dict[tuple[Any, ...], tuple[tuple[Any, ...], dict[str, Any], bool]] = {}
        for n, (_, r, filled) in enumerate(rows):
            rec = r["recorded_at"]
            rank = (not filled, -math.inf if rec is None else rec, n)
            if key(r) not in best or rank > best[key(r)][0]:
                best[key(r)] = (rank, r, filled)
        kept = [(r, filled) for _, r, filled in best.values()]
    return Counter((*key(r), r["chosen_index"], filled) for r, filled in kept)


def observed(table: pa.Table) -> Counter[tuple[Any, ...]]:
    out: Counter[tuple[Any, ...]] = Counter()
    for r in table.to_pylist():
        out[
            (
                r["question_id"],
                r["model"],
                label(r["adaptation"]),
                r["sample"],
                r["chosen_index"],
                r["error"] == NO_ANSWER_ERROR,
            )
        ] += 1
    return out


def tables(inputs: list[list[dict[str, Any]]]) -> list[pa.Table]:
    return [pa.Table.from_pylist(rows, schema=RESPONSE_SCHEMA) for rows in inputs]


@settings(max_examples=150, deadline=None)
@given(inputs=inputs_st, dedupe=st.sampled_from([None, "latest"]))
def test_completion_and_keys_match_the_reference(
    inputs: list[list[dict[str, Any]]], dedupe: str | None
) -> None:
    try:
        expected = reference(inputs, dedupe)
    except InputError as exc:
        with pytest.raises(InputError, match=str(exc)):
            load_responses(tables(inputs), bank=bank(), dedupe=dedupe)  # type: ignore[arg-type]
        return
    loaded = load_responses(tables(inputs), bank=bank(), dedupe=dedupe)  # type: ignore[arg-type]
    assert observed(loaded.table) == expected
    for (model, adaptation), coverage in loaded.coverage.items():
        assert (coverage.asked, coverage.bank) == (N_QUESTIONS, N_QUESTIONS)
        assert any(r["model"] == model and label(r["adaptation"]) == adaptation
                   for rows in inputs for r in rows)  # fmt: skip


def test_without_a_bank_nothing_is_added_and_coverage_is_unknown() -> None:
    rows = [response(0, 0, 0, 0, 1, False, None), response(1, 0, 0, 0, -1, True, None)]
    loaded = load_responses(tables([rows]))
    assert loaded.table.num_rows == 2 and loaded.coverage == {}
    # An error row is a no-answer whatever index it holds.
    assert loaded.table["chosen_index"].to_pylist() == [1, -1]
