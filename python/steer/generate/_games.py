"""Normal-form games: reading payoffs, dominance, IRDS, pure and mixed Nash.

Structures sample a two-player game with `size` actions each (payoffs are
multiples of `step` in [low, high]); variants plant the property a question
asks about (a dominant or a dominated strategy) or draw batches and keep the
first game the batch solvers in steer-core find suitable. Solvers prove the
key with steer-core.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from steer import _native
from steer._draws import integer, integers, sample
from steer.generate._format import amount, join_and, short_decimal
from steer.generate._options import min_gap
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    SolverKind,
    StructureKind,
    distractor,
    lazy_texts,
    near_max,
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
    # math.floor and the array's own round: numpy's module-level wrappers cost
    # more than the arithmetic on a few payoffs, drawn once per game tried.
    n = math.floor((spec.high - spec.low) / spec.step + 1e-9) + 1
    return (spec.low + spec.step * integers(rng, 0, n, shape)).round(6)


def _labels(t: TemplateSpec, key: str, n: int, prefix: str) -> list[str]:
    return t.words.get(key, [])[:n] or [f"{prefix}{i + 1}" for i in range(n)]


def _instance(
    rng: np.random.Generator, payoffs: np.ndarray, t: TemplateSpec, player: int | None = None
) -> Instance:
    n_rows, n_cols = payoffs.shape[:2]
    row_player, col_player = _two_names(rng, t)
    rows = _labels(t, "row_actions", n_rows, "R")
    cols = _labels(t, "col_actions", n_cols, "C")
    player = integer(rng, 0, 2) if player is None else player
    cell = (integer(rng, 0, n_rows), integer(rng, 0, n_cols))
    names = (row_player, col_player) if player == 0 else (col_player, row_player)
    table = payoffs.tolist()
    return Instance(
        data={
            "payoffs": table,
            "player": player,
            "cell": list(cell),
            "row_actions": rows,
            "col_actions": cols,
        },
        fields={
            "row_player": row_player,
            "col_player": col_player,
            "player": names[0],
            "opponent": names[1],
            "cell_row": rows[cell[0]],
            "cell_col": cols[cell[1]],
        },
        choices=list(rows if player == 0 else cols),
        # Many games drawn here fail their solver's checks: the table is
        # written only for the one kept, from the payload's lists (which
        # nothing changes later; a sampler may go on to reuse its array).
        defer=lambda: {
            "matrix": _matrix_text(table, rows, cols, row_player, col_player, t.decimals)
        },
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


# Payoffs _one_width handles at a time.
_CHUNK = 1 << 16


@functools.lru_cache(maxsize=64)
def _one_width(low: float, high: float, step: float) -> np.ndarray:
    """The payoffs of the range whose whole part has the commonest number of
    digits (rounded as options are), as a read-only array."""
    n = math.floor((high - low) / step + 1e-9) + 1
    # In chunks: a fine range has millions of payoffs, and arrays that size
    # cost more in fresh memory than in arithmetic. Each value is computed as
    # it would be in one array, so the payoffs kept are the same.
    chunks = []
    for start in range(0, n, _CHUNK):
        values = (low + step * np.arange(start, min(n, start + _CHUNK))).round(6)
        whole = np.abs(np.round(values))
        digits = np.where(whole < 1, 1, np.floor(np.log10(np.maximum(whole, 1))) + 1)
        chunks.append((values, digits))
    # The commonest digit count, the fewest digits on a tie (a count, not a
    # sort: a fine range has millions of payoffs and at most ~20 counts).
    counts = sum(np.bincount(d.astype(np.int64), minlength=32) for _, d in chunks)
    common = float(np.argmax(counts))
    kept = []
    for values, digits in chunks:
        same = digits == common
        if step < 1:
            # Fractional payoffs all show their decimals, as the options do: a
            # whole cell ("12" beside "-46.500") would be another number format.
            same &= values != np.round(values)
        kept.append(values[same])
    keep = np.concatenate(kept)
    keep.flags.writeable = False
    return keep


def _sample_game(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Every payoff has as many digits as the others: a misread cell is then
    as long as the key, and the options keep the named misreadings (numbers of
    another length would be left out of the options as a tell)."""
    n = spec.size
    pool = _one_width(spec.low, spec.high, spec.step)
    instance = _instance(rng, pool[integers(rng, 0, len(pool), (n, n, 2))], t)
    instance.data["decimals"] = t.decimals  # the options are written as the table is
    return instance


def _sample_dominant(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Plants a strictly dominant strategy for the asked player."""
    n = spec.size
    payoffs = _payoffs(rng, spec, (n, n, 2))
    player = int(rng.integers(0, 2))
    own = _own(payoffs, player).copy()
    best = int(rng.integers(n))
    others = np.delete(own, best, axis=0).max(axis=0)
    bump = spec.step * integers(rng, 1, 4, n)
    own[best] = np.minimum(others + bump, spec.high + 3 * spec.step)
    _set_own(payoffs, player, own)
    return _instance(rng, payoffs, t, player)


def _sample_dominated(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """Plants a strictly dominated strategy for the asked player."""
    n = spec.size
    payoffs = _payoffs(rng, spec, (n, n, 2))
    player = int(rng.integers(0, 2))
    own = _own(payoffs, player).copy()
    worse, better = sample(rng, n, 2)
    own[worse] = own[better] - spec.step * integers(rng, 1, 5, n)
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
    instance = _instance(rng, batch[int(good[0])], t)
    if keep == "irds":
        instance.data["pick"] = int(rng.integers(1 << 30))
        instance.data["players"] = [instance.fields["row_player"], instance.fields["col_player"]]
    return instance


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


# The array of the last payoff table read: a game's solver and each of its
# distractors read the same table, several times per question. Keyed by the
# identity of the payload's list (held here, so the id cannot be reused);
# read-only, so no reader can change it for the next.
_LAST_PAYOFFS: list[Any] = [None, None]


def _arr(instance: Instance) -> np.ndarray:
    table = instance.data["payoffs"]
    if _LAST_PAYOFFS[0] is not table:
        payoffs = np.asarray(table, dtype=np.float64)
        payoffs.flags.writeable = False
        _LAST_PAYOFFS[:] = [table, payoffs]
    return _LAST_PAYOFFS[1]  # type: ignore[no-any-return]


def _num(x: float) -> str:
    text = amount(x, "", 6)
    return text.rstrip("0").rstrip(".") if "." in text else text


# --- 3.1.a reading a payoff ---------------------------------------------------------------
# Every option is a number printed in the table (R3.5: digit slips such as
# -71 for -17 appear nowhere in it, so scanning the table for an option found
# the key). The answer is a text, written as the table writes it, and keeps
# its value for free-text grading.


def _cell_text(instance: Instance, r: int, c: int, who: int) -> str:
    # _matrix_text's default where a payload names none (a hand-made instance)
    return amount(_arr(instance)[r, c, who], "", instance.data.get("decimals", 2))


# Each named misreading of the asked cell: rows and columns swapped first, then
# a step down the rows and across the columns, and whose number is read.
_MISREADS = {
    "other_players_payoff": (False, 0, 0, True),
    "wrong_row": (False, 1, 0, False),
    "other_player_wrong_row": (False, 1, 0, True),
    "transposed_cell": (True, 0, 0, False),
    "wrong_column": (False, 0, 1, False),
    "other_player_transposed": (True, 0, 0, True),
    "diagonal_cell": (False, 1, 1, False),
    "other_player_wrong_column": (False, 0, 1, True),
}


# The last payload `_spaced` worked out, and its answer: each of a question's
# eight misreading distractors asks for it.
_spaced_cache: list[Any] = [None, None]


def _spaced(instance: Instance) -> tuple[dict[str, str], list[str]]:
    """The misreadings kept as options, and the table's other numbers that may
    fill a menu, each at least the widest options gap (any grade's) from the
    key and from every one kept before it: options as far apart as a numeric
    menu's, so any menu drawn from them is too."""
    if _spaced_cache[0] is instance.data:
        return _spaced_cache[1]  # type: ignore[no-any-return]
    _spaced_cache[:] = [instance.data, _spaced_uncached(instance)]
    return _spaced_cache[1]  # type: ignore[no-any-return]


def _spaced_uncached(instance: Instance) -> tuple[dict[str, str], list[str]]:
    payoffs = _arr(instance)
    n_rows, n_cols = payoffs.shape[:2]
    r, c = instance.data["cell"]
    who = instance.data["player"]
    key = float(payoffs[r, c, who])
    gap = min_gap(key, 0, instance.data.get("decimals", 2)) - 1e-9
    kept = [key]

    def keep(x: float) -> bool:
        if all(abs(x - k) >= gap for k in kept):
            kept.append(x)
            return True
        return False

    named: dict[str, str] = {}
    for name, (transpose, dr, dc, other) in _MISREADS.items():
        i, j = (c, r) if transpose else (r, c)
        if transpose and (r == c or max(r, c) >= min(n_rows, n_cols)):
            continue
        i, j, w = (i + dr) % n_rows, (j + dc) % n_cols, 1 - who if other else who
        if keep(float(payoffs[i, j, w])):
            named[name] = _cell_text(instance, i, j, w)
    rest = [
        _cell_text(instance, i, j, w)
        for i in range(n_rows)
        for j in range(n_cols)
        for w in (0, 1)
        if keep(float(payoffs[i, j, w]))
    ]
    return named, rest


def _payoff_lookup(instance: Instance) -> Solution:
    payoffs, player = _arr(instance), instance.data["player"]
    r, c = instance.data["cell"]
    value = float(payoffs[r, c, player])
    f = instance.fields
    text = _cell_text(instance, r, c, player)
    if payoffs[r, c, 1 - player] == value or _cell_text(instance, r, c, 1 - player) == text:
        # Reading the other player's number would also find the key: the item
        # would not test whose number is whose.
        raise Resample("the asked cell's two payoffs are equal")
    return Solution(
        value=value,
        text=text,
        pool=lambda: _spaced(instance)[1],
        fields={
            "working": f"In the cell ({f['cell_row']}, {f['cell_col']}) {f['player']} gets {text}"
        },
    )


register_solver(
    SolverKind(
        "payoff_lookup",
        ("normal_form",),
        "text",
        _payoff_lookup,
        doc="the asked player's payoff at the asked action profile, as the table writes it",
    )
)


def _misreading(name: str, doc: str) -> None:
    def make(instance: Instance, _s: Solution) -> str | None:
        return _spaced(instance)[0].get(name)

    make.__doc__ = doc
    distractor(name, "text")(make)


for _name, _doc in (
    ("other_players_payoff", "Reads the opponent's number in the right cell (row_col_swapped)."),
    ("transposed_cell", "Looks up (column action, row action): rows and columns swapped."),
    ("wrong_row", "Reads the right column but the neighbouring row."),
    ("wrong_column", "Reads the right row but the neighbouring column."),
    ("other_player_transposed", "Swaps the cell's rows and columns and the two numbers in it."),
    ("diagonal_cell", "Reads the neighbouring row and the neighbouring column at once."),
    ("other_player_wrong_row", "Reads the opponent's number, in the neighbouring row."),
    ("other_player_wrong_column", "Reads the opponent's number, in the neighbouring column."),
):
    _misreading(_name, _doc)


# --- 3.1.c / 3.1.d dominance -----------------------------------------------------------------


def _dominant(instance: Instance) -> Solution:
    player = instance.data["player"]
    best = _native.dominant_strategy(_arr(instance), player, True)
    if best is None:
        raise Resample("no strictly dominant strategy")
    assert instance.choices is not None
    _cover(instance, best, DOMINANT_ERRORS)
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
    _cover(instance, i, DOMINATED_ERRORS)
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
    # The row of the first largest payoff in reading order, as argmax finds it.
    own = _own(_arr(instance), instance.data["player"]).tolist()
    top = max(max(row) for row in own)
    return next(i for i, row in enumerate(own) if top in row)


@distractor("lowest_single_payoff", "choice")
def _lowest_single_payoff(instance: Instance, _s: Solution) -> int:
    """Calls the action holding the single smallest payoff dominated."""
    # The row of the first smallest payoff in reading order, as argmin finds it.
    own = _own(_arr(instance), instance.data["player"]).tolist()
    bottom = min(min(row) for row in own)
    return next(i for i, row in enumerate(own) if bottom in row)


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


@distractor("highest_total_joint", "choice")
def _highest_total_joint(instance: Instance, _s: Solution) -> int:
    """Picks the action with the largest total of both players' payoffs (efficiency)."""
    payoffs, player = _arr(instance), instance.data["player"]
    return int(np.argmax((_own(payoffs, player) + _own(payoffs[:, :, ::-1], player)).sum(axis=1)))


@distractor("dominance_reversed_choice", "choice")
def _dominance_reversed_choice(instance: Instance, s: Solution) -> int | None:
    """Names the action that dominates the dominated one (the comparison read
    backwards), or for a dominant strategy the action it beats by most."""
    payoffs, player = _arr(instance), instance.data["player"]
    assert s.choice is not None
    dominators = _native.dominators(payoffs, player, True)
    by = dominators[s.choice]
    if by is not None:
        return int(by)
    own = _own(payoffs, player)
    gaps = (own[s.choice] - own).min(axis=1)
    gaps[s.choice] = -np.inf
    return int(np.argmax(gaps))


@distractor("opponent_payoffs_lowest", "choice")
def _opponent_payoffs_lowest(instance: Instance, _s: Solution) -> int:
    """Calls dominated the action worst for the opponent (the other number read)."""
    payoffs, player = _arr(instance), instance.data["player"]
    return int(np.argmin(_own(payoffs[:, :, ::-1], player).sum(axis=1)))


DOMINANT_ERRORS = (
    _highest_single_payoff,
    _opponent_payoffs_read,
    _highest_total_joint,
    _lowest_total,
)
DOMINATED_ERRORS = (
    _lowest_single_payoff,
    _lowest_total,
    _opponent_payoffs_lowest,
    _dominance_reversed_choice,
)


def _cover(instance: Instance, key: int, errors: tuple[object, ...]) -> None:
    """Resample unless the named errors reach every wrong action (so none is
    tagged `other`)."""
    assert instance.choices is not None
    hit = {f(instance, Solution(choice=key)) for f in errors} - {None, key}  # type: ignore[operator]
    if len(hit) < len(instance.choices) - 1:
        raise Resample("some wrong action is no named error's answer")


# --- 3.1.e iterated removal --------------------------------------------------------------


def _irds_text(instance: Instance, keep_rows: list[int], keep_cols: list[int]) -> str:
    f = instance.fields
    rows, cols = instance.data["row_actions"], instance.data["col_actions"]
    return (
        f"{f['row_player']}: "
        + ", ".join(rows[i] for i in keep_rows)
        + f"; {f['col_player']}: "
        + ", ".join(cols[j] for j in keep_cols)
    )


def irds_rounds(
    payoffs: np.ndarray,
    *,
    weak: bool = False,
    players: tuple[int, ...] = (0, 1),
    judge: str = "own",
    rounds: int | None = None,
    first_round_keeps_dominated: bool = False,
    never_best_reply: bool = False,
) -> tuple[list[int], list[int]]:
    """Survivors of iterated removal, in rounds that remove, for both players at
    once, every strategy dominated in the game left by the previous round.

    The keyword arguments produce the wrong procedures the distractors name:
    `weak` also removes weakly dominated strategies, `players` limits removal to
    those players, `judge="other"` ranks a player's strategies by the other
    player's payoffs, `rounds` stops early, and `first_round_keeps_dominated`
    removes the dominating strategy instead of the dominated one in round one,
    and `never_best_reply` removes every strategy that is no best reply to any
    one surviving strategy of the other player (a test that also removes
    strategies nothing dominates).
    With the defaults it is plain iterated strict dominance (steer-core's
    `iterated_dominance` proves the key; tests check the two agree).
    """
    # Plain lists, not numpy: the games are a few strategies a side, and this
    # runs once per named error per draw, where numpy's per-call cost on a 3×3
    # slice is most of the work. Comparing payoffs directly is comparing their
    # difference with 0 (exact for finite floats).
    table = payoffs.tolist()
    alive = [list(range(len(table))), list(range(len(table[0])))]
    done = 0
    while rounds is None or done < rounds:
        gone: list[set[int]] = [set(), set()]
        for p in players:
            q = p if judge == "own" else 1 - p
            # The judged payoffs of p's surviving strategies (rows) against the
            # other player's survivors (columns).
            if p == 0:
                sub = [[table[s][o][q] for o in alive[1]] for s in alive[0]]
            else:
                sub = [[table[o][s][q] for o in alive[0]] for s in alive[1]]
            if never_best_reply:
                tops = [max(column) for column in zip(*sub, strict=True)]
                gone[p].update(
                    s
                    for s, row in zip(alive[p], sub, strict=True)
                    if not any(x == top for x, top in zip(row, tops, strict=True))
                )
                continue
            for a, s in enumerate(alive[p]):
                for b, t in enumerate(alive[p]):
                    if a == b:
                        continue
                    pairs = list(zip(sub[a], sub[b], strict=True))
                    strict = all(y > x for x, y in pairs)
                    if strict or (
                        weak and all(y >= x for x, y in pairs) and any(y > x for x, y in pairs)
                    ):
                        gone[p].add(t if first_round_keeps_dominated and done == 0 else s)
                        break
        if not gone[0] and not gone[1]:
            break
        alive = [[s for s in alive[p] if s not in gone[p]] for p in (0, 1)]
        if not alive[0] or not alive[1]:
            break
        done += 1
    return alive[0], alive[1]


def _strategy_text(instance: Instance, player: int, s: int) -> str:
    f = instance.fields
    names = instance.data["row_actions"] if player == 0 else instance.data["col_actions"]
    # The payload names the players (the same names the text uses), so a
    # re-solve from the payload alone (steer generate --llm) names them too.
    players = instance.data.get("players") or (f["row_player"], f["col_player"])
    return f"{names[s]} ({players[player]})"


def _mix_dominated(own: np.ndarray, s: int, others: list[int]) -> bool:
    """Whether own strategy `s` is strictly dominated by another strategy or by
    a mix of two (own: own strategies × opponent strategies). With at most three
    strategies a player, pairs are every mix there is."""
    for i, a in enumerate(others):
        if (own[a] > own[s]).all():
            return True
        for b in others[i + 1 :]:
            # λ·own[a] + (1 − λ)·own[b] > own[s] for every column: an interval of λ.
            d, need = own[a] - own[b], own[s] - own[b]
            lo, hi = 0.0, 1.0
            ok = True
            for dj, nj in zip(d, need, strict=True):
                if dj > 0:
                    lo = max(lo, nj / dj)
                elif dj < 0:
                    hi = min(hi, nj / dj)
                elif nj >= 0:
                    ok = False
            if ok and lo < hi - 1e-9 and not (lo >= 1 or hi <= 0):
                lam = (lo + hi) / 2
                if (lam * own[a] + (1 - lam) * own[b] > own[s] + 1e-12).all():
                    return True
    return False


def _mixed_dominance_agrees(payoffs: np.ndarray, rows: list[int], cols: list[int]) -> bool:
    """No survivor is dominated by a mix of survivors, and no survivor (nor any
    strategy removed after round one) is dominated by a mix in the full game:
    pure and mixed dominance then tell the same story about every option."""
    alive = (list(rows), list(cols))
    full = (list(range(payoffs.shape[0])), list(range(payoffs.shape[1])))
    for p in (0, 1):
        own = payoffs[:, :, p] if p == 0 else payoffs[:, :, 1].T
        sub = own[:, alive[1 - p]]
        for s in alive[p]:
            if _mix_dominated(sub, s, [a for a in alive[p] if a != s]):
                return False
            if _mix_dominated(own, s, [a for a in full[p] if a != s]):
                return False
    return True


def _irds(instance: Instance) -> Solution:
    """One strategy that iterated strict dominance removes only in a later round
    (it is not dominated in the game as given), against strategies that survive:
    every option reads alike, and one round of checking finds nothing."""
    payoffs = _arr(instance)
    rows, cols, steps = _native.iterated_dominance(payoffs)
    late = [(int(p), int(st)) for rnd, p, st, _ in steps if rnd >= 1]
    if not late:
        raise Resample("IRDS removes nothing after its first round")
    if not _mixed_dominance_agrees(payoffs, list(rows), list(cols)):
        raise Resample("a mixed strategy dominates a survivor")
    p, st = late[int(instance.data.get("pick", 0)) % len(late)]
    own = payoffs[:, :, 0] if p == 0 else payoffs[:, :, 1].T
    if _mix_dominated(own, st, [a for a in range(len(own)) if a != st]):
        raise Resample("the removed strategy is dominated by a mix in the game as given")
    names = (instance.data["row_actions"], instance.data["col_actions"])
    players = (instance.fields["row_player"], instance.fields["col_player"])
    survivors = [(0, int(r)) for r in rows] + [(1, int(c)) for c in cols]

    def pool() -> Sequence[str]:
        return lazy_texts(survivors, lambda ps: _strategy_text(instance, *ps))

    def explain() -> dict[str, str]:
        return {"working": _irds_working(steps, players, names)}

    return Solution(text=_strategy_text(instance, p, st), pool=pool, explain=explain)


def _irds_working(
    steps: Sequence[tuple[int, int, int, int]],
    players: tuple[str, str],
    names: tuple[Sequence[str], Sequence[str]],
) -> str:
    """The removals round by round, one clause a round: "round 1: remove
    Fabrikam's Raise price and Keep price (both dominated by Cut price); round
    2: …" (a round's removals are never listed as two clauses of one round)."""
    rounds: dict[int, dict[int, list[tuple[int, int]]]] = {}
    for rnd, q, x, by in steps:
        rounds.setdefault(int(rnd), {}).setdefault(int(q), []).append((int(x), int(by)))
    clauses = []
    for rnd in sorted(rounds):
        parts = []
        for q, removed in rounds[rnd].items():
            acts = [names[q][x] for x, _ in removed]
            doms = [names[q][by] for _, by in removed]
            if len(removed) == 1:
                parts.append(f"{possessive(players[q])} {acts[0]} (dominated by {doms[0]})")
            elif len(set(doms)) == 1:
                both = "both" if len(removed) == 2 else "all"
                parts.append(
                    f"{possessive(players[q])} {join_and(acts)} ({both} dominated by {doms[0]})"
                )
            else:
                each = [f"{a} (dominated by {d})" for a, d in zip(acts, doms, strict=True)]
                parts.append(f"{possessive(players[q])} {join_and(each)}")
        clauses.append(f"round {rnd + 1}: remove {join_and(parts)}")
    return "; ".join(clauses)


register_solver(
    SolverKind(
        "iterated_dominance",
        ("normal_form_irds",),
        "text",
        _irds,
        doc="a strategy iterated strict dominance removes after its first round "
        "(steer-core, with the order); the other options survive",
    )
)


def _wrongly_removed(instance: Instance, transposed: bool = False, **how: object) -> str | None:
    """A strategy that survives IRDS but that the wrong procedure `how` removes
    (`transposed`: run on the matrix read with rows and columns swapped)."""
    payoffs = _arr(instance)
    rows, cols, _ = _native.iterated_dominance(payoffs)
    read = payoffs.transpose(1, 0, 2).copy() if transposed else payoffs
    w_rows, w_cols = irds_rounds(read, **how)  # type: ignore[arg-type]
    hits = [(0, int(r)) for r in rows if r not in w_rows]
    hits += [(1, int(c)) for c in cols if c not in w_cols]
    if not hits:
        return None
    return _strategy_text(instance, *hits[int(instance.data.get("pick", 0)) % len(hits)])


@distractor("weak_dominance_removed", "text")
def _weak_dominance_removed(instance: Instance, _s: Solution) -> str | None:
    """A survivor that is only weakly dominated (ties allowed): strict IRDS keeps it."""
    return _wrongly_removed(instance, weak=True)


@distractor("dominator_removed", "text")
def _dominator_removed(instance: Instance, _s: Solution) -> str | None:
    """A survivor removed by taking out the dominating strategy instead of the dominated one."""
    return _wrongly_removed(instance, first_round_keeps_dominated=True)


@distractor("other_players_payoffs", "text")
def _other_players_payoffs(instance: Instance, _s: Solution) -> str | None:
    """A survivor removed by comparing a player's strategies by the other player's payoffs."""
    return _wrongly_removed(instance, judge="other")


@distractor("wrong_player", "text")
def _wrong_player(instance: Instance, s: Solution) -> str | None:
    """The removed action, but credited to the other player (rows and columns
    confused): that player's action of the same name survives."""
    payoffs = _arr(instance)
    rows, cols, _ = _native.iterated_dominance(payoffs)
    names = (instance.data["row_actions"], instance.data["col_actions"])
    for p, alive in ((0, rows), (1, cols)):
        for st in alive:
            text = _strategy_text(instance, p, int(st))
            other = _strategy_text(instance, 1 - p, names[1 - p].index(names[p][st]))
            if names[p][st] in names[1 - p] and other == s.text:
                return text
    return None


@distractor("dominance_reversed", "text")
def _dominance_reversed(instance: Instance, s: Solution) -> str | None:
    """The strategy that dominates the removed one, named instead of it (the
    comparison read the wrong way round)."""
    payoffs = _arr(instance)
    rows, cols, steps = _native.iterated_dominance(payoffs)
    alive = (list(rows), list(cols))
    for _, p, st, by in steps:
        if _strategy_text(instance, int(p), int(st)) == s.text and int(by) in alive[int(p)]:
            return _strategy_text(instance, int(p), int(by))
    return None


@distractor("matrix_transposed", "text")
def _matrix_transposed(instance: Instance, _s: Solution) -> str | None:
    """A survivor removed by reading each player's payoffs with rows and
    columns swapped (the same action names label both)."""
    d = instance.data
    if d["row_actions"] != d["col_actions"]:
        return None
    return _wrongly_removed(instance, transposed=True)


@distractor("never_best_reply_removed", "text")
def _never_best_reply_removed(instance: Instance, _s: Solution) -> str | None:
    """A survivor removed for being no best reply to any single strategy of the
    other player, although no strategy strictly dominates it."""
    return _wrongly_removed(instance, never_best_reply=True)


@distractor("lowest_single_payoff_removed", "text")
def _lowest_single_payoff_removed(instance: Instance, _s: Solution) -> str:
    """The survivor holding its player's single lowest payoff, taken for dominated."""
    payoffs = _arr(instance)
    rows, cols, _ = _native.iterated_dominance(payoffs)
    worst = [(float(payoffs[r, :, 0].min()), 0, int(r)) for r in rows]
    worst += [(float(payoffs[:, c, 1].min()), 1, int(c)) for c in cols]
    _, p, st = min(worst)
    return _strategy_text(instance, p, st)


@distractor("lowest_total_removed", "text")
def _lowest_total_removed(instance: Instance, _s: Solution) -> str | None:
    """The survivor with the lowest sum of its own payoffs, taken for dominated."""
    payoffs = _arr(instance)
    rows, cols, _ = _native.iterated_dominance(payoffs)
    totals = [(float(payoffs[r, :, 0].sum()), 0, int(r)) for r in rows]
    totals += [(float(payoffs[:, c, 1].sum()), 1, int(c)) for c in cols]
    _, p, st = min(totals)
    return _strategy_text(instance, p, st)


# --- 3.1.f pure Nash -------------------------------------------------------------------------

NO_PURE = "There is no pure-strategy equilibrium"


def _cells_text(instance: Instance, cells: list[tuple[int, int]]) -> str:
    if not cells:
        return NO_PURE
    rows, cols = instance.data["row_actions"], instance.data["col_actions"]
    return join_and([f"({rows[r]}, {cols[c]})" for r, c in sorted(cells)])


def _sample_nash_or_none(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A game without a pure equilibrium one time in `options` (so "there is
    none", offered in every question, is the key about as often as any other
    option), else a game with one or more."""
    none = rng.random() < 1.0 / (spec.options or 4)
    instance = _sample_filtered(rng, spec, t, "no_pure" if none else "pure")
    instance.data["pick"] = int(rng.integers(1 << 30))
    return instance


register_structure(
    StructureKind(
        "normal_form_nash",
        FIELDS,
        _sample_nash_or_none,
        _check,
        "a game with pure equilibria, or (one time in `options`) one without",
    )
)


def _pure_nash(instance: Instance) -> Solution:
    payoffs = _arr(instance)
    cells = [tuple(e) for e in _native.pure_nash(payoffs)]
    n_r, n_c = payoffs.shape[:2]
    all_cells = [(r, c) for r in range(n_r) for c in range(n_c)]
    size = _wrong_size(instance)

    def pool() -> Sequence[str]:
        # Wrong sets of the distractors' size (see _wrong_size).
        sets = [s for s in itertools.combinations(all_cells, size) if sorted(s) != sorted(cells)]
        return lazy_texts(sets, lambda cells: _cells_text(instance, list(cells)))

    key = _cells_text(instance, cells)  # type: ignore[arg-type]
    return Solution(text=key, pool=pool, fields={"working": f"Mutual best responses: {key}"})


register_solver(
    SolverKind(
        "pure_nash",
        ("normal_form_pure", "normal_form", "normal_form_nash"),
        "text",
        _pure_nash,
        doc="all pure Nash equilibria (steer-core games::pure_nash)",
    )
)


def _best_reply_cells(payoffs: np.ndarray, who: int) -> set[tuple[int, int]]:
    """The cells where `who`'s action is a best reply to the other's (plain
    floats: comparisons only, on a few payoffs)."""
    table = payoffs.tolist()
    if who == 0:
        col_best = [max(row[c][0] for row in table) for c in range(len(table[0]))]
        return {
            (r, c) for r, row in enumerate(table) for c, cell in enumerate(row)
            if cell[0] == col_best[c]
        }  # fmt: skip
    return {
        (r, c) for r, row in enumerate(table) for c, cell in enumerate(row)
        if cell[1] == max(x[1] for x in row)
    }  # fmt: skip


# Percent of this sampler's games with a pure equilibrium that have two or
# more, by actions per player (tests/test_generate_nash_sizes.py measures it).
TWO_CELL_KEYS = {2: 20, 3: 34, 4: 34}


def _wrong_size(instance: Instance) -> int:
    """How many cells the wrong sets of a question name: as many as the key,
    so a set's size alone never gives the key away. Against "no pure
    equilibrium", one or two by the payload's draw, two as often as keys have
    two or more: always one made the sentence the longest option exactly when
    it was the key. (The cautious profile, `maximin_cell`, is one cell by
    nature and is offered against a key of one cell or none.)"""
    payoffs = _arr(instance)
    size = len(_native.pure_nash(payoffs))
    if size:
        return size
    pick = int(instance.data.get("pick", 0))
    return 2 if (pick >> 8) % 100 < TWO_CELL_KEYS.get(payoffs.shape[0], 30) else 1


def _same_size(instance: Instance, candidates: list[tuple[int, int]]) -> str | None:
    """`_wrong_size` cells from `candidates`, picked by the payload's draw."""
    size = _wrong_size(instance)
    if len(candidates) < size:
        return None
    pick = int(instance.data.get("pick", 0))
    ordered = sorted(candidates)
    start = pick % len(ordered)
    chosen = [ordered[(start + i) % len(ordered)] for i in range(size)]
    return _cells_text(instance, chosen)


@distractor("max_total_cell", "text")
def _max_total_cell(instance: Instance, _s: Solution) -> str | None:
    """Names the profiles with the largest total payoff (efficiency, not equilibrium)."""
    payoffs = _arr(instance)
    total = payoffs.sum(axis=2)
    nash = {tuple(int(x) for x in e) for e in _native.pure_nash(payoffs)}
    size = _wrong_size(instance)
    flat = np.argsort(-total, axis=None, kind="stable")
    best = [(int(i) // total.shape[1], int(i) % total.shape[1]) for i in flat[:size]]
    if set(best) == nash:
        return None
    return _cells_text(instance, best)


@distractor("maximin_cell", "text")
def _maximin_cell(instance: Instance, _s: Solution) -> str | None:
    """Each player plays safe (the action whose worst payoff is highest), as if
    the cautious profile were the equilibrium."""
    payoffs = _arr(instance)
    # Each player's worst payoff per action, then the first best of them (as
    # argmax picks), in plain floats.
    table = payoffs.tolist()
    rows = [min(cell[0] for cell in row) for row in table]
    cols = [min(row[c][1] for row in table) for c in range(len(table[0]))]
    r = max(range(len(rows)), key=rows.__getitem__)
    c = max(range(len(cols)), key=cols.__getitem__)
    nash = {(int(e[0]), int(e[1])) for e in _native.pure_nash(payoffs)}
    if len(nash) > 1 or (r, c) in nash:
        return None
    return _cells_text(instance, [(r, c)])


def _one_sided(instance: Instance, who: int) -> str | None:
    payoffs = _arr(instance)
    only = _best_reply_cells(payoffs, who) - _best_reply_cells(payoffs, 1 - who)
    return _same_size(instance, sorted((int(r), int(c)) for r, c in only))


@distractor("one_sided_best_reply", "text")
def _one_sided_best_reply(instance: Instance, _s: Solution) -> str | None:
    """Profiles where the row player best-responds but the column player would deviate."""
    return _one_sided(instance, 0)


@distractor("column_best_reply_only", "text")
def _column_best_reply_only(instance: Instance, _s: Solution) -> str | None:
    """Profiles where the column player best-responds but the row player would deviate."""
    return _one_sided(instance, 1)


@distractor("payoffs_swapped", "text")
def _payoffs_swapped(instance: Instance, _s: Solution) -> str | None:
    """Each player maximizes the other's payoff (the two numbers of a cell swapped)."""
    swapped = _arr(instance)[:, :, ::-1].copy()
    cells = [(int(e[0]), int(e[1])) for e in _native.pure_nash(swapped)]
    return _same_size(instance, cells)


@distractor("equilibrium_overlooked", "text")
def _equilibrium_overlooked(instance: Instance, _s: Solution) -> str:
    """Finds no profile of mutual best replies although there is one."""
    return NO_PURE


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
            f"is indifferent: {first} with probability {short_decimal(p)}",
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


@distractor("opponent_probability", "numeric")
def _opponent_probability(instance: Instance, _s: Solution) -> float | None:
    """Reports the other player's equilibrium probability of its first action."""
    row, col = _native.nash_equilibria(_arr(instance))
    if len(row) != 1:
        return None
    return float(col[0][0] if instance.data["player"] == 0 else row[0][0])


@distractor("own_indifference_complement", "numeric")
def _own_indifference_complement(instance: Instance, s: Solution) -> float | None:
    """Uses its own payoffs for the indifference, then reports the other action."""
    made = _own_indifference(instance, s)
    return None if made is None else 1 - made


@distractor("uniform_mix", "numeric")
def _uniform_mix(_i: Instance, _s: Solution) -> float:
    """Assumes a mixed equilibrium always mixes 50:50."""
    return 0.5


def _odds(own: np.ndarray) -> float | None:
    """The odds r / (1 − r) of the other player's mix r on its first action
    that make the holder of `own` (payoffs as (own actions, other's actions))
    indifferent, reported as if a probability; None unless it lies strictly
    between 0 and 1 (a number outside would be no probability at all)."""
    down = own[0, 0] - own[1, 0]
    if down == 0:
        return None
    odds = float((own[1, 1] - own[0, 1]) / down)
    return odds if 0 < odds < 1 else None


@distractor("odds_not_probability", "numeric")
def _odds_not_probability(instance: Instance, _s: Solution) -> float | None:
    """Sets up the opponent's indifference right but reports the odds of the
    first action against the second (one difference over the other) instead
    of normalising to a probability."""
    payoffs, player = _arr(instance), instance.data["player"]
    # The opponent's payoffs as (opponent's actions, player's actions).
    return _odds(_own(payoffs, 1 - player))


@distractor("own_indifference_odds", "numeric")
def _own_indifference_odds(instance: Instance, _s: Solution) -> float | None:
    """Uses its own payoffs for the indifference and reports the odds, not the
    probability."""
    payoffs, player = _arr(instance), instance.data["player"]
    return _odds(_own(payoffs, player))


# --- 3.1.g level-k in a matrix game ------------------------------------------------------------


def level_k_actions(payoffs: np.ndarray, depth: int) -> list[tuple[int | None, int | None]]:
    """Level 0..depth actions of (row, column) players. Level 0 mixes uniformly
    (None); level k best-responds to the other player's level k − 1. A tie in
    a best reply gives None from there on."""
    out: list[tuple[int | None, int | None]] = [(None, None)]
    for _ in range(depth):
        prev_r, prev_c = out[-1]
        own_r, own_c = payoffs[:, :, 0], payoffs[:, :, 1].T
        vs_c = own_r.mean(axis=1) if prev_c is None else own_r[:, prev_c]
        vs_r = own_c.mean(axis=1) if prev_r is None else own_c[:, prev_r]
        nxt = []
        for v, prev in ((vs_c, prev_c), (vs_r, prev_r)):
            best = near_max(v.tolist())
            nxt.append(
                int(best[0]) if len(best) == 1 and (prev is not None or len(out) == 1) else None
            )
        out.append((nxt[0], nxt[1]))
    return out


# Games a level-k draw tries before it gives up (the caller then draws again).
_LEVEL_K_TRIES = 200


def _sample_level_k(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A random game, the asked player and the level k (1-3) asked about."""
    n = spec.size
    pool = _one_width(spec.low, spec.high, spec.step)
    rows, cols = _labels(t, "row_actions", n, "R"), _labels(t, "col_actions", n, "C")
    # Most games fail the solver's checks (a tie in the chain, a wrong action
    # no named error picks): redraw the game, player and level alone until one
    # passes, before names and text are drawn. Each try is a fresh draw of the
    # same law (the checks read no names and no cell), so the games kept are
    # distributed as before; the solver checks the question's payload again.
    for _ in range(_LEVEL_K_TRIES if t.solver == "level_k_action" else 1):
        payoffs = pool[integers(rng, 0, len(pool), (n, n, 2))]
        player, k = integer(rng, 0, 2), integer(rng, 1, 4)
        if t.solver != "level_k_action":
            break
        data = {"payoffs": payoffs.tolist(), "player": player, "k": k,
                "row_actions": rows, "col_actions": cols}  # fmt: skip
        try:
            _level_k(Instance(data, {"player": ""}, list(rows if player == 0 else cols)))
            break
        except Resample:
            continue
    else:
        raise Resample(f"no game in {_LEVEL_K_TRIES} passes the level-k checks")
    instance = _instance(rng, payoffs, t, player)
    instance.data["k"] = k
    instance.fields["k"] = str(k)
    instance.fields["k_less"] = str(k - 1)
    return instance


register_structure(
    StructureKind(
        "normal_form_level_k",
        (*FIELDS, "k", "k_less"),
        _sample_level_k,
        _check,
        "a random two-player game and a reasoning level k (1-3) for the asked player",
    )
)


# The solver and its named errors read one payload's level-k chain one after
# another: the chain (both players, levels 0..4) is kept for the payoffs last
# read (held, so their id cannot be reused). A shorter chain is a prefix of a
# longer one, so every reader takes its levels from the one chain.
_LAST_CHAIN: list[Any] = [None, None]
_CHAIN_DEPTH = 4  # k is at most 3; the solver reads one level past it


def _chain(instance: Instance, depth: int) -> list[tuple[int | None, int | None]]:
    """`level_k_actions` of the payload's game to `depth`."""
    payoffs = instance.data["payoffs"]
    if _LAST_CHAIN[0] is not payoffs:
        _LAST_CHAIN[:] = [payoffs, level_k_actions(_arr(instance), _CHAIN_DEPTH)]
    chain: list[tuple[int | None, int | None]] = _LAST_CHAIN[1]
    return chain[: depth + 1] if depth <= _CHAIN_DEPTH else level_k_actions(_arr(instance), depth)


def _levels(instance: Instance, extra: int = 1) -> list[int | None]:
    """The asked player's action at levels 0..k + extra."""
    levels = _chain(instance, int(instance.data["k"]) + extra)
    return [lv[instance.data["player"]] for lv in levels]


def _level_k(instance: Instance) -> Solution:
    k = int(instance.data["k"])
    mine = _levels(instance)
    if mine[k] is None or any(x is None for x in mine[1 : k + 2]):
        raise Resample("a tie somewhere in the level-k chain")
    # The chain must matter: the level-k action differs from a neighbour level.
    if k >= 2 and mine[k] == mine[k - 1] and mine[k] == mine[k + 1]:
        raise Resample("every level plays alike")
    assert instance.choices is not None
    # Every wrong action must come from a named error, so draw games where the
    # errors below name all of them.
    wrong = {
        f(instance, Solution(choice=mine[k]))
        for f in (
            _one_level_short,
            _one_level_too_far,
            _best_reply_to_uniform,
            _equilibrium_instead,
            _opponent_level_k,
            _highest_single_payoff,
            _opponent_payoffs_read,
            _maximin_action,
        )
    } - {None, mine[k]}
    if len(wrong) < len(instance.choices) - 1:
        raise Resample("some wrong action is no named error's answer")
    return Solution(
        choice=mine[k],
        fields={
            "working": f"Level 1 best-responds to a uniform mix; each level above to the "
            f"level below; level {k} of {instance.fields['player']} plays "
            f"{instance.choices[mine[k]]}"
        },
    )


register_solver(
    SolverKind(
        "level_k_action",
        ("normal_form_level_k",),
        "choice",
        _level_k,
        doc="the asked player's level-k action: level 0 mixes uniformly, level k "
        "best-responds to the other's level k − 1",
    )
)


@distractor("one_level_short", "choice")
def _one_level_short(instance: Instance, _s: Solution) -> int | None:
    """Stops one level early (the level k − 1 action)."""
    k = int(instance.data["k"])
    return _levels(instance)[k - 1] if k >= 2 else None


@distractor("one_level_too_far", "choice")
def _one_level_too_far(instance: Instance, _s: Solution) -> int | None:
    """Reasons one level too far (the level k + 1 action)."""
    return _levels(instance)[int(instance.data["k"]) + 1]


@distractor("best_reply_to_uniform", "choice")
def _best_reply_to_uniform(instance: Instance, _s: Solution) -> int | None:
    """Best-responds to a uniform opponent whatever the level (level 1 always)."""
    return _levels(instance)[1]


@distractor("equilibrium_instead", "choice")
def _equilibrium_instead(instance: Instance, _s: Solution) -> int | None:
    """Plays its part of the game's pure equilibrium, as if every level did."""
    cells = [tuple(int(x) for x in e) for e in _native.pure_nash(_arr(instance))]
    if len(cells) != 1:
        return None
    return cells[0][instance.data["player"]]


@distractor("maximin_action", "choice")
def _maximin_action(instance: Instance, _s: Solution) -> int:
    """Plays safe: the action whose worst payoff is highest, ignoring the levels."""
    return int(np.argmax(_own(_arr(instance), instance.data["player"]).min(axis=1)))


@distractor("opponent_level_k", "choice")
def _opponent_level_k(instance: Instance, _s: Solution) -> int | None:
    """Works out the other player's level-k action and names it (players confused;
    both players' actions carry the same names)."""
    d = instance.data
    if d["row_actions"] != d["col_actions"]:
        return None
    levels = _chain(instance, int(d["k"]))
    return levels[-1][1 - d["player"]]
