"""Nash equilibria of 100,000 random 3x3 games: steer against pygambit and nashpy.

Run: python -m pytest benches/bench_nash.py --benchmark-enable -s
(build first with `maturin develop --release`).

steer solves the whole batch (rayon over games, GIL released); the per-game time is the
batch time divided by the number of games. The references solve one game per call, so
they are timed on a sample and reported per game. Nothing here asserts on time; the
issue's targets (pure Nash < 50 ns per game; support enumeration >= 20x faster than
gambit's enummixed_solve and >= 300x faster than nashpy's support_enumeration) are
printed as measured ratios.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import Any

import nashpy
import numpy as np
import pygambit as gbt
import pytest

from steer import _native

N_GAMES = 100_000
SAMPLE = 300  # games timed for each slow reference


@pytest.fixture(scope="module")
def games() -> np.ndarray:
    rng = np.random.default_rng(0)
    return rng.normal(size=(N_GAMES, 3, 3, 2))


def best_of(fn: Callable[[], object], repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def gambit_all(sample: np.ndarray) -> int:
    found = 0
    for g in sample:
        game = gbt.Game.from_arrays(g[:, :, 0], g[:, :, 1])
        found += len(gbt.nash.enummixed_solve(game, rational=False).equilibria)
    return found


def nashpy_all(sample: np.ndarray) -> int:
    found = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g in sample:
            found += sum(1 for _ in nashpy.Game(g[:, :, 0], g[:, :, 1]).support_enumeration())
    return found


def test_pure_nash_batch(benchmark: Any, games: np.ndarray) -> None:
    mask = benchmark.pedantic(_native.pure_nash_batch, args=(games,), rounds=20, iterations=1)
    assert mask.shape == (N_GAMES, 3, 3)
    t = benchmark.stats.stats.min
    # A plain numpy vectorised version, for scale.
    tol = 1e-9

    def numpy_pure(g: np.ndarray) -> np.ndarray:
        a, b = g[..., 0], g[..., 1]
        ca, rb = a.max(axis=1, keepdims=True), b.max(axis=2, keepdims=True)
        return (a >= ca - tol * np.maximum(1, np.abs(ca))) & (
            b >= rb - tol * np.maximum(1, np.abs(rb))
        )

    np.testing.assert_array_equal(numpy_pure(games), mask)
    t_np = best_of(lambda: numpy_pure(games))
    print(
        f"\npure Nash, {N_GAMES:,} random 3x3 games:\n"
        f"  steer {t * 1e3:8.2f} ms = {t / N_GAMES * 1e9:6.1f} ns/game (target < 50 ns)\n"
        f"  numpy {t_np * 1e3:8.2f} ms = {t_np / N_GAMES * 1e9:6.1f} ns/game"
        f"   numpy/steer = {t_np / t:.1f}x"
    )


def test_support_enumeration_vs_gambit_and_nashpy(benchmark: Any, games: np.ndarray) -> None:
    offsets, xs, ys = benchmark.pedantic(
        _native.nash_equilibria_batch, args=(games,), rounds=5, iterations=1
    )
    assert offsets.shape == (N_GAMES + 1,) and len(xs) == offsets[-1] == len(ys)
    t = benchmark.stats.stats.min
    per_game = t / N_GAMES
    sample = games[:SAMPLE]
    # Same answers on the sample (random real games are nondegenerate).
    assert gambit_all(sample) == offsets[SAMPLE]
    t_gambit = best_of(lambda: gambit_all(sample), repeat=2) / SAMPLE
    t_nashpy = best_of(lambda: nashpy_all(sample[:100]), repeat=1) / 100
    print(
        f"\nall Nash equilibria (support enumeration), {N_GAMES:,} random 3x3 games,"
        f" {offsets[-1]:,} equilibria:\n"
        f"  steer   {per_game * 1e6:9.3f} µs/game  ({t * 1e3:.1f} ms for the batch)\n"
        f"  gambit  {t_gambit * 1e6:9.1f} µs/game  gambit/steer = {t_gambit / per_game:8.0f}x"
        f" (target >= 20x)\n"
        f"  nashpy  {t_nashpy * 1e6:9.1f} µs/game  nashpy/steer = {t_nashpy / per_game:8.0f}x"
        f" (target >= 300x)"
    )
