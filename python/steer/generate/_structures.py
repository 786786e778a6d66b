"""What templates sample: lotteries, menus of lotteries, bimatrix games."""

from __future__ import annotations

import functools

import numpy as np

from steer._draws import integers, sample
from steer.generate._format import a_or_an, amount, join_and, percent
from steer.generate._registry import (
    Instance,
    Resample,
    Solution,
    StructureKind,
    distractor,
    register_structure,
)
from steer.templates._inflect import possessive
from steer.templates._model import GradeSpec, TemplateSpec

PROB_UNITS = 20  # probabilities are multiples of 1/20 = 5%


def _grid(spec: GradeSpec) -> np.ndarray:
    return _grid_of(spec.low, spec.high, spec.step)


@functools.lru_cache(maxsize=256)
def _grid_of(low: float, high: float, step: float) -> np.ndarray:
    # Cached: wide ranges (investments in steps of $1) are thousands of points,
    # rebuilt on every draw otherwise. Read-only since it is shared.
    n = int(np.floor((high - low) / step + 1e-9)) + 1
    grid = low + step * np.arange(n)
    grid.flags.writeable = False
    return grid


def _check_amounts(spec: GradeSpec, _t: TemplateSpec, need: int) -> str | None:
    if len(_grid(spec)) < need:
        return (
            f"the range {spec.low}..{spec.high} step {spec.step} has fewer than "
            f"{need} distinct amounts"
        )
    return None


def _probabilities(rng: np.random.Generator, n: int) -> np.ndarray:
    # The cuts are n - 1 distinct values of 1 .. PROB_UNITS - 1.
    cuts = np.sort(np.array(sample(rng, PROB_UNITS - 1, n - 1), dtype=np.int64) + 1)
    units = np.diff(np.concatenate(([0], cuts, [PROB_UNITS])))
    return units / PROB_UNITS


def _lottery_text(values: np.ndarray, probs: np.ndarray, unit: str) -> str:
    return join_and(
        [
            f"{a_or_an(percent(p))} {percent(p)} chance of {amount(v, unit)}"
            for v, p in zip(values, probs, strict=True)
        ]
    )


# --- lottery -------------------------------------------------------------------


def _sample_lottery(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    grid = _grid(spec)
    values = grid[sample(rng, len(grid), n)]
    probs = _probabilities(rng, n)
    return Instance(
        data={"values": values.tolist(), "probs": probs.tolist()},
        fields={"outcomes": _lottery_text(values, probs, t.unit), "n_outcomes": str(n)},
    )


def _check_lottery(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 1 <= spec.size < PROB_UNITS:
        return f"size must be 1-{PROB_UNITS - 1} outcomes"
    return _check_amounts(spec, t, spec.size)


register_structure(
    StructureKind(
        "lottery",
        ("outcomes", "n_outcomes"),
        _sample_lottery,
        _check_lottery,
        "one lottery: `size` distinct amounts with probabilities in 5% steps",
    )
)


# --- lottery_choice ------------------------------------------------------------


# The shapes of the gambles, in menu order before shuffling: probability of
# the top prize (in 1/20ths, inclusive) and the consolation as a share of the
# expected value. Each shape is what one wrong rule goes for (a long shot for
# the largest prize, a near-certain win for the likeliest, a big fallback for
# the best consolation, a narrow spread for the least risk), so the menu's
# distractors are the picks of named errors; which one is best is dealt at random.
_SHAPES = (
    (1, 5, (0.0, 0.0)),
    (16, 18, (0.0, 0.0)),
    (6, 9, (0.55, 0.7)),
    (12, 15, (0.3, 0.45)),
)


def _sample_lottery_choice(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A menu of `size` options with close, distinct expected values: one sure
    amount and prize-or-nothing (or prize-or-consolation) lotteries.

    The expected values are drawn first (each 3-8% below the next) and dealt
    to the options at random, so the best one is the sure amount in 1/size of
    the draws and its prize, probability and count of numbers say nothing of
    its rank: a blind rule (largest prize, most numbers, longest text) picks
    the key at chance. The gambles take the shapes in `_SHAPES`.
    """
    grid = _grid(spec)
    n = spec.size
    target = float(rng.choice(grid[len(grid) // 4 : max(len(grid) // 4 + 1, 3 * len(grid) // 4)]))
    evs = [target]
    for _ in range(n - 1):
        evs.append(evs[-1] * (1 - rng.uniform(0.03, 0.08)))
    dealt = rng.permutation(n)
    lotteries = []
    for i in range(n):
        ev = evs[int(dealt[i])]
        if i == 0:
            sure = spec.step * round(ev / spec.step)
            lotteries.append({"values": [sure], "probs": [1.0]})
            continue
        low, high, share = _SHAPES[i - 1] if i <= len(_SHAPES) else (2, 18, (0.0, 0.5))
        p = int(rng.integers(low, high + 1)) / PROB_UNITS
        consolation = spec.step * round(ev * rng.uniform(*share) / spec.step)
        prize = spec.step * round((ev - (1 - p) * consolation) / p / spec.step)
        if prize <= consolation or prize <= 0:
            raise Resample("degenerate lottery")
        lotteries.append({"values": [prize, consolation], "probs": [p, 1 - p]})
    values = sorted(
        (sum(v * q for v, q in zip(lot["values"], lot["probs"], strict=True)) for lot in lotteries),
        reverse=True,
    )
    if values[0] - values[1] < 0.01 * abs(values[0]):
        raise Resample("rounding left two options too close to call")
    order = rng.permutation(len(lotteries))
    lotteries = [lotteries[i] for i in order]
    choices = []
    for lot in lotteries:
        if len(lot["values"]) == 1:
            choices.append(f"{amount(lot['values'][0], t.unit)} for sure")
        else:
            prize, other = lot["values"]
            pct = percent(lot["probs"][0])
            choices.append(
                f"{a_or_an(pct)} {pct} chance of {amount(prize, t.unit)}, "
                f"otherwise {amount(other, t.unit)}"
            )
    # The count in words ("one of three offers"), and the unit for the solver's
    # working, which otherwise shows the expected values as bare numbers.
    fields = {"n_choices": _COUNTS.get(spec.size, str(spec.size)), "unit": t.unit}
    return Instance(data={"lotteries": lotteries}, fields=fields, choices=choices)


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _check_lottery_choice(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 8:
        return "size must be 2-8 choices"
    return _check_amounts(spec, t, 4)


register_structure(
    StructureKind(
        "lottery_choice",
        ("n_choices",),
        _sample_lottery_choice,
        _check_lottery_choice,
        "a menu of `size` lotteries (one sure amount) with close expected values",
    )
)


# --- bimatrix ------------------------------------------------------------------


def _matrix_text(
    payoffs: np.ndarray | list[list[list[float]]],
    rows: list[str],
    cols: list[str],
    row_player: str,
    col_player: str,
    decimals: int = 2,
) -> str:
    def num(x: float) -> str:
        return amount(x, "", decimals)

    # Plain floats: indexing numpy cell by cell is slow.
    table = payoffs.tolist() if isinstance(payoffs, np.ndarray) else payoffs
    cells = [[f"({num(a)}, {num(b)})" for a, b in row[: len(cols)]] for row in table[: len(rows)]]
    head = [f"{col_player}: {c}" for c in cols]
    label_w = max(len(f"{row_player}: {r}") for r in rows)
    col_w = [
        max(len(head[c]), *(len(cells[r][c]) for r in range(len(rows)))) for c in range(len(cols))
    ]
    lines = [" " * label_w + "  " + "  ".join(h.ljust(w) for h, w in zip(head, col_w, strict=True))]
    for r, row in enumerate(rows):
        lines.append(
            f"{row_player}: {row}".ljust(label_w)
            + "  "
            + "  ".join(cells[r][c].ljust(col_w[c]) for c in range(len(cols)))
        )
    lines.append(
        f"(In each cell the first number is {possessive(row_player)} payoff and the second is "
        f"{possessive(col_player)}.)"
    )
    return "\n".join(line.rstrip() for line in lines)


# The mistakes that pick a wrong reply, in the order a tag is given: each is a
# computation on the payoff matrix, so a tag says how its option was reached.
_BEST_REPLY_ERRORS = (
    "row_col_swapped",  # the opponent's payoff read as one's own
    "wrong_opponent_action",  # the best reply to another action of the opponent
    "max_total_payoff",  # the most for both players together
    "max_average_payoff",  # the most on average over the opponent's actions
    "max_worst_case",  # the best worst case, ignoring the known action
)


def _unique_argmax(values: np.ndarray) -> list[int]:
    """The indices of the largest value (plain floats: numpy's per-call cost
    is most of the work on a handful of payoffs)."""
    listed = values.tolist()
    top = max(listed)
    return [i for i, v in enumerate(listed) if v == top]


def _best_reply_errors(payoffs: np.ndarray, player: int, against: int) -> list[str] | None:
    """For each of the asked player's actions, the first named error that
    picks it ('' for the best reply); None when a wrong action is picked by
    no named error (the draw is redone: no option is a filler)."""
    own = payoffs[:, :, 0] if player == 0 else payoffs[:, :, 1].T  # (mine, theirs)
    other = payoffs[:, :, 1] if player == 0 else payoffs[:, :, 0].T
    total = own + other
    n = own.shape[0]
    picks: dict[str, set[int]] = {
        "row_col_swapped": set(_unique_argmax(other[:, against])),
        "wrong_opponent_action": {
            a for b in range(own.shape[1]) if b != against for a in _unique_argmax(own[:, b])
        },
        "max_total_payoff": set(_unique_argmax(total[:, against])),
        "max_average_payoff": set(_unique_argmax(own.sum(axis=1))),
        "max_worst_case": set(_unique_argmax(own.min(axis=1))),
    }
    best = _unique_argmax(own[:, against])
    errors = []
    for a in range(n):
        if a in best:
            errors.append("")
            continue
        named = [e for e in _BEST_REPLY_ERRORS if a in picks[e]]
        if not named:
            return None
        errors.append(named[0])
    return errors


def _own_payoffs(instance: Instance) -> np.ndarray:
    """The asked player's payoffs, (own actions, opponent's actions)."""
    payoffs = np.asarray(instance.data["payoffs"], dtype=np.float64)
    return payoffs[:, :, 0] if instance.data["player"] == 0 else payoffs[:, :, 1].T


@distractor("max_average_payoff", "choice")
def _max_average_payoff(instance: Instance, _s: Solution) -> int:
    """Ignores the opponent's known action and picks the action with the highest
    payoff on average over the opponent's actions."""
    return int(np.argmax(_own_payoffs(instance).sum(axis=1)))


@distractor("max_worst_case", "choice")
def _max_worst_case(instance: Instance, _s: Solution) -> int:
    """Ignores the opponent's known action and picks the action whose worst
    payoff is highest (a maximin choice)."""
    return int(np.argmax(_own_payoffs(instance).min(axis=1)))


def _sample_bimatrix(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    grid = _grid(spec)
    payoffs = grid[integers(rng, 0, len(grid), (n, n, 2))]
    row_player, col_player = _two_names(rng, t)
    rows = t.words.get("row_actions", [])[:n] or [f"R{i + 1}" for i in range(n)]
    cols = t.words.get("col_actions", [])[:n] or [f"C{i + 1}" for i in range(n)]
    player = int(rng.integers(0, 2))
    against = int(rng.integers(0, n))
    mine, theirs = (rows, cols) if player == 0 else (cols, rows)
    names = (row_player, col_player) if player == 0 else (col_player, row_player)
    errors = _best_reply_errors(payoffs, player, against)
    if errors is None:
        raise Resample("a wrong action that no named error picks")
    return Instance(
        data={
            "payoffs": payoffs.tolist(),
            "player": player,
            "against": against,
            "row_actions": rows,
            "col_actions": cols,
            "errors": errors,
        },
        fields={
            "matrix": _matrix_text(payoffs, rows, cols, row_player, col_player),
            "row_player": row_player,
            "col_player": col_player,
            "player": names[0],
            "opponent": names[1],
            "against": theirs[against],
        },
        choices=list(mine),
    )


def _two_names(rng: np.random.Generator, t: TemplateSpec) -> tuple[str, str]:
    pool = t.words.get("players", ["Player 1", "Player 2"])
    first, second = sample(rng, len(pool), 2)
    return pool[first], pool[second]


def _check_bimatrix(spec: GradeSpec, t: TemplateSpec) -> str | None:
    if not 2 <= spec.size <= 6:
        return "size must be 2-6 actions per player"
    for key in ("row_actions", "col_actions"):
        labels = t.words.get(key)
        if labels is not None and len(set(labels)) < spec.size:
            return f"words.{key} needs {spec.size} distinct labels"
    if len(t.words.get("players", ["a", "b"])) < 2:
        return "words.players needs at least two names"
    return _check_amounts(spec, t, 2)


register_structure(
    StructureKind(
        "bimatrix",
        ("matrix", "row_player", "col_player", "player", "opponent", "against"),
        _sample_bimatrix,
        _check_bimatrix,
        "a two-player game with `size` actions each; asks one player's best reply",
    )
)


# --- wrong rules for choosing among lotteries --------------------------------------
# (certainty_bias, largest_prize and likeliest_win live in _distractors)


def _argmax(values: list[float]) -> int:
    """numpy.argmax of a short plain list: the first of tied maxima."""
    return max(range(len(values)), key=values.__getitem__)


def _first_term(lot: dict[str, list[float]]) -> float:
    return float(lot["values"][0] * lot["probs"][0])


@distractor("ignored_consolation", "choice")
def _ignored_consolation(instance: Instance, _s: Solution) -> int:
    """Weighs only the top prize by its probability and drops the consolation payment."""
    return _argmax([_first_term(lot) for lot in instance.data["lotteries"]])


@distractor("unweighted_outcomes", "choice")
def _unweighted_outcomes(instance: Instance, _s: Solution) -> int:
    """Averages each option's outcomes as if they were equally likely."""
    return int(np.argmax([float(np.mean(lot["values"])) for lot in instance.data["lotteries"]]))


@distractor("swapped_probabilities", "choice")
def _swapped_probabilities(instance: Instance, _s: Solution) -> int:
    """Attaches each lottery's probabilities to the wrong outcomes (prize with 1 - p)."""
    lots = instance.data["lotteries"]
    return int(np.argmax([float(np.dot(lot["values"], lot["probs"][::-1])) for lot in lots]))


@distractor("best_worst_case", "choice")
def _best_worst_case(instance: Instance, _s: Solution) -> int:
    """Maximin: picks the option whose worst outcome is best, ignoring the upside."""
    return _argmax([min(lot["values"]) for lot in instance.data["lotteries"]])


def _risky_argmax(instance: Instance, score: object) -> int | None:
    lots = instance.data["lotteries"]
    risky = [(score(lot), i) for i, lot in enumerate(lots) if len(lot["values"]) > 1]  # type: ignore[operator]
    return max(risky)[1] if risky else None


@distractor("best_consolation", "choice")
def _best_consolation(instance: Instance, _s: Solution) -> int | None:
    """Among the gambles, picks the one with the best fallback payment."""
    return _risky_argmax(instance, lambda lot: lot["values"][-1])


@distractor("least_spread", "choice")
def _least_spread(instance: Instance, _s: Solution) -> int | None:
    """Among the gambles, picks the one whose outcomes lie closest together (least risk)."""
    return _risky_argmax(instance, lambda lot: -(lot["values"][0] - lot["values"][-1]))


@distractor("longshot", "choice")
def _longshot(instance: Instance, _s: Solution) -> int | None:
    """Among the gambles, picks the least likely win, drawn to the long odds."""
    return _risky_argmax(instance, lambda lot: -lot["probs"][0])


# --- wrong computations of one lottery's expected value -----------------------------
# (unweighted_mean, forgot_probability, most_likely_outcome, best_outcome and
# probabilities_reversed live in _distractors)


@distractor("misaligned_probabilities", "numeric")
def _misaligned_probabilities(instance: Instance, _s: Solution) -> float | None:
    """Pairs each outcome with the next outcome's probability (a reading slip)."""
    values, probs = instance.data["values"], instance.data["probs"]
    if len(values) < 3:  # with two outcomes this is probabilities_reversed
        return None
    return float(np.dot(values, np.roll(probs, -1)))


@distractor("dropped_outcome", "numeric")
def _dropped_outcome(instance: Instance, _s: Solution) -> float | None:
    """Leaves the least likely outcome out of the weighted sum."""
    values, probs = instance.data["values"], instance.data["probs"]
    if len(values) < 2:
        return None
    k = int(np.argmin(probs))
    return float(np.dot(values, probs) - values[k] * probs[k])


@distractor("worst_outcome", "numeric")
def _worst_outcome(instance: Instance, _s: Solution) -> float:
    """Reports the smallest outcome (pessimism)."""
    return float(min(instance.data["values"]))


@distractor("ignored_losses", "numeric")
def _ignored_losses(instance: Instance, _s: Solution) -> float | None:
    """Counts negative outcomes as zero, as if losses could not happen."""
    values, probs = np.asarray(instance.data["values"]), np.asarray(instance.data["probs"])
    if not (values < 0).any():
        return None
    return float(np.dot(np.maximum(values, 0.0), probs))


@distractor("dropped_likeliest_outcome", "numeric")
def _dropped_likeliest_outcome(instance: Instance, _s: Solution) -> float | None:
    """Leaves the likeliest outcome out of the weighted sum."""
    values, probs = instance.data["values"], instance.data["probs"]
    if len(values) < 2:
        return None
    k = int(np.argmax(probs))
    return float(np.dot(values, probs) - values[k] * probs[k])


def _renormalised_without(instance: Instance, k: int) -> float | None:
    values, probs = np.asarray(instance.data["values"]), np.asarray(instance.data["probs"])
    if len(values) < 3:  # with two outcomes this is just the other outcome
        return None
    keep = np.arange(len(values)) != k
    return float(values[keep] @ probs[keep] / probs[keep].sum())


@distractor("ignored_worst_outcome", "numeric")
def _ignored_worst_outcome(instance: Instance, _s: Solution) -> float | None:
    """Averages over the other outcomes as if the worst could not happen."""
    return _renormalised_without(instance, int(np.argmin(instance.data["values"])))


@distractor("ignored_best_outcome", "numeric")
def _ignored_best_outcome(instance: Instance, _s: Solution) -> float | None:
    """Averages over the other outcomes as if the best could not happen."""
    return _renormalised_without(instance, int(np.argmax(instance.data["values"])))
