"""Every interval a card prints holds its own estimate.

Without a bootstrap, the intervals of gap and normalized accuracy are mapped
from exact match's Wilson interval. Mapped with the average chance rate of a
cell, a cell whose questions have different option counts could print a
score outside its interval (`-0.750 [-0.714, -0.611]`). Over random small
tables with mixed option counts, right, wrong and missing answers, every
metric's interval (`ElementScore.bounds`) contains its estimate, with and
without a bootstrap.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grade_helpers import steer
from steer.rubric import grade, load_rubric

ELEMENTS = ("steer.1.1.c", "steer.3.1.b")
# (element, n_options, outcome): 0 right, 1 wrong, 2 no answer.
ADAPTATION = {"format": "mc", "shots": 0, "cot": "none", "prob_mode": "conditioning"}
QUESTION = st.tuples(st.sampled_from(ELEMENTS), st.integers(2, 6), st.integers(0, 2))


def _table(questions: list[tuple[str, int, int]]) -> pa.Table:
    chosen, correct = [], []
    for i, (_, n_options, outcome) in enumerate(questions):
        right = i % n_options
        correct.append(right)
        chosen.append([right, (right + 1) % n_options, -1][outcome])
    n = len(questions)
    return pa.table(
        {
            "run_id": ["r"] * n,
            "model": ["m"] * n,
            "backend": ["agent"] * n,
            "adaptation": [ADAPTATION] * n,
            "question_id": [f"q{i}" for i in range(n)],
            "base_id": [f"q{i}" for i in range(n)],
            "part": pa.array([0] * n, pa.int32()),
            "element": [e for e, _, _ in questions],
            "domain": ["finance"] * n,
            "type": ["positive"] * n,
            "perspective": [""] * n,
            "grade": pa.array([3] * n, pa.int32()),
            "n_options": pa.array([k for _, k, _ in questions], pa.int32()),
            "chosen_index": pa.array(chosen, pa.int32()),
            "correct_index": pa.array(correct, pa.int32()),
        }
    )


def _check(table: pa.Table, rubric: Path | str) -> None:
    result = grade([table], load_rubric(rubric))
    for card in result.cards:
        for score in card.elements.values():
            assert score.bounds, score
            for metric, (lo, hi) in score.bounds.items():
                value = score.value(metric)
                if value is not None:
                    assert lo <= value <= hi, (score.element, metric, lo, value, hi)
        for section in card.sections:
            if section.score is not None and section.lo is not None and section.hi is not None:
                assert section.lo - 1e-12 <= section.score <= section.hi + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.lists(QUESTION, min_size=1, max_size=30))
def test_every_wilson_mapped_interval_holds_its_estimate(
    questions: list[tuple[str, int, int]],
) -> None:
    _check(_table(questions), "whole-benchmark")


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(QUESTION, min_size=1, max_size=20))
def test_every_bootstrap_interval_holds_its_estimate(
    tmp_path: Path, questions: list[tuple[str, int, int]]
) -> None:
    rubric = tmp_path / "boot.toml"
    rubric.write_text('name = "boot"\nextends = "whole-benchmark"\nbootstrap = 200\n')
    _check(_table(questions), rubric)


def test_all_wrong_with_two_and_three_options_prints_the_score_inside(tmp_path: Path) -> None:
    # The verifier's case: 3.1.b, every answer wrong, 2 and 3 options.
    questions = [("steer.3.1.b", 2 + i % 2, 1) for i in range(18)]
    pq.write_table(_table(questions), tmp_path / "wrong.parquet")
    result = steer("grade", "wrong.parquet", "-r", "multi-agent", cwd=tmp_path)
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("steer.3.1.b")]
    score, interval = line.split()[-5], line.split("[")[1].split("]")[0]
    lo, hi = (float(x) for x in interval.split(","))
    assert lo <= float(score) <= hi, line
    assert float(score) == -0.75  # (−1 · 9 − ½ · 9) / 18
