"""The Python construction of numeric answer options, kept as the reference
for the Rust port (`steer._native.numeric_options`, rust/steer-core/src/options):
tests/test_numeric_options.py checks the Rust menus against the invariants
stated here, and tests/test_distractor_tags.py recomputes the slips.

The same steps as the port; the random stream is numpy's, so the menus of a
seed differ from the port's, never their properties.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from steer.generate._format import amount
from steer.generate._options import (
    FALLBACK_NUMERIC,
    KEY_TAG,
    MENU_TRIES,
    answer_bounds,
    min_gap,
)
from steer.generate._registry import DISTRACTORS, Instance, Resample, Solution
from steer.templates._model import GradeSpec, TemplateSpec
from steer.templates._vars import Unmet, evaluate


def numeric_options(
    rng: np.random.Generator,
    instance: Instance,
    solution: Solution,
    t: TemplateSpec,
    spec: GradeSpec,
    grade: int,
) -> tuple[list[str], list[str], int]:
    """Options (texts), tags and the key's index for a numeric answer.

    Distractors come from the template's named errors (registered distractors
    and its `wrong` table); nearby numbers that no named error produces fill
    the menu only when those run short, tagged `other`. Two blind cues are
    closed by construction: the key is the largest option in about 1/n of
    the draws and the smallest in about 1/n (never systematically either), and
    every option is shown at one precision (cents on all or none), and the
    nearby numbers take the key's form (whole or fractional). A third, the
    key's place by digits shared with the others, is drawn uniformly too
    (see `_centre_rank`): slips cluster around what they slip from.
    """
    assert solution.value is not None and spec.options is not None
    value = float(solution.value)  # plain floats: numpy scalars round and floor slowly
    scaled = abs(value) * 10.0**t.decimals
    if abs(scaled - math.floor(scaled) - 0.5) < 1e-6:
        # Half-way keys round differently by hand and in floating point.
        raise Resample("the key sits on a rounding boundary")
    key = round(value, t.decimals)
    gap = min_gap(key, grade, t.decimals)
    whole = float(key).is_integer()
    n = spec.options
    # An expectation lies between its least and greatest outcome: an option
    # outside (their sum, say) is struck on its face.
    least, most = answer_bounds(instance, t)

    def usable(value: float, taken: list[float]) -> bool:
        # A probability outside [0, 1] is struck without computing anything.
        if t.probability and not 0.0 <= value <= 1.0:
            return False
        if not least - 1e-9 <= value <= most + 1e-9:
            return False
        return not (t.nonnegative and value < 0) and all(
            abs(value - v) >= gap - 1e-12 for v in taken
        )

    made_by: list[tuple[str, float | None]] = [
        (name, DISTRACTORS[name].make(instance, solution)) for name in t.distractors
    ]
    if t.wrong:
        env = instance.data["env"]
        made_by += [(tag, _wrong_value(text, env)) for tag, text in t.wrong.items()]
    named: list[tuple[float, str]] = []
    for name, made in made_by:
        if made is None or not math.isfinite(float(made)):
            continue
        value = round(float(made), t.decimals)
        if usable(value, [key, *(v for v, _ in named)]):
            named.append((value, name))
    digits = _digits(key)
    # Only named errors with as many digits as the key, which must not stand
    # out as the long (or short) one.
    named = [c for c in named if _digits(c[0]) == digits]
    room = _room(key, digits)
    room = {-1: min(room[-1], key - least), 1: min(room[1], most - key)}
    # The key is the smallest option in 1/n of the draws, the largest in 1/n,
    # else it has at least one option on each side.
    rank = int(rng.integers(n))
    need_below = n - 1 if rank == n - 1 else min(rank, 1)
    need_above = n - 1 if rank == 0 else min(n - 1 - rank, 1)

    # Digit slips of each base, made once per question and shared by its
    # menus (each menu takes from its own copy).
    made_slips: dict[tuple[float, bool], list[tuple[float, str]]] = {}

    def slipped_digits(base: float, nearest: bool) -> list[tuple[float, str]]:
        if (base, nearest) not in made_slips:
            made_slips[base, nearest] = _digit_slips(rng, base, t.decimals, gap, nearest)
        return made_slips[base, nearest]

    def build(cap: int, slips_of: str) -> list[tuple[float, str]] | None:
        """One menu around the key at `rank`, of at most `cap` named errors,
        filled with slips of the key or of errors (`slips_of`: 'any', 'key' or
        'errors'); None when too few options."""
        # Named errors in a random order, so each gets its turn across
        # draws; those with the key's form (whole, or with a fractional
        # part) first: a key with cents among whole amounts shown as '.00'
        # would stand out.
        ordered = [named[int(i)] for i in rng.permutation(len(named))]
        ordered.sort(key=lambda c: float(c[0]).is_integer() != whole)
        # Errors on a side the menu takes none from would only fill the cap
        # and leave the menu to slips of the key.
        ordered = [c for c in ordered if (c[0] < key and need_below) or (c[0] > key and need_above)]
        ordered = ordered[:cap]
        below = [c for c in ordered if c[0] < key]
        above = [c for c in ordered if c[0] > key]
        chosen: list[tuple[float, str]] = [
            (key, KEY_TAG),
            *below[:need_below],
            *above[:need_above],
        ]
        # The second line: slips of written digits (one digit written wrong, two
        # digits swapped), made from the key or from a named error on the menu
        # (then tagged 'error+slip'): were they all slips of the key, the key
        # would be the option that shares most digits with the others. Built
        # only when named errors run short; one digit place per question where
        # it can, so the slipped options share their other digits.
        slips: dict[float, list[tuple[float, str]]] = {}
        extended: set[float] = set()  # bases whose farther slips are listed too
        slipped: list[float] = []  # values made by a slip: no base for another
        places: set[str] = set()

        def take_slip(side: int) -> bool:
            """Add a usable digit slip on `side` (0: either); False if none. A
            slip in a place already slipped first (the slipped options then share
            their other digits, so the key is no hub), the nearest slips of every
            base before the farther ones."""
            bases = [
                c
                for c in chosen
                if c[1] != FALLBACK_NUMERIC
                and c[0] not in slipped
                and (slips_of == "any" or (slips_of == "key") == (c[1] == KEY_TAG))
            ]
            if not bases:
                return False
            taken = [v for v, _ in chosen]
            order = rng.permutation(len(bases)).tolist() if len(bases) > 1 else [0]
            for same in (True, False) if places else (False,):
                for farther in (False, True):
                    for b in order:
                        base, tag = bases[b]
                        if base not in slips:
                            slips[base] = list(slipped_digits(base, True))
                        if farther and base not in extended:
                            extended.add(base)
                            slips[base] += slipped_digits(base, False)
                        for i, (made, slip) in enumerate(slips[base]):
                            if (
                                side * (made - key) >= 0
                                and (not same or _place(slip) in places)
                                and usable(made, taken)
                            ):
                                del slips[base][i]
                                places.add(_place(slip))
                                slipped.append(made)
                                chosen.append((made, slip if tag == KEY_TAG else f"{tag}+{slip}"))
                                return True
            return False

        for side, pool, need in ((-1, below, need_below), (1, above, need_above)):
            while sum(1 for v, _ in chosen if side * (v - key) > 0) < need and take_slip(side):
                pass
            # A side that cannot take more (a small nonnegative key) leaves the
            # rest to the other side.
            for attempt in range(80):
                if need <= len(pool) or sum(1 for v, _ in chosen if side * (v - key) > 0) >= need:
                    break
                made = _nearby(
                    rng, key, side, gap, t.decimals, whole, room[side] if attempt < 40 else math.inf
                )
                if made is not None and usable(made, [v for v, _ in chosen]):
                    chosen.append((made, FALLBACK_NUMERIC))
        if 0 < rank < n - 1:
            # A middle key: the other named errors fill the menu, on either side.
            spare = [c for c in ordered if c not in chosen]
            chosen += spare[: max(0, n - len(chosen))]
        if 0 < rank < n - 1:
            while len(chosen) < n and take_slip(0):
                pass
        else:
            while len(chosen) < n and take_slip(1 if rank == 0 else -1):
                pass
        for attempt in range(200):
            if len(chosen) >= n:
                break
            side = 1 if rank == 0 else -1 if rank == n - 1 else (1 if rng.random() < 0.5 else -1)
            made = _nearby(
                rng, key, side, gap, t.decimals, whole, room[side] if attempt < 100 else math.inf
            )
            if made is not None and usable(made, [v for v, _ in chosen]):
                chosen.append((made, FALLBACK_NUMERIC))
        for _ in range(100):
            if len(chosen) >= n:
                break
            made = _nearby(rng, key, 1 if rng.random() < 0.5 else -1, gap, t.decimals, whole)
            if made is not None and usable(made, [v for v, _ in chosen]):
                chosen.append((made, FALLBACK_NUMERIC))
        if len(chosen) < n or (slips_of != "any" and any(c[1] == FALLBACK_NUMERIC for c in chosen)):
            return None  # a skewed menu is worth trying only with no unnamed numbers
        return chosen

    # The key's place among the options by the digits each shares, place by
    # place, with the others (`_centre_rank`) is drawn uniformly too, and the
    # menu built up to MENU_TRIES times until the key holds it: named errors
    # such as a missed carry are digit slips of the key by nature, so most
    # menus have the key at their centre, and an agent picking the option
    # that shares most digits with the others beat chance by 10-17 points.
    # Every other try leans the menu towards the target: for a central key,
    # slips of the key only; for an outlying one, fewer named errors and
    # slips of those only, so the centre moves to an error's cluster.
    target = int(rng.integers(n))
    lean = "key" if 2 * target < n - 1 else "errors" if 2 * target > n - 1 else "any"
    chosen: list[tuple[float, str]] | None = None
    miss = n
    for attempt in range(MENU_TRIES):
        mode = lean if attempt % 2 else "any"
        menu = build(n if mode == "any" else max(1, n - 3), mode)
        if menu is None:
            continue
        low, high = _centre_rank([v for v, _ in menu], t.decimals)
        off = max(low - target, target - high, 0)
        if off < miss:
            chosen, miss = menu, off
        if not off:
            break
    if chosen is None:
        raise Resample("could not find enough distinct distractors")
    order = rng.permutation(len(chosen)).tolist()  # plain ints index faster
    values = [chosen[i][0] for i in order]
    if all(float(v).is_integer() for v in values):
        texts = [amount(v, t.unit, t.decimals) for v in values]
    else:  # one precision for every option: cents on the key alone would give it away
        texts = [_fixed(v, t.unit, t.decimals) for v in values]
    tags = [chosen[i][1] for i in order]
    problem = verify_numbers(texts, values, t.unit, gap)
    if problem:
        raise Resample(problem)
    return texts, tags, order.index(0)


def _centre_rank(values: list[float], decimals: int) -> tuple[int, int]:
    """Where the first value (the key) ranks among `values` by the digits it
    shares with the others: the lowest and highest place (0: shares most)
    it can take, ties spanning several. An option scores, over its digit
    places aligned at the decimal point, the other options with the same
    digit there: the audit's `digit-centroid` agent picks the top one."""
    texts = [f"{abs(v):.{decimals}f}" for v in values]
    width = max(len(x) for x in texts)
    scores = [0] * len(texts)
    for column in zip(*(x.rjust(width) for x in texts), strict=True):
        for i, digit in enumerate(column):
            if digit.isdigit():
                scores[i] += column.count(digit) - 1
    key = scores[0]
    above = sum(1 for s in scores if s > key)
    return above, above + sum(1 for s in scores if s == key) - 1


def _digits(x: float) -> int:
    """How many digits the whole part of `x` has (its printed length; `x` is
    already rounded to the shown decimals, so $9.85 has one, not two)."""
    return len(str(int(abs(x))))


def _fixed(x: float, unit: str, decimals: int) -> str:
    """'$20.00', '-$3.50': `decimals` places always."""
    body = f"{abs(x):,.{decimals}f}"
    return f"{'-' if x < 0 else ''}{unit}{body}"


def _nearby(
    rng: np.random.Generator,
    key: float,
    side: int,
    gap: float,
    decimals: int,
    whole: bool,
    room: float = math.inf,
) -> float | None:
    """A number 8-45% (at least one to three gaps) to one `side` of `key`,
    at most `room` away, whole when the key is whole, else with a fractional
    part; None when `room` leaves no such number."""
    low = max(gap, 0.08 * abs(key))
    high = min(max(0.45 * abs(key), 3 * gap), room)
    if high < low:
        return None
    # Plain random() draws: this runs a few times per question, and
    # Generator.uniform/integers cost several times more per call.
    value = key + side * (low + (high - low) * rng.random())
    if whole:
        return float(round(value))
    value = round(value, decimals)
    if float(value).is_integer():  # keep the key's form: nudge off the whole number
        value = round(value + side * 10.0**-decimals, decimals)
    return value


# Whole keys up to this size are counts one can miscount by a few.
COUNTED = 20
PLACES = {
    -3: "thousandths",
    -2: "hundredths",
    -1: "tenths",
    0: "units",
    1: "tens",
    2: "hundreds",
    3: "thousands",
    4: "ten_thousands",
    5: "hundred_thousands",
    6: "millions",
    7: "ten_millions",
    8: "hundred_millions",
}


def _digit_slips(
    rng: np.random.Generator, key: float, decimals: int, gap: float, nearest: bool = True
) -> list[tuple[float, str]]:
    """Slips of the key's written digits, each tagged by what it did, true by
    construction (tests/test_distractor_tags.py recomputes them):

    - `wrong_<place>_digit`: one digit of the key, at that place, written as
      another digit (no carry: every other digit is the key's);
    - `swapped_<higher>_and_<place>_digits`: two neighbouring digits of the
      key exchanged (never across the decimal point);
    - `counted_<k>_over` / `counted_<k>_under`: a whole key up to COUNTED
      miscounted by k = one, two or three.

    Only slips that keep the key's form: as many whole digits (no new or
    dropped leading digit), the sign, a whole part of 0 left at 0 (a share
    stays below 1), a fractional key fractional and a whole key whole.
    `nearest`: at each place the smallest digit change at least `gap` from
    the key, and the swaps; else the larger changes and the miscounts. In a
    seeded order.
    """
    if decimals > 3 or not math.isfinite(key):
        return []
    sign = -1.0 if key < 0 else 1.0
    text = f"{abs(key):.{decimals}f}"
    whole_part, _, frac_part = text.partition(".")
    digits = [int(c) for c in whole_part + frac_part]
    n_whole = len(whole_part)
    top = n_whole - 1  # the power of ten of the leading digit
    if top > max(PLACES):
        return []
    size = abs(float(text))
    nonzero = sum(1 for d in digits if d)
    frac_nonzero = sum(1 for d in digits[n_whole:] if d)

    def keeps_form(i: int, d: int) -> bool:
        """Is the key with digit i written as d still of the key's form?"""
        if i == 0 and ((n_whole > 1 and d == 0) or (decimals and whole_part == "0" and d)):
            return False  # a dropped or new leading digit; a share at 1 or more
        if sign < 0 and nonzero - (digits[i] != 0) + (d != 0) == 0:
            return False  # -1 slipped to 0 has lost its sign
        if i >= n_whole:  # a fractional key stays fractional, a whole one whole
            return (frac_nonzero - (digits[i] != 0) + (d != 0) > 0) == (frac_nonzero > 0)
        return True

    made: list[tuple[float, str]] = []
    for i, d0 in enumerate(digits):
        power = top - i
        step = 10.0**power
        if 9 * step < gap - 1e-12:
            continue  # no change in this place is far enough from the key
        need = max(1, math.ceil(gap / step - 1e-9))
        tag = f"wrong_{PLACES[power]}_digit"
        for direction in (-1, 1):
            for change in (need,) if nearest else range(need + 1, 10):
                d = d0 + direction * change
                if not 0 <= d <= 9:
                    break
                if keeps_form(i, d):
                    made.append((sign * (size + direction * change * step), tag))
        if nearest and i > 0 and d0 != digits[i - 1] and power != -1:
            # Digits i-1 and i exchanged: the higher place gains (d0 - d[i-1]) tens.
            swap = (d0 - digits[i - 1]) * (10 * step - step)
            if (i - 1 > 0 or d0 != 0 or n_whole == 1) and abs(swap) >= gap - 1e-12:
                name = f"swapped_{PLACES[power + 1]}_and_{PLACES[power]}_digits"
                made.append((sign * (size + swap), name))
    if not nearest and decimals == 0 and abs(key) <= COUNTED:
        # A small count miscounted: the one slip that may change the digit
        # count (9 counted two over is 11); one that only rewrites the units
        # digit is left to `wrong_units_digit`.
        for k, word in ((1, "one"), (2, "two"), (3, "three")):
            for value, name in (
                (key + k, f"counted_{word}_over"),
                (key - k, f"counted_{word}_under"),
            ):
                units = digits[-1] + abs(value) - size
                if k >= gap - 1e-12 and (value < 0) == (key < 0) and not 0 <= units <= 9:
                    made.append((value, name))
    order = rng.permutation(len(made)).tolist() if len(made) > 1 else [0] * len(made)
    return [(round(made[j][0], decimals), made[j][1]) for j in order]


def _place(slip: str) -> str:
    """'wrong_tens_digit', 'swapped_tens_digits' -> 'tens'."""
    return slip.split("_", 1)[1].rsplit("_", 1)[0]


def _room(key: float, digits: int) -> dict[int, float]:
    """How far below (-1) and above (+1) `key` a number keeps its digits."""
    if key < 0:
        return {-1: math.inf, 1: math.inf}
    low = 0.0 if digits == 1 else 10.0 ** (digits - 1)
    return {-1: key - low, 1: 10.0**digits - 0.5 - key}


def _wrong_value(text: str, env: dict[str, float]) -> float | None:
    try:
        return evaluate(text, env)
    except Unmet:
        return None


def verify_numbers(texts: list[str], values: list[float], unit: str, gap: float) -> str | None:
    """Each option reads back as its rounded value, and options are `gap` apart."""
    for text, value in zip(texts, values, strict=True):
        body = text.replace(unit, "", 1) if unit else text
        if abs(float(body.replace(",", "")) - value) > 1e-9 * max(1.0, abs(value)):
            return f"option {text!r} does not show {value}"
    ordered = sorted(values)
    if any(b - a < gap - 1e-9 for a, b in itertools.pairwise(ordered)):
        return "two options are closer than the grade's tolerance"
    return None
