"""Per-question outcomes: one value per question per (model, adaptation), the
unit that paired tests and version-2 baselines compare.

A question is keyed by (bank fingerprint, question id); a multi-part question
counts once under its `base_id` and is right only if every part is. Repeated
samples of one question are averaged. A no-answer is wrong for exact match,
`gap` and `normalized_accuracy_strict` and scores chance (0) for
`normalized_accuracy`. Consistency-graded and unkeyed rows have no outcome.
Everything is vectorised (group codes and `np.bincount`), never a row loop.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer import _native
from steer.schema import NO_ANSWER
from steer.score._columns import _dictionary

OUTCOME_METRICS = ("exact_match", "normalized_accuracy", "normalized_accuracy_strict", "gap")
KEYS = ("model", "adaptation", "bank_sha256", "element", "question")


def adaptation_labels(column: Any) -> Any:
    """The adaptation as its label ("mc;shots=0;cot=none;prob=conditioning");
    a column that already holds strings is kept."""
    if not pa.types.is_struct(column.type):
        return pc.fill_null(column.cast(pa.string()), "")

    # Same text as the card keys (a null field makes the whole label "").
    def part(field: str, prefix: str) -> Any:
        text = pc.struct_field(column, field).cast(pa.string())
        return pc.binary_join_element_wise(prefix, text, "") if prefix else text

    label = pc.binary_join_element_wise(
        part("format", ""), part("shots", "shots="), part("cot", "cot="),
        part("prob_mode", "prob="), ";",
    )  # fmt: skip
    for extra in ("order", "collective", "persona"):
        if column.type.get_field_index(extra) < 0:
            continue
        value = pc.struct_field(column, extra)
        label = pc.if_else(
            pc.is_null(value),
            label,
            pc.binary_join_element_wise(label, pc.fill_null(value, ""), f";{extra}="),
        )
    return pc.fill_null(label, "")


def _text(table: pa.Table, name: str, default: str = "") -> Any:
    if name not in table.column_names:
        return pa.array(np.full(table.num_rows, default, dtype=object), pa.string())
    return pc.fill_null(table[name].cast(pa.string()), default)


def _combine(indices: list[np.ndarray], sizes: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """Dense codes (int64) of combined dictionary indices, and each code's first row."""
    codes, first = _native.encode_groups(indices, sizes)
    return codes.astype(np.int64), first


def wrong_penalty(p_random: np.ndarray) -> np.ndarray:
    """p/(1 − p): what a wrong answer costs so random guessing scores 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(p_random < 1, p_random / (1 - p_random), 1.0)


def question_outcomes(table: pa.Table, bank: str | None = None) -> pa.Table:
    """One row per (model, adaptation, bank_sha256, element, question).

    `bank` fills the fingerprint of rows without one (old response tables).
    Columns: the keys (strings), `answered` (share of samples answered),
    `n_samples`, and one float column per name in `OUTCOME_METRICS`.
    """
    keep = pc.is_valid(table["correct_index"])
    if "consistency_rule" in table.column_names:
        keep = pc.and_(keep, pc.is_null(table["consistency_rule"]))
    table = table.filter(keep)
    n = table.num_rows
    if n == 0:
        return _empty()
    model = _text(table, "model")
    adaptation = (
        adaptation_labels(table["adaptation"])
        if "adaptation" in table.column_names
        else _text(table, "adaptation")
    )
    banks = _text(table, "bank_sha256", bank or "")
    if bank:
        banks = pc.if_else(pc.equal(banks, ""), bank, banks)
    element = _text(table, "element")
    qid = _text(table, "question_id")
    base = _text(table, "base_id")
    base = pc.if_else(pc.equal(base, ""), qid, base)
    part = (
        pc.fill_null(table["part"], 0).to_numpy(zero_copy_only=False)
        if "part" in table.column_names
        else np.zeros(n, np.int64)
    )
    sample = (
        pc.fill_null(table["sample"].cast(pa.int64()), 0)
        if "sample" in table.column_names
        else pa.array(np.zeros(n, np.int64))
    )
    # Each string column is dictionary-encoded once; keys are combined codes.
    card_cols = [model, adaptation, banks, element]
    card = [_dictionary(c) for c in card_cols]
    base_idx, base_dict = _dictionary(base)
    qid_idx, qid_dict = _dictionary(qid)
    sample_idx, sample_dict = _dictionary(sample)
    indices, sizes = [c[0] for c in card], [len(c[1]) for c in card]

    # A base with a part > 0 is one multi-part question; other rows stand alone.
    base_code, _ = _combine([*indices, base_idx], [*sizes, len(base_dict)])
    multi = np.bincount(base_code, weights=part > 0, minlength=int(base_code.max()) + 1) > 0
    multi_row = multi[base_code]
    q_idx = np.where(multi_row, base_idx, len(base_dict) + qid_idx).astype(np.int32)
    q_of_row, q_first = _combine([*indices, q_idx], [*sizes, len(base_dict) + len(qid_dict)])
    k = len(q_first)

    chosen = pc.fill_null(table["chosen_index"], -1).to_numpy(zero_copy_only=False)
    correct = table["correct_index"].to_numpy(zero_copy_only=False)
    options = table["n_options"].to_numpy(zero_copy_only=False).astype(np.float64)
    with np.errstate(divide="ignore"):
        log_p = -np.log(np.maximum(options, 1.0))

    # Per (question, sample): answered and right only if every part is.
    qs, first_row = _combine([q_of_row.astype(np.int32), sample_idx], [k, len(sample_dict)])
    m = len(first_row)
    # -2 (OFF_OPTIONS: a free-text number matching no option) is answered, wrong.
    unanswered = np.bincount(qs, weights=chosen == NO_ANSWER, minlength=m) > 0
    wrong = np.bincount(qs, weights=chosen != correct, minlength=m) > 0
    p_random = np.exp(np.bincount(qs, weights=log_p, minlength=m))
    answered = ~unanswered
    right = answered & ~wrong
    penalty = wrong_penalty(p_random)
    per_sample = {
        "exact_match": right.astype(np.float64),
        "normalized_accuracy": np.where(right, 1.0, np.where(answered, -penalty, 0.0)),
        "normalized_accuracy_strict": np.where(right, 1.0, -penalty),
        "gap": right - p_random,
        "answered": answered.astype(np.float64),
    }

    # Average the samples of each question.
    q_of_sample = q_of_row[first_row]
    n_samples = np.bincount(q_of_sample, minlength=k)
    picked = pa.array(q_first)
    out: dict[str, Any] = {
        name: pc.take(col, picked) for name, col in zip(KEYS[:4], card_cols, strict=True)
    }
    out["question"] = pc.if_else(
        pa.array(multi_row[q_first]), pc.take(base, picked), pc.take(qid, picked)
    )
    out["n_samples"] = pa.array(n_samples.astype(np.int32))
    for name, values in per_sample.items():
        out[name] = pa.array(np.bincount(q_of_sample, weights=values, minlength=k) / n_samples)
    return pa.table(out).sort_by([(key, "ascending") for key in KEYS])


def _empty() -> pa.Table:
    return pa.table(
        {
            **{key: pa.array([], pa.string()) for key in KEYS},
            "n_samples": pa.array([], pa.int32()),
            **{name: pa.array([], pa.float64()) for name in (*OUTCOME_METRICS, "answered")},
        }
    )
