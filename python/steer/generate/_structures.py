"""What templates sample: lotteries, menus of lotteries, bimatrix games."""

from __future__ import annotations

import functools

import numpy as np

from steer.generate._format import a_or_an, amount, join_and, percent
from steer.generate._registry import Instance, Resample, StructureKind, register_structure
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
    cuts = np.sort(rng.choice(np.arange(1, PROB_UNITS), size=n - 1, replace=False))
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
    values = rng.choice(_grid(spec), size=n, replace=False)
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


def _sample_lottery_choice(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    """A menu of `size` options with close expected values: one sure amount and
    prize-or-nothing (or prize-or-consolation) lotteries."""
    grid = _grid(spec)
    target = float(rng.choice(grid[len(grid) // 4 : max(len(grid) // 4 + 1, 3 * len(grid) // 4)]))
    lotteries = []
    for i in range(spec.size):
        if i == 0:
            sure = spec.step * round(target * rng.uniform(0.8, 1.1) / spec.step)
            lotteries.append({"values": [sure], "probs": [1.0]})
            continue
        p = int(rng.integers(2, PROB_UNITS - 1)) / PROB_UNITS
        consolation = (
            0.0
            if rng.random() < 0.6
            else spec.step * round(target * rng.uniform(0.1, 0.4) / spec.step)
        )
        prize = spec.step * round(
            (target * rng.uniform(0.85, 1.2) - (1 - p) * consolation) / p / spec.step
        )
        if prize <= consolation or prize <= 0:
            raise Resample("degenerate lottery")
        lotteries.append({"values": [prize, consolation], "probs": [p, 1 - p]})
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
    return Instance(
        data={"lotteries": lotteries}, fields={"n_choices": str(spec.size)}, choices=choices
    )


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
    payoffs: np.ndarray,
    rows: list[str],
    cols: list[str],
    row_player: str,
    col_player: str,
    decimals: int = 2,
) -> str:
    def num(x: float) -> str:
        return amount(x, "", decimals)

    table = payoffs.tolist()  # plain floats: indexing numpy cell by cell is slow
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


def _sample_bimatrix(rng: np.random.Generator, spec: GradeSpec, t: TemplateSpec) -> Instance:
    n = spec.size
    grid = _grid(spec)
    payoffs = rng.choice(grid, size=(n, n, 2))
    row_player, col_player = _two_names(rng, t)
    rows = t.words.get("row_actions", [])[:n] or [f"R{i + 1}" for i in range(n)]
    cols = t.words.get("col_actions", [])[:n] or [f"C{i + 1}" for i in range(n)]
    player = int(rng.integers(0, 2))
    against = int(rng.integers(0, n))
    mine, theirs = (rows, cols) if player == 0 else (cols, rows)
    names = (row_player, col_player) if player == 0 else (col_player, row_player)
    return Instance(
        data={
            "payoffs": payoffs.tolist(),
            "player": player,
            "against": against,
            "row_actions": rows,
            "col_actions": cols,
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
    picked = rng.choice(len(pool), size=2, replace=False)
    return pool[int(picked[0])], pool[int(picked[1])]


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
