"""A 5-parameter prospect-theory fit (α, β, λ, γ, δ; 56 TK-1992 certainty-
equivalent tasks, gains and mirrored losses, plus 16 mixed gambles) with 1,000
bootstrap resamples: steer against the same bootstrap done with scipy's
`least_squares` in a Python loop, on the same data, in one run.

Run: python -m pytest benches/bench_fit.py --benchmark-enable -s
(build first with `maturin develop --release`).

steer is timed through its public API (`steer.fit.prospect_theory`,
method="lm": bounded Levenberg-Marquardt on bracket midpoints, analytic
derivatives, each resample warm-started from the full-sample estimate), and
also with method="mle" (the default: 6 parameters with the noise scale, the
same < 0.15 s target). scipy runs
`least_squares` (bounded, trf, its default numerical Jacobian) on each
resample from the full-sample estimate, with the model vectorised in numpy;
it is timed on 100 resamples and scaled to 1,000. Nothing asserts a time;
the issue's targets (steer < 0.15 s on 2 cores, >= 20x faster than scipy)
are printed beside the measurements.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import fit_reference as ref
from steer.fit import PT_BOUNDS, prospect_theory

scipy_optimize = pytest.importorskip("scipy.optimize")

RESAMPLES = 1_000
SCIPY_RESAMPLES = 100
NAMES = ("alpha", "beta", "lambda", "gamma", "delta")


@pytest.fixture(scope="module")
def subject() -> dict[str, np.ndarray]:
    return ref.simulate_pt((0.88, 0.88, 2.25, 0.61, 0.69), 0.05, np.random.default_rng(0))


def _fit(d: dict[str, np.ndarray], method: str) -> Any:
    return prospect_theory(
        np.zeros(len(d["kind"]), np.int64),
        d["kind"], d["x1"], d["p1"], d["x2"], d["p2"], d["lo"], d["hi"],
        method=method, bootstrap=RESAMPLES, seed=1,
    )  # fmt: skip


def test_prospect_theory_bootstrap_vs_scipy(benchmark: Any, subject: dict[str, np.ndarray]) -> None:
    table = benchmark.pedantic(_fit, args=(subject, "lm"), rounds=5, iterations=1)
    t = benchmark.stats.stats.min
    t_mle = min(_timed(lambda: _fit(subject, "mle")) for _ in range(5))
    est = np.array(table["estimate"].to_pylist()[:5])
    closed = ~np.isnan(subject["lo"]) & ~np.isnan(subject["hi"])
    sub = {k: v[closed] for k, v in subject.items()}
    mid = 0.5 * (sub["lo"] + sub["hi"])
    lo = [PT_BOUNDS[n][0] for n in NAMES]
    hi = [PT_BOUNDS[n][1] for n in NAMES]
    rng = np.random.default_rng(0)
    n = len(mid)

    def scipy_bootstrap() -> np.ndarray:
        out = []
        for _ in range(SCIPY_RESAMPLES):
            idx = rng.integers(0, n, n)
            rs = {k: v[idx] for k, v in sub.items()}
            m = mid[idx]
            fit = scipy_optimize.least_squares(
                lambda x, rs=rs, m=m: vectorised_model(x, rs) - m, est, bounds=(lo, hi)
            )
            out.append(fit.x)
        return np.array(out)

    check = dict(sub)
    np.testing.assert_allclose(
        vectorised_model(est, check), ref.model_values(tuple(est), check), rtol=1e-12
    )
    with np.errstate(all="ignore"):
        t_scipy = _timed(scipy_bootstrap) * RESAMPLES / SCIPY_RESAMPLES
    ours = np.array([table["ci_lo"].to_pylist()[:5], table["ci_hi"].to_pylist()[:5]])
    print(
        f"\nProspect theory, 5 parameters, {n} closed brackets of 72 answers,"
        f" {RESAMPLES:,} bootstrap resamples:\n"
        f"  steer lm      {t * 1e3:8.1f} ms   (target < 150 ms)\n"
        f"  steer mle     {t_mle * 1e3:8.1f} ms   (target < 150 ms; the default method:"
        f" 6 parameters with sigma, all 72 answers)\n"
        f"  scipy loop    {t_scipy * 1e3:8.1f} ms   ({t_scipy / RESAMPLES * 1e3:.2f} ms a fit,"
        f" from {SCIPY_RESAMPLES} resamples)\n"
        f"  scipy/steer = {t_scipy / t:.1f}x (target >= 20x)\n"
        f"  steer 95% intervals: {np.round(ours, 3).tolist()}"
    )


def _w(p: np.ndarray, c: float) -> np.ndarray:
    pc, qc = p**c, (1.0 - p) ** c
    return pc / (pc + qc) ** (1.0 / c)


def vectorised_model(x: np.ndarray, d: dict[str, np.ndarray]) -> np.ndarray:
    """The prospect-theory switch values in numpy (what a scipy user writes)."""
    alpha, beta, lam, gamma, delta = x
    x1, p1, x2, p2 = d["x1"], d["p1"], np.nan_to_num(d["x2"]), np.nan_to_num(d["p2"])
    first = np.abs(x1) > np.abs(x2)
    xh, ph, xl = np.where(first, x1, x2), np.where(first, p1, p2), np.where(first, x2, x1)
    gain = np.maximum(x1, x2) > 0
    a = np.where(gain, alpha, beta)
    wh = np.where(gain, _w(ph, gamma), _w(ph, delta))
    v = wh * np.abs(xh) ** a + (1 - wh) * np.abs(xl) ** a
    ce = np.where(gain, 1.0, -1.0) * v ** (1 / a)
    q = np.clip(p1, 1e-12, 1 - 1e-12)
    g = (lam * _w(q, delta) * np.abs(x1) ** beta / _w(1 - q, gamma)) ** (1 / alpha)
    return np.where(d["kind"] == 0, ce, g)


def _timed(fn: Any) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
