"""Key balance of a bank, per element: where the key sits, how varied the
key texts are, how many options questions have, and how Yes/No items lean.

Key position is tested with Pearson's χ² against what uniformly placed keys
would give: position i of a question with n options expects 1/n of a key
(i < n), summed over the element's answer-graded questions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow.compute as pc

from steer.audit._chi2 import chisquare
from steer.audit._frame import OptionFrame
from steer.audit.agents._phrases import yes_flags, yes_no_rows


@dataclass(frozen=True)
class Balance:
    key_positions: list[int]  # keys at index 0, 1, …
    key_position_chi2: float
    key_position_p: float
    key_text_diversity: float  # distinct key texts / keys
    option_counts: dict[int, int]  # n options → questions
    yes_no_questions: int
    yes_share: float  # among Yes/No questions, share keyed Yes


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
            )
        )
    return out
