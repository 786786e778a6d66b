"""Reference agents with known preferences choose what their utility says,
checked against plain references written here (scipy root finding for
certainty equivalents), through whole play runs."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq

from steer.backends import resolve_backend
from steer.backends._preference_agents import FS_ALPHA, FS_BETA, HumanPanelAgent
from steer.econ._preferences import Preferences, certainty_equivalent
from steer.fit._observations import ladders
from steer.fit._runs import load_play_run
from steer.play import play_experiment


def ref_weight(p: float, g: float) -> float:
    return p**g / (p**g + (1 - p) ** g) ** (1 / g) if 0 < p < 1 else float(p >= 1)


def ref_value(x: float, a: float, b: float, lam: float) -> float:
    return x**a if x >= 0 else -lam * (-x) ** b


def ref_ce(x1: float, p1: float, x2: float, p2: float, a: float, b: float, lam: float,
           g: float, d: float) -> float:  # fmt: skip
    """CE of a same-sign two-outcome prospect, |x2| > |x1|, by root finding."""
    w = ref_weight(p2, g if x2 > 0 else d)
    v = w * ref_value(x2, a, b, lam) + (1 - w) * ref_value(x1, a, b, lam)
    lo, hi = min(x1, x2), max(x1, x2)
    if hi - lo < 1e-12:
        return lo
    return float(brentq(lambda c: ref_value(c, a, b, lam) - v, lo - 1e-9, hi + 1e-9, xtol=1e-12))


@settings(deadline=None)
@given(
    x=st.sampled_from([(0, 50), (0, 100), (50, 150), (100, 200), (0, -100), (-50, -150)]),
    p2=st.floats(0.01, 0.99),
    a=st.floats(0.3, 1.5),
    b=st.floats(0.3, 1.5),
    lam=st.floats(0.5, 4),
    g=st.floats(0.3, 1.2),
    d=st.floats(0.3, 1.2),
)
def test_certainty_equivalent_matches_root_finding(
    x: tuple[int, int], p2: float, a: float, b: float, lam: float, g: float, d: float
) -> None:
    x1, x2 = x
    pref = Preferences(alpha=a, beta=b, lam=lam, gamma=g, delta=d)
    ours = certainty_equivalent([(x2, p2), (x1, 1 - p2)], pref)
    assert ours == pytest.approx(ref_ce(x1, 1 - p2, x2, p2, a, b, lam, g, d), abs=1e-7)


def _brackets(directory: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, object]:
    run = load_play_run(directory)
    lad = ladders(run.table)
    return lad.lo, lad.hi, lad.competent, (run.table, lad)


def test_noiseless_pt_agent_brackets_its_own_certainty_equivalents(tmp_path: Path) -> None:
    a, b, lam, g, d = 0.7, 0.9, 1.8, 0.5, 0.7
    spec = f"agent:pt(alpha={a},beta={b},lambda={lam},gamma={g},delta={d},noise=0)"
    play_experiment("gambling", spec, tmp_path, samples=1)
    lo, hi, competent, (table, lad) = _brackets(tmp_path)
    assert competent.all()
    rows = lad.first
    for i, r in enumerate(rows):
        t = {k: table[k][int(r)].as_py() for k in ("x1", "p1", "x2", "p2")}
        ce = ref_ce(t["x1"], t["p1"], t["x2"], t["p2"], a, b, lam, g, d)
        assert (math.isnan(lo[i]) or lo[i] <= ce + 1e-9) and (math.isnan(hi[i]) or ce <= hi[i])


def test_noiseless_hyperbolic_agent_brackets_its_immediate_equivalents(tmp_path: Path) -> None:
    k = 0.3
    play_experiment("waiting", f"agent:hyperbolic(k={k},noise=0)", tmp_path, samples=1)
    run = load_play_run(tmp_path)
    lad = ladders(run.table)
    years = run.table["years"].to_numpy()[lad.first]
    ie = 1000 / (1 + k * years)
    assert lad.competent.all()
    assert np.all((lad.lo <= ie) | np.isnan(lad.lo)) and np.all((ie <= lad.hi) | np.isnan(lad.hi))


@pytest.mark.parametrize("alpha", [0.0, 0.5, 1.0, 4.0])
def test_fs_responder_accepts_exactly_above_its_threshold(tmp_path: Path, alpha: float) -> None:
    play_experiment("ultimatum-responder", f"agent:fs(alpha={alpha},noise=0)", tmp_path, samples=1)
    run = load_play_run(tmp_path)
    offer = run.table["level"].to_numpy()
    accepted = run.table["chosen"].to_numpy() == 0
    assert np.array_equal(accepted, offer >= alpha * 10 / (1 + 2 * alpha) - 1e-9)


@pytest.mark.parametrize(("beta", "gives"), [(0.2, 0.0), (0.7, 0.5)])
def test_fs_dictator_gives_half_only_when_guilt_exceeds_a_half(
    tmp_path: Path, beta: float, gives: float
) -> None:
    play_experiment("dictator", f"agent:fs(beta={beta},noise=0)", tmp_path, samples=1)
    rows = load_play_run(tmp_path).table.to_pylist()
    shares = [r["option_q1"][r["chosen"]] / r["pool"] for r in rows if r["kind"] == "give"]
    # Whole dollars: half of an odd pool is not on offer; pools here are even.
    assert len(shares) == 5 and all(s == gives for s in shares)


def test_human_panel_draws_fehr_schmidt_from_the_published_distribution() -> None:
    agent = resolve_backend("agent:human-panel", seed=1)
    assert isinstance(agent, HumanPanelAgent)
    n = 3000
    subjects = [agent.subject(i) for i in range(n)]
    for values, attr in ((FS_ALPHA, "fs_alpha"), (FS_BETA, "fs_beta")):
        drawn = np.array([getattr(s, attr) for s in subjects])
        for v, p in values:
            share = float(np.mean(drawn == v))
            assert share == pytest.approx(p, abs=4 * math.sqrt(p * (1 - p) / n))
    # The same sample is the same subject (resumption, re-asking).
    assert agent.subject(7) == agent.subject(7)


def test_agents_answer_ordinary_questions_at_random(tmp_path: Path) -> None:
    agent = resolve_backend("agent:pt")
    q = {"question_id": "x", "options": ["a", "b", "c"], "grading": "answer", "payload": None}
    picks = {agent.answer([{**q, "question_id": f"q{i}"}])[0].chosen_index for i in range(40)}
    assert picks == {0, 1, 2}
