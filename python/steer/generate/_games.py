"""Normal-form games: reading payoffs, dominance, IRDS, pure and mixed Nash.

Structures sample a two-player game with `size` actions each (payoffs are
multiples of `step` in [low, high]); variants plant the property a question
asks about (a dominant or a dominated strategy) or draw batches and keep the
first game the batch solvers in steer-core find suitable. Solvers prove the
key with steer-core.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from steer import _native
from steer.generate._format import amount, join_and
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    lazy_texts,
    register_solver,
    register_structure,
)
from steer.generate._structures import _matrix_text, _two_names
from steer.templates._inflect import possessive
from steer.templates._model import GradeSpec, TemplateSpec

# Games drawn per try, by what is kept: about 88% of random games have a pure
# equilibrium, 15-20% reduce by IRDS in two rounds and 9-15% have none, so
# these sizes rarely come up empty without solving games that go unused.
BATCH = {"pure": 8, "irds": 16, "no_pure": 32}
FIELDS = ("matrix", "row_player", "col_player", "player", "opponent", "cell_row", "cell_col")


def _payoffs(rng: np.random.Generator, spec: GradeSpec, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.floor((spec.high - spec.low) / spec.step + 1e-9)) + 1
    return np.round(spec.low + spec.step * rng.integers(0, n, size=shape), 6)


def _labels(t: TemplateSpec, key: str, n: int, prefix: str) -> list[str]:
    return t.words.get(key, [])[:n] or [f"{prefix}{i + 1}" for i in range(n)]


def _instance(
    rng: np.random.Generator, payoffs: np.ndarray, t: TemplateSpec, player: int | None = None
) -> Instance:
    n_rows, n_cols = payoffs.shape[:2]
    row_player, col_player = _two_names(rng, t)
    rows = _labels(t, "row_actions", n_rows, "R")
    cols = _labels(t, "col_actions", n_cols, "C")
    player = int(rng.integers(0, 2)) if player is None else player
    cell = (int(rng.integers(n_rows)), int(rng.integers(n_cols)))
    names = (row_player, col_player) if player == 0 else (col_player, row_player)
    return Instance(
        data={
            "payoffs": payoffs.tolist(),
            "player": player,
            "cell": list(cell),
            "row_actions": rows,
            "col_actions": cols,
        },
        fields={
            "matrix": _matrix_text(payoffs, rows, cols, row_player, col_player, t.decimals),
            "row_player": row_player,
            "col_player": col_player,
            "player": names[0],
            "opponent": names[1],
            "cell_row": rows[cell[0]],
            "cell_col": cols[cell[1]],
        },
        choices=list(rows if player == 0 else cols),
    )


def _own(payoffs: np.ndarray, player: int) -> np.ndarray:
    """The player's payoffs as (own actions, opponent actions)."""
    return payoffs[:, :, 0] if player == 0 else payoffs[:, :, 1].T


def _set_own(payoffs: np.ndarray, player: int, own: np.ndarray) -> None:
    if player == 0:
        payoffs[:, :, 0] = own
    else:
        payoffs[:, :, 1] = own.T


def _check(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 6:
        return "size must be 2-6 actions per player"
    for key in ("row_actions", "col_actions"):
        labels = t.words.get(key)
        if labels is not None and len(set(labels)) < spec.size:
            return f"words.{key} needs {spec.size} distinct labels"
    if len(t.words.get("players", ["a", "b"])) < 2:
        return "words.players needs at least two names"
    if spec.high - spec.low < 3 * spec.step:
        return "the payoff range needs at least four values"
    return None


def _sample_game(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    return _instance(rng, _payoffs(rng, spec, (n, n, 2)), t)


def _sample_dominant(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Plants a strictly dominant strategy for the asked player."""
    n = spec.size
    payoffs = _payoffs(rng, spec, (n, n, 2))
    player = int(rng.integers(0, 2))
    own = _own(payoffs, player).copy()
    best = int(rng.integers(n))
    others = np.delete(own, best, axis=0).max(axis=0)
    bump = spec.step * rng.integers(1, 4, size=n)
    own[best] = np.minimum(others + bump, spec.high + 3 * spec.step)
    _set_own(payoffs, player, own)
    return _instance(rng, payoffs, t, player)


def _sample_dominated(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Plants a strictly dominated strategy for the asked player."""
    n = spec.size
    payoffs = _payoffs(rng, spec, (n, n, 2))
    player = int(rng.integers(0, 2))
    own = _own(payoffs, player).copy()
    worse, better = (int(i) for i in rng.choice(n, size=2, replace=False))
    own[worse] = own[better] - spec.step * rng.integers(1, 5, size=n)
    _set_own(payoffs, player, own)
    return _instance(rng, payoffs, t, player)


def _sample_filtered(
    rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec, keep: str
) -> Instance:
    """The first of a batch of games that the batch solvers find suitable."""
    n = spec.size
    batch = _payoffs(rng, spec, (BATCH[keep], n, n, 2)).astype(np.float64)
    if keep == "irds":
        rows, cols, rounds = _native.iterated_dominance_batch(batch)
        alive = rows.sum(axis=1) + cols.sum(axis=1)
        good = np.flatnonzero((rounds >= 2) & (alive > 2))
    elif keep == "no_pure":
        good = np.flatnonzero(~_native.pure_nash_batch(batch).any(axis=(1, 2)))
    else:
        good = np.flatnonzero(_native.pure_nash_batch(batch).any(axis=(1, 2)))
    if not len(good):
        raise Resample(f"no suitable game in a batch of {BATCH[keep]}")
    return _instance(rng, batch[int(good[0])], t)


for _name, _sampler, _doc in (
    ("normal_form", _sample_game, "a random two-player game with `size` actions each"),
    (
        "normal_form_dominant",
        _sample_dominant,
        "a game where the asked player has a dominant strategy",
    ),
    (
        "normal_form_dominated",
        _sample_dominated,
        "a game where the asked player has a dominated strategy",
    ),
    (
        "normal_form_irds",
        lambda r, s, t: _sample_filtered(r, s, t, "irds"),
        "a game IRDS reduces in two or more rounds",
    ),
    (
        "normal_form_pure",
        lambda r, s, t: _sample_filtered(r, s, t, "pure"),
        "a game with at least one pure equilibrium",
    ),
    (
        "normal_form_mixed",
        lambda r, s, t: _sample_filtered(r, s, t, "no_pure"),
        "a game without pure equilibria",
    ),
):
    register_structure(StructureKind(_name, FIELDS, _sampler, _check, _doc))


def _arr(instance: Instance) -> np.ndarray:
    return np.asarray(instance.data["payoffs"], dtype=np.float64)


def _num(x: float) -> str:
    text = amount(x, "", 6)
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- 3.1.a reading a payoff ---------------------------------------------------------------


def _payoff_lookup(instance: Instance) -> Solution:
    payoffs, player = _arr(instance), instance.data["player"]
    r, c = instance.data["cell"]
    value = float(payoffs[r, c, player])
    f = instance.fields
    return Solution(
        value=value,
        fields={
            "working": f"In the cell ({f['cell_row']}, {f['cell_col']}) {f['player']} gets "
            f"{_num(value)}",
        },
    )


register_solver(
    SolverKind(
        "payoff_lookup",
        ("normal_form",),
        "numeric",
        _payoff_lookup,
        doc="the asked player's payoff at the asked action profile",
    )
)


@distractor("other_players_payoff", "numeric")
def _other_players_payoff(instance: Instance, _s: Solution) -> float:
    """Reads the opponent's number in the right cell (row_col_swapped for payoffs)."""
    r, c = instance.data["cell"]
    return float(_arr(instance)[r, c, 1 - instance.data["player"]])


@distractor("transposed_cell", "numeric")
def _transposed_cell(instance: Instance, _s: Solution) -> float | None:
    """Looks up (column action, row action): rows and columns swapped."""
    r, c = instance.data["cell"]
    return None if r == c else float(_arr(instance)[c, r, instance.data["player"]])


@distractor("wrong_row", "numeric")
def _wrong_row(instance: Instance, _s: Solution) -> float:
    """Reads the right column but the neighbouring row."""
    payoffs = _arr(instance)
    r, c = instance.data["cell"]
    return float(payoffs[(r + 1) % payoffs.shape[0], c, instance.data["player"]])


# --- 3.1.c / 3.1.d dominance -----------------------------------------------------------------


def _dominant(instance: Instance) -> Solution:
    player = instance.data["player"]
    best = _native.dominant_strategy(_arr(instance), player, True)
    if best is None:
        raise Resample("no strictly dominant strategy")
    assert instance.choices is not None
    answer = instance.choices[best]
    return Solution(
        choice=best,
        fields={
            "working": f"Whatever {instance.fields['opponent']} does, {answer} pays "
            f"{instance.fields['player']} strictly more than any other action",
        },
    )


register_solver(
    SolverKind(
        "dominant_strategy",
        ("normal_form_dominant",),
        "choice",
        _dominant,
        doc="the asked player's strictly dominant strategy (steer-core dominance)",
    )
)


def _dominated(instance: Instance) -> Solution:
    player = instance.data["player"]
    dominators = _native.dominators(_arr(instance), player, True)
    dominated = [i for i, d in enumerate(dominators) if d is not None]
    if len(dominated) != 1:
        raise Resample("not exactly one strictly dominated strategy")
    assert instance.choices is not None
    i = dominated[0]
    by = instance.choices[dominators[i]]  # type: ignore[index]
    return Solution(
        choice=i,
        fields={
            "working": f"{by} pays {instance.fields['player']} strictly more than "
            f"{instance.choices[i]} against every action of {instance.fields['opponent']}",
        },
    )


register_solver(
    SolverKind(
        "dominated_strategy",
        ("normal_form_dominated",),
        "choice",
        _dominated,
        doc="the asked player's only strictly dominated strategy (steer-core dominance)",
    )
)


@distractor("highest_single_payoff", "choice")
def _highest_single_payoff(instance: Instance, _s: Solution) -> int:
    """Picks the action holding the single largest payoff, ignoring the rest."""
    own = _own(_arr(instance), instance.data["player"])
    return int(np.unravel_index(np.argmax(own), own.shape)[0])


@distractor("lowest_single_payoff", "choice")
def _lowest_single_payoff(instance: Instance, _s: Solution) -> int:
    """Calls the action holding the single smallest payoff dominated."""
    own = _own(_arr(instance), instance.data["player"])
    return int(np.unravel_index(np.argmin(own), own.shape)[0])


@distractor("opponent_payoffs_read", "choice")
def _opponent_payoffs_read(instance: Instance, _s: Solution) -> int:
    """Ranks own actions by the opponent's payoffs (the other number in each cell)."""
    payoffs, player = _arr(instance), instance.data["player"]
    theirs = _own(payoffs[:, :, ::-1], player)
    return int(np.argmax(theirs.sum(axis=1)))


@distractor("lowest_total", "choice")
def _lowest_total(instance: Instance, _s: Solution) -> int:
    """Calls the action with the lowest sum of own payoffs dominated."""
    return int(np.argmin(_own(_arr(instance), instance.data["player"]).sum(axis=1)))


# --- 3.1.e iterated removal --------------------------------------------------------------


def _profile_set(rows: list[str], cols: list[str], r_idx: list[int], c_idx: list[int]) -> str:
    return (
        "{" + ", ".join(rows[i] for i in r_idx) + "} × {" + ", ".join(cols[j] for j in c_idx) + "}"
    )


def _irds_text(instance: Instance, keep_rows: list[int], keep_cols: list[int]) -> str:
    f = instance.fields
    rows, cols = instance.data["row_actions"], instance.data["col_actions"]
    return (
        f"{f['row_player']}: "
        + ", ".join(rows[i] for i in keep_rows)
        + f"; {f['col_player']}: "
        + ", ".join(cols[j] for j in keep_cols)
    )


def _irds(instance: Instance) -> Solution:
    payoffs = _arr(instance)
    rows, cols, steps = _native.iterated_dominance(payoffs)
    if len(steps) < 2:
        raise Resample("IRDS removes fewer than two strategies")
    names = (instance.data["row_actions"], instance.data["col_actions"])
    players = (instance.fields["row_player"], instance.fields["col_player"])
    working = "; ".join(
        f"round {rnd + 1}: remove {possessive(players[p])} {names[p][s]} "
        f"(dominated by {names[p][by]})"
        for rnd, p, s, by in steps
    )
    n_r, n_c = payoffs.shape[:2]

    def pool() -> Sequence[str]:
        survivors = [
            (rs, cs)
            for k_r in range(1, n_r + 1)
            for rs in itertools.combinations(range(n_r), k_r)
            for k_c in range(1, n_c + 1)
            for cs in itertools.combinations(range(n_c), k_c)
        ]
        return lazy_texts(survivors, lambda s: _irds_text(instance, list(s[0]), list(s[1])))

    key = _irds_text(instance, rows, cols)
    return Solution(text=key, pool=pool, fields={"working": working})


register_solver(
    SolverKind(
        "iterated_dominance",
        ("normal_form_irds",),
        "text",
        _irds,
        doc="surviving strategies of iterated strict dominance (steer-core, with the order)",
    )
)


@distractor("one_round_only", "text")
def _one_round_only(instance: Instance, _s: Solution) -> str:
    """Stops after the first round of removals."""
    payoffs = _arr(instance)
    _, _, steps = _native.iterated_dominance(payoffs)
    gone = {(p, s) for rnd, p, s, _ in steps if rnd == 0}
    n_r, n_c = payoffs.shape[:2]
    return _irds_text(
        instance,
        [i for i in range(n_r) if (0, i) not in gone],
        [j for j in range(n_c) if (1, j) not in gone],
    )


@distractor("nothing_removed", "text")
def _nothing_removed(instance: Instance, _s: Solution) -> str:
    """Finds nothing dominated at all."""
    n_r, n_c = _arr(instance).shape[:2]
    return _irds_text(instance, list(range(n_r)), list(range(n_c)))


# --- 3.1.f pure Nash -------------------------------------------------------------------------

NO_PURE = "There is no pure-strategy equilibrium"


def _cells_text(instance: Instance, cells: list[tuple[int, int]]) -> str:
    if not cells:
        return NO_PURE
    rows, cols = instance.data["row_actions"], instance.data["col_actions"]
    return join_and([f"({rows[r]}, {cols[c]})" for r, c in sorted(cells)])


def _pure_nash(instance: Instance) -> Solution:
    payoffs = _arr(instance)
    cells = [tuple(e) for e in _native.pure_nash(payoffs)]
    n_r, n_c = payoffs.shape[:2]
    all_cells = [(r, c) for r in range(n_r) for c in range(n_c)]

    def pool() -> Sequence[str]:
        sets = [(), *((cell,) for cell in all_cells), *itertools.combinations(all_cells, 2)]
        return lazy_texts(sets, lambda cells: _cells_text(instance, list(cells)))

    key = _cells_text(instance, cells)  # type: ignore[arg-type]
    return Solution(text=key, pool=pool, fields={"working": f"Mutual best responses: {key}"})


register_solver(
    SolverKind(
        "pure_nash",
        ("normal_form_pure", "normal_form"),
        "text",
        _pure_nash,
        doc="all pure Nash equilibria (steer-core games::pure_nash)",
    )
)


def _best_reply_cells(payoffs: np.ndarray, who: int) -> set[tuple[int, int]]:
    if who == 0:
        col_best = payoffs[:, :, 0].max(axis=0)
        return {(r, c) for r, c in zip(*np.nonzero(payoffs[:, :, 0] == col_best), strict=True)}
    row_best = payoffs[:, :, 1].max(axis=1, keepdims=True)
    return {(r, c) for r, c in zip(*np.nonzero(payoffs[:, :, 1] == row_best), strict=True)}


@distractor("max_total_cell", "text")
def _max_total_cell(instance: Instance, _s: Solution) -> str:
    """Names the profile with the largest total payoff (efficiency, not equilibrium)."""
    total = _arr(instance).sum(axis=2)
    r, c = np.unravel_index(np.argmax(total), total.shape)
    return _cells_text(instance, [(int(r), int(c))])


@distractor("one_sided_best_reply", "text")
def _one_sided_best_reply(instance: Instance, _s: Solution) -> str | None:
    """Checks only the row player's incentive to deviate."""
    cells = _best_reply_cells(_arr(instance), 0)
    return _cells_text(instance, sorted((int(r), int(c)) for r, c in cells)) if cells else None


@distractor("payoffs_swapped", "text")
def _payoffs_swapped(instance: Instance, _s: Solution) -> str:
    """Each player maximizes the other's payoff (the two numbers of a cell swapped)."""
    swapped = _arr(instance)[:, :, ::-1].copy()
    return _cells_text(instance, [tuple(e) for e in _native.pure_nash(swapped)])  # type: ignore[misc]


# --- 3.1.h mixed Nash (2×2) ------------------------------------------------------------------


def _mixed(instance: Instance) -> Solution:
    payoffs = _arr(instance)
    if payoffs.shape[:2] != (2, 2):
        raise Resample("mixed equilibria are asked of 2×2 games")
    row, col = _native.nash_equilibria(payoffs)
    if len(row) != 1 or min(row[0].min(), col[0].min()) <= 1e-9:
        raise Resample("not a unique fully mixed equilibrium")
    player = instance.data["player"]
    p = float(row[0][0] if player == 0 else col[0][0])
    first = instance.choices[0] if instance.choices else "the first action"
    return Solution(
        value=p,
        fields={
            "working": f"{instance.fields['player']} mixes so that {instance.fields['opponent']} "
            f"is indifferent: {first} with probability {p:.4f}",
            "first_action": first,
        },
    )


register_solver(
    SolverKind(
        "mixed_nash",
        ("normal_form_mixed",),
        "numeric",
        _mixed,
        fields=("working", "answer", "first_action"),
        doc="the asked player's probability of its first action in the unique mixed "
        "equilibrium (steer-core support enumeration)",
    )
)


@distractor("own_indifference", "numeric")
def _own_indifference(instance: Instance, _s: Solution) -> float | None:
    """Mixes to make oneself indifferent (uses own payoffs instead of the opponent's)."""
    payoffs, player = _arr(instance), instance.data["player"]
    # Opponent's mix q on its first action making `player` indifferent, reported as own p.
    own = _own(payoffs, player)
    denom = own[0, 0] - own[0, 1] - own[1, 0] + own[1, 1]
    if denom == 0:
        return None
    return float((own[1, 1] - own[0, 1]) / denom)


@distractor("complement_probability", "numeric")
def _complement_probability(_i: Instance, s: Solution) -> float:
    """Reports the probability of the other action."""
    assert s.value is not None
    return 1 - s.value


@distractor("uniform_mix", "numeric")
def _uniform_mix(_i: Instance, _s: Solution) -> float:
    """Assumes a mixed equilibrium always mixes 50:50."""
    return 0.5
