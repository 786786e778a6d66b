"""A game run's metrics: the Rationality Check names, descriptive columns and
equilibrium-aware measures, per player with intervals over samples.

Per player (the spec of one or more seats), each metric is first computed
within each sample (over that player's seats and rounds), then averaged over
samples; the interval is a seeded percentile bootstrap over samples. The
graded metrics count every move the player was asked: a forfeited move (no
valid reply) scores as the least rational one (`FORFEIT_SCORES`: ``%NE`` 0,
``Dev`` 1, ``ActDev`` 1, a per-move ``gama_score`` 0), so not answering never
helps a grade. The descriptive metrics (payoff, regret, defection rate,
deviations, share kept) describe the valid moves only; forfeits are counted
in `forfeits`.

The metrics (which appear depends on the game):

``payoff``
    Mean payoff per move.
``bid_deviation`` / ``ActDev`` (auctions)
    |bid − value| / value, the published action deviation.
``guess_deviation`` (beauty contest)
    |guess − equilibrium|, in the game's units; ``ActDev`` is the same as a
    share of the action range (the published "fin" rows, in [0, 1]).
``defection_rate`` / ``%NE`` / ``Dev`` (games with a ``defect`` action)
    Share of moves that defect (the dominant, equilibrium action); ``%NE`` is
    that share under its published name and ``Dev`` = 1 − ``%NE``.
``private_share`` / ``%NE`` / ``Dev`` (public goods)
    Share of the endowment kept; the published ``%NE`` rows of the public-goods
    games are this share (REFERENCES: "rationality = share kept private").
``Eff`` (every game whose payoffs need no private values)
    Collective efficiency (mean round total − min) / (max − min) over all
    seats, attributed to every player at the table.
``regret``
    Mean ex-post regret: what the best reply to the others' actual moves of
    that round would have paid more (exact over discrete actions and action
    grids; on a 1,001-point grid, plus the move itself, for continuous ranges).
``gama_score`` (the GAMA-Bench games, 0–100)
    GAMA-Bench's score as its repository computes it after the April 2024
    revision (stated in each game file): guessing (100 − mean average guess) /
    100 × 100; El Farol (R − mean |share going − capacity|) / R × 100 with R =
    max(capacity, 1 − capacity); divide the dollar max(0, (G − mean |total /
    N − G|) / G × 100) with G = total / N; public goods (endowment − mean
    contribution) / endowment × 100; diner's dilemma 100 × share of expensive
    orders; sealed-bid auction 100 × mean max(0, (value − bid) / value). The
    group-level ones (guessing, El Farol, divide the dollar) are attributed
    to every player at the table, like ``Eff``.
    The sequential games (steer's reading, stated in their files): battle
    royale 100 × share of a player's turns aimed at the strongest (highest
    hit rate) opponent still standing; pirate game, per sample, 100 × (½ ×
    mean over its proposals of 1 − L1(proposal, backward-induction plan for
    the living pirates) / (2 × gold) + ½ × share of its votes equal to the
    backward-induction vote), on one part alone where it made only proposals
    or only votes. Forfeits score 0 in both.
``strongest_share`` (battle royale) / ``proposal_distance``, ``vote_accuracy``
(pirate game)
    The descriptive parts of those scores over valid moves: the share of
    shots at the strongest opponent; L1(proposal, plan) / (2 × gold); the
    share of votes equal to the backward-induction vote. A sequential game's
    ``payoff`` is each seat's final payoff (coins, or the share of the win),
    averaged over the player's seats; its ``ne_distance`` / ``converged_to``
    (pirate game) compare the final allocation with the backward-induction
    one, L1 / (2 × gold), averaged over samples.
``ne_distance`` / ``converged_to``
    Distance of the final round's play (pooled over samples) from the nearest
    Nash equilibrium and that equilibrium's label (`distance_to_nearest`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from steer.errors import InputError
from steer.play._equilibria import (
    collective_range,
    distance_to_nearest,
    nash_equilibria,
    pirate_outcome,
    pirate_vote,
)
from steer.play._games import (
    AuctionParams,
    BattleRoyaleParams,
    BeautyParams,
    DinerParams,
    DivideParams,
    ElFarolParams,
    FloatArray,
    Game,
    GuessingParams,
    NumberActions,
    PirateParams,
    PublicGoodsParams,
    payoffs,
)

_CONTINUOUS_GRID = 1001
#: What a forfeited move scores in the graded metrics (the least rational value).
FORFEIT_SCORES = {"%NE": 0.0, "Dev": 1.0, "ActDev": 1.0, "gama_score": 0.0}
BOOTSTRAP = 2000

#: Published human baselines of the Rationality Check games (Zhou et al., the
#: "fin" rows of the game results: prompt versions averaged), by steer's game
#: name and metric. The auction has none.
HUMAN_BASELINES: dict[str, dict[str, float]] = {
    "beauty-contest": {"ActDev": 0.2865},
    "prisoners-dilemma": {"%NE": 0.79},
    "repeated-prisoners-dilemma": {"%NE": 0.643},
    "public-goods": {"%NE": 0.583},
    "repeated-public-goods": {"%NE": 0.8714},
    "infinitely-repeated-prisoners-dilemma": {"Eff": 0.294},
    "battle-of-the-sexes": {"Eff": 0.805},
    "stag-hunt": {"Eff": 0.5},
    "minimum-effort": {"Eff": 0.286},
}


def _choices(game: Game) -> FloatArray:
    """The own actions a best reply is searched over."""
    acts = game.actions
    if isinstance(acts, tuple):
        return np.arange(len(acts), dtype=np.float64)
    grid = acts.grid()
    return grid if grid is not None else np.linspace(acts.min, acts.max, _CONTINUOUS_GRID)


def ex_post_regret(game: Game, profiles: FloatArray, values: FloatArray | None) -> FloatArray:
    """Each seat's regret in each profile (rows × players), vectorised."""
    choices = _choices(game)
    now = payoffs(game, profiles, values=values)
    out = np.zeros_like(now)
    rows, k = profiles.shape[0], choices.size
    # Bounded memory: rows are taken in chunks of about a million profiles.
    chunk = max(1, (1 << 20) // max(1, k))
    for start in range(0, rows, chunk):
        part = profiles[start : start + chunk]
        vals = None if values is None else values[start : start + chunk]
        m = part.shape[0]
        for seat in range(game.players):
            trial = np.repeat(part, k, axis=0)
            trial[:, seat] = np.tile(choices, m)
            v = None if vals is None else np.repeat(vals, k, axis=0)
            best = payoffs(game, trial, values=v)[:, seat].reshape(m, k).max(axis=1)
            out[start : start + m, seat] = np.maximum(0.0, best - now[start : start + m, seat])
    return out


def _interval(per_sample: FloatArray, ci: float, seed: list[int]) -> tuple[float, float]:
    """Percentile bootstrap of the mean over samples (NaN without two samples).
    Every metric of a player draws the same resamples (the same `seed`)."""
    x = per_sample[~np.isnan(per_sample)]
    if x.size < 2:
        return math.nan, math.nan
    idx = np.random.default_rng(seed).integers(0, x.size, size=(BOOTSTRAP, x.size))
    means = x[idx].mean(axis=1)
    tail = (1.0 - ci) / 2.0
    lo, hi = np.quantile(means, [tail, 1.0 - tail])
    return float(lo), float(hi)


def _per_sample(sample: Any, x: FloatArray, keep: Any, n_samples: int) -> FloatArray:
    """Mean of x over the kept rows of each sample (NaN where none)."""
    w = keep.astype(np.float64)
    total = np.bincount(sample, weights=np.where(keep, x, 0.0), minlength=n_samples)
    count = np.bincount(sample, weights=w, minlength=n_samples)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def _move_metrics(game: Game, move: FloatArray, value: FloatArray) -> dict[str, FloatArray]:
    """Per-move metric values (rows of the moves table)."""
    p = game.rule_params
    out: dict[str, FloatArray] = {}
    if isinstance(p, AuctionParams):
        dev = np.abs(move - value) / value
        out["bid_deviation"] = dev
        out["ActDev"] = dev
    elif isinstance(p, BeautyParams) and not isinstance(p, GuessingParams):
        acts = game.actions
        assert isinstance(acts, NumberActions)
        eq = acts.min  # the unique equilibrium: everyone at the bottom of the range
        out["guess_deviation"] = np.abs(move - eq)
        out["ActDev"] = np.abs(move - eq) / (acts.max - acts.min)
    elif isinstance(p, PublicGoodsParams):
        kept = (p.endowment - move) / p.endowment
        out["private_share"] = kept
        out["%NE"] = kept
        out["Dev"] = 1.0 - kept
    elif isinstance(game.actions, tuple) and "defect" in game.actions:
        defect = (move == game.actions.index("defect")).astype(np.float64)
        out["defection_rate"] = defect
        out["%NE"] = defect
        out["Dev"] = 1.0 - defect
    return out


def game_metrics(
    game: Game, moves: pa.Table, *, ci: float = 0.95, seed: int = 0, wording: str = "v1"
) -> pa.Table:
    """One row per player: n, forfeits, and each metric with `_lo`/`_hi`."""
    if not 0.0 < ci < 1.0:
        raise InputError(f"--ci must be between 0 and 1, got {ci}")
    if moves.num_rows == 0:
        raise InputError(f"game {game.name!r}: no moves to score")
    if game.sequential:
        return _sequential_metrics(game, moves, ci, seed, wording)
    sample = moves["sample"].to_numpy().astype(np.int64)
    rnd = moves["round"].to_numpy().astype(np.int64)
    seat = moves["seat"].to_numpy().astype(np.int64) - 1
    move = moves["move"].to_numpy()
    pay = moves["payoff"].to_numpy()
    value = moves["value"].to_numpy(zero_copy_only=False)
    forfeit = moves["forfeit"].to_numpy(zero_copy_only=False).astype(bool)
    player = np.asarray(moves["player"].to_pylist(), dtype=object)
    n_samples = int(sample.max()) + 1
    n_rounds = int(rnd.max())
    # Profiles: (sample, round) × seats, for regret and efficiency.
    cell = sample * n_rounds + (rnd - 1)
    profiles = np.full((n_samples * n_rounds, game.players), np.nan)
    profiles[cell, seat] = move
    vals_grid = None
    if game.needs_values:
        vals_grid = np.full_like(profiles, np.nan)
        vals_grid[cell, seat] = value
    played = ~np.isnan(profiles).any(axis=1)
    regret_grid = np.full_like(profiles, np.nan)
    regret_grid[played] = ex_post_regret(
        game, profiles[played], None if vals_grid is None else vals_grid[played]
    )
    per_move = _move_metrics(game, move, value)
    gama_move, gama_group = _gama(game, move, value, sample, rnd, n_samples, n_rounds)
    if gama_move is not None:
        per_move["gama_score"] = gama_move
    per_move["payoff"] = pay
    per_move["regret"] = regret_grid[cell, seat]
    eff_per_sample: FloatArray | None = None
    if not game.needs_values:
        try:
            lo, hi = collective_range(game)
        except InputError:
            lo = hi = 0.0
        if hi > lo:
            totals = np.full(n_samples * n_rounds, np.nan)
            pay_grid = np.full_like(profiles, np.nan)
            pay_grid[cell, seat] = pay
            totals[played] = pay_grid[played].sum(axis=1)
            by_sample = totals.reshape(n_samples, n_rounds)
            with np.errstate(invalid="ignore"):
                mean_total = np.nanmean(np.where(np.isnan(by_sample), np.nan, by_sample), axis=1)
            eff_per_sample = (mean_total - lo) / (hi - lo)
    converged, distance = _convergence(game, profiles, rnd, sample, n_rounds, played)
    names = ["payoff", *(m for m in per_move if m != "payoff" and m != "regret")]
    if gama_group is not None:
        names.append("gama_score")
    if eff_per_sample is not None:
        names.append("Eff")
    names.append("regret")
    rows: list[dict[str, Any]] = []
    for who in dict.fromkeys(player.tolist()):
        mine = player == who
        keep = mine & ~forfeit
        stream = [seed, *str(who).encode()]
        row: dict[str, Any] = {
            "model": who,
            "game": game.name,
            "wording": wording,
            "n_samples": int(np.unique(sample[mine]).size),
            "n_moves": int(keep.sum()),
            "forfeits": int((mine & forfeit).sum()),
        }
        for name in names:
            if name == "Eff" or (name == "gama_score" and gama_group is not None):
                group = eff_per_sample if name == "Eff" else gama_group
                assert group is not None
                ps = group[np.unique(sample[mine])]
            else:
                if name in FORFEIT_SCORES:  # every move asked counts
                    x = np.where(forfeit, FORFEIT_SCORES[name], per_move[name])
                    ps = _per_sample(sample, x, mine, n_samples)
                else:
                    ps = _per_sample(sample, per_move[name], keep, n_samples)
                ps = ps[np.unique(sample[mine])]
            finite = ps[~np.isnan(ps)]
            row[name] = float(finite.mean()) if finite.size else None
            lo_, hi_ = _interval(ps, ci, stream)
            row[f"{name}_lo"] = None if math.isnan(lo_) else lo_
            row[f"{name}_hi"] = None if math.isnan(hi_) else hi_
        row["ne_distance"] = distance
        row["converged_to"] = converged
        rows.append(row)
    return pa.Table.from_pylist(rows)


def _convergence(
    game: Game,
    profiles: FloatArray,
    rnd: Any,
    sample: Any,
    n_rounds: int,
    played: Any,
) -> tuple[str | None, float | None]:
    """Nearest equilibrium to the final rounds' play, pooled over samples."""
    if game.needs_values:
        return None, None  # equilibria are rules of play (bid your value), not profiles
    try:
        eqs = nash_equilibria(game)
    except InputError:
        return None, None
    if not any(e.strategies is not None for e in eqs.equilibria):
        return None, None
    # Each sample's last round played.
    last = np.full(int(sample.max()) + 1, -1)
    np.maximum.at(last, sample, rnd - 1)
    rows = np.arange(last.size) * n_rounds + last
    final = profiles[rows[played[rows]]]
    if final.size == 0:
        return None, None
    distance, index = distance_to_nearest(game, final, eqs)
    return eqs.equilibria[index].label, distance


def equilibrium_note(row: dict[str, object]) -> str | None:
    """Which equilibrium a player's final-round play is nearest, as a sentence
    (None when the game has no equilibrium to compare with)."""
    if row.get("converged_to") is None:
        return None
    distance = row.get("ne_distance")
    shown = "—" if not isinstance(distance, int | float) else f"{distance:.3f}"
    return f"final-round play is nearest the equilibrium {row['converged_to']} (distance {shown})"


def metric_names(table: pa.Table) -> Sequence[str]:
    """The metric columns of a `game_metrics` table, in order."""
    skip = {"run", "model", "game", "wording", "n_samples", "n_moves", "forfeits"}
    skip |= {"ne_distance", "converged_to"}
    return [c for c in table.column_names if c not in skip and not c.endswith(("_lo", "_hi"))]


def combine_wordings(table: pa.Table) -> pa.Table:
    """`game_metrics` rows of several runs, with a ``fin`` row for every (game,
    model) played under both wordings: each metric the mean of its ``v1`` and
    ``v2`` values, as Rationality Check's "fin" rows average its prompt
    versions. The interval is the mean of the two intervals' bounds, which is
    conservative (wider than the interval of the mean of two independent
    estimates)."""
    rows = table.to_pylist()
    names = metric_names(table)
    seen: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
    for row in rows:
        seen.setdefault((row["game"], row["model"]), {})[row.get("wording") or "v1"] = row
    extra = []
    for (game, model), by in seen.items():
        if "v1" not in by or "v2" not in by:
            continue
        a, b = by["v1"], by["v2"]
        fin: dict[str, Any] = {"model": model, "game": game, "wording": "fin"}
        if "run" in a:
            fin["run"] = f"{a['run']} + {b['run']}"
        for key in ("n_samples", "n_moves", "forfeits"):
            fin[key] = int(a[key]) + int(b[key])
        for name in names:
            for suffix in ("", "_lo", "_hi"):
                x, y = a.get(name + suffix), b.get(name + suffix)
                fin[name + suffix] = None if x is None or y is None else (x + y) / 2
        fin["ne_distance"] = fin["converged_to"] = None
        extra.append(fin)
    if not extra:
        return table
    return pa.Table.from_pylist(rows + extra)


def metric_records(table: pa.Table) -> list[dict[str, Any]]:
    """A `game_metrics` table as fit records (`steer.rubric.Fit` fields), so
    rubric checks grade a game's metrics like fitted parameters:
    ``parameter = "prisoners-dilemma.defection_rate"`` (the bare metric name
    where one game was played). Where a game was played under both wordings
    (`combine_wordings`), the ``fin`` row is the baseline and each wording its
    own condition (``…@wording:v2``)."""
    out = []
    both = {(r["game"], r["model"]) for r in table.to_pylist() if r.get("wording") == "fin"}
    for row in table.to_pylist():
        wording = row.get("wording") or "v1"
        condition = None
        if (row["game"], row["model"]) in both and wording != "fin":
            condition = f"wording:{wording}"
        for name in metric_names(table):
            if name not in row:
                continue
            value = row[name]
            out.append(
                {
                    "model": row["model"],
                    "parameter": name,
                    "family": row["game"],
                    "experiment": row["game"],
                    "estimate": value,
                    "ci_lo": row.get(f"{name}_lo"),
                    "ci_hi": row.get(f"{name}_hi"),
                    "n": row["n_samples"],
                    "condition": condition,
                    "identified": value is not None,
                    "reason": None if value is not None else "every move was forfeited",
                }
            )
    return out


def _gama(
    game: Game,
    move: FloatArray,
    value: FloatArray,
    sample: Any,
    rnd: Any,
    n_samples: int,
    n_rounds: int,
) -> tuple[FloatArray | None, FloatArray | None]:
    """GAMA-Bench's 0-100 score: per move (decomposable games), or per sample
    (group-level games); (None, None) for every other game."""
    if not game.name.startswith("gama:"):
        return None, None
    p = game.rule_params
    if isinstance(p, PublicGoodsParams):
        return 100.0 * (p.endowment - move) / p.endowment, None
    if isinstance(p, DinerParams):
        return 100.0 * (move == 1), None
    if isinstance(p, AuctionParams):
        return 100.0 * np.maximum(0.0, (value - move) / np.where(value == 0, 1.0, value)), None
    # Group-level: a statistic per (sample, round), then per sample.
    cell = sample * n_rounds + (rnd - 1)
    count = np.bincount(cell, minlength=n_samples * n_rounds)
    played = count > 0

    def per_round(x: FloatArray) -> FloatArray:
        total = np.bincount(cell, weights=x, minlength=n_samples * n_rounds)
        return np.where(played, total / np.maximum(count, 1), np.nan)

    def per_sample(x: FloatArray) -> FloatArray:
        grid = x.reshape(n_samples, n_rounds)
        with np.errstate(invalid="ignore"):
            return np.nanmean(grid, axis=1)

    acts = game.actions
    if isinstance(p, GuessingParams) and isinstance(acts, NumberActions):
        s = per_sample(per_round(move) - acts.min)
        return None, 100.0 * (acts.max - acts.min - s) / (acts.max - acts.min)
    if isinstance(p, ElFarolParams):
        share = per_round((move == 0).astype(np.float64))  # action 0 is "go"
        r = max(p.capacity, 1.0 - p.capacity)
        s = per_sample(np.abs(share - p.capacity))
        return None, 100.0 * (r - s) / r
    if isinstance(p, DivideParams):
        g = p.total / game.players
        mean_bid = per_round(move)  # total / N = the mean bid of the round
        s = per_sample(np.abs(mean_bid - g))
        return None, np.maximum(0.0, 100.0 * (g - s) / g)
    return None, None


# --- the sequential games ---------------------------------------------------------------


def sequential_scores(game: Game, rows: list[dict[str, Any]]) -> dict[str, list[float]]:
    """Per row (a move, in the moves table's order): its part of gama_score in
    [0, 1] (`score`, forfeits 0) and which part it is (`kind`: 0 a proposal or a
    shot, 1 a vote), replayed from the rows of each sample in step order."""
    p = game.rule_params
    score = [0.0] * len(rows)
    kind = [0.0] * len(rows)
    distance = [math.nan] * len(rows)
    order = sorted(range(len(rows)), key=lambda i: (rows[i]["sample"], rows[i]["round"]))
    if isinstance(p, BattleRoyaleParams):
        standing: set[int] = set()
        current = -1
        for i in order:
            r = rows[i]
            if r["sample"] != current:
                current, standing = r["sample"], set(range(game.players))
            shooter, target = r["seat"] - 1, int(r["move"]) - 1
            top = max(p.hit_rates[s] for s in standing if s != shooter)
            aimed = target in standing and target != shooter and p.hit_rates[target] == top
            score[i] = float(aimed and not r["forfeit"])
            if str(r["action"]).endswith(": hit"):
                standing.discard(target)
        return {"score": score, "kind": kind, "distance": distance}
    assert isinstance(p, PirateParams)
    plans: dict[tuple[int, int], list[int]] = {}  # (sample, proposal) -> the plan
    for i in order:
        r = rows[i]
        j = (r["round"] - 1) // 2  # the proposal's number: proposer = seat j
        living = game.players - j
        if r["round"] % 2 == 1:  # a proposal
            if r["forfeit"]:
                continue
            plan = [int(x) for x in str(r["action"]).split(",")]
            plans[(r["sample"], j)] = plan
            best = pirate_outcome(living, p.gold, p.pass_share)
            distance[i] = float(np.abs(np.asarray(plan) - best).sum()) / (2 * p.gold)
            score[i] = 1.0 - distance[i]
        else:
            kind[i] = 1.0
            plan = plans[(r["sample"], j)]
            right = pirate_vote(plan, r["seat"] - 1 - j, p.gold, p.pass_share)
            score[i] = float(not r["forfeit"] and (r["move"] == 1.0) == right)
    return {"score": score, "kind": kind, "distance": distance}


def _sequential_metrics(
    game: Game, moves: pa.Table, ci: float, seed: int, wording: str
) -> pa.Table:
    """`game_metrics` of the pirate game and the battle royale (see the module)."""
    rows = moves.to_pylist()
    parts = sequential_scores(game, rows)
    sample = np.array([r["sample"] for r in rows], dtype=np.int64)
    seat = np.array([r["seat"] for r in rows], dtype=np.int64)
    forfeit = np.array([bool(r["forfeit"]) for r in rows])
    player = np.array([r["player"] for r in rows], dtype=object)
    pay = np.array([r["payoff"] for r in rows], dtype=np.float64)
    score = np.array(parts["score"])
    vote = np.array(parts["kind"]) == 1.0
    n_samples = int(sample.max()) + 1
    first = np.zeros(len(rows), dtype=bool)  # one row per (sample, seat), for the payoff
    first[np.unique(sample * (game.players + 1) + seat, return_index=True)[1]] = True
    pirate = isinstance(game.rule_params, PirateParams)
    table: list[dict[str, Any]] = []
    for who in dict.fromkeys(player.tolist()):
        mine = player == who
        keep = mine & ~forfeit
        seen = np.unique(sample[mine])
        per: dict[str, FloatArray] = {"payoff": _per_sample(sample, pay, mine & first, n_samples)}
        if pirate:
            proposal = _per_sample(sample, score, mine & ~vote, n_samples)
            voting = _per_sample(sample, score, mine & vote, n_samples)
            with np.errstate(invalid="ignore"):
                both = np.where(
                    np.isnan(proposal), voting, np.where(np.isnan(voting), proposal,
                                                         (proposal + voting) / 2)
                )  # fmt: skip
            per["gama_score"] = 100.0 * both
            dist = np.array(parts["distance"])
            per["proposal_distance"] = _per_sample(sample, dist, keep & ~vote, n_samples)
            per["vote_accuracy"] = _per_sample(sample, score, keep & vote, n_samples)
        else:
            per["gama_score"] = 100.0 * _per_sample(sample, score, mine, n_samples)
            per["strongest_share"] = _per_sample(sample, score, keep, n_samples)
        stream = [seed, *str(who).encode()]
        row: dict[str, Any] = {
            "model": who, "game": game.name, "wording": wording,
            "n_samples": int(seen.size), "n_moves": int(keep.sum()),
            "forfeits": int((mine & forfeit).sum()),
        }  # fmt: skip
        for name, values in per.items():
            ps = values[seen]
            finite = ps[~np.isnan(ps)]
            row[name] = float(finite.mean()) if finite.size else None
            lo, hi = _interval(ps, ci, stream)
            row[f"{name}_lo"] = None if math.isnan(lo) else lo
            row[f"{name}_hi"] = None if math.isnan(hi) else hi
        row["ne_distance"], row["converged_to"] = _final_allocation(game, rows)
        table.append(row)
    return pa.Table.from_pylist(table)


def _final_allocation(game: Game, rows: list[dict[str, Any]]) -> tuple[float | None, str | None]:
    """(mean L1 / (2 × gold) of each sample's final coins from the backward-
    induction allocation, its label) for the pirate game; (None, None) else."""
    p = game.rule_params
    if not isinstance(p, PirateParams):
        return None, None
    eq = nash_equilibria(game).equilibria[0]
    assert eq.payoffs is not None
    coins: dict[int, FloatArray] = {}
    for r in rows:
        coins.setdefault(r["sample"], np.zeros(game.players))[r["seat"] - 1] = r["payoff"]
    gaps = []
    for final in coins.values():
        # A pirate never asked is the lone survivor (the most junior): the rest is its.
        final[-1] += p.gold - final.sum()
        gaps.append(float(np.abs(final - eq.payoffs).sum()) / (2 * p.gold))
    return float(np.mean(gaps)), eq.label
