"""steer.fit.discounting: recovery, reference objectives, scipy, degenerate data."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import least_squares

from steer.errors import InputError
from steer.fit import discounting

DELAYS = np.array([1 / 12, 0.5, 1.0, 5.0, 10.0, 25.0, 50.0])
AMOUNTS = 1000.0 - 1000.0 * np.arange(31) / 30  # immediate ladder, $1000 .. $0


def hyperbolic(k: float, d: np.ndarray) -> np.ndarray:
    return 1000.0 / (1.0 + k * d)


def exponential(delta: float, d: np.ndarray) -> np.ndarray:
    return 1000.0 * delta**d


def brackets(ie: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    rungs = np.sort(AMOUNTS)
    i = np.searchsorted(rungs, ie)
    lo = np.where(i > 0, rungs[np.maximum(i - 1, 0)], np.nan)
    hi = np.where(i < len(rungs), rungs[np.minimum(i, len(rungs) - 1)], np.nan)
    return lo, hi


def simulate(model, param: float, reps: int, rng: np.random.Generator):  # type: ignore[no-untyped-def]
    d = np.tile(DELAYS, reps)
    ie = model(param, d) * np.exp(0.1 * rng.standard_normal(len(d)))
    lo, hi = brackets(np.clip(ie, 1e-9, 999.0))
    return d, lo, hi


@pytest.mark.parametrize(("family", "model", "name", "truth"), [
    ("hyperbolic", hyperbolic, "k", 0.3),
    ("exponential", exponential, "delta", 0.93),
])  # fmt: skip
def test_intervals_cover_the_truth(family: str, model, name: str, truth: float) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(3)
    trials = 60
    parts = [simulate(model, truth, 4, rng) for _ in range(trials)]
    group = np.repeat(np.arange(trials), len(DELAYS) * 4)
    d = np.concatenate([p[0] for p in parts])
    lo = np.concatenate([p[1] for p in parts])
    hi = np.concatenate([p[2] for p in parts])
    t = discounting(group, d, np.full(len(d), 1000.0), lo, hi, families=[family], bootstrap=300)
    rows = [r for r in t.to_pylist() if r["parameter"] == name]
    assert all(r["identified"] for r in rows)
    cover = np.mean([r["ci_lo"] <= truth <= r["ci_hi"] for r in rows])
    assert cover >= 0.9, cover


def test_objective_and_criteria_match_references_and_scipy() -> None:
    rng = np.random.default_rng(8)
    d, lo, hi = simulate(hyperbolic, 0.2, 3, rng)
    t = discounting(np.zeros(len(d), np.int64), d, np.full(len(d), 1000.0), lo, hi, bootstrap=0)
    closed = ~np.isnan(lo) & ~np.isnan(hi)
    dd, mid = d[closed], 0.5 * (lo + hi)[closed]
    n = len(mid)
    rows = {r["family"] + "/" + r["parameter"]: r for r in t.to_pylist()}
    models = {
        "hyperbolic": (lambda x: 1000 / (1 + x[0] * dd), [0.0], [1e6], [[0.01], [1.0]]),
        "exponential": (lambda x: 1000 * x[0] ** dd, [1e-9], [1.5], [[0.5], [0.95]]),
        "quasi-hyperbolic": (
            lambda x: 1000 * x[0] * x[1] ** dd,
            [1e-9, 1e-9],
            [1.5, 1.5],
            [[1.0, 0.9], [0.7, 0.99]],
        ),
    }
    for family, (f, lb, ub, starts) in models.items():
        row = next(r for k, r in rows.items() if k.startswith(family + "/"))
        params = [r["estimate"] for k, r in rows.items() if k.startswith(family + "/")]
        ssr = float(np.sum((f(params) - mid) ** 2))
        assert row["ssr"] == pytest.approx(ssr, rel=1e-9)
        k = len(params)
        assert row["aic"] == pytest.approx(n * math.log(ssr / n) + 2 * k, rel=1e-9)
        assert row["bic"] == pytest.approx(n * math.log(ssr / n) + k * math.log(n), rel=1e-9)
        best = min(
            2 * least_squares(lambda x, f=f: f(x) - mid, x0, bounds=(lb, ub)).cost for x0 in starts
        )
        assert row["ssr"] <= best * (1 + 1e-9)


def test_degenerate_data_is_unidentified() -> None:
    # Always prefers the delayed $1000: every bracket open below... above.
    n = len(DELAYS)
    t = discounting(np.zeros(n, np.int64), DELAYS, np.full(n, 1000.0), np.full(n, 999.0),
                    np.full(n, np.nan), bootstrap=10)  # fmt: skip
    assert not any(t["identified"].to_pylist())
    assert "censored" in t["reason"][0].as_py()
    # One delay: quasi-hyperbolic β and δ are not separable.
    t = discounting(np.zeros(3, np.int64), [1.0, 1.0, 1.0], [1000.0] * 3, [790.0, 800, 810],
                    [800.0, 810, 820], families=["quasi-hyperbolic"], bootstrap=0)  # fmt: skip
    assert "singular" in t["reason"][0].as_py()
    assert t["estimate"].null_count == len(t)


@pytest.mark.parametrize(("kw", "message"), [
    ({"delay": [0.0, 1.0]}, "positive number of years"),
    ({"lo": [900.0, 1.0], "hi": [800.0, 2.0]}, "lo 900.0 > hi 800.0"),
    ({"amount": [1000.0]}, "array lengths differ"),
    ({"families": ["weird"]}, "families"),
])  # fmt: skip
def test_bad_input(kw: dict[str, object], message: str) -> None:
    args: dict[str, object] = {
        "group": [0, 0], "delay": [1.0, 2.0], "amount": [1000.0, 1000.0],
        "lo": [800.0, 700.0], "hi": [850.0, 750.0],
    }  # fmt: skip
    args.update(kw)
    with pytest.raises(InputError, match=message):
        discounting(**args)  # type: ignore[arg-type]
