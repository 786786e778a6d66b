"""Parameter recovery through the whole pipeline: reference agents with known
preferences and response noise play the experiments (`steer play`), `steer
fit` fits them, and the 95% intervals cover the true parameters in at least
90% of seeded trials, across parameter points humans and models show."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from steer.fit import fit_runs
from steer.play import play_experiment

PT_POINTS = [
    {"alpha": 0.88, "beta": 0.88, "lambda": 2.25, "gamma": 0.61, "delta": 0.69},
    {"alpha": 0.6, "beta": 0.8, "lambda": 1.2, "gamma": 0.45, "delta": 0.8},
    {"alpha": 1.0, "beta": 1.0, "lambda": 1.0, "gamma": 1.0, "delta": 1.0},
    {"alpha": 0.75, "beta": 0.75, "lambda": 3.5, "gamma": 0.8, "delta": 0.5},
]
SEEDS = range(5)


def _estimates(fits: object, family: str) -> dict[str, dict]:
    return {r["parameter"]: r for r in fits.to_pylist() if r["family"] == family}  # type: ignore[attr-defined]


def _covered(row: dict, truth: float) -> bool:
    return bool(row["identified"]) and row["ci_lo"] <= truth <= row["ci_hi"]


@pytest.mark.slow
def test_prospect_theory_recovery(tmp_path: Path) -> None:
    hits: dict[str, int] = dict.fromkeys(PT_POINTS[0], 0)
    trials = 0
    for (i, point), seed in itertools.product(enumerate(PT_POINTS), SEEDS):
        args = ",".join(f"{k}={v}" for k, v in point.items())
        spec = f"agent:pt({args},noise=0.05)"
        runs = []
        for experiment in ("gambling", "mixed-gamble"):
            out = tmp_path / f"{i}-{seed}-{experiment}"
            play_experiment(experiment, spec, out, samples=10, seed=seed)
            runs.append(out)
        fitted = _estimates(fit_runs(runs, bootstrap=300, seed=seed), "prospect-theory")
        trials += 1
        for name, truth in point.items():
            hits[name] += _covered(fitted[name], truth)
    coverage = {k: v / trials for k, v in hits.items()}
    assert all(c >= 0.9 for c in coverage.values()), coverage


@pytest.mark.slow
@pytest.mark.parametrize("k", [0.02, 0.3, 2.0])
def test_hyperbolic_recovery(tmp_path: Path, k: float) -> None:
    covered = 0
    for seed in SEEDS:
        out = tmp_path / f"{seed}"
        play_experiment("waiting", f"agent:hyperbolic(k={k},noise=0.03)", out, samples=3,
                        seed=seed)  # fmt: skip
        fitted = _estimates(fit_runs([out], bootstrap=300, seed=seed), "hyperbolic")
        covered += _covered(fitted["k"], k)
    assert covered / len(SEEDS) >= 0.8  # 4 of 5: one miss in five is within 95% intervals


@pytest.mark.slow
@pytest.mark.parametrize("delta", [0.5, 0.8, 0.97])
def test_exponential_recovery_and_s_time(tmp_path: Path, delta: float) -> None:
    covered = 0
    for seed in SEEDS:
        out = tmp_path / f"{seed}"
        play_experiment("discounting", f"agent:exponential(delta={delta},noise=0.03)", out,
                        samples=3, seed=seed)  # fmt: skip
        fits = fit_runs([out], bootstrap=300, seed=seed)
        covered += _covered(_estimates(fits, "exponential")["delta"], delta)
        s_time = _estimates(fits, "econbench")["S_time"]
        assert s_time["estimate"] == pytest.approx(100 * delta, abs=5)
        # No magnitude effect in an exponential discounter.
        assert _estimates(fits, "econbench")["magnitude_penalty"]["estimate"] == 0.0
    assert covered / len(SEEDS) >= 0.8


@pytest.mark.slow
@pytest.mark.parametrize("beta", [0.1, 0.3, 0.6])
def test_fehr_schmidt_beta_recovery(tmp_path: Path, beta: float) -> None:
    covered = 0
    for seed in SEEDS:
        out = tmp_path / f"{seed}"
        play_experiment("dictator", f"agent:fs(alpha=0.5,beta={beta},noise=0.02)", out,
                        samples=10, seed=seed)  # fmt: skip
        fitted = _estimates(fit_runs([out], bootstrap=300, seed=seed), "fehr-schmidt")
        covered += _covered(fitted["beta"], beta)
    assert covered / len(SEEDS) >= 0.8
