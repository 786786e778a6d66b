"""Few-shot examples: chosen from a pool of questions with worked explanations,
preferring the same element+type+domain, then the same type, then the same
element; never the question itself (nor another part of it)."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

MAX_SHOTS = 5


def _order(seed: int, question_id: str, candidate_id: str) -> bytes:
    return hashlib.sha256(f"{seed}\x00{question_id}\x00{candidate_id}".encode()).digest()


class ShotPool:
    """Questions usable as examples, indexed for the three preference tiers."""

    def __init__(self, pool: Iterable[Mapping[str, Any]], seed: int = 0) -> None:
        self.seed = seed
        self._by_cell: dict[tuple[str, str, str], list[Mapping[str, Any]]] = defaultdict(list)
        self._by_type: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        self._by_element: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
        for q in pool:
            usable = (
                q.get("explanation")
                and q.get("correct_index") is not None
                and q.get("consistency_group") is None
            )
            if not usable:
                continue
            self._by_cell[(q["element"], q.get("type", ""), q.get("domain", ""))].append(q)
            self._by_type[q.get("type", "")].append(q)
            self._by_element[q["element"]].append(q)

    def select(self, question: Mapping[str, Any], k: int) -> list[Mapping[str, Any]]:
        """Up to `k` examples for `question`, best tier first; within a tier the
        order is a deterministic shuffle of (seed, question id)."""
        if not 0 <= k <= MAX_SHOTS:
            raise ValueError(f"shots must be between 0 and {MAX_SHOTS}, got {k}")
        if k == 0:
            return []
        tiers = (
            self._by_cell.get(
                (question["element"], question.get("type", ""), question.get("domain", "")), []
            ),
            self._by_type.get(question.get("type", ""), []) if question.get("type") else [],
            self._by_element.get(question["element"], []),
        )
        chosen: list[Mapping[str, Any]] = []
        seen: set[str] = set()
        own = (question["element"], question["base_id"])
        for tier in tiers:
            ranked = sorted(
                tier, key=lambda c: _order(self.seed, question["question_id"], c["question_id"])
            )
            for c in ranked:
                if (c["element"], c["base_id"]) == own or c["question_id"] in seen:
                    continue
                chosen.append(c)
                seen.add(c["question_id"])
                if len(chosen) == k:
                    return chosen
        return chosen
