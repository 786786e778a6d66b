"""The graded blind learner and the bank side of issue 20 §4 in the audit:
a leaky bank's learner grades above the bars and fails the audit, a balanced
bank's stays near 0 and passes; tag, perspective and option-count findings
match a plain count."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit_banks import bank, longest_key_bank, random_bank, word
from steer.audit import audit_bank, audit_frame, build_frame, render
from steer.audit._balance import PERSPECTIVES, balance

pytest.importorskip("sklearn")


def two_elements(leaky: bool, n: int = 500, seed: int = 1) -> list[dict]:
    """Questions of steer.1.1.a and steer.2.4.b (two modules): the key is the
    longest option when `leaky`, else at random among look-alike options."""
    rng = random.Random(seed)
    rows = []
    for element in ("steer.1.1.a", "steer.2.4.b"):
        for i in range(n):
            key = rng.randrange(4)
            if leaky:
                options = [word(rng, 12 if k == key else 5) for k in range(4)]
            else:
                options = [word(rng, rng.randint(4, 9)) for _ in range(4)]
            rows.append(
                {
                    "element": element,
                    "question_text": f"Question {i}: pick one.",
                    "options": options,
                    "correct_index": key,
                }
            )
    return rows


def reference_norm_strict(table, chosen: np.ndarray) -> float:
    """Normalized accuracy by hand: +1 right, −1/(n−1) wrong, averaged."""
    key = np.asarray(table["correct_index"].to_pylist())
    n = np.asarray([len(o) for o in table["options"].to_pylist()])
    return float(np.where(chosen == key, 1.0, -1.0 / (n - 1)).mean())


def test_a_leaky_bank_grades_high_and_fails_the_audit() -> None:
    report = audit_bank(bank(two_elements(leaky=True)))
    g = report.learner_grade
    assert g is not None and g.rubric == "whole-benchmark"
    assert g.score is not None and g.score > 0.8
    assert g.over and report.failed
    modules = {m.name: m for m in g.modules}
    assert set(modules) == {"1.1 Arithmetic", "2.4 Expected utility computations"}
    assert all(m.over and m.score > 0.8 for m in modules.values())


def test_a_balanced_bank_grades_near_zero_and_passes() -> None:
    report = audit_bank(bank(two_elements(leaky=False, seed=2)))
    g = report.learner_grade
    assert g is not None and g.score is not None
    assert abs(g.score) < 0.05, g
    assert not g.over and not report.failing and not report.failed


def test_the_graded_score_is_the_learners_normalized_accuracy() -> None:
    table = random_bank(400, seed=5)
    frame = build_frame(table, 0)
    report, choices = audit_frame(frame)
    # One element in one module: the card's score is that element's mean.
    want = reference_norm_strict(table, choices["learner"])
    assert report.learner_grade is not None
    assert report.learner_grade.score == pytest.approx(want, abs=1e-9)
    assert report.learner_grade.modules[0].score == pytest.approx(want, abs=1e-9)


def test_the_bars_decide() -> None:
    table = bank(two_elements(leaky=True, n=300))
    strict = audit_bank(table, max_learner_score=0.05, max_module_score=0.10)
    assert strict.learner_grade is not None and strict.learner_grade.over
    lax = audit_bank(table, max_learner_score=1.0, max_module_score=1.0)
    assert lax.learner_grade is not None and not lax.learner_grade.over
    assert not any(m.over for m in lax.learner_grade.modules)
    assert audit_bank(table, rubric=None).learner_grade is None
    assert audit_bank(table, learner=False).learner_grade is None


def test_a_rubric_file_grades_its_own_sections(tmp_path: Path) -> None:
    rubric = tmp_path / "mine.toml"
    rubric.write_text(
        'name = "mine"\nmetric = "normalized_accuracy_strict"\n\n'
        '[[section]]\nname = "arithmetic only"\nselect = ["steer.1.1"]\n',
        encoding="utf-8",
    )
    report = audit_bank(bank(two_elements(leaky=True, n=300)), rubric=rubric)
    g = report.learner_grade
    assert g is not None and g.rubric == "mine"
    assert [m.name for m in g.modules] == ["arithmetic only"]


def test_every_format_shows_the_grade() -> None:
    report = audit_bank(bank(two_elements(leaky=True, n=300)))
    text = render(report, "text")
    assert "graded blind learner: FAIL" in text and "1.1 Arithmetic" in text
    assert "over the bar:" in text
    md = render(report, "markdown")
    assert "| 1.1 Arithmetic |" in md and "graded blind learner: FAIL" in md
    data = json.loads(render(report, "json"))
    assert data["learner_grade"]["score"] > 0.8 and data["learner_grade"]["over"] is True
    csv_rows = render(report, "csv").splitlines()
    assert any(r.startswith("overall,graded,") for r in csv_rows)
    assert any(r.startswith("module:1.1 Arithmetic,graded,") for r in csv_rows)


def _cli(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "steer", "bank", "audit", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def test_cli_exit_status_follows_the_graded_learner(tmp_path: Path) -> None:
    # Keys that are always the longest option, but under a looser element
    # threshold: only the graded learner can fail the run.
    leaky = tmp_path / "leaky.parquet"
    pq.write_table(longest_key_bank(400, seed=3), leaky)
    done = _cli(leaky, "--threshold", "100", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "graded blind learner: FAIL" in done.stdout
    done = _cli(leaky, "--threshold", "100", "--max-learner-score", "1", cwd=tmp_path)
    assert done.returncode == 1  # the module bar still holds
    done = _cli(
        leaky, "--threshold", "100", "--max-learner-score", "1", "--max-module-score", "1",
        cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    balanced = tmp_path / "balanced.parquet"
    pq.write_table(random_bank(600, seed=4), balanced)
    done = _cli(balanced, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "graded blind learner: pass" in done.stdout
    done = _cli(balanced, "--rubric", "no-such-rubric", cwd=tmp_path)
    assert done.returncode == 2 and "no-such-rubric" in done.stderr


# --- §4 on a bank: `other` tags, perspectives, option counts -----------------------------------


def tagged_bank(tags: list[list[str]], perspectives: list[str], n_options: list[int]) -> list:
    rng = random.Random(0)
    rows = []
    for i, (t, p, k) in enumerate(zip(tags, perspectives, n_options, strict=True)):
        rows.append(
            {
                "question_text": f"Q{i} {word(rng)}",
                "options": [word(rng) for _ in range(k)],
                "correct_index": 0,
                "option_tags": ["key", *t][:k],
                "perspective": p,
            }
        )
    return rows


def test_bank_findings_name_element_value_and_limit() -> None:
    n = 50
    tags = [["other", "slip", "slip"]] * n  # a third of the distractors: `other`
    people = ["woman"] * 30 + ["man"] * 20  # three perspectives missing
    counts = [2] * 10 + [4] * 40  # a fifth of the items have two options
    report = audit_bank(bank(tagged_bank(tags, people, counts)), learner=False, min_n=10)
    (el,) = report.elements
    # The `other` share among the 2-option items' one distractor plus the rest.
    distractors = 10 * 1 + 40 * 3
    assert el.other_share == pytest.approx((10 + 40) / distractors)
    assert el.perspectives == {"woman": 30, "man": 20}
    assert el.perspective_spread == pytest.approx(2.0)  # woman: 30 where 10 are even
    assert el.two_option_share == pytest.approx(0.2)
    codes = [f.split(": ")[1].split()[0] for f in el.findings]
    assert codes == ["BAL001", "BAL002", "BAL003"]
    assert "38% of distractors" in el.findings[0] and "under 10%" in el.findings[0]
    text = render(report, "text")
    assert "BAL001 other-tags" in text and "steer.1.1.a 0.38" in text


def test_a_balanced_bank_has_no_findings() -> None:
    n = 100
    tags = [["slip", "reversed", "dropped"]] * n
    people = [PERSPECTIVES[i % 5] for i in range(n)]
    report = audit_bank(bank(tagged_bank(tags, people, [4] * n)), learner=False, min_n=10)
    (el,) = report.elements
    assert el.findings == [] and report.findings == []
    assert el.other_share == 0 and el.perspective_spread == 0
    assert el.two_option_share == 0


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from([*PERSPECTIVES, ""]), min_size=1, max_size=60))
def test_perspective_spread_matches_a_plain_count(people: list[str]) -> None:
    rows = tagged_bank([["a", "b", "c"]] * len(people), people, [4] * len(people))
    (b,) = balance(build_frame(bank(rows)))
    expected = len(people) / 5
    want = max(abs(people.count(p) / expected - 1) for p in PERSPECTIVES)
    assert b.perspective_spread == pytest.approx(want)
    assert sum(b.perspectives.values()) == len(people)
