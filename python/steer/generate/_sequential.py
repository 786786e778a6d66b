"""Game trees (backward induction, SPE), repeated games and Bayesian games.

Every key comes from steer-core: `backward_induction`, `is_feasible`,
`is_enforceable`, `pure_minmax`, `grim_trigger`, `bayes_nash_best_responses`.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections.abc import Callable
from typing import Any

import numpy as np

from steer import _native
from steer._draws import integer, integers, sample
from steer.generate._format import amount, short_decimal
from steer.generate._games import _payoffs
from steer.generate._registry import (
    Instance,
    LazyTexts,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    near_max,
    register_solver,
    register_structure,
)
from steer.generate._structures import _grid, _matrix_text, _two_names
from steer.templates._model import GradeSpec, TemplateSpec

YES, NO = "Yes", "No"

# --- game trees ----------------------------------------------------------------------------

# Payoff draws a tree tries before it gives up (the caller then draws again).
_TREE_TRIES = 200


def _sample_tree(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A perfect-information tree: players alternate (leader first), `size`
    moves at every node, `depth` moves in all; payoffs at the leaves."""
    b, depth = spec.size, spec.depth
    names = tuple(tuple(t.words.get(f"moves_{k}", [])[:b]) for k in range(depth))
    shape = _tree_shape(b, depth, names)
    parent, player, labels = list(shape[0]), list(shape[1]), list(shape[2])
    frontier = list(shape[3])
    leaves = np.array(frontier)  # an index array, converted once rather than per try
    n = len(parent)
    root_moves = [labels[i] for i in range(1, b + 1)]
    # Most trees fail the solver's checks (a tie, a wrong first move no named
    # error picks): redraw the payoffs alone until a tree passes, before any
    # names or text are drawn. Each try is a fresh draw of the same law, so
    # the trees kept are distributed as before; the solver runs the checks
    # again on the question's payload.
    spe = t.solver == "subgame_perfect"
    for _ in range(_TREE_TRIES if t.solver == "backward_induction" or spe else 1):
        payoffs = np.zeros((n, 2))
        payoffs[leaves] = _payoffs(rng, spec, (len(frontier), 2))
        data = {"parent": parent, "player": player, "labels": labels, "payoffs": payoffs.tolist()}
        if spe:
            # Mostly games where a Nash equilibrium rests on a threat the
            # follower would not carry out: telling those from the subgame-
            # perfect profile is what 3.2.b tests (R3.15 had none to offer).
            game = _spe_game(data, b) if depth == 2 else None
            if game is not None and (game.traps or rng.random() >= 0.7):
                break
            continue
        if t.solver != "backward_induction":
            break
        try:
            _backward(Instance(data, {}, root_moves))
            break
        except Resample:
            continue
    else:
        raise Resample(f"no tree in {_TREE_TRIES} that the solver's checks accept")
    if spe:
        data.update(pick=int(rng.integers(1 << 30)), options=spec.options or 4)
    if "leaders" in t.words and "followers" in t.words:
        # Roles that do not swap (management makes the offers, the union answers).
        leaders, followers = t.words["leaders"], t.words["followers"]
        leader = leaders[int(rng.integers(len(leaders)))]
        follower = followers[int(rng.integers(len(followers)))]
    else:
        leader, follower = _two_names(rng, t)
    who = (leader, follower)
    lines = []
    for leaf in frontier:
        path, node = [], leaf
        while node > 0:
            path.append(node)
            node = parent[node]
        moves = [f"{who[k % 2]} chooses {labels[m]}" for k, m in enumerate(reversed(path))]
        lines.append(
            "- "
            + ", then ".join(moves)
            + f": {leader} gets {amount(payoffs[leaf, 0], '', t.decimals)}, "
            f"{follower} gets {amount(payoffs[leaf, 1], '', t.decimals)}"
        )
    return Instance(
        data=data,
        fields={"tree": "\n".join(lines), "leader": leader, "follower": follower},
        choices=root_moves,
    )


@functools.lru_cache(maxsize=256)
def _tree_shape(
    b: int, depth: int, moves: tuple[tuple[str, ...], ...]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[str, ...], tuple[int, ...]]:
    """Parents, movers and move labels of every node, and the leaves, of a tree
    with `b` moves per node and `depth` moves in all (the same for every draw
    of a template grade)."""
    parent, player, labels = [-1], [0], [""]
    frontier = [0]
    for level in range(depth):
        names = list(moves[level]) or [f"M{level + 1}{i + 1}" for i in range(b)]
        nxt = []
        for node in frontier:
            for i in range(b):
                parent.append(node)
                player.append((level + 1) % 2 if level + 1 < depth else -1)
                labels.append(names[i])
                nxt.append(len(parent) - 1)
        frontier = nxt
    return tuple(parent), tuple(player), tuple(labels), tuple(frontier)


def _check_tree(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 4:
        return "size (moves per node) must be 2-4"
    if spec.size**spec.depth > 64:
        return "the tree would have more than 64 leaves"
    return None


register_structure(
    StructureKind(
        "game_tree",
        ("tree", "leader", "follower"),
        _sample_tree,
        _check_tree,
        "a perfect-information game tree, players alternating, payoffs at the leaves",
    )
)


# A tree's solver and its named errors read the same payload one after another:
# its arrays are kept for the payload last read (held, so its id cannot be
# reused; read-only, so no reader can change them for the next).
_LAST_TREE: list[Any] = [None, None]
# The shape arrays (parents, movers) of the last shape read, keyed (and held)
# the same way by the payload's lists: a sampler's tries share one shape and
# its lists, only the payoffs change.
_LAST_SHAPE: list[Any] = [None, None, None]


def _tree_arrays(instance: Instance) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    d = instance.data
    if _LAST_TREE[0] is not d:
        if _LAST_SHAPE[0] is not d["parent"] or _LAST_SHAPE[1] is not d["player"]:
            shape = (
                np.asarray(d["parent"], dtype=np.int64),
                np.asarray(d["player"], dtype=np.int64),
            )
            for a in shape:
                a.flags.writeable = False
            _LAST_SHAPE[:] = [d["parent"], d["player"], shape]
        payoffs = np.asarray(d["payoffs"], dtype=np.float64)
        payoffs.flags.writeable = False
        _LAST_TREE[:] = [d, (*_LAST_SHAPE[2], payoffs)]
    parent, player, payoffs = _LAST_TREE[1]
    return parent, player, payoffs


def _backward(instance: Instance) -> Solution:
    parent, player, payoffs = _tree_arrays(instance)
    values, chosen, tied, path = _native.backward_induction(parent, player, payoffs)
    if tied.any():
        raise Resample("a mover is indifferent somewhere in the tree")
    labels = instance.data["labels"]
    first = int(chosen[0]) - 1
    # Every wrong first move must be a named error's answer: draw trees where it is.
    wrong = {
        f(instance, Solution(choice=first))
        for f in (_assumes_cooperation, _max_total_leaf, _maximin_leaf, _follower_best_leaf)
    } - {first, None}
    if len(wrong) < len(instance.choices or []) - 1:
        raise Resample("some wrong first move is no named error's answer")
    outcome = " → ".join(labels[n] for n in path[1:])
    return Solution(
        choice=first,
        fields={
            "working": f"Solving from the end, play follows {outcome}, paying "
            f"{amount(values[0, 0], '', 6)} and {amount(values[0, 1], '', 6)}",
        },
    )


register_solver(
    SolverKind(
        "backward_induction",
        ("game_tree",),
        "choice",
        _backward,
        doc="the leader's first move on the backward-induction path (steer-core)",
    )
)


@functools.lru_cache(maxsize=256)
def _first_move_leaves(
    parent: tuple[int, ...], player: tuple[int, ...], b: int
) -> tuple[tuple[int, ...], ...]:
    """The leaves under each of the `b` first moves. A template grade draws
    every tree on one shape, so each named error of each draw reads the cache."""
    children: dict[int, list[int]] = {}
    for i, p in enumerate(parent):
        children.setdefault(p, []).append(i)
    out = []
    for root in range(1, b + 1):
        leaves, stack = [], [root]
        while stack:
            node = stack.pop()
            if player[node] < 0:
                leaves.append(node)
            stack.extend(children.get(node, []))
        out.append(tuple(leaves))
    return tuple(out)


# The leaves of the last shape read (see _leaves_by_first_move).
_LAST_LEAVES: list[Any] = [None, None, None, None]


def _leaves_by_first_move(
    instance: Instance,
) -> tuple[tuple[tuple[int, ...], ...], list[list[float]]]:
    """The leaves under each first move, and the payoffs as the payload's plain
    lists (cheaper to read cell by cell than an array)."""
    d = instance.data
    b = len(instance.choices or [])
    memo = _LAST_LEAVES
    if memo[0] is not d["parent"] or memo[1] is not d["player"] or memo[2] != b:
        # Keyed by the lists' identity (held, like _LAST_SHAPE): each named
        # error of each try reads the same shape.
        leaves = _first_move_leaves(tuple(d["parent"]), tuple(d["player"]), b)
        memo[:] = [d["parent"], d["player"], b, leaves]
    return memo[3], d["payoffs"]


def _unique_best(values: list[float]) -> int | None:
    """`_unique_argmax` of a plain list."""
    near = near_max(values)
    return near[0] if len(near) == 1 else None


@distractor("assumes_cooperation", "choice")
def _assumes_cooperation(instance: Instance, _s: Solution) -> int | None:
    """Picks the first move leading to the leader's best leaf, as if the others will oblige."""
    leaves, pay = _leaves_by_first_move(instance)
    return _unique_best([max(pay[leaf][0] for leaf in under) for under in leaves])


@distractor("maximin_leaf", "choice")
def _maximin_leaf(instance: Instance, _s: Solution) -> int | None:
    """Picks the first move whose worst leaf for the leader is best (pessimism,
    as if every later move were made against the leader)."""
    leaves, pay = _leaves_by_first_move(instance)
    return _unique_best([min(pay[leaf][0] for leaf in under) for under in leaves])


@distractor("follower_best_leaf", "choice")
def _follower_best_leaf(instance: Instance, _s: Solution) -> int | None:
    """Heads for the leaf the follower likes best, as if the leader served it."""
    leaves, pay = _leaves_by_first_move(instance)
    return _unique_best([max(pay[leaf][1] for leaf in under) for under in leaves])


@distractor("max_total_leaf", "choice")
def _max_total_leaf(instance: Instance, _s: Solution) -> int | None:
    """Heads for the leaf with the largest total payoff."""
    leaves, pay = _leaves_by_first_move(instance)
    return _unique_best([max(pay[leaf][0] + pay[leaf][1] for leaf in under) for under in leaves])


# --- repeated games ------------------------------------------------------------------------


def _point_numbers(point: list[float]) -> list[str]:
    """A payoff point's coordinates written alike: "(8.0, 2.5)", not "(8, 2.50)";
    points are drawn on a half-unit grid, so one decimal is exact."""
    whole = all(float(x).is_integer() for x in point)
    # + 0.0 turns a rounded -0.0 into 0.0.
    return [f"{x + 0.0:.0f}" if whole else f"{x + 0.0:.1f}" for x in point]


def _sample_stage(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A symmetric prisoner's dilemma T > R > P > S, a payoff point and a discount factor."""
    grid = _grid(spec)
    s, p, r, tt = np.sort(grid[sample(rng, len(grid), 4)])
    payoffs = np.array([[[r, r], [s, tt]], [[tt, s], [p, p]]], dtype=np.float64)
    lo, hi = float(s), float(tt)
    point = [float(x) for x in np.round(rng.uniform(lo, hi, size=2) * 2) / 2]
    delta = float(rng.integers(5, 20)) / 20
    c, d = (t.words.get("stage_actions") or ["Cooperate", "Defect"])[:2]
    one, two = _two_names(rng, t)
    table = payoffs.tolist()
    return Instance(
        data={"payoffs": table, "point": point, "delta": delta},
        fields={
            "row_player": one,
            "col_player": two,
            "point": "({}, {})".format(*_point_numbers(point)),
            "delta": f"{delta:g}",
            "cooperate": c,
            "defect": d,
        },
        choices=[YES, NO],
        # Most stage games drawn are redrawn for their answer (_balanced_stage):
        # the table is written only for the one kept.
        defer=lambda: {"matrix": _matrix_text(table, [c, d], [c, d], one, two, t.decimals)},
    )


def _check_stage(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if (spec.high - spec.low) / spec.step < 3:
        return "the payoff range needs at least four values"
    return None


register_structure(
    StructureKind(
        "stage_game",
        ("matrix", "row_player", "col_player", "point", "delta", "cooperate", "defect"),
        _sample_stage,
        _check_stage,
        "a prisoner's-dilemma stage game with a payoff point and a discount factor",
    )
)


def _stage(instance: Instance) -> np.ndarray:
    return np.asarray(instance.data["payoffs"], dtype=np.float64)


def _yes_no(flag: bool, working: str, _instance: Instance | None = None) -> Solution:
    return Solution(choice=0 if flag else 1, fields={"working": working})


def _balanced_stage(
    rng: np.random.Generator,
    spec: GradeSpec,
    t: TemplateSpec,
    solve: Callable[[Instance], Solution],
) -> Instance:
    """A stage game whose Yes/No answer under `solve` is drawn first (a fair
    coin), then games are drawn until one has it: Yes and No keys come up
    equally often, while the games behind each answer stay as drawn."""
    want = 0 if rng.random() < 0.5 else 1
    for _ in range(64):
        instance = _sample_stage(rng, spec, t)
        try:
            if solve(instance).choice == want:
                return instance
        except Resample:
            continue
    raise Resample("no stage game with the drawn answer")


def _feasible(instance: Instance) -> Solution:
    pt = tuple(instance.data["point"])
    payoffs = _stage(instance)
    # Points on the hull's edge are too fiddly to ask about: keep a margin.
    near = [
        _native.is_feasible(payoffs, (pt[0] + dx, pt[1] + dy))
        for dx, dy in ((0.2, 0), (-0.2, 0), (0, 0.2), (0, -0.2))
    ]
    flag = _native.is_feasible(payoffs, pt)  # type: ignore[arg-type]
    if len(set(near)) != 1 or near[0] != flag:
        raise Resample("point too close to the edge of the feasible set")
    where = "inside" if flag else "outside"
    return _yes_no(
        flag,
        f"{instance.fields['point']} lies {where} the convex hull of the stage payoffs",
        instance,
    )


register_solver(
    SolverKind(
        "feasible_payoff",
        ("stage_game", "stage_game_feasible"),
        "choice",
        _feasible,
        doc="steer-core is_feasible",
    )
)


def _enforceable(instance: Instance) -> Solution:
    pt = tuple(instance.data["point"])
    payoffs = _stage(instance)
    if not _native.is_feasible(payoffs, pt):  # type: ignore[arg-type]
        raise Resample("only feasible points are asked about")
    v1, v2, _, _ = _native.pure_minmax(payoffs)
    if min(abs(pt[0] - v1), abs(pt[1] - v2)) < 0.25:
        raise Resample("point too close to the minmax values")
    flag = _native.is_enforceable(payoffs, pt)  # type: ignore[arg-type]
    point = f"({', '.join(_point_numbers(list(pt)))})"
    if flag:
        why = f"{point} is feasible and gives both players more than their minmax values"
    else:
        # Name the player (or both) held below the minmax value, with both numbers.
        below = [
            f"{instance.fields.get(who, who)} gets {x}, below the minmax value {amount(v, '', 2)}"
            for who, x, v, own in zip(
                ("row_player", "col_player"), _point_numbers(list(pt)), (v1, v2), pt, strict=True
            )
            if own < v
        ]
        if not below:
            raise Resample("no player below its minmax value to name")
        why = f"{point} is feasible, but {' and '.join(below)}"
    return _yes_no(
        flag, f"Minmax values are ({amount(v1, '', 2)}, {amount(v2, '', 2)}); {why}", instance
    )


register_solver(
    SolverKind(
        "enforceable_payoff",
        ("stage_game", "stage_game_enforceable"),
        "choice",
        _enforceable,
        doc="steer-core is_enforceable",
    )
)


def _critical_delta(instance: Instance) -> float:
    delta, nash = _native.grim_trigger(_stage(instance), (0, 0), (1, 1))
    if delta is None or not nash:
        raise Resample("grim trigger cannot sustain cooperation")
    return float(delta)


def _grim(instance: Instance) -> Solution:
    critical = _critical_delta(instance)
    delta = instance.data["delta"]
    if abs(delta - critical) < 0.03:
        raise Resample("discount factor too close to the threshold")
    return _yes_no(
        delta >= critical,
        f"Grim trigger sustains cooperation iff δ ≥ {short_decimal(critical)}; here δ = {delta:g}",
        instance,
    )


register_solver(
    SolverKind(
        "grim_trigger",
        ("stage_game", "stage_game_trigger"),
        "choice",
        _grim,
        doc="δ against steer-core grim_trigger",
    )
)

for _name, _solve in (
    ("stage_game_feasible", _feasible),
    ("stage_game_enforceable", _enforceable),
    ("stage_game_trigger", _grim),
):
    register_structure(
        StructureKind(
            _name,
            ("matrix", "row_player", "col_player", "point", "delta", "cooperate", "defect"),
            lambda r, s, t, solve=_solve: _balanced_stage(r, s, t, solve),
            _check_stage,
            "a prisoner's-dilemma stage game whose Yes/No answer is drawn first",
        )
    )


def _grim_delta(instance: Instance) -> Solution:
    critical = _critical_delta(instance)
    return Solution(value=critical, fields={"working": f"(T − R) / (T − P) = {critical:.4f}"})


register_solver(
    SolverKind(
        "grim_trigger_delta",
        ("stage_game",),
        "numeric",
        _grim_delta,
        doc="the smallest δ at which grim trigger sustains cooperation (steer-core)",
    )
)


def _trp(instance: Instance) -> tuple[float, float, float, float]:
    p = _stage(instance)
    return float(p[1, 0, 0]), float(p[0, 0, 0]), float(p[1, 1, 0]), float(p[0, 1, 0])


@distractor("gain_loss_swapped", "numeric")
def _gain_loss_swapped(instance: Instance, _s: Solution) -> float:
    """Puts the cooperation premium R − P over T − P instead of the temptation."""
    t, r, p, _ = _trp(instance)
    return (r - p) / (t - p)


@distractor("used_sucker_payoff", "numeric")
def _used_sucker_payoff(instance: Instance, _s: Solution) -> float:
    """Punishes with the sucker's payoff S instead of mutual defection P."""
    t, r, _, s = _trp(instance)
    return (t - r) / (t - s)


@distractor("odds_not_discount_factor", "numeric")
def _odds_not_discountshort_decimal(instance: Instance, _s: Solution) -> float | None:
    """Solves δ / (1 − δ) ≥ (T − R) / (R − P) and reports the right-hand side."""
    t, r, p, _ = _trp(instance)
    odds = (t - r) / (r - p)
    return odds if odds < 1 else None  # above 1 it is no discount factor at all


@distractor("complement_of_threshold", "numeric")
def _complement_of_threshold(instance: Instance, _s: Solution) -> float:
    """Reports 1 − δ*: the weight on today's payoff instead of the discount factor."""
    t, r, p, _ = _trp(instance)
    return 1 - (t - r) / (t - p)


@distractor("forgot_punishment", "numeric")
def _forgot_punishment(instance: Instance, _s: Solution) -> float | None:
    """Treats the punishment phase as worth nothing."""
    t, r, _, _ = _trp(instance)
    # R <= 0 < T gives 1 or more (R3.20 offered "1.00"): no discount factor.
    return (t - r) / t if t > 0 and r > 0 else None


@distractor("punished_from_today", "numeric")
def _punished_from_today(instance: Instance, _s: Solution) -> float | None:
    """Values the deviation as T + P / (1 − δ), punishment from today rather
    than from the next period: δ ≥ (T − R + P) / T. Above the key when P > 0,
    where forgetting the punishment falls below it."""
    t, r, p, _ = _trp(instance)
    value = (t - r + p) / t if t > 0 else 0.0
    return value if 0 < value < 1 else None


# --- Bayesian games ------------------------------------------------------------------------

# Games a Bayesian draw tries before it gives up (the caller then draws again).
_BAYES_TRIES = 200


def _sample_bayesian(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Row player has two types (prior p, 1 − p) playing a known type-contingent
    strategy; the column player (one type) best-responds in expectation."""
    n = spec.size
    rows = t.words.get("row_actions", [])[:n] or [f"R{i + 1}" for i in range(n)]
    cols = t.words.get("col_actions", [])[:n] or [f"C{i + 1}" for i in range(n)]
    # Most games fail the solver's checks (about one in thirteen has every
    # wrong action a named error's answer): redraw the numbers alone until one
    # passes, before any names or text are drawn. Each try is a fresh draw of
    # the same law, so the games kept are distributed as before; the solver
    # runs every check again on the question's payload.
    for _ in range(_BAYES_TRIES):
        payoffs = _payoffs(rng, spec, (2, 1, n, n, 2))
        p = integer(rng, 2, 9) / 10
        # Two different plays, uniform over ordered pairs (both alike asks nothing).
        first = integer(rng, 0, n)
        strategy = [first, (first + integer(rng, 1, n)) % n]
        # Make the stated type-contingent strategy each type's strict best reply to
        # the column player's best response, so the stated profile is a Bayes–Nash
        # equilibrium (row payoffs do not move the column player's best response).
        prior = np.array([[p], [1 - p]])
        _, best = _native.bayes_nash_best_responses(prior, payoffs, 1, strategy)
        if len(best[0]) != 1:
            continue  # tied best responses
        reply = int(best[0][0])
        pay = payoffs.tolist()
        named = t.solver == "bayes_nash_best_response"
        wrong = _column_errors(pay, p, strategy) - {reply, None} if named else set()
        if len(wrong) < n - 2:
            continue  # row_payoffs_read names at most one more
        for k in range(2):
            lift = max(
                row[reply][0] for i, row in enumerate(pay[k][0]) if i != strategy[k]
            ) + spec.step * integer(rng, 1, 4)
            cell = pay[k][0][strategy[k]][reply]
            cell[0] = max(cell[0], lift)
        if not named or len(wrong | ({_row_error(pay, p, strategy)} - {reply, None})) >= n - 1:
            break
    else:
        raise Resample(f"no game in {_BAYES_TRIES} with every wrong action a named error's answer")
    payoffs = np.array(pay)
    data = {"prior": [[p], [1 - p]], "payoffs": pay, "strategy": strategy, "col_actions": cols}
    if "row_players" in t.words and "col_players" in t.words:
        # Roles that do not swap (a union and an employer): one list each.
        one = t.words["row_players"][int(rng.integers(len(t.words["row_players"])))]
        two = t.words["col_players"][int(rng.integers(len(t.words["col_players"])))]
    else:
        one, two = _two_names(rng, t)
    types = (t.words.get("types") or ["strong", "weak"])[:2]
    text = "\n\n".join(
        f"If {one} is {types[k]}:\n" + _matrix_text(payoffs[k, 0], rows, cols, one, two, t.decimals)
        for k in range(2)
    )
    return Instance(
        data=data,
        fields={
            "matrices": text,
            "row_player": one,
            "col_player": two,
            "p": f"{p:g}",
            "type_1": types[0],
            "type_2": types[1],
            "play_1": rows[strategy[0]],
            "play_2": rows[strategy[1]],
        },
        choices=list(cols),
    )


register_structure(
    StructureKind(
        "bayesian_game",
        ("matrices", "row_player", "col_player", "p", "type_1", "type_2", "play_1", "play_2"),
        _sample_bayesian,
        lambda spec, t: None if 2 <= spec.size <= 4 else "size must be 2-4 actions",
        "a two-type Bayesian game with a known type-contingent strategy of the row player",
    )
)


# The solver and its five named-error replies read the same payload one after
# another: its arrays are kept for the payload last read (held, so its id
# cannot be reused; read-only, so no reader can change them for the next).
_LAST_ARRAYS: list[Any] = [None, None]


def _bayes_arrays(instance: Instance) -> tuple[np.ndarray, np.ndarray, list[int]]:
    d = instance.data
    if _LAST_ARRAYS[0] is not d:
        prior = np.asarray(d["prior"], dtype=np.float64)
        payoffs = np.asarray(d["payoffs"], dtype=np.float64)
        prior.flags.writeable = payoffs.flags.writeable = False
        _LAST_ARRAYS[:] = [d, (prior, payoffs)]
    prior, payoffs = _LAST_ARRAYS[1]
    return prior, payoffs, list(d["strategy"])


def _column_errors(pay: list[Any], p: float, strategy: list[int]) -> set[int | None]:
    """The answers of the named errors that read the column player's payoffs
    alone (`_likeliest_type_only`, `_less_likely_type_only`, `_ignored_prior`,
    `_best_single_outcome`, with the same sums), from the payoffs as lists."""
    one = [cell[1] for cell in pay[0][0][strategy[0]]]
    two = [cell[1] for cell in pay[1][0][strategy[1]]]
    likely, unlikely = (one, two) if p >= 0.5 else (two, one)
    return {
        _unique_best(likely),
        _unique_best(unlikely),
        _unique_best([0.5 * a + 0.5 * b for a, b in zip(one, two, strict=True)]),
        _unique_best([max(a, b) for a, b in zip(one, two, strict=True)]),
    }


def _row_error(pay: list[Any], p: float, strategy: list[int]) -> int | None:
    """`_row_payoffs_read`'s answer, from the payoffs as lists."""
    one, two = pay[0][0][strategy[0]], pay[1][0][strategy[1]]
    return _unique_best([p * a[0] + (1 - p) * b[0] for a, b in zip(one, two, strict=True)])


def _all_wrong_named(instance: Instance, key: int) -> bool:
    """Whether every wrong action is some named error's answer."""
    assert instance.choices is not None
    wrong = {
        f(instance, Solution(choice=key))
        for f in (
            _likeliest_type_only,
            _less_likely_type_only,
            _ignored_prior,
            _row_payoffs_read,
            _best_single_outcome,
        )
    } - {key, None}
    return len(wrong) >= len(instance.choices) - 1


def _bayes_nash(instance: Instance) -> Solution:
    prior, payoffs, strategy = _bayes_arrays(instance)
    expected, best = _native.bayes_nash_best_responses(prior, payoffs, 1, strategy)
    if len(best[0]) != 1:
        raise Resample("tied best responses")
    ranked = np.sort(expected[0])[::-1]
    if ranked[0] - ranked[1] < 0.05:
        raise Resample("best response not clearly ahead")
    assert instance.choices is not None
    # The stated profile, with this reply, must be a Bayes–Nash equilibrium.
    profile = (list(strategy), [int(best[0][0])])
    equilibria = [(list(r), list(c)) for r, c in _native.pure_bayes_nash(prior, payoffs)]
    if profile not in equilibria:
        raise Resample("the stated strategy is not part of a Bayes–Nash equilibrium")
    # Every wrong action must be a named error's answer: draw games where it is.
    key = int(best[0][0])
    if not _all_wrong_named(instance, key):
        raise Resample("some wrong action is no named error's answer")
    working = ", ".join(f"{c}: {v:.2f}" for c, v in zip(instance.choices, expected[0], strict=True))
    return Solution(choice=key, fields={"working": f"Expected payoffs: {working}"})


register_solver(
    SolverKind(
        "bayes_nash_best_response",
        ("bayesian_game",),
        "choice",
        _bayes_nash,
        doc="the column player's Bayes–Nash best response (steer-core)",
    )
)


def _unique_argmax(values: np.ndarray) -> int | None:
    """The index of the largest value, or None on a tie (a tie would name the
    first action by default and tilt wrong answers towards it)."""
    near = near_max(values.tolist())
    return near[0] if len(near) == 1 else None


def _column_payoffs_vs(instance: Instance, weights: tuple[float, float]) -> list[float]:
    """The column player's payoffs per action against each type's stated play,
    weighted (plain lists: cheaper than arrays for a handful of numbers)."""
    d = instance.data
    one, two = d["payoffs"][0][0][d["strategy"][0]], d["payoffs"][1][0][d["strategy"][1]]
    w0, w1 = weights
    return [w0 * a[1] + w1 * b[1] for a, b in zip(one, two, strict=True)]


@distractor("likeliest_type_only", "choice")
def _likeliest_type_only(instance: Instance, _s: Solution) -> int | None:
    """Best-responds to the more likely type only."""
    p = instance.data["prior"][0][0]
    return _unique_best(_column_payoffs_vs(instance, (1.0, 0.0) if p >= 0.5 else (0.0, 1.0)))


@distractor("less_likely_type_only", "choice")
def _less_likely_type_only(instance: Instance, _s: Solution) -> int | None:
    """Best-responds to the less likely type only (the prior read the wrong way)."""
    p = instance.data["prior"][0][0]
    return _unique_best(_column_payoffs_vs(instance, (0.0, 1.0) if p >= 0.5 else (1.0, 0.0)))


@distractor("best_single_outcome", "choice")
def _best_single_outcome(instance: Instance, _s: Solution) -> int | None:
    """Heads for the single best cell it could get against either type's play."""
    one, two = _column_payoffs_vs(instance, (1.0, 0.0)), _column_payoffs_vs(instance, (0.0, 1.0))
    return _unique_best([max(a, b) for a, b in zip(one, two, strict=True)])


@distractor("ignored_prior", "choice")
def _ignored_prior(instance: Instance, _s: Solution) -> int | None:
    """Weights both types equally."""
    return _unique_best(_column_payoffs_vs(instance, (0.5, 0.5)))


@distractor("row_payoffs_read", "choice")
def _row_payoffs_read(instance: Instance, _s: Solution) -> int | None:
    """Maximizes the row player's payoffs instead of its own."""
    d = instance.data
    p = d["prior"][0][0]
    one, two = d["payoffs"][0][0][d["strategy"][0]], d["payoffs"][1][0][d["strategy"][1]]
    return _unique_best([p * a[0] + (1 - p) * b[0] for a, b in zip(one, two, strict=True)])


# --- subgame-perfect strategy profiles (two-stage trees) --------------------------------------


def _follower_kids(instance: Instance) -> list[list[int]]:
    """The children of each follower node (nodes 1..b), in order."""
    parent = instance.data["parent"]
    b = len(instance.choices or [])
    kids: list[list[int]] = [[] for _ in range(b)]
    for i, p in enumerate(parent):
        if 1 <= p <= b:
            kids[p - 1].append(i)
    return kids


def _profile_text(
    instance: Instance, first: int, replies: list[int], kids: list[list[int]] | None = None
) -> str:
    labels = instance.data["labels"]
    kids = kids if kids is not None else _follower_kids(instance)
    parts = [f"{labels[kids[n][r]]} after {labels[n + 1]}" for n, r in enumerate(replies)]
    f = instance.fields
    return f"{f['leader']}: {labels[first + 1]}; {f['follower']}: " + ", ".join(parts)


def _spe(instance: Instance) -> Solution:
    parent, player, payoffs = _tree_arrays(instance)
    if int((player < 0).sum()) != len(instance.choices or []) ** 2:
        raise Resample("strategy profiles are asked of two-stage trees")
    _, chosen, tied, _ = _native.backward_induction(parent, player, payoffs)
    if tied.any():
        raise Resample("a mover is indifferent somewhere in the tree")
    b = len(instance.choices or [])
    first = int(chosen[0]) - 1
    kids = _follower_kids(instance)
    replies = [kids[n - 1].index(int(chosen[n])) for n in range(1, b + 1)]

    def profile(i: int) -> str:
        # Profile i: the leader's move, then one reply per follower node, in base b.
        moves = []
        for _ in range(b + 1):
            i, digit = divmod(i, b)
            moves.append(digit)
        return _profile_text(instance, moves[-1], moves[-2::-1], kids)

    key = _profile_text(instance, first, replies, kids)
    if _spe_menu(instance) is None:
        raise Resample("no balanced menu of wrong profiles")
    return Solution(
        text=key,
        pool=LazyTexts(b ** (b + 1), profile),
        fields={
            "working": f"Best replies at every follower node, then the leader's best move: {key}"
        },
    )


register_solver(
    SolverKind(
        "subgame_perfect",
        ("game_tree",),
        "text",
        _spe,
        doc="the full subgame-perfect profile of a two-stage tree (steer-core backward_induction)",
    )
)


def _argmax(values: list[float]) -> int:
    """numpy.argmax of a short plain list (the first of tied maxima), without
    numpy's per-call cost."""
    return max(range(len(values)), key=values.__getitem__)


# The menu of a subgame-perfect question. Left to fixed named errors, every
# distractor was the key with one move changed (the key was the menu's hub)
# and none was a Nash equilibrium that is not subgame-perfect, so a plain Nash
# check found the key (R3.15). Now the menu holds such a Nash trap in most
# questions, its leader moves are split as evenly as the options allow with
# the key in each group as often as any option, and the key is drawn a place
# among the options by how many moves it shares with the others. Each wrong
# profile is named by how it fails (`_spe_failure`); a second profile that is
# no Nash equilibrium is named `not_a_nash_equilibrium`.
_SPE_SPARE = "not_a_nash_equilibrium"
_SPE_MENU_TRIES = 60
_spe_cache: list[Any] = [None, None]


class _SpeGame:
    """The leader's and the follower's payoffs by first move and reply, the
    follower's best replies, the leader's subgame-perfect move, and the Nash
    equilibria that are not subgame-perfect (profiles: first move, replies)."""

    def __init__(self, lead: list[list[float]], foll: list[list[float]]) -> None:
        b = len(lead)
        self.lead, self.b = lead, b
        self.best = [_argmax(f) for f in foll]
        self.first = _argmax([lead[m][self.best[m]] for m in range(b)])
        self.key = (self.first, *self.best)
        self.profiles = list(itertools.product(range(b), repeat=b + 1))
        self.traps = [p for p in self.profiles if p != self.key and self.nash(p)]

    def nash(self, p: tuple[int, ...]) -> bool:
        """The reply on the path is the follower's best, and no first move
        pays the leader more given the stated replies."""
        a, replies = p[0], p[1:]
        mine = self.lead[a][replies[a]]
        return replies[a] == self.best[a] and all(
            mine >= self.lead[m][replies[m]] for m in range(self.b)
        )


def _spe_game(data: dict[str, Any], b: int) -> _SpeGame | None:
    """The two-stage game of a tree payload; None where a mover is indifferent."""
    pay = data["payoffs"]
    # Node 1..b are the follower's; leaf b + 1 + b * m + r follows move m, reply r.
    lead = [[pay[b + 1 + b * m + r][0] for r in range(b)] for m in range(b)]
    foll = [[pay[b + 1 + b * m + r][1] for r in range(b)] for m in range(b)]
    if any(len(set(f)) < b for f in foll):
        return None
    game = _SpeGame(lead, foll)
    tops = [lead[m][game.best[m]] for m in range(b)]
    return game if tops.count(max(tops)) == 1 else None


def _spe_failure(game: _SpeGame, p: tuple[int, ...]) -> str:
    """How a profile that is not subgame-perfect fails."""
    a, replies = p[0], p[1:]
    if game.nash(p):
        return "off_path_not_optimal" if a == game.first else "non_credible_threat"
    if replies[a] != game.best[a]:
        return "follower_not_best_on_path"
    return "off_path_not_optimal" if a == game.first else "leader_gains_by_switching"


def _spe_menu(instance: Instance) -> dict[str, tuple[int, ...]] | None:
    """The wrong profiles a subgame-perfect question offers, by name (see
    above); None when no menu fits."""
    data = instance.data
    if _spe_cache[0] is data:
        return _spe_cache[1]  # type: ignore[no-any-return]
    b = len(instance.choices or [])
    game = _spe_game(data, b)
    menu = None if game is None else _spe_pick(game, data["options"], data["pick"])
    _spe_cache[:] = [data, menu]
    return menu


def _spe_pick(game: _SpeGame, n: int, pick: int) -> dict[str, tuple[int, ...]] | None:
    # Python's generator: numpy's costs more per call than these small draws.
    rng = random.Random(pick)
    b, key = game.b, game.key
    # Options per first move, as even as n allows; the key's group drawn as a
    # random option's would be.
    sizes = [n // b + (i < n % b) for i in range(b)]
    slots = [g for g, size in enumerate(sizes) for _ in range(size)]
    mine = slots[rng.randrange(n)]
    others = [g for g in rng.sample(range(b), b) if g != mine]
    need = {game.first: sizes[mine] - 1}
    for move, g in zip((m for m in range(b) if m != game.first), others, strict=True):
        need[move] = sizes[g]
    target = rng.randrange(n)  # the key's place by moves shared with the others
    by_move = {m: [p for p in game.profiles if p[0] == m and p != key] for m in range(b)}
    best: tuple[tuple[int, int], dict[str, tuple[int, ...]]] | None = None
    for _ in range(_SPE_MENU_TRIES):
        chosen: list[tuple[int, ...]] = []
        if game.traps:
            trap = game.traps[rng.randrange(len(game.traps))]
            if need[trap[0]]:
                chosen.append(trap)
        for move, count in need.items():
            pool = [p for p in by_move[move] if p not in chosen]
            have = sum(1 for p in chosen if p[0] == move)
            chosen.extend(rng.sample(pool, min(len(pool), max(0, count - have))))
        # No two options give the same replies: "the option whose replies
        # another repeats" would find the key (its first move slipped).
        if len({p[1:] for p in [key, *chosen]}) < n:
            continue
        menu = _spe_names(game, chosen)
        if menu is None:
            continue
        trapped = any(p in game.traps for p in chosen) or not game.traps
        score = (0 if trapped else 1, _shared_rank(key, chosen, target))
        if best is None or score < best[0]:
            best = (score, menu)
        if score == (0, 0):
            break
    return None if best is None else best[1]


def _spe_names(game: _SpeGame, chosen: list[tuple[int, ...]]) -> dict[str, tuple[int, ...]] | None:
    """Each chosen profile under the name of its failure, a second one that is
    no Nash equilibrium as `not_a_nash_equilibrium`; None when two clash."""
    menu: dict[str, tuple[int, ...]] = {}
    for p in chosen:
        name = _spe_failure(game, p)
        if name in menu and not game.nash(p) and _SPE_SPARE not in menu:
            name = _SPE_SPARE
        if name in menu:
            return None
        menu[name] = p
    return menu


def _shared_rank(key: tuple[int, ...], chosen: list[tuple[int, ...]], target: int) -> int:
    """How far the key's place among the options, by moves shared with the
    other options (most first, ties spanning places), is from `target`."""
    options = [key, *chosen]

    def shared(p: tuple[int, ...]) -> int:
        return sum(a == c for q in options if q is not p for a, c in zip(p, q, strict=True))

    mine = shared(key)
    above = sum(1 for q in chosen if shared(q) > mine)
    ties = sum(1 for q in chosen if shared(q) == mine)
    return (
        0
        if above <= target <= above + ties
        else min(target - above, target - above - ties, key=abs)
    )


def _spe_named(name: str, doc: str) -> None:
    """Registers the menu's profile named `name` as a distractor."""

    def make(instance: Instance, _s: Solution) -> str | None:
        menu = _spe_menu(instance)
        p = None if menu is None else menu.get(name)
        return None if p is None else _profile_text(instance, p[0], list(p[1:]))

    make.__doc__ = doc
    distractor(name, "text")(make)


_spe_named(
    "off_path_not_optimal",
    "Right on the equilibrium path, but an off-path reply is not a best reply "
    "(a non-credible threat).",
)
_spe_named(
    "non_credible_threat",
    "A Nash equilibrium with another first move, held there by an off-path reply "
    "the follower would not carry out.",
)
_spe_named(
    "follower_not_best_on_path",
    "The follower's reply on the path of play is not its best reply there.",
)
_spe_named(
    "leader_gains_by_switching",
    "The reply on the path is the follower's best, but given the stated replies "
    "another first move pays the leader more.",
)
_spe_named(
    _SPE_SPARE,
    "A second profile that someone on the path of play would leave: not even a Nash equilibrium.",
)


# --- Yes/No distractors of the repeated-game elements: the rule that gives
# the wrong verdict (None where that rule agrees with the key) ---------------------


def _verdict(instance: Instance, flag: bool, s: Solution) -> int | None:
    """The index of the answer a wrong rule gives, when it differs from the key."""
    answer = 0 if flag else 1
    return answer if answer != s.choice else None


@distractor("box_not_hull", "choice")
def _box_not_hull(instance: Instance, s: Solution) -> int | None:
    """Calls every point between the lowest and highest stage payoffs feasible
    (the bounding box, not the convex hull)."""
    stage = _stage(instance)
    pt = instance.data["point"]
    lo, hi = stage.min(axis=(0, 1)), stage.max(axis=(0, 1))
    inside = all(lo[k] <= pt[k] <= hi[k] for k in (0, 1))
    return _verdict(instance, inside, s)


@distractor("stage_outcomes_only", "choice")
def _stage_outcomes_only(instance: Instance, s: Solution) -> int | None:
    """Counts only the four stage payoff pairs as achievable, not their mixes."""
    stage = _stage(instance).reshape(-1, 2)
    pt = np.asarray(instance.data["point"])
    return _verdict(instance, bool((np.abs(stage - pt).sum(axis=1) < 1e-9).any()), s)


@distractor("feasible_taken_for_enforceable", "choice")
def _feasible_taken_for_enforceable(instance: Instance, s: Solution) -> int | None:
    """Takes every feasible payoff to be enforceable, skipping the minmax test."""
    return _verdict(instance, True, s)


@distractor("cooperative_payoff_required", "choice")
def _cooperative_payoff_required(instance: Instance, s: Solution) -> int | None:
    """Enforces only payoffs at least as good as mutual cooperation for both."""
    r = float(_stage(instance)[0, 0, 0])
    pt = instance.data["point"]
    return _verdict(instance, bool(pt[0] >= r and pt[1] >= r), s)


def _threshold_verdict(instance: Instance, s: Solution, critical: float) -> int | None:
    return _verdict(instance, instance.data["delta"] >= critical, s)


@distractor("trigger_gain_loss_swapped", "choice")
def _trigger_gain_loss_swapped(instance: Instance, s: Solution) -> int | None:
    """Judges δ against (R − P) / (T − P) instead of (T − R) / (T − P)."""
    t, r, p, _ = _trp(instance)
    return _threshold_verdict(instance, s, (r - p) / (t - p))


@distractor("trigger_sucker_punishment", "choice")
def _trigger_sucker_punishment(instance: Instance, s: Solution) -> int | None:
    """Judges δ as if defection were punished with the sucker's payoff S."""
    t, r, _, s_pay = _trp(instance)
    return _threshold_verdict(instance, s, (t - r) / (t - s_pay))


@distractor("trigger_no_punishment", "choice")
def _trigger_no_punishment(instance: Instance, s: Solution) -> int | None:
    """Judges δ as if the punishment phase were worth nothing."""
    t, r, _, _ = _trp(instance)
    return _threshold_verdict(instance, s, (t - r) / t if t else 0.0)


@distractor("one_shot_defection", "choice")
def _one_shot_defection(instance: Instance, s: Solution) -> int | None:
    """Treats the game as played once: defection is dominant, so no cooperation."""
    return _verdict(instance, False, s)


@distractor("threat_always_works", "choice")
def _threat_always_works(instance: Instance, s: Solution) -> int | None:
    """Takes the threat of permanent punishment to sustain cooperation at any δ."""
    return _verdict(instance, True, s)


# --- whose incentive constraint holds under grim trigger (3.4.c, four options) -----------
#
# An asymmetric prisoner's dilemma (each player's own T > R > P > S) and a
# discount factor: the options are both players, only the row player, only the
# column player, neither. Each key comes up about a quarter of the time (drawn
# first, then games until one has it), and δ is never within 0.03 of either
# player's threshold.

WHOSE = ("both", "row", "col", "neither")


def _whose_index(row_ok: bool, col_ok: bool) -> int:
    return 0 if row_ok and col_ok else 1 if row_ok else 2 if col_ok else 3


def _whose_instance(
    rng: np.random.Generator, t: TemplateSpec, payoffs: list[list[list[float]]], delta: float
) -> Instance:
    """The asymmetric stage game `payoffs` at discount factor `delta`, with
    drawn player names and the four options."""
    c, d = (t.words.get("stage_actions") or ["Cooperate", "Defect"])[:2]
    one, two = _two_names(rng, t)
    return Instance(
        data={"payoffs": payoffs, "delta": delta},
        fields={
            "matrix": _matrix_text(np.asarray(payoffs), [c, d], [c, d], one, two, t.decimals),
            "row_player": one,
            "col_player": two,
            "delta": f"{delta:g}",
            "cooperate": c,
            "defect": d,
        },
        choices=[f"Both {one} and {two}", f"Only {one}", f"Only {two}", f"Neither {one} nor {two}"],
    )


def _player_threshold(payoffs: np.ndarray, player: int) -> float:
    """One player's grim-trigger threshold (steer-core): the other player's
    payoffs are zeroed, so only this player's constraint binds."""
    alone = payoffs.copy()
    alone[:, :, 1 - player] = 0.0
    delta, _ = _native.grim_trigger(alone, (0, 0), (1, 1))
    if delta is None:
        raise Resample("grim trigger cannot sustain cooperation")
    return float(delta)


def _whose(instance: Instance) -> Solution:
    payoffs = _stage(instance)
    delta = instance.data["delta"]
    row, col = _player_threshold(payoffs, 0), _player_threshold(payoffs, 1)
    if min(abs(delta - row), abs(delta - col)) < 0.03:
        raise Resample("discount factor too close to a threshold")
    f = instance.fields
    return Solution(
        choice=_whose_index(delta >= row, delta >= col),
        fields={
            "working": f"{f['row_player']} needs δ ≥ {short_decimal(row)} and {f['col_player']} "
            f"needs δ ≥ {short_decimal(col)}; here δ = {delta:g}"
        },
    )


register_solver(
    SolverKind(
        "grim_trigger_whose",
        ("stage_game_whose",),
        "choice",
        _whose,
        doc="whose grim-trigger constraint holds at δ (steer-core grim_trigger, per player)",
    )
)


# The discount factors a question states: 0.25, 0.30, ..., 0.95.
_WHOSE_DELTAS = tuple(k / 20 for k in range(5, 20))


def _sample_whose(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """An asymmetric stage game (each player's own S < P < R < T from the
    grade's grid) and a discount factor, for an answer drawn first (each of the
    four a quarter of the time): games are drawn until some δ on the grid gives
    that answer, at least 0.03 from both thresholds, with every wrong option
    some named error's answer; δ is drawn among those. The thresholds here only
    steer the draw: the key is the solver's (steer-core)."""
    grid = _grid(spec).tolist()
    n = len(grid)
    want = int(rng.integers(4))
    for _ in range(64):
        idx = integers(rng, 0, n, 8).tolist()
        if len(set(idx[:4])) < 4 or len(set(idx[4:])) < 4:
            continue
        s1, p1, r1, t1 = sorted(grid[i] for i in idx[:4])
        s2, p2, r2, t2 = sorted(grid[i] for i in idx[4:])
        row, col = (t1 - r1) / (t1 - p1), (t2 - r2) / (t2 - p2)
        # Only players swapped names the other 'only' option of an 'only' key,
        # threat-always-works 'both', one-shot 'neither'; a 'both' or 'neither'
        # key needs threshold rules that name each 'only' option.
        rules = [(f(t1, r1, p1, s1), f(t2, r2, p2, s2)) for f in _WHOSE_RULES]
        deltas = [
            d
            for d in _WHOSE_DELTAS
            if min(abs(d - row), abs(d - col)) >= 0.03
            and _whose_index(d >= row, d >= col) == want
            and (want in (1, 2) or {_whose_index(d >= a, d >= b) for a, b in rules} >= {1, 2})
        ]
        if deltas:
            payoffs = [[[r1, r2], [s1, t2]], [[t1, s2], [p1, p2]]]
            return _whose_instance(rng, t, payoffs, deltas[int(rng.integers(len(deltas)))])
    raise Resample("no stage game with the drawn answer")


def _check_whose(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if len(_grid(spec)) < 6:
        return "the payoff range needs at least six values"
    return None


register_structure(
    StructureKind(
        "stage_game_whose",
        ("matrix", "row_player", "col_player", "delta", "cooperate", "defect"),
        _sample_whose,
        _check_whose,
        "an asymmetric prisoner's dilemma and a discount factor; which players' "
        "grim-trigger constraints hold is drawn first",
    )
)


def _own_trps(instance: Instance) -> list[tuple[float, float, float, float]]:
    """(T, R, P, S) of the row player, then of the column player."""
    p = instance.data["payoffs"]
    return [
        (p[1][0][0], p[0][0][0], p[1][1][0], p[0][1][0]),
        (p[0][1][1], p[0][0][1], p[1][1][1], p[1][0][1]),
    ]


def _swapped_gain_loss(t: float, r: float, p: float, _s: float) -> float:
    return (r - p) / (t - p)


def _sucker_threshold(t: float, r: float, _p: float, s: float) -> float:
    return (t - r) / (t - s)


def _odds_threshold(t: float, r: float, p: float, _s: float) -> float:
    return (t - r) / (r - p)


# The per-player threshold rules of the named errors, read by the sampler too.
_WHOSE_RULES = (_swapped_gain_loss, _sucker_threshold, _odds_threshold)


def _whose_by(
    instance: Instance, s: Solution, threshold: Callable[[float, float, float, float], float]
) -> int | None:
    """The option a wrong per-player threshold rule leads to, when it is not the key."""
    delta = instance.data["delta"]
    row, col = (delta >= threshold(*trps) for trps in _own_trps(instance))
    index = _whose_index(row, col)
    return index if index != s.choice else None


@distractor("whose_gain_loss_swapped", "choice")
def _whose_gain_loss_swapped(instance: Instance, s: Solution) -> int | None:
    """Judges each player's δ against (R − P) / (T − P) instead of (T − R) / (T − P)."""
    return _whose_by(instance, s, _swapped_gain_loss)


@distractor("whose_sucker_punishment", "choice")
def _whose_sucker_punishment(instance: Instance, s: Solution) -> int | None:
    """Judges each player as if defection were punished with the sucker's payoff S."""
    return _whose_by(instance, s, _sucker_threshold)


@distractor("whose_odds_not_discount_factor", "choice")
def _whose_odds(instance: Instance, s: Solution) -> int | None:
    """Compares δ itself with the odds (T − R) / (R − P) that δ / (1 − δ) must reach."""
    return _whose_by(instance, s, _odds_threshold)


@distractor("whose_players_swapped", "choice")
def _whose_players_swapped(instance: Instance, s: Solution) -> int | None:
    """Reads each player's constraint off the other player's payoffs."""
    delta = instance.data["delta"]
    row, col = ((t - r) / (t - p) for t, r, p, _ in _own_trps(instance))
    index = _whose_index(delta >= col, delta >= row)
    return index if index != s.choice else None


@distractor("whose_one_shot_defection", "choice")
def _whose_one_shot(instance: Instance, s: Solution) -> int | None:
    """Treats the game as played once: defecting is dominant for both, so neither."""
    return 3 if s.choice != 3 else None


@distractor("whose_threat_always_works", "choice")
def _whose_threat_always_works(instance: Instance, s: Solution) -> int | None:
    """Takes the threat of permanent punishment to bind both players at any δ."""
    return 0 if s.choice != 0 else None


_WHOSE_ERRORS = (
    _whose_gain_loss_swapped,
    _whose_sucker_punishment,
    _whose_odds,
    _whose_players_swapped,
    _whose_one_shot,
    _whose_threat_always_works,
)
