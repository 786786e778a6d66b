"""The round-by-round figure of a game run: actions and payoffs per player.

Top: each player's mean move per round (for a game with two labelled
actions, the share choosing the second one — ``defect``, ``stay``,
``expensive`` …; for more labels, the share choosing the equilibrium action
where the stage game has a dominant one, else the mean action index), with
a 95% interval over samples (normal approximation, t for few samples) and
the pure symmetric equilibrium as a dashed reference where there is one.
Bottom: each player's mean payoff per round, same bands. Forfeited moves
are left out. Rounds with fewer samples (an indefinitely repeated game) are
plotted with what they have; n per round is on the axis label.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
from matplotlib.figure import Figure

from steer.play._equilibria import nash_equilibria
from steer.play._games import FloatArray, Game, PirateParams
from steer.stats._distributions import t_quantile
from steer.view._figure import (
    FONT,
    LINESTYLES,
    PALETTE,
    REFERENCE_COLOUR,
    message_figure,
    new_figure,
)


def _series(game: Game) -> tuple[str, str]:
    """(y label, how a move becomes a number) for the top panel."""
    acts = game.actions
    if isinstance(acts, tuple):
        if len(acts) == 2:
            return f"share choosing {acts[1]}", "second"
        return "mean action index", "index"
    return "mean move", "value"


def _band(values: FloatArray, rounds: FloatArray, n_rounds: int) -> tuple[FloatArray, ...]:
    """Per round: mean, lower, upper (95%), n."""
    mean = np.full(n_rounds, np.nan)
    lo = np.full(n_rounds, np.nan)
    hi = np.full(n_rounds, np.nan)
    n = np.zeros(n_rounds)
    for r in range(n_rounds):
        x = values[rounds == r + 1]
        n[r] = x.size
        if x.size == 0:
            continue
        mean[r] = x.mean()
        if x.size > 1:
            half = t_quantile(0.975, x.size - 1) * x.std(ddof=1) / np.sqrt(x.size)
            lo[r], hi[r] = mean[r] - half, mean[r] + half
        else:
            lo[r] = hi[r] = mean[r]
    return mean, lo, hi, n


def _symmetric_equilibrium(game: Game, how: str) -> float | None:
    """The top panel's value of a pure symmetric equilibrium, if exactly one."""
    try:
        eqs = nash_equilibria(game)
    except Exception:
        return None
    points = set()
    for e in eqs.equilibria:
        s = e.strategies
        if s is None or not e.pure:
            continue
        if s.ndim == 2:  # discrete: one-hot rows per seat
            picks = s.argmax(axis=1)
            if len(set(picks.tolist())) == 1:
                points.add(float(picks[0] == 1) if how == "second" else float(picks[0]))
        elif np.allclose(s, s[0]):
            points.add(float(s[0]))
    return points.pop() if len(points) == 1 else None


def _player_line(
    ax: Any, x: FloatArray, i: int, who: str, mean: FloatArray, lo: FloatArray, hi: FloatArray
) -> None:
    """Player `i`'s mean per round with its band, in its colour and line style."""
    colour, style = PALETTE[i % len(PALETTE)], LINESTYLES[(i // len(PALETTE)) % 4]
    ax.plot(x, mean, color=colour, linestyle=style, marker="o", markersize=3, label=who)
    ax.fill_between(x, lo, hi, color=colour, alpha=0.18, linewidth=0)


def round_figure(game: Game, moves: pa.Table) -> Figure:
    """Actions and payoffs per round and player, with 95% bands over samples."""
    if moves.num_rows == 0:
        return message_figure(f"{game.name}: no moves to plot")
    if game.sequential:
        return _step_figure(game, moves)
    keep = ~moves["forfeit"].to_numpy(zero_copy_only=False).astype(bool)
    rounds = moves["round"].to_numpy().astype(float)[keep]
    move = moves["move"].to_numpy()[keep]
    pay = moves["payoff"].to_numpy()[keep]
    player = np.asarray(moves["player"].to_pylist(), dtype=object)[keep]
    label, how = _series(game)
    y = (move == 1).astype(float) if how == "second" else move
    n_rounds = int(moves["round"].to_numpy().max())
    players = list(dict.fromkeys(player.tolist()))
    fig = new_figure(6.4, 4.8)
    top, bottom = fig.subplots(2, 1, sharex=True)
    x = np.arange(1, n_rounds + 1)
    counts = np.zeros(n_rounds)
    for i, who in enumerate(players):
        mine = player == who
        for ax, values in ((top, y[mine]), (bottom, pay[mine])):
            mean, lo, hi, n = _band(values, rounds[mine], n_rounds)
            if ax is top and how == "second":  # a share's band stays within [0, 1]
                lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
            _player_line(ax, x, i, who, mean, lo, hi)
            counts = np.maximum(counts, n)
    eq = _symmetric_equilibrium(game, how)
    if eq is not None:
        top.axhline(eq, color=REFERENCE_COLOUR, linestyle="--", linewidth=1,
                    label="Nash equilibrium")  # fmt: skip
    top.set_ylabel(label, fontsize=FONT)
    bottom.set_ylabel("mean payoff (points)", fontsize=FONT)
    few = int(counts.min()) if counts.size else 0
    many = int(counts.max()) if counts.size else 0
    n_text = f"n = {many} moves per round" if few == many else f"n = {few}–{many} per round"
    bottom.set_xlabel(f"round ({n_text}; bands: 95% interval over samples)", fontsize=FONT)
    for ax in (top, bottom):
        ax.tick_params(labelsize=FONT)
        ax.grid(alpha=0.3, linewidth=0.5)
    if n_rounds <= 20:
        bottom.set_xticks(x)
    top.set_title(f"{game.name}: play by round", fontsize=FONT + 1)
    fig.legend(*top.get_legend_handles_labels(), loc="outside right upper", fontsize=FONT,
               frameon=False)  # fmt: skip
    return fig


def _step_figure(game: Game, moves: pa.Table) -> Figure:
    """A sequential game step by step: each player's share of moves made as
    the game's rational play makes them (the per-move part of gama_score:
    a proposal's closeness to the backward-induction plan and a vote's
    agreement with it; a shot at the strongest living opponent), with 95%
    bands over samples. Its moves (coins, votes, seats) share no scale, and
    its payoff is the game's end, so the round figure's panels do not apply."""
    from steer.play._game_metrics import sequential_scores

    rows = moves.to_pylist()
    score = np.asarray(sequential_scores(game, rows)["score"], dtype=float)
    keep = ~np.asarray([bool(r["forfeit"]) for r in rows])
    steps = np.asarray([r["round"] for r in rows], dtype=float)[keep]
    player = np.asarray([r["player"] for r in rows], dtype=object)[keep]
    score = score[keep]
    n_steps = int(moves["round"].to_numpy().max())
    fig = new_figure(6.4, 3.6)
    ax = fig.subplots()
    x = np.arange(1, n_steps + 1)
    counts = np.zeros(n_steps)
    for i, who in enumerate(dict.fromkeys(player.tolist())):
        mine = player == who
        mean, lo, hi, n = _band(score[mine], steps[mine], n_steps)
        _player_line(ax, x, i, who, mean, np.clip(lo, 0, 1), np.clip(hi, 0, 1))
        counts = np.maximum(counts, n)
    ax.set_ylim(-0.05, 1.05)
    pirates = isinstance(game.rule_params, PirateParams)
    what = "proposals, then votes" if pirates else "one shot per step"
    ax.set_ylabel("share played rationally", fontsize=FONT)
    few, many = int(counts.min()), int(counts.max())
    n_text = f"n = {many} moves per step" if few == many else f"n = {few}–{many} per step"
    ax.set_xlabel(f"step ({what}; {n_text}; bands: 95% over samples)", fontsize=FONT)
    ax.tick_params(labelsize=FONT)
    ax.grid(alpha=0.3, linewidth=0.5)
    if n_steps <= 20:
        ax.set_xticks(x)
    ax.set_title(f"{game.name}: play by step", fontsize=FONT + 1)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", fontsize=FONT,
               frameon=False)  # fmt: skip
    return fig
