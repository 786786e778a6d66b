"""steer.fit.fehr_schmidt: the threshold formulas, bootstrap coverage, degenerate data."""

from __future__ import annotations

import numpy as np
import pytest

from steer.errors import InputError
from steer.fit import fehr_schmidt


def responder(alpha: float, rng: np.random.Generator, reps: int = 10):  # type: ignore[no-untyped-def]
    offers = np.tile(np.arange(0, 11, dtype=float), reps)
    threshold = 10 * alpha / (1 + 2 * alpha)  # accept iff s ≥ αP/(1 + 2α)
    noisy = threshold + rng.normal(0, 0.6, len(offers))
    return offers, offers >= noisy


def allocation(beta: float, rng: np.random.Generator, reps: int = 4):  # type: ignore[no-untyped-def]
    t = np.tile(np.linspace(0.05, 0.95, 19), reps)
    own_b, other_b = np.full(len(t), 9.0), (1 - t) / t  # threshold Δown/Δadvantage = t
    noisy_beta = beta + rng.normal(0, 0.05, len(t))
    chose_a = noisy_beta <= t
    return np.full(len(t), 10.0), np.zeros(len(t)), own_b, other_b, chose_a


def test_formulas_on_clean_data() -> None:
    offers = np.arange(0.0, 11.0)
    t = fehr_schmidt(
        responder_group=np.zeros(11, np.int64), pool=np.full(11, 10.0), offer=offers,
        accepted=offers >= 3, proposer_group=[0, 0], proposer_pool=[10.0, 10.0],
        proposer_offer=[4.0, 5.0], bootstrap=50,
    )  # fmt: skip
    rows = {r["parameter"]: r for r in t.to_pylist()}
    assert rows["alpha"]["estimate"] == pytest.approx(0.3 / 0.4)
    assert rows["beta_offer"]["estimate"] == pytest.approx(0.55)
    assert not rows["beta"]["identified"] and rows["beta"]["reason"] == "no allocation choices"
    assert rows["alpha"]["n"] == 11 and rows["beta_offer"]["n"] == 2


def test_intervals_cover_alpha_and_beta() -> None:
    rng = np.random.default_rng(1)
    trials, alpha, beta = 40, 0.5, 0.3
    rg, off, acc, ag, cols = [], [], [], [], []
    for g in range(trials):
        o, a = responder(alpha, rng)
        rg.append(np.full(len(o), g))
        off.append(o)
        acc.append(a)
        c = allocation(beta, rng)
        ag.append(np.full(len(c[0]), g))
        cols.append(c)
    t = fehr_schmidt(
        responder_group=np.concatenate(rg), pool=np.full(sum(map(len, off)), 10.0),
        offer=np.concatenate(off), accepted=np.concatenate(acc),
        allocation_group=np.concatenate(ag),
        own_a=np.concatenate([c[0] for c in cols]), other_a=np.concatenate([c[1] for c in cols]),
        own_b=np.concatenate([c[2] for c in cols]), other_b=np.concatenate([c[3] for c in cols]),
        chose_a=np.concatenate([c[4] for c in cols]), bootstrap=300, seed=2,
    )  # fmt: skip
    rows = t.to_pylist()
    for name, truth in (("alpha", alpha), ("beta", beta)):
        sel = [r for r in rows if r["parameter"] == name]
        assert all(r["identified"] for r in sel)
        # α comes from a discrete offer grid: the interval is judged on the
        # grid's resolution (offers of 3 and 4 of 10 bracket α = 0.5).
        lo_ok = [r["ci_lo"] <= truth + (0.25 if name == "alpha" else 0) for r in sel]
        hi_ok = [
            r["ci_hi"] is None or r["ci_hi"] >= truth - (0.25 if name == "alpha" else 0)
            for r in sel
        ]
        cover = np.mean(np.array(lo_ok) & np.array(hi_ok))
        assert cover >= 0.9, (name, cover)


def test_degenerate_and_bad_input() -> None:
    offers = np.arange(0.0, 11.0)
    t = fehr_schmidt(responder_group=np.zeros(11, np.int64), pool=np.full(11, 10.0),
                     offer=offers, accepted=np.zeros(11, bool), bootstrap=10)  # fmt: skip
    row = t.to_pylist()[0]
    assert not row["identified"] and "more than half" in row["reason"]
    with pytest.raises(InputError, match="offer must be in"):
        fehr_schmidt(responder_group=[0], pool=[10.0], offer=[11.0], accepted=[True])
    with pytest.raises(InputError, match="missing"):
        fehr_schmidt(responder_group=[0], pool=[10.0], offer=[5.0])
    with pytest.raises(InputError, match="array lengths differ"):
        fehr_schmidt(responder_group=[0, 0], pool=[10.0], offer=[5.0], accepted=[True])
