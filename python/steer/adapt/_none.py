"""The `none` adaptation: one option becomes "none of the other options is
correct". Across the questions with n options, the correct option is the one
replaced in exactly ⌈count/n⌉ of them (1 in n), chosen deterministically from
the seed; elsewhere a distractor is replaced, so "none" is then wrong."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

NONE_OPTION = "None of the other options is correct."


def _rank_key(seed: int, text: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{text}".encode()).digest()


def plan_none(questions: Iterable[Mapping[str, Any]], seed: int) -> dict[str, int]:
    """question_id -> index of the option to replace, for every answer-graded
    question (consistency-graded parts have no key and are left unchanged)."""
    by_n: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for q in questions:
        if q.get("correct_index") is not None and len(q["options"]) >= 2:
            by_n[len(q["options"])].append(q)
    plan: dict[str, int] = {}
    for n, group in by_n.items():
        group.sort(key=lambda q: _rank_key(seed, q["question_id"]))
        for rank, q in enumerate(group):
            key = int(q["correct_index"])
            if rank % n == 0:
                plan[q["question_id"]] = key
            else:
                others = [i for i in range(n) if i != key]
                pick = int.from_bytes(_rank_key(seed + 1, q["question_id"])[:4], "big")
                plan[q["question_id"]] = others[pick % len(others)]
    return plan


def apply_none(question: Mapping[str, Any], replaced: int | None) -> dict[str, Any]:
    """A copy of the question with option `replaced` swapped for NONE_OPTION.

    The key is unchanged: when the correct option is replaced, "none of the
    other options" is the correct answer at the same index.
    """
    q = dict(question)
    if replaced is not None:
        options = list(q["options"])
        options[replaced] = NONE_OPTION
        q["options"] = options
    return q
