"""Ladder brackets and competence (vectorised) against a plain loop, and the
scores that need no utility fit against their definitions."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steer.fit._observations import ladders, pick
from steer.fit._runs import fit_runs
from steer.play import play_experiment

choice = st.tuples(
    st.sampled_from(["m1", "m2"]),
    st.sampled_from(["s1", "s2", "s3"]),
    st.integers(0, 2),
    st.floats(-50, 50, allow_nan=False).map(lambda x: round(x, 1)),
    st.integers(0, 1),
    st.integers(-1, 1),
)


def reference(rows: list[tuple[str, str, int, float, int, int]]) -> dict[tuple, tuple]:
    out: dict[tuple, list] = {}
    for model, stim, sample, level, accept, chosen in rows:
        out.setdefault((model, stim, sample), []).append((level, accept, chosen))
    result = {}
    for key, items in out.items():
        took = [lv for lv, a, c in items if c >= 0 and c == a]
        turned = [lv for lv, a, c in items if c >= 0 and c != a]
        lo = max(turned) if turned else math.nan
        hi = min(took) if took else math.nan
        missing = any(c < 0 for _, _, c in items)
        crossed = bool(turned and took and max(turned) >= min(took))
        result[key] = (lo, hi, not missing and not crossed)
    return result


@settings(deadline=None)
@given(st.lists(choice, min_size=1, max_size=60))
def test_ladders_match_a_plain_loop(rows: list[tuple[str, str, int, float, int, int]]) -> None:
    table = pa.table(
        {
            "model": [r[0] for r in rows],
            "stimulus": [r[1] for r in rows],
            "sample": pa.array([r[2] for r in rows], pa.int32()),
            "level": [r[3] for r in rows],
            "accept": pa.array([r[4] for r in rows], pa.int32()),
            "chosen": pa.array([r[5] for r in rows], pa.int64()),
        }
    )
    lad = ladders(table)
    ref = reference(rows)
    assert len(lad.sample) == len(ref)
    for i in range(len(lad.sample)):
        lo, hi, ok = ref[(lad.model[i], lad.stimulus[i], int(lad.sample[i]))]
        assert (math.isnan(lo) and math.isnan(lad.lo[i])) or lo == lad.lo[i]
        assert (math.isnan(hi) and math.isnan(lad.hi[i])) or hi == lad.hi[i]
        assert ok == bool(lad.competent[i])


def test_pick_takes_one_element_per_row() -> None:
    lists = pa.chunked_array([[[1.0, 2.0], [3.0]], [[4.0, 5.0, 6.0]]])
    assert pick(lists, pa.array([1, 0, 2])).tolist() == [2.0, 3.0, 6.0]


def _value(table: pa.Table, family: str, parameter: str) -> dict:
    rows = [r for r in table.to_pylist() if r["family"] == family and r["parameter"] == parameter]
    assert len(rows) == 1, rows
    return rows[0]


def test_expected_utility_agent_never_violates_independence(tmp_path: Path) -> None:
    # Linear weighting (gamma = delta = 1) is expected utility: common-ratio and
    # common-consequence shifts never change its choice.
    spec = "agent:pt(alpha=0.6,gamma=1,delta=1,noise=0)"
    play_experiment("mm-triangle", spec, tmp_path, samples=3)
    fits = fit_runs([tmp_path], bootstrap=50)
    assert _value(fits, "econbench", "S_risk")["estimate"] == 100.0
    assert _value(fits, "competence", "mm-triangle")["estimate"] == 1.0


def test_probability_weighting_shows_the_common_ratio_effect(tmp_path: Path) -> None:
    spec = "agent:pt(alpha=0.88,gamma=0.5,delta=0.5,noise=0)"
    play_experiment("mm-triangle", spec, tmp_path, samples=2)
    fits = fit_runs([tmp_path], bootstrap=50)
    assert _value(fits, "econbench", "S_risk")["estimate"] < 100.0
    assert _value(fits, "independence", "violation_rate")["estimate"] > 0


@pytest.mark.parametrize(("beta", "altruism"), [(0.1, 0.0), (0.8, 100.0)])
def test_altruism_and_offer_beta(tmp_path: Path, beta: float, altruism: float) -> None:
    play_experiment("dictator", f"agent:fs(beta={beta},noise=0)", tmp_path, samples=2)
    fits = fit_runs([tmp_path], bootstrap=50)
    assert _value(fits, "econbench", "altruism")["estimate"] == altruism
    assert _value(fits, "fehr-schmidt", "beta_offer")["estimate"] == 1 - altruism / 200


def test_fairness_is_the_rejection_rate_of_unfair_offers(tmp_path: Path) -> None:
    # alpha = 1 rejects offers below 10/3: 0, 1, 2, 3 of the 5 offers below half.
    play_experiment("ultimatum-responder", "agent:fs(alpha=1,noise=0)", tmp_path, samples=2)
    fits = fit_runs([tmp_path], bootstrap=50)
    assert _value(fits, "econbench", "fairness")["estimate"] == pytest.approx(80.0)


@pytest.mark.parametrize("alpha", [0.0, 0.3, 0.6, 1.0, 1.7])
def test_paper_alpha_bracket_covers_the_truth(tmp_path: Path, alpha: float) -> None:
    # Thresholds alpha P/(1 + 2 alpha) off the whole-dollar offers, so the
    # noise cannot make the boundary offer a coin flip.
    play_experiment("ultimatum-responder", f"agent:fs(alpha={alpha},noise=0.05)", tmp_path,
                    samples=30)  # fmt: skip
    row = _value(fit_runs([tmp_path], bootstrap=200), "fehr-schmidt", "alpha")
    assert row["identified"]
    assert row["ci_lo"] <= alpha <= row["ci_hi"] + 1e-12


def test_alpha_beyond_the_grid_is_a_lower_bound_not_a_number(tmp_path: Path) -> None:
    # alpha = 4 needs 4.44 of 10: only the equal split (and more) is accepted,
    # so alpha is only known to be at least 2 (the turned-down offer of 4).
    play_experiment("ultimatum-responder", "agent:fs(alpha=4,noise=0)", tmp_path, samples=3)
    row = _value(fit_runs([tmp_path], bootstrap=50), "fehr-schmidt", "alpha")
    assert not row["identified"] and row["estimate"] is None
    assert "alpha >= 2" in row["reason"]


def test_budget_choices_of_a_consistent_agent(tmp_path: Path) -> None:
    play_experiment("budget", "agent:garp(noise=0,share=0.3)", tmp_path, samples=3)
    fits = fit_runs([tmp_path], bootstrap=0)
    assert _value(fits, "revealed-preference", "ccei")["estimate"] == 1.0
    assert _value(fits, "revealed-preference", "garp_consistent")["estimate"] == 1.0


def test_noisy_budget_choices_lose_efficiency(tmp_path: Path) -> None:
    play_experiment("budget", "agent:garp(noise=0.4)", tmp_path, samples=4)
    fits = fit_runs([tmp_path], bootstrap=0)
    assert _value(fits, "revealed-preference", "ccei")["estimate"] < 1.0


def test_nothing_is_nan(tmp_path: Path) -> None:
    for e in ("gambling", "dictator", "ultimatum-responder", "budget", "mm-triangle"):
        play_experiment(e, "agent:human-panel", tmp_path / e, samples=2)
    fits = fit_runs(sorted(tmp_path.iterdir()), bootstrap=50)
    for column in ("estimate", "ci_lo", "ci_hi"):
        values = np.array([v for v in fits[column].to_pylist() if v is not None], dtype=float)
        assert np.isfinite(values).all()
    unidentified = [r for r in fits.to_pylist() if not r["identified"]]
    assert all(r["estimate"] is None and r["reason"] for r in unidentified)


delay_choice = st.lists(
    st.tuples(st.sampled_from([0.5, 1.0, 5.0]), st.integers(0, 1), st.sampled_from([100, 200])),
    min_size=1,
    max_size=6,
)


def delay_reference(ladders_in: list[tuple[float, int, int, list[int]]]) -> dict[tuple, bool]:
    """Competence of each (years, sample, amount) ladder by the definition, in loops:
    one switching point, and not $0 now over the delayed amount.
    `accepted[i]` says whether immediate amount LEVELS[i] was taken."""
    info = {}
    for years, sample, amount, accepted in ladders_in:
        took = [lv for lv, a in zip(LEVELS, accepted, strict=True) if a]
        turned = [lv for lv, a in zip(LEVELS, accepted, strict=True) if not a]
        lo = max(turned) if turned else -math.inf
        hi = min(took) if took else math.inf
        single = not (turned and took and max(turned) >= min(took))
        nothing = bool(took) and min(took) == 0
        info[(years, sample, amount)] = (lo, hi, single and not nothing)
    return {key: ok for key, (_lo, _hi, ok) in info.items()}


LEVELS = [0.0, 30.0, 60.0, 90.0]


@settings(deadline=None)
@given(delay_choice, st.lists(st.lists(st.booleans(), min_size=4, max_size=4), min_size=6,
                               max_size=6))  # fmt: skip
def test_delay_competence_matches_its_definition(
    keys: list[tuple[float, int, int]], patterns: list[list[bool]]
) -> None:
    from steer.fit._observations import delay_ladders

    unique = list(dict.fromkeys(keys))
    ladders_in = [(y, s, a, patterns[i]) for i, (y, s, a) in enumerate(unique)]
    rows = []
    for years, sample, amount, accepted in ladders_in:
        for level, took in zip(LEVELS, accepted, strict=True):
            rows.append(("m", f"d{years}-{amount}", sample, level, 0, 0 if took else 1, years,
                         float(amount)))  # fmt: skip
    names = ("model", "stimulus", "sample", "level", "accept", "chosen", "years", "amount")
    table = pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)})
    lad = delay_ladders(table)
    ref = delay_reference(ladders_in)
    years = table["years"].to_numpy()[lad.first]
    amount = table["amount"].to_numpy()[lad.first]
    for i in range(len(lad.sample)):
        key = (float(years[i]), int(lad.sample[i]), int(amount[i]))
        assert bool(lad.competent[i]) == ref[key], (key, lad.reason[i])


def test_monotone_in_delay_on_median_immediate_equivalents(tmp_path: Path) -> None:
    from steer.fit._observations import delay_ladders, delay_monotone
    from steer.fit._runs import load_play_run

    play_experiment("waiting", "agent:hyperbolic(k=0.5,noise=0.02)", tmp_path / "h", samples=5)
    run = load_play_run(tmp_path / "h")
    share, pairs = delay_monotone(run.table, delay_ladders(run.table))
    assert (share, pairs) == (1.0, 6)  # seven delays, six adjacent pairs, none rising
    # A chooser that prefers waiting longer: reverse the delays of the trials.
    years = run.table["years"].to_numpy()
    flipped = run.table.set_column(
        run.table.schema.get_field_index("years"), "years", pa.array(100.0 - years)
    )
    share, pairs = delay_monotone(flipped, delay_ladders(flipped))
    assert pairs == 6 and share < 0.5


@pytest.mark.parametrize("model", ["agent:oracle", "agent:random"])
def test_degenerate_players_get_reasons_not_numbers(tmp_path: Path, model: str) -> None:
    # agent:oracle takes the first option everywhere (the lottery, $0 now,
    # accept): every list is censored on one side; agent:random switches
    # back and forth: hardly a competent list.
    for experiment in ("gambling", "mixed-gamble", "waiting", "ultimatum-responder"):
        play_experiment(experiment, model, tmp_path / experiment, samples=2)
    fits = fit_runs(sorted(tmp_path.iterdir()), bootstrap=50).to_pylist()
    by = {(r["family"], r["parameter"]): r for r in fits}
    for key in [("prospect-theory", "lambda"), ("hyperbolic", "k"), ("exponential", "delta")]:
        assert not by[key]["identified"] and by[key]["estimate"] is None and by[key]["reason"]
    assert by[("competence", "waiting")]["estimate"] == 0.0
    for r in fits:
        assert r["identified"] == (r["estimate"] is not None)
        assert r["estimate"] is None or math.isfinite(r["estimate"])
    alpha = by[("fehr-schmidt", "alpha")]
    if not alpha["identified"]:
        assert "e+" not in alpha["reason"]  # no absurd bound from an offer of half the pool


def test_took_nothing_is_judged_against_each_ladders_own_bottom_rung(tmp_path: Path) -> None:
    import json

    from steer.fit._observations import delay_ladders
    from steer.fit._runs import load_play_run

    grid = tmp_path / "waiting.json"
    rows = [
        {"id": "a", "amount": 1000, "delay": "1 year", "years": 1, "immediate": [0, 500, 900]},
        {"id": "b", "amount": 1000, "delay": "5 years", "years": 5, "immediate": [100, 500, 900]},
    ]
    grid.write_text(json.dumps({"experiment": "waiting", "grid_version": 1, "design": "t",
                                "rows": rows}))  # fmt: skip
    # agent:oracle takes the first option, money today, on every rung.
    play_experiment("waiting", "agent:oracle", tmp_path / "run", samples=3, grid=grid)
    run = load_play_run(tmp_path / "run")
    lad = delay_ladders(run.table)
    keys = zip(lad.stimulus, lad.sample.tolist(), strict=True)
    competent = dict(zip(keys, lad.competent, strict=True))
    assert all(not competent[("a", s)] for s in range(3))  # $0 now over $1000 later
    assert all(competent[("b", s)] for s in range(3))  # $100 now: some money, one switch
