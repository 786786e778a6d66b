"""The audit's statistics against references: the seeded split, χ² p-values
(scipy), Wilson intervals (statsmodels) and consistency-rule chance."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare as scipy_chisquare
from statsmodels.stats.proportion import proportion_confint

from audit_banks import bank
from steer.audit import build_frame
from steer.audit._audit import _wilson
from steer.audit._chi2 import chi2_sf, chisquare
from steer.audit._consistency import consistency_outcome, p_random, parse_rule
from steer.audit._split import string_hashes

M64 = (1 << 64) - 1


def ref_splitmix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def ref_hash(text: str | None) -> int:
    data = (text or "").encode()
    total = sum((b + 1) * pow(0x100000001B3, k, 1 << 64) for k, b in enumerate(data)) & M64
    return ref_splitmix(total ^ len(data))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.text(max_size=40)), max_size=30), st.integers(0, 5))
def test_string_hashes_match_a_plain_reference(texts: list[str | None], cut: int) -> None:
    arr = pa.array(texts, pa.string())
    got = string_hashes(arr)
    assert [int(x) for x in got] == [ref_hash(t) for t in texts]
    # Sliced and chunked arrays hash the same strings the same way.
    sliced = arr.slice(min(cut, len(texts)))
    assert [int(x) for x in string_hashes(sliced)] == [ref_hash(t) for t in texts[cut:]]
    chunked = pa.chunked_array([arr.slice(0, cut), arr.slice(cut)], pa.string())
    assert [int(x) for x in string_hashes(chunked)] == [ref_hash(t) for t in texts]


def test_halves_keep_units_and_repeated_questions_together() -> None:
    rng = random.Random(3)
    rows = []
    for i in range(200):
        text = f"q{i % 150}"  # 50 texts repeat under other base ids
        for part in range(1 + (i % 3 == 0)):
            rows.append(
                {
                    "base_id": f"b{i}",
                    "part": part,
                    "question_text": f"{text} part {part}",
                    "options": ["a", "b"],
                    "correct_index": rng.randrange(2),
                }
            )
    frame = build_frame(bank(rows), seed=7)
    by_unit: dict[int, set[int]] = {}
    by_text: dict[str, set[int]] = {}
    texts = [
        f"{t}|{o}"
        for t, o in zip(
            frame.table["question_text"].to_pylist(),
            frame.table["options"].to_pylist(),
            strict=True,
        )
    ]
    for u, h, t in zip(frame.q_unit, frame.q_half, texts, strict=True):
        by_unit.setdefault(int(u), set()).add(int(h))
        by_text.setdefault(t, set()).add(int(h))
    assert all(len(h) == 1 for h in by_unit.values())
    assert all(len(h) == 1 for h in by_text.values())
    assert 0.35 < frame.q_half.mean() < 0.65
    other = build_frame(bank(rows), seed=8)
    assert (other.q_half != frame.q_half).any()  # the seed matters


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=2, max_size=8),
    st.lists(st.floats(0.5, 40), min_size=8, max_size=8),
)
def test_chisquare_matches_scipy(observed: list[int], weights: list[float]) -> None:
    obs = np.array(observed, dtype=float)
    if obs.sum() == 0:
        return
    w = np.array(weights[: len(obs)])
    exp = w / w.sum() * obs.sum()
    stat, p = chisquare(obs, exp)
    ref = scipy_chisquare(obs, exp)
    assert stat == pytest.approx(ref.statistic, rel=1e-9, abs=1e-12)
    assert p == pytest.approx(ref.pvalue, rel=1e-7, abs=1e-12)


def test_chi2_sf_tails() -> None:
    from scipy.stats import chi2

    for df in (1, 2, 3, 7, 30):
        for x in (0.01, 0.5, 1, 5, 20, 80, 300):
            assert chi2_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-8, abs=1e-300)


@given(st.integers(1, 2000), st.floats(0, 1))
def test_wilson_matches_statsmodels(n: int, share: float) -> None:
    k = round(share * n)
    lo, hi = _wilson(k, n, 1.959963984540054)
    ref = proportion_confint(k, n, alpha=0.05, method="wilson")
    assert lo == pytest.approx(ref[0], abs=1e-9)
    assert hi == pytest.approx(ref[1], abs=1e-9)


def brute_p_random(rule: str, n_options: tuple[int, ...]) -> float:
    """Enumerate every answer combination and test each constraint in plain Python."""
    cons = parse_rule(rule)
    hits = total = 0
    for combo in itertools.product(*(range(k) for k in n_options)):
        total += 1
        ok = True
        for c in cons:
            x, y = combo[c.a], combo[c.b]
            if c.kind == "same":
                ok &= x == y
            elif c.kind == "flip":
                ok &= y == n_options[c.b] - 1 - x
            elif x >= len(c.sets):
                ok = False
            else:  # map: None allows any option of b
                ok &= c.sets[x] is None or y in c.sets[x]
        hits += ok
    return hits / total


@pytest.mark.parametrize(
    ("rule", "n_options", "closed_form"),
    [
        ("same:01", (2, 2), 1 / 2),
        ("flip:01", (4, 4), 1 / 4),
        ("same:01,12", (3, 3, 3), 1 / 9),
        ("same:01; flip:12", (2, 2, 2), 1 / 4),
        ("same:01", (2, 3), 1 / 3),
        ("map:01=2|1+2", (2, 3), 1 / 2),
        ("map:01=*|-|3", (3, 4), 5 / 12),
        ("map:01=3|3|2+3", (3, 4), 1 / 3),
    ],
)
def test_p_random_closed_forms(rule: str, n_options: tuple[int, ...], closed_form: float) -> None:
    assert p_random(rule, n_options) == pytest.approx(closed_form)
    assert brute_p_random(rule, n_options) == pytest.approx(closed_form)


def test_parse_rule_rejects_malformed_rules() -> None:
    for bad in ("", "same", "same:0", "same:00", "equal:01", "same:012"):
        with pytest.raises(ValueError):
            parse_rule(bad)


def test_keep_and_switch_on_consistency_groups() -> None:
    def group(g: str, rule: str, first: list[str], second: list[str]) -> list[dict]:
        return [
            {
                "base_id": g,
                "part": p,
                "question_text": f"{g} {p}",
                "options": o,
                "correct_index": None,
                "grading": "consistency",
                "consistency_group": g,
                "consistency_rule": rule,
            }
            for p, o in enumerate((first, second))
        ]

    rows = (
        group("g1", "same:01", ["A", "B"], ["A", "B"])
        + group("g2", "flip:01", ["A", "B", "C"], ["C", "B", "A"])  # reversed listing
        + group("g3", "same:01", ["x 1", "y 2"], ["x 3", "y 4"])  # texts differ: same index
        # A dominating newcomer: keeping "A" is inconsistent, moving to "D" is required.
        + group("g4", "map:01=1|1|0+1", ["A", "B", "C"], ["C", "D", "A", "B"])
    )
    out = consistency_outcome(build_frame(bank(rows)))
    graded = out.graded
    assert graded.sum() == 4
    assert list(out.keep[graded]) == [1, 1, 1, 0]
    assert list(out.switch[graded]) == [0, 0, 0, 0]
    assert list(out.chance[graded]) == pytest.approx([1 / 2, 1 / 3, 1 / 2, 1 / 3])


def test_p_random_estimates_huge_option_spaces_instead_of_enumerating() -> None:
    assert p_random("same:01,12", (300, 300, 300)) == pytest.approx(1 / 300**2, abs=2e-5)
    assert p_random("flip:01", (1000, 1000)) == pytest.approx(1 / 1000, rel=0.3)
