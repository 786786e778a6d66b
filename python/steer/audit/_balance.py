"""Key balance of a bank, per element: where the key sits, how varied the
key texts are, how many options questions have, and how Yes/No items lean;
and the bank side of issue 20 §4: the share of distractors tagged `other`,
how evenly the five perspectives are drawn, and the share of two-option
items in elements whose other items offer more.

Key position is tested with Pearson's χ² against what uniformly placed keys
would give: position i of a question with n options expects 1/n of a key
(i < n), summed over the element's answer-graded questions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from steer.audit._chi2 import chisquare
from steer.audit._frame import OptionFrame
from steer.audit.agents._phrases import yes_flags, yes_no_rows

PERSPECTIVES = ("first", "second", "woman", "man", "anonymous")
KEY_TAG = "key"


def _tag_counts(frame: OptionFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per element: distractors with a tag, and those tagged `other`."""
    n_el = len(frame.elements)
    if "option_tags" not in frame.table.column_names or frame.n_rows == 0:
        return np.zeros(n_el), np.zeros(n_el)
    tags = frame.table["option_tags"].combine_chunks()
    parent = pc.list_parent_indices(tags).to_numpy().astype(np.int64)
    flat = pc.list_flatten(tags)
    tagged = pc.fill_null(pc.not_equal(flat, KEY_TAG), False).to_numpy(zero_copy_only=False)
    other = pc.fill_null(pc.equal(flat, "other"), False).to_numpy(zero_copy_only=False)
    el = frame.q_element[parent]
    return (
        np.bincount(el, weights=tagged, minlength=n_el),
        np.bincount(el, weights=other, minlength=n_el),
    )


def _perspective_counts(frame: OptionFrame) -> np.ndarray:
    """Questions (first row of each unit) per element × perspective; the last
    column counts the questions with none of the five."""
    n_el = len(frame.elements)
    first = np.zeros(frame.n_rows, dtype=bool)
    if frame.n_rows:
        _, at = np.unique(frame.q_unit, return_index=True)
        first[at] = True
    if "perspective" in frame.table.column_names and frame.n_rows:
        codes = pc.index_in(frame.table["perspective"], pa.array(PERSPECTIVES))
        code = pc.fill_null(codes, len(PERSPECTIVES)).to_numpy(zero_copy_only=False)
    else:
        code = np.full(frame.n_rows, len(PERSPECTIVES))
    width = len(PERSPECTIVES) + 1
    flat = frame.q_element[first] * width + code[first].astype(np.int64)
    return np.bincount(flat, minlength=n_el * width).reshape(n_el, width)


def _template_allows_more(frame: OptionFrame) -> np.ndarray:
    """Per row: whether its template offers more than two options anywhere in
    the bank. A template whose construct has two answers (a binary ranking)
    would need a never-keyed third option, which a blind agent learns to skip;
    its two-option items are not the short menus BAL003 is about."""
    if "template_id" not in frame.table.column_names or frame.n_rows == 0:
        return np.ones(frame.n_rows, dtype=bool)
    codes = pc.dictionary_encode(pc.fill_null(frame.table["template_id"], "")).combine_chunks()
    code = codes.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    most = np.zeros(len(codes.dictionary), dtype=np.int64)
    np.maximum.at(most, code, frame.q_n.astype(np.int64))
    return most[code] > 2


@dataclass(frozen=True)
class Balance:
    key_positions: list[int]  # keys at index 0, 1, …
    key_position_chi2: float
    key_position_p: float
    key_text_diversity: float  # distinct key texts / keys
    option_counts: dict[int, int]  # n options → questions
    yes_no_questions: int
    yes_share: float  # among Yes/No questions, share keyed Yes
    other_share: float  # distractors tagged `other` / distractors with a tag
    perspectives: dict[str, int]  # perspective → questions (one per unit)
    perspective_spread: float  # max |count / (questions / 5) − 1| over the five
    two_option_share: float  # rows with two options, where their template offers more


def balance(frame: OptionFrame) -> list[Balance]:
    """One `Balance` per element, in `frame.elements` order."""
    out = []
    keyed = frame.q_answer
    key_flags = frame.o_is_key & frame.rows_of(keyed)
    # Raw texts: masking numbers would make every numeric key look the same.
    key_code = pc.dictionary_encode(frame.o_text).indices.to_numpy().astype(np.int64)
    yes = yes_flags(frame)
    yn_rows = yes_no_rows(frame)
    row_yes = np.bincount(frame.o_row, weights=yes & frame.o_is_key, minlength=frame.n_rows) > 0
    width = int(frame.q_n.max()) if frame.n_rows else 0
    tagged, other = _tag_counts(frame)
    persp = _perspective_counts(frame)
    allows_more = _template_allows_more(frame)
    for e in range(len(frame.elements)):
        rows = keyed & (frame.q_element == e)
        n_opt = frame.q_n[rows]
        keys = frame.q_key[rows]
        observed = np.bincount(keys, minlength=width).astype(np.float64)
        expected = np.zeros(width)
        for n, count in zip(*np.unique(n_opt, return_counts=True), strict=True):
            expected[:n] += count / n
        stat, p = chisquare(observed, expected)
        el_keys = key_code[key_flags & (frame.rows_of(frame.q_element) == e)]
        n_keys = len(el_keys)
        yn = rows & yn_rows
        counts = np.unique(frame.q_n[frame.q_element == e], return_counts=True)  # rows (parts)
        el_n = frame.q_n[(frame.q_element == e) & allows_more]
        people = persp[e]
        questions = int(people.sum())
        expected = questions / len(PERSPECTIVES)
        spread = (
            float(np.abs(people[: len(PERSPECTIVES)] / expected - 1).max())
            if questions
            else float("nan")
        )
        out.append(
            Balance(
                key_positions=[int(x) for x in observed[: max(int(n_opt.max()), 1)]]
                if len(n_opt)
                else [],
                key_position_chi2=stat,
                key_position_p=p,
                key_text_diversity=len(np.unique(el_keys)) / n_keys if n_keys else float("nan"),
                option_counts={int(k): int(v) for k, v in zip(*counts, strict=True)},
                yes_no_questions=int(yn.sum()),
                yes_share=float(row_yes[yn].mean()) if yn.any() else float("nan"),
                other_share=float(other[e] / tagged[e]) if tagged[e] else float("nan"),
                perspectives={p: int(c) for p, c in zip(PERSPECTIVES, people, strict=False) if c}
                | ({"none": int(people[-1])} if people[-1] else {}),
                perspective_spread=spread,
                two_option_share=float((el_n == 2).mean())
                if len(el_n) and el_n.max() > 2
                else float("nan"),
            )
        )
    return out
