"""Reading 1,000,000 free-text replies (about 300 bytes each, ending in a
sentence that gives the answer in one of many forms): steer's Rust reader
(`extract_answers`, one batch call, GIL released, rayon over replies) beside
the Python regex reader it replaced (tests/free_text_reference.py), in one
run. Target (issue 21): at least 1 million replies per second on 2 cores for
the native path (printed, never asserted; RAYON_NUM_THREADS=2 pins the pool).

    python -m pytest benches/bench_free_text.py --benchmark-enable -s
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from steer.adapt._free import extract_answers

sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
from free_text_reference import extract_number_reference

N_REPLIES = 1_000_000
TARGET = 1_000_000  # replies per second

_STEPS = [
    "First, marginal utility of good x is {a} and of good y is {b}.",
    "The price ratio is {a}/{b}, so the consumer trades until they match.",
    "Revenue rises by {a} while cost rises by {b} per unit.",
    "With {a} workers the output is {b} units per day.",
    "Taking the derivative gives {a} minus {b} times q.",
    "Demand falls by {a}% when the price rises by {b}%.",
    "Setting MR = MC at {a} gives a quantity of {b}.",
    "Surplus is the area of a triangle with base {a} and height {b}.",
]

# (closing sentence, value in the form "number") for a value v.
_ENDINGS = [
    ("So the answer is ${m}.", lambda v: round(v, 2)),
    ("Therefore the value is \\boxed{{{d}}}.", lambda v: v),
    ("ANSWER: {p}%", lambda v: v / 100),
    ("The result is {e} units.", lambda v: float(f"{v:.3e}")),
    ("The share is {n}/{k}.", None),
    ("Thus we get **{d}** hours.", lambda v: v),
    ("Final answer: \\boxed{{\\frac{{{n}}}{{{k}}}}}", None),
    ("That is −{d} per unit.", lambda v: -v),
    ("It comes to {w} dollars in total.", lambda v: float(round(v))),
    ("The elasticity is {d}.", lambda v: v),
]


def _replies(n: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """`n` replies of about 300 bytes and the value each one gives."""
    rng = np.random.default_rng(seed)
    fillers = []
    for _ in range(4000):
        steps = rng.choice(len(_STEPS), size=6)
        text = " ".join(
            _STEPS[s].format(a=int(rng.integers(1, 500)), b=round(float(rng.random()) * 90, 1))
            for s in steps
        )
        fillers.append(text[:270])
    endings: list[str] = []
    values: list[float] = []
    for _ in range(4000):
        v = round(float(rng.random()) * 20_000, 2)
        k = int(rng.integers(2, 40))
        num = int(rng.integers(1, 10 * k))
        which = int(rng.integers(len(_ENDINGS)))
        sentence, value = _ENDINGS[which]
        endings.append(
            sentence.format(
                m=f"{v:,.2f}", d=f"{v}", p=f"{v:.2f}", e=f"{v:.3e}", n=num, k=k, w=f"{round(v):,}"
            )
        )
        values.append(num / k if value is None else value(float(f"{v:.2f}")))
    pick_f = rng.integers(len(fillers), size=n)
    pick_e = rng.integers(len(endings), size=n)
    replies = [
        f"{fillers[f]} {endings[e]}" for f, e in zip(pick_f.tolist(), pick_e.tolist(), strict=True)
    ]
    return replies, np.asarray(values)[pick_e]


@pytest.fixture(scope="module")
def corpus() -> tuple[list[str], np.ndarray]:
    return _replies(N_REPLIES)


def _reference(replies: list[str]) -> list[float | None]:
    return [extract_number_reference(r) for r in replies]


def test_extract_one_million_replies(benchmark: Any, corpus: tuple[list[str], np.ndarray]) -> None:
    replies, expected = corpus
    size = sum(len(r.encode()) for r in replies) / len(replies)
    values, _ = benchmark.pedantic(extract_answers, args=(replies, "number"), rounds=5)
    native = benchmark.stats.stats.min if benchmark.stats else float("nan")
    np.testing.assert_allclose(values, expected, rtol=1e-12)

    t0 = time.perf_counter()
    ref = _reference(replies)
    python = time.perf_counter() - t0
    ref_right = np.mean(
        [
            r is not None and abs(r - e) <= 1e-9 * max(1.0, abs(e))
            for r, e in zip(ref, expected, strict=True)
        ]
    )
    threads = os.environ.get("RAYON_NUM_THREADS", f"all {os.cpu_count()}")
    print(
        f"\nfree-text reading, {len(replies):,} replies of {size:.0f} bytes on average, "
        f"rayon threads: {threads}\n"
        f"  steer (Rust, batch)   {native:8.3f} s  {len(replies) / native:12,.0f} replies/s"
        f"  (target >= {TARGET:,}/s on 2 cores)  reads 100% right\n"
        f"  Python regex reader   {python:8.3f} s  {len(replies) / python:12,.0f} replies/s"
        f"  reads {ref_right:.1%} right\n"
        f"  ratio                 {python / native:8.1f}x"
    )
