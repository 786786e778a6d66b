"""Pools of well-formed wrong answers that are built lazily, text by text."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from steer.generate import SOLVERS, STRUCTURES
from steer.generate._registry import LazyTexts, Resample
from steer.templates import load_templates


def test_lazy_texts_behave_as_a_sequence() -> None:
    made: list[int] = []

    def make(i: int) -> str:
        made.append(i)
        return f"t{i}"

    texts = LazyTexts(5, make)
    assert len(texts) == 5 and made == []
    assert texts[0] == "t0" and texts[-1] == "t4" and texts[1:3] == ["t1", "t2"]
    assert list(texts) == [f"t{i}" for i in range(5)]
    assert "t3" in texts
    with pytest.raises(IndexError):
        texts[5]


@pytest.mark.parametrize("template_id", ["spe.entry", "spe.lending"])
def test_subgame_perfect_pool_lists_every_profile_once(template_id: str) -> None:
    (template,) = [t for t in load_templates() if t.spec.id == template_id]
    t = template.spec
    rng = np.random.default_rng(3)
    checked = 0
    for grade in sorted(t.grade):
        for _ in range(200):
            try:
                instance = STRUCTURES[t.structure].sample(rng, t.grade[grade], t)
                solution = SOLVERS[t.solver].solve(instance)
            except Resample:
                continue
            b = len(instance.choices or [])
            pool = solution.pool() if callable(solution.pool) else solution.pool
            texts = list(pool)
            # The leader's move and one reply per follower node: b * b^b profiles.
            assert len(texts) == b ** (b + 1) == len(set(texts))
            assert solution.text in texts
            labels = instance.data["labels"]
            leader_moves = {labels[n] for n in range(1, b + 1)}
            for text in texts:
                leader_part = text.split(";")[0].split(": ", 1)[1]
                assert leader_part in leader_moves
            replies = [text.split("; ")[1] for text in texts]
            assert len(set(replies)) == b**b
            checked += 1
            break
    assert checked == len(t.grade)
    assert list(itertools.islice(iter(pool), 2)) == texts[:2]
