"""Blind agents for consistency-graded questions: always keep the first
answer, always switch.

A consistency group is graded by a rule (`same:01`, `flip:12`, `map:01=2|1+2`,
`same:01; flip:12`, see steer-core's metrics/consistency.rs) over the indices
chosen in its parts.
"Keep" answers part 0 with its first option and every later part with the
option of the same text (else the same index); "switch" answers every later
part with the option after keep's. Chance is the probability that uniform
random answers satisfy the rule, by exact enumeration.

Why: a rule that a fixed reply satisfies grades stubbornness as rationality.
Example: under `same:01` "keep" is always consistent (accuracy 1 vs chance 0.5).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt
import pyarrow.compute as pc

from steer.audit._frame import OptionFrame
from steer.generate._consistency import Constraint
from steer.generate._consistency import parse_rule as _parse

F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
MAX_PARTS = 10
MAX_ENUMERATION = 1 << 16
MONTE_CARLO = 200_000


def parse_rule(text: str) -> tuple[Constraint, ...]:
    """Parse a rule; ValueError names the clause at fault."""
    return _parse(text)


def holds(rule: tuple[Constraint, ...], choice: I64, n_options: I64) -> npt.NDArray[np.bool_]:
    """Whether each group's choices satisfy the rule; `choice` and `n_options`
    are (groups × parts) matrices."""
    ok = np.ones(choice.shape[0], dtype=bool)
    for c in rule:
        x, y = choice[:, c.a], choice[:, c.b]
        if c.kind == "same":
            ok &= x == y
        elif c.kind == "flip":
            ok &= y == n_options[:, c.b] - 1 - x
        else:
            # A lookup table: row i says which options of b may follow option
            # i of a; an extra all-False row catches choices beyond the sets.
            width = max([1, *(max(s) + 1 for s in c.sets if s)])
            width = max(width, int(n_options[:, c.b].max(initial=1)))
            table = np.zeros((len(c.sets) + 1, width), dtype=bool)
            anything = np.zeros(len(c.sets) + 1, dtype=bool)
            for i, s in enumerate(c.sets):
                if s is None:
                    anything[i] = True
                else:
                    table[i, sorted(s)] = True
            row = np.where((x >= 0) & (x < len(c.sets)), x, len(c.sets))
            in_b = (y >= 0) & (y < n_options[:, c.b])
            member = table[row, np.clip(y, 0, width - 1)] & (y >= 0) & (y < width)
            ok &= np.where(anything[row], in_b, member)
    return ok


@lru_cache(maxsize=4096)
def p_random(rule_text: str, n_options: tuple[int, ...]) -> float:
    """Chance that independent uniform answers satisfy the rule; `n_options[p]`
    is part p's option count."""
    rule = parse_rule(rule_text)
    parts = sorted({p for c in rule for p in (c.a, c.b)})
    sizes = [max(n_options[p], 1) for p in parts]
    if math.prod(sizes) > MAX_ENUMERATION:
        # Hostile option counts: a seeded Monte Carlo estimate instead of an
        # enumeration that would never finish.
        rng = np.random.default_rng(0)
        combos = np.column_stack([rng.integers(0, k, size=MONTE_CARLO) for k in sizes])
    else:
        grids = [range(k) for k in sizes]
        combos = np.array(list(itertools.product(*grids)), dtype=np.int64)
    choice = np.zeros((len(combos), max(parts) + 1), dtype=np.int64)
    choice[:, parts] = combos
    n = np.broadcast_to(np.array(n_options[: max(parts) + 1]), choice.shape)
    return float(holds(rule, choice, np.asarray(n)).mean())


@dataclass
class GroupOutcome:
    """Per consistency unit: consistent under keep and under switch, chance."""

    keep: F64
    switch: F64
    chance: F64
    graded: npt.NDArray[np.bool_]
    keep_choice: I64  # per row
    switch_choice: I64  # per row


def consistency_outcome(frame: OptionFrame) -> GroupOutcome:
    rows = ~frame.q_answer & frame.table["consistency_rule"].is_valid().to_numpy(
        zero_copy_only=False
    )
    u, part = frame.q_unit, np.minimum(frame.q_part, MAX_PARTS - 1)
    n_units = frame.n_units
    # Part 0's first option text, per unit; later parts look for it.
    first_text = np.full(n_units, -1, dtype=np.int64)
    text_code = pc.dictionary_encode(frame.o_text).indices.to_numpy().astype(np.int64)
    p0 = rows & (frame.q_part == 0) & (frame.q_n > 0)
    first_text[u[p0]] = text_code[frame.q_start[p0]]
    same = text_code == first_text[frame.rows_of(u)]
    pos = np.where(same, frame.o_pos, np.iinfo(np.int64).max)
    found = np.full(frame.n_rows, np.iinfo(np.int64).max, dtype=np.int64)
    np.minimum.at(found, frame.o_row, pos)
    keep = np.where(found == np.iinfo(np.int64).max, 0, found)
    keep[frame.q_part == 0] = 0
    switch = np.where(frame.q_part == 0, 0, (keep + 1) % np.maximum(frame.q_n, 1))

    choice_k = np.zeros((n_units, MAX_PARTS), dtype=np.int64)
    choice_s = np.zeros((n_units, MAX_PARTS), dtype=np.int64)
    n_opt = np.ones((n_units, MAX_PARTS), dtype=np.int64)
    choice_k[u[rows], part[rows]] = keep[rows]
    choice_s[u[rows], part[rows]] = switch[rows]
    n_opt[u[rows], part[rows]] = frame.q_n[rows]
    rule_col = frame.table["consistency_rule"].combine_chunks()
    unit_rule = np.full(n_units, -1, dtype=np.int64)
    enc = pc.dictionary_encode(rule_col)
    rule_names = enc.dictionary.to_pylist()
    codes = pc.fill_null(enc.indices, -1).to_numpy().astype(np.int64)
    unit_rule[u[rows]] = codes[rows]

    keep_ok = np.zeros(n_units)
    switch_ok = np.zeros(n_units)
    chance = np.zeros(n_units)
    graded = unit_rule >= 0
    # A loop over distinct rules and option-count patterns (a handful), not groups.
    for r, name in enumerate(rule_names):
        m = unit_rule == r
        if not m.any():
            continue
        rule = parse_rule(name)
        keep_ok[m] = holds(rule, choice_k[m], n_opt[m])
        switch_ok[m] = holds(rule, choice_s[m], n_opt[m])
        patterns, inverse = np.unique(n_opt[m], axis=0, return_inverse=True)
        probs = np.array([p_random(name, tuple(int(x) for x in p)) for p in patterns])
        chance[m] = probs[inverse.ravel()]
    return GroupOutcome(keep_ok, switch_ok, chance, graded, keep, switch)
