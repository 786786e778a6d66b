"""Paired tests and multiple-comparison control against statsmodels / scipy and
against plain reference implementations (hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from steer.stats import adjust, mcnemar_exact, paired_bootstrap

# --- plain references ---------------------------------------------------------------


def mcnemar_reference(b: int, c: int) -> float:
    """Two-sided exact McNemar: 2·P[Bin(b + c, 1/2) ≤ min(b, c)], capped at 1."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def holm_reference(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        out[i] = running
    return out


def bh_reference(p: list[float]) -> list[float]:
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    out = [0.0] * m
    running = 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, p[i] * m / (rank + 1))
        out[i] = min(1.0, running)
    return out


counts = st.integers(min_value=0, max_value=400)
pvalues = st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=40)

# --- McNemar ------------------------------------------------------------------------


@pytest.mark.parametrize(("b", "c"), [(0, 0), (0, 1), (3, 12), (12, 3), (7, 7), (0, 30), (150, 90)])
def test_mcnemar_matches_statsmodels_and_scipy(b: int, c: int) -> None:
    ours = mcnemar_exact(b, c)
    table = [[10, b], [c, 20]]
    assert ours == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-9, abs=1e-300)
    if b + c:
        assert ours == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9, abs=1e-300)


@settings(max_examples=200, deadline=None)
@given(counts, counts)
def test_mcnemar_matches_the_plain_binomial_sum(b: int, c: int) -> None:
    ours = mcnemar_exact(b, c)
    assert ours == pytest.approx(mcnemar_reference(b, c), rel=1e-9, abs=1e-300)
    assert ours == mcnemar_exact(c, b)  # symmetric
    assert 0.0 <= ours <= 1.0


def test_mcnemar_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="≥ 0"):
        mcnemar_exact(-1, 3)


# --- Holm and Benjamini–Hochberg -------------------------------------------------------


@pytest.mark.parametrize(("ours", "theirs"), [("holm", "holm"), ("bh", "fdr_bh")])
@settings(max_examples=150, deadline=None)
@given(p=pvalues)
def test_adjustment_matches_statsmodels(ours: str, theirs: str, p: list[float]) -> None:
    expected = multipletests(p, method=theirs)[1]
    np.testing.assert_allclose(adjust(p, ours), expected, rtol=1e-12, atol=1e-15)  # type: ignore[arg-type]


@settings(max_examples=150, deadline=None)
@given(p=pvalues)
def test_adjustment_matches_plain_references(p: list[float]) -> None:
    np.testing.assert_allclose(adjust(p, "holm"), holm_reference(p), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(adjust(p, "bh"), bh_reference(p), rtol=1e-12, atol=1e-15)
    assert list(adjust(p, "none")) == p
    # Holm (family-wise error) is never less strict than BH (false discovery rate).
    assert np.all(adjust(p, "holm") >= adjust(p, "bh") - 1e-15)


def test_adjustment_keeps_nan_out_of_the_family() -> None:
    out = adjust([0.01, float("nan"), 0.04], "holm")
    assert out[0] == pytest.approx(0.02) and math.isnan(out[1]) and out[2] == pytest.approx(0.04)
    assert adjust([], "bh").size == 0
    with pytest.raises(ValueError, match="unknown correction"):
        adjust([0.5], "bonferroni")  # type: ignore[arg-type]


# --- paired bootstrap -----------------------------------------------------------------


def bootstrap_reference(
    a: np.ndarray, b: np.ndarray, resamples: int, level: float, seed: int
) -> tuple[float, float]:
    """Resample question indices with replacement; percentile interval of the mean of b − a."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, a.size, size=(resamples, a.size))
    means = (b - a)[idx].mean(axis=1)
    alpha = (1 - level) / 2
    lo, hi = np.quantile(means, [alpha, 1 - alpha])
    return float(lo), float(hi)


@pytest.mark.parametrize("kind", ["binary", "continuous"])
def test_paired_bootstrap_interval_agrees_with_a_plain_resampler(kind: str) -> None:
    rng = np.random.default_rng(5)
    n = 400
    if kind == "binary":
        a = (rng.random(n) < 0.7).astype(float)
        b = np.where(rng.random(n) < 0.8, a, 1 - a)
    else:
        a = rng.normal(0.5, 0.3, n)
        b = a + rng.normal(-0.05, 0.2, n)
    ours = paired_bootstrap(a, b, resamples=20_000, level=0.9, seed=1, key="x")
    lo, hi = bootstrap_reference(a, b, 20_000, 0.9, 2)
    assert ours.mean == pytest.approx(float(np.mean(b - a)))
    # Two independent Monte Carlo streams: equal up to resampling noise.
    width = hi - lo
    assert ours.lo == pytest.approx(lo, abs=0.05 * width)
    assert ours.hi == pytest.approx(hi, abs=0.05 * width)


@settings(max_examples=60, deadline=None)
@given(
    pairs=st.lists(
        st.tuples(st.sampled_from([0.0, 1.0, -1 / 3, 0.5]), st.sampled_from([0.0, 1.0, -1 / 3])),
        min_size=1,
        max_size=120,
    ),
    seed=st.integers(0, 2**32 - 1),
    data=st.data(),
)
def test_paired_bootstrap_properties(
    pairs: list[tuple[float, float]], seed: int, data: st.DataObject
) -> None:
    a = np.array([p[0] for p in pairs])
    b = np.array([p[1] for p in pairs])
    result = paired_bootstrap(a, b, resamples=300, level=0.95, seed=seed, key="cell")
    diff = b - a
    assert result.mean == pytest.approx(float(diff.mean()))
    assert diff.min() - 1e-12 <= result.lo <= result.hi <= diff.max() + 1e-12
    assert 0 < result.p <= 1
    # The stream depends on the seed and key, not on the order of the questions.
    order = data.draw(st.permutations(range(len(pairs))))
    shuffled = paired_bootstrap(a[order], b[order], resamples=300, seed=seed, key="cell")
    assert (shuffled.lo, shuffled.hi, shuffled.p) == (result.lo, result.hi, result.p)
    if np.all(diff == 0):
        assert result.p == 1.0 and result.lo == result.hi == 0.0


def test_paired_bootstrap_finds_a_real_shift_and_not_noise() -> None:
    rng = np.random.default_rng(0)
    a = (rng.random(300) < 0.8).astype(float)
    worse = np.where(rng.random(300) < 0.3, 0.0, a)
    assert paired_bootstrap(a, worse, resamples=2000, seed=0, key="k").p < 0.01
    same = paired_bootstrap(a, a, resamples=2000, seed=0, key="k")
    assert same.p == 1.0 and same.mean == 0.0
    empty = paired_bootstrap(np.array([]), np.array([]), seed=0)
    assert math.isnan(empty.mean)
    with pytest.raises(ValueError, match="differ in length"):
        paired_bootstrap(np.zeros(2), np.zeros(3))
